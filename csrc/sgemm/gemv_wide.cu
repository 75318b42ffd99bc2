/*
 * sgemm/gemv_wide.cu -- the instances of gemv_wide.cuh's kernel (M = 1..4 rows at 1 column a lane, M = 1 also at 4,
 * the three layouts of its Red tile) and their dispatch; gemv.cu's launcher calls it with the route's grid and slices.
 */
#include <cuda_runtime.h>

#include "layout.h"
#include "sgemm/gemv.h"
#include "sgemm/gemv_wide.cuh"

namespace smk {

template <int M, int V>
static int wide_layout(const smk_sgemm_params &q, dim3 grid, const SgemmSlice &sl, const SgemvTail &t, cudaStream_t st)
{
    switch (q.layout) {
    case SMK_NAIVE: sgemv_wide_kernel<M, V, SMK_NAIVE><<<grid, kGemvThreads, 0, st>>>(q, sl, t); break;
    case SMK_PAD: sgemv_wide_kernel<M, V, SMK_PAD><<<grid, kGemvThreads, 0, st>>>(q, sl, t); break;
    case SMK_SWIZZLE: sgemv_wide_kernel<M, V, SMK_SWIZZLE><<<grid, kGemvThreads, 0, st>>>(q, sl, t); break;
    default: return (int)cudaErrorInvalidValue;
    }
    return (int)cudaSuccess;
}

static int wide_rows(const smk_sgemm_params &q, dim3 grid, const SgemmSlice &sl, const SgemvTail &t, cudaStream_t st)
{
    switch (q.M) {
    case 1: return wide_layout<1, 1>(q, grid, sl, t, st);
    case 2: return wide_layout<2, 1>(q, grid, sl, t, st);
    case 3: return wide_layout<3, 1>(q, grid, sl, t, st);
    case 4: return wide_layout<4, 1>(q, grid, sl, t, st);
    default: return (int)cudaErrorInvalidValue;
    }
}

int sgemv_wide_launch(const smk_sgemm_params &q, const SgemvRoute &r, dim3 grid, const SgemmSlice &sl,
                      const SgemvTail &t, cudaStream_t st)
{
    if (t.counters != NULL && grid.y > (unsigned)wide_max_splits((int)q.M, r.g)) return (int)cudaErrorInvalidValue; /* the tail */
    if (r.g == 4) return q.M == 1 ? wide_layout<1, 4>(q, grid, sl, t, st) : (int)cudaErrorInvalidValue;
    if (r.g == 1) return wide_rows(q, grid, sl, t, st);
    return (int)cudaErrorInvalidValue;
}

} /* namespace smk */
