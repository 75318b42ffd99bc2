/* The wgmma shared-memory read probe (issue 29): one warpgroup issues the Hopper GEMM's own k-tile of
 * wgmma.mma_async m64n256k16 (csrc/hopper/kernel.cuh a_desc / b_desc: the kernel's descriptors, not a
 * copy of them) `reps` times, for Nsight Compute to count what wgmma's descriptor reads cost per mode.
 *
 *   nvcc -O3 -std=c++17 -arch=sm_90a -Icsrc -o wgmma_probe bench/bank_probe/wgmma_probe.cu
 *   ncu --clock-control none --print-units base -k regex:smk_wgmma_probe --csv --metrics ... ./wgmma_probe
 *
 * Kinds:  ab  A and B from shared memory (mma_tile: what the GEMM issues per k-tile and warpgroup)
 *         b   the same B descriptors, A from registers: B's reads alone (A's = ab - b)
 * Every (mode, kind, cw) is launched with reps = 1 and reps = 2 so that the difference of the two
 * counts is one k-tile's (4 wgmmas') exactly, whatever the launch itself adds.  One block of 128
 * threads; the stage is zeroed with STS first (a constant per launch, cancelled by the difference).
 * Prints the launch list (mode kind cw reps), one line per launch, in launch order. */
#include <cstdio>
#include <cstdlib>

#include "hopper/kernel.cuh"

namespace smk {
namespace hop {

/* D(64x256) += A(64x16 from registers) * B(16x256, N-major, from shared memory through db). */
__device__ __forceinline__ void wgmma_n256_areg(float (&d)[128], const uint32_t (&a)[4], uint64_t db)
{
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %133, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16 " SMK_WG_D128
                 ", {%128, %129, %130, %131}, %132, p, 1, 1, 1;\n}"
                 : SMK_WG_OPS128(d)
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db), "r"(1)
                 : "memory");
}

template <int SWB, int KIND>
__global__ void __launch_bounds__(128, 1) smk_wgmma_probe(int reps, int cw, float *sink)
{
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    using C = Cfg<SWB>;
    extern __shared__ unsigned char smem_raw[];
    const uint32_t a = (smem_u32(smem_raw) + 1023u) & ~1023u, b = a + C::A_BYTES;
    for (int i = threadIdx.x; i < C::STAGE / 16; i += blockDim.x)
        asm volatile("st.shared.v4.b32 [%0], {%1, %1, %1, %1};" ::"r"(a + 16 * i), "r"(0) : "memory");
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory"); /* generic-proxy writes -> wgmma */
    __syncthreads();
    float d[128];
#pragma unroll
    for (int i = 0; i < 128; i++)
        d[i] = 0.f;
    const uint32_t areg[4] = {0, 0, 0, 0};
    for (int r = 0; r < reps; r++) {
        wg_fence();
        if (KIND == 0) {
            mma_tile<SWB, false>(d, a, b, cw);
        } else {
#pragma unroll
            for (int kk = 0; kk < C::BK / 16; kk++)
                wgmma_n256_areg(d, areg, b_desc<SWB>(b, kk));
        }
        wg_commit();
        wg_wait<0>();
    }
    fence_acc(d);
    float s = 0.f;
#pragma unroll
    for (int i = 0; i < 128; i++)
        s += d[i];
    if (s != 0.f) /* never (zeros in, zeros out): keeps the wgmmas live */
        sink[threadIdx.x] = s;
#else
    __trap();
#endif
}

} /* namespace hop */
} /* namespace smk */

#define CHECK(x)                                                                                 \
    do {                                                                                         \
        cudaError_t e_ = (x);                                                                    \
        if (e_ != cudaSuccess) {                                                                 \
            fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_));  \
            return 1;                                                                            \
        }                                                                                        \
    } while (0)

template <int SWB, int KIND>
static int run(float *sink)
{
    using namespace smk::hop;
    const int smem = Cfg<SWB>::STAGE + 1024;
    CHECK(cudaFuncSetAttribute(smk_wgmma_probe<SWB, KIND>, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    for (int cw = 0; cw < 2; cw++)
        for (int reps = 1; reps <= 2; reps++) {
            smk_wgmma_probe<SWB, KIND><<<1, 128, smem>>>(reps, cw, sink);
            CHECK(cudaGetLastError());
            CHECK(cudaDeviceSynchronize());
            printf("%d %s %d %d\n", SWB, KIND ? "b" : "ab", cw, reps);
        }
    return 0;
}

int main()
{
    float *sink = NULL;
    CHECK(cudaMalloc(&sink, 128 * sizeof(float)));
    int rc = run<128, 0>(sink) || run<128, 1>(sink) || run<64, 0>(sink) || run<64, 1>(sink) || run<32, 0>(sink) ||
             run<32, 1>(sink) || run<0, 0>(sink) || run<0, 1>(sink);
    CHECK(cudaFree(sink));
    return rc;
}
