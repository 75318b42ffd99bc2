/* sgemm/tile_deep.cu -- the deep-pipeline tile kernel (tile_deep.cuh) of the TILE rows of configs.h that have
 * one (deep.h sgemm_has_deep) and of the half tile (deep.h SgemmHalfCfg), every layout, both VEC paths. */
#include "sgemm/tile_deep.cuh"

namespace smk {
#define SMK_SGEMM_ROW(NAME, KIND, ARGS, COST)                                                               \
    SMK_SGEMM_DEEP_INSTANCES_##KIND(SMK_NAIVE, ARGS) SMK_SGEMM_DEEP_INSTANCES_##KIND(SMK_PAD, ARGS)          \
        SMK_SGEMM_DEEP_INSTANCES_##KIND(SMK_SWIZZLE, ARGS)
SMK_SGEMM_CONFIGS(SMK_SGEMM_ROW)
/* the half tile (deep.h SgemmHalfCfg), not a row of the table */
#define SMK_SGEMM_HALF_INSTANCE(LAYOUT, VEC)                                                                 \
    template int tile_launch_deep<SgemmHalfCfg, LAYOUT, VEC>(const smk_sgemm_params &, const SgemmSlice &, int, \
                                                             cudaStream_t);
SMK_SGEMM_HALF_INSTANCE(SMK_NAIVE, true) SMK_SGEMM_HALF_INSTANCE(SMK_NAIVE, false)
SMK_SGEMM_HALF_INSTANCE(SMK_PAD, true) SMK_SGEMM_HALF_INSTANCE(SMK_PAD, false)
SMK_SGEMM_HALF_INSTANCE(SMK_SWIZZLE, true) SMK_SGEMM_HALF_INSTANCE(SMK_SWIZZLE, false)
} /* namespace smk */
