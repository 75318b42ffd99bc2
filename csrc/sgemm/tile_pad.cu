/* sgemm/tile_pad.cu -- the tile kernel (tile.cuh) of every TILE row of configs.h, pad layout, both
 * VEC paths.  One translation unit per layout: the three compile in parallel. */
#include "sgemm/tile.cuh"

namespace smk {
#define SMK_SGEMM_ROW(NAME, KIND, ARGS, COST) SMK_SGEMM_TILE_INSTANCES_##KIND(SMK_PAD, ARGS)
SMK_SGEMM_CONFIGS(SMK_SGEMM_ROW)
} /* namespace smk */
