/* sgemm/launch.h -- what crosses from the SGEMM launcher (launch.cu) to the translation units that
 * hold the kernels (tile_naive.cu, tile_pad.cu, tile_swizzle.cu, skinny.cu, tinyk.cu): the K range of a launch and
 * one launch function per kernel instantiation, explicitly instantiated there for every row of the
 * config table (configs.h).  Host C++; kernels include it for SgemmSlice. */
#ifndef SMK_SGEMM_LAUNCH_H
#define SMK_SGEMM_LAUNCH_H

#include <cuda_runtime.h>
#include <stdint.h>

#include "api/sgemm.h"

namespace smk {

/* The K range of a launch (split-K is a launch-level choice): block (x, z) with z = blockIdx.y
 * multiplies k in [z * k_chunk, min(K, (z + 1) * k_chunk)) and writes its tile to D + z * d_stride.
 * One slice: k_chunk >= K, d_stride 0 (the plain GEMM).  Several: D is the fp32 workspace, alpha 1,
 * beta 0, and sgemm_reduce_kernel finishes the job.  k_chunk is a multiple of BK, so a slice's
 * k-tiles are the GEMM's own k-tiles and only the last slice has a ragged end. */
struct SgemmSlice {
    int k_chunk;
    int64_t d_stride;
};

/* The A/B switch of issue 27's paths (smk_sgemm_set_new_paths, launch.cu), a level: 9 (opt-in) level 8 and the short
 * tile past M = 32 where M mod 64 is 1..32; 8 (opt-in) level 7 and the matvec rows for M <= 8 (matvec.cuh, choose.cu);
 * 7 (the default) level 6 with
 * the skinny-n "/pf" rows' scalar A loads allocating in L1 (skinny.cu, skinny_n.cuh RA 2); 6 level 5 with
 * skinny-n priced by waves (its split; none for K under one k-tile: choose.cu sgemm_skinny_n6_ns); 5 level 4 and
 * the skinny rows whose warps load the next batch of the streamed operand before this one's FMAs
 * (skinny-m/pf, skinny-n/pf in place of skinny-m, skinny-n; choose.cu);
 * 4 (opt-in) level 3
 * and the short tile for 8 < M <= 16, no skinny-n for K <= 16 (choose.cu; decided on forced probes, not
 * yet measured as the chooser's choice); 3 (default) all measured ones (2 and below, and: the 32x128x16
 * short tile for 16 < M <= 32, skinny-n grids under a wave split, the tiny-K row chosen by grid fill,
 * skinny-n back on its scalar path for rows off 16 bytes); 2 with the matrix-vector rows below; 1 the re-aligned streams of the skinny kernels on rows off 16 bytes, the tiny-K kernel in the
 * automatic choice and the padded tile path, without the matrix-vector rows (skinny-m16 / skinny-m32,
 * one M tile per skinny-m launch); 0 the paths before them.  Non-zero: the re-aligned streams. */
int sgemm_new_paths();
/* The knob sgemm_narrow (launch.cu g_narrow): 1 offers skinny-n16 / skinny-n32 to the chooser (choose.cu). */
int sgemm_narrow();

/* Launch one kernel instantiation on a validated, normalised q (M, N > 0) over `splits` K slices
 * (grid (tiles, splits)); returns a cudaError_t.  Defined in tile.cuh / skinny.cu. */
template <class Cfg, int LAYOUT, bool VEC>
int tile_launch_cfg(const smk_sgemm_params &q, const SgemmSlice &slice, int splits, cudaStream_t stream);
template <class Cfg, int LAYOUT, bool VEC>
int tinyk_launch_cfg(const smk_sgemm_params &q, const SgemmSlice &slice, int splits, cudaStream_t stream);
template <class Cfg, int LAYOUT, bool VEC>
int skinny_launch_cfg(const smk_sgemm_params &q, const SgemmSlice &slice, int splits, cudaStream_t stream);

} /* namespace smk */

#endif
