/* The tensor-core GEMM's kernels for the Swizzle<2,3,3> layout: every configuration of tiles.h,
 * both dtypes, both load paths (instantiate.cuh). */
#define SMK_G16_LAYOUT SMK_SWIZZLE
#define SMK_G16_SID 2
#include "instantiate.cuh"
