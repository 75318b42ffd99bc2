/* sgemm/tile_deep.cu -- the deep-pipeline tile kernel (tile_deep.cuh) of the TILE rows of configs.h that have
 * one (deep.h sgemm_has_deep), every layout, both VEC paths. */
#include "sgemm/tile_deep.cuh"

namespace smk {
#define SMK_SGEMM_ROW(NAME, KIND, ARGS, COST)                                                               \
    SMK_SGEMM_DEEP_INSTANCES_##KIND(SMK_NAIVE, ARGS) SMK_SGEMM_DEEP_INSTANCES_##KIND(SMK_PAD, ARGS)          \
        SMK_SGEMM_DEEP_INSTANCES_##KIND(SMK_SWIZZLE, ARGS)
SMK_SGEMM_CONFIGS(SMK_SGEMM_ROW)
} /* namespace smk */
