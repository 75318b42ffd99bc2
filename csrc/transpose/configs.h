/*
 * transpose/configs.h -- THE table of the transpose family's compiled configurations, and the folder's map.
 *
 * csrc/transpose/
 *   configs.h    this file: the compiled tile shapes (kConfigs) and element sizes (kWidths, with the
 *                shape each width ships); everything below is generated from these two tables
 *   unit.cuh     the unit a thread moves per element size, its sub-word register transposes (PRMT)
 *   tile.cuh     the shared tile: geometry through layout.h, thread map, row store and column read,
 *                with the bank arithmetic of naive / pad / swizzle
 *   global.cuh   the global side: Args, a block's place, the whole / odd-pitch / edge load and store paths
 *   kernel.cuh   the tiled kernel, as the parts above in order
 *   launch.cu    argument preparation, the dispatch table, the >48 KB opt-in, the C launch API
 *   plan.cu      the host replay of a block's shared accesses (smk_transpose_plan, for explain())
 *
 * Adding a tile shape: one row of kConfigs (its kernels for every layout and width, its plan and its
 * variant number follow).  Adding an element size: a Unit specialisation (unit.cuh) and a row of kWidths.
 * Adding another kernel of the family (a "skinny" kernel for a few-wide matrix, an odd-pitch-specific
 * one): its own file beside kernel.cuh (skinny.cuh, with its own parts and header comment), a Kind
 * below, a branch for that kind in launch.cu's launch_config and plan.cu's plan_config, and its rows in
 * kConfigs.  The choice of a path by shape (DALI-style: a tile only where it covers the matrix well)
 * goes in resolve() below, whose variant 0 today is the width's shipped row; launch.cu and plan.cu both
 * ask it, so explain() follows the launcher.
 */
#ifndef SMK_TRANSPOSE_CONFIGS_H
#define SMK_TRANSPOSE_CONFIGS_H

namespace {

enum Kind {
    kTiled, /* kernel.cuh: TILE x TILE units, blockDim (TILE, ROWS) */
};

struct Config {
    int kind;
    int tile, rows; /* in units: tile edge, thread rows per block */
};

/* Every compiled configuration; row v >= 1 is variant v of the benchmark's sweep (each runs all three
 * layouts).  Row 0, 64x64 units / 64x8 threads, is the shipped shape of most widths; the rest exist
 * for the sweep and for other widths.  Measured: docs/RESULTS.md, "Transpose, 8192 x 8192" and
 * "Transpose of every element width, and batches". */
constexpr Config kConfigs[] = {
    {kTiled, 64, 8},
    {kTiled, 32, 8},
    {kTiled, 64, 16},
    {kTiled, 32, 4},
    {kTiled, 32, 16},
};
constexpr int kNumConfigs = sizeof(kConfigs) / sizeof(kConfigs[0]);

/* The element sizes, and the row of kConfigs each ships (variant 0).  1 byte: 32x32 units = 128x128
 * bytes, 16 KB of planes; 2 bytes: 64x64 units = 128x128 halves, 32 KB; 16 bytes: 32x32 elements,
 * 16 KB (64x64 would need 64 KB); every other compiled shape measured within about a point or worse
 * (docs/RESULTS.md, "Transpose of every element width, and batches"). */
struct Width {
    int esz;     /* bytes */
    int shipped; /* row of kConfigs */
};
constexpr Width kWidths[] = {{1, 1}, {2, 0}, {4, 0}, {8, 0}, {16, 1}};
constexpr int kNumWidths = sizeof(kWidths) / sizeof(kWidths[0]);

/* Row of kWidths for an element size, or -1. */
inline int width_index(int esz)
{
    for (int i = 0; i < kNumWidths; i++)
        if (kWidths[i].esz == esz)
            return i;
    return -1;
}

/* Units are esz-byte elements from 4 bytes up, else 4 / esz elements on an edge (unit.cuh's E). */
inline int unit_edge(int esz) { return esz < 4 ? 4 / esz : 1; }

/* Variant 0 = the shipped row of width wi; v >= 1 = row v of kConfigs (row 0 is reached through
 * variant 0 only, for the widths that ship it).  NULL for a bad variant or width. */
inline const Config *resolve(int variant, int wi)
{
    if (variant < 0 || variant >= kNumConfigs || wi < 0)
        return nullptr;
    return &kConfigs[variant == 0 ? kWidths[wi].shipped : variant];
}

} // namespace

#endif /* SMK_TRANSPOSE_CONFIGS_H */
