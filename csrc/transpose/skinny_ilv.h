/*
 * transpose/skinny_ilv.h -- the interleaving skinny kernel's geometry (skinny_ilv.cuh; configs.h skinny_ilv_fits):
 * case A (rows = S <= 16 <= cols) of 1- and 2-byte matrices, where the output is S input rows interleaved.
 * Plain C++ shared by the kernel, its launcher (ilv.cu) and explain()'s replay (skinny_ilv_plan.h).
 *
 * A lane takes 16 bytes of each of the S input rows (C = 16 / esz columns) and forms, with byte permutes in registers,
 * the 16 S contiguous output bytes of those columns: S 16-byte chunks.  A warp's 32 S chunks go through shared memory
 * (lane l's chunk i at linear unit q = 32 S w + S l + i of the block's tile: S stores whose lanes are S units apart),
 * then out in order (lane l moves unit 32 S w + 32 k + l: S loads of consecutive units) as whole 16-byte stores.
 *
 * The staging tile is layout.h's, of 16-byte units in rows of 2^lc (ilv_tile).  Lanes S units apart put 2^min(ctz S, 3)
 * of a phase's 8 lanes on one 16-byte slot: naive is conflict-free for odd S, 2-way for S = 2 mod 4 and 8-way for
 * S = 8, 16 (the A/B's point).  Swizzle: rows of 2^ctz(S) units, layout.h's automatic Swizzle (the slot
 * XORs the bank row's low bits, or the row's when 2^ctz >= 8): no conflict on the stores or the loads for any S.
 * Pad: one unit after every 2^lc, lc = 3 for S = 2, 4, 8 and 4 for S = 16 (no conflict), lc = ctz(S) for S = 6, 10,
 * 12, 14 (the stores free, the in-order loads 2-way: a pad can make lanes S units apart distinct or consecutive units
 * distinct, not both), and for odd S one row spanning the tile (no padding inside it: odd strides need none).  The
 * bank model's replay of those accesses (bank_model.replay, width 16) gave these counts for S = 1..16, 4 warps.
 */
#ifndef SMK_TRANSPOSE_SKINNY_ILV_H
#define SMK_TRANSPOSE_SKINNY_ILV_H

#include <cstdint>
#include <cuda_runtime.h>

#include "layout.h"
#include "api/transpose.h"

constexpr int kIlvThreads = 128;           /* 4 warps a block, each on its own 32 S units: no block barrier */
constexpr int kIlvWarps = kIlvThreads / 32;

/* Count of trailing zero bits of s >= 1, and ceil(log2 x) for x >= 1 (loops: called at run time on the host too). */
SMK_HD int ilv_ctz(int s)
{
    int z = 0;
    while (!(s >> z & 1))
        z++;
    return z;
}

SMK_HD int ilv_clog2(int x)
{
    int l = 0;
    while ((1 << l) < x)
        l++;
    return l;
}

/* log2 units a row of the staging tile, by layout and S (the header says why). */
SMK_HD int ilv_log2_cols(int layout, int s)
{
    const int z = ilv_ctz(s);
    if (layout == SMK_SWIZZLE)
        return z;
    if (layout == SMK_PAD)
        return (s & 1) ? ilv_clog2(kIlvWarps * 32 * s) : (s & (s - 1)) == 0 ? (z > 3 ? z : 3) : z;
    return 0; /* naive: the map is the identity whatever the rows */
}

/* The block's staging tile: 16-byte units (esz 16, vec 1) in rows of 2^ilv_log2_cols. */
SMK_HD smk_tile ilv_tile(int layout, int s)
{
    return smk_tile{layout, ilv_log2_cols(layout, s), 0, 4, 0, 0, 0};
}

/* Shared bytes of a block: the units its 4 * 32 * S map to.  Pad's map grows with the unit, so its last unit's place
 * + 1 (odd S: the units of one row, no row's pad -- whole rows cost odd S 9..15 0.89 of naive's speed, by occupancy:
 * H200, session 58); the swizzle permutes the units of aligned blocks of 2^(lc + 3) (or 2^(3 + lc) below 8 a row),
 * which 128 S units fill whole, so 128 S. */
SMK_HD int ilv_smem_bytes(int layout, int s)
{
    const int units = kIlvWarps * 32 * s;
    return 16 * (layout == SMK_PAD ? smk_tile_linear(ilv_tile(layout, s), units - 1) + 1 : units);
}

/* Columns a warp moves (32 lanes of 16 / esz) and a block. */
SMK_HD int ilv_warp_cols(int esz) { return 32 * 16 / esz; }
SMK_HD int ilv_block_cols(int esz) { return kIlvWarps * ilv_warp_cols(esz); }

/* Head columns of a matrix whose output starts at byte address ob: the fewest h >= 0 with ob + h S esz on 16 bytes
 * (its first h columns go element by element, the rest in whole warps from a 16-byte boundary); -1 if none (the
 * launcher's condition: ob a multiple of gcd(S esz, 16)). */
SMK_HD int ilv_head(uint64_t ob, int s, int esz)
{
    for (int h = 0; h < 16; h++)
        if ((ob + (uint64_t)h * s * esz) % 16 == 0)
            return h;
    return -1;
}

/* The launches (ilv.cu): cudaErrorInvalidValue where the kernel does not take the call (skinny_ilv_fits and the bases;
 * skinny_dlv_fits and element-aligned bases). */
cudaError_t smk_skinny_ilv_launch(const smk_transpose_params *p, int64_t batch, int layout, cudaStream_t stream);
cudaError_t smk_skinny_dlv_launch(const smk_transpose_params *p, int64_t batch, int layout, cudaStream_t stream);

#endif /* SMK_TRANSPOSE_SKINNY_ILV_H */
