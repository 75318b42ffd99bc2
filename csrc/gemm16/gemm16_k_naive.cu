/* The tensor-core GEMM's kernels for the naive layout: every configuration of tiles.h,
 * both dtypes, both load paths (instantiate.cuh). */
#define SMK_G16_LAYOUT SMK_NAIVE
#define SMK_G16_SID 0
#include "instantiate.cuh"
