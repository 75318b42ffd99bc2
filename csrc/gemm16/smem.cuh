/* The tensor-core GEMM's shared-memory tiles and thread maps, host and device (the kernel and the host
 * plan, plan.cu, both address shared memory through these: one source of truth for addresses).
 *
 * ---- Shared-memory tiles (the layout changes ONLY these maps, all from layout.h) ------------------
 *   A tile: BM rows (m) x BK columns (k), tile tA = {layout, log2 BK, vec 8, 2-byte}.
 *   B tile: BK rows (k) x BN columns (n), stored as BN/64 panels of BK x 64 (128-byte rows), each
 *           panel tile tB = {layout, 6, vec 8, 2-byte}.  Panels make every B row 128 bytes, so one
 *           swizzle argument reads the same on both tiles.
 *   pad: one 16-byte vector (8 elements) per row.  swizzle (automatic, smk_tile_swizzle): A with
 *   BK = 32 (64-byte rows) Swizzle<2,3,3>, A with BK = 64 and B (128-byte rows) Swizzle<3,3,3>.
 *   Explicit swizzles (params swz_b/m/s): <2,3,2> (the article's), <2,3,3>, <3,3,3> on both tiles.
 *
 * ---- Bank arithmetic (32 banks x 4 bytes = eight 16-byte "slots" per 128-byte bank row) ---------
 * An ldmatrix.x4 is 4 phases, one per 8x8 matrix: lanes 8q..8q+7 give the 8 row addresses (16 bytes
 * each) of matrix q; a phase is one wavefront iff its 8 rows hit 8 distinct slots.
 *   A fragment (ldmatrix.x4): matrix q reads rows m0..m0+7 (m0 = 0 mod 8) at one 16-byte k chunk kc.
 *     BK = 32, 64-byte rows: byte = 64 m + 16 kc; slot = 4 (m & 1) + kc, bank row m / 2.
 *       naive:  2 distinct slots for 8 rows -> 4-way: 4 wavefronts per phase, 16 per ldmatrix.x4.
 *       pad:    pitch 80 bytes: slot = (5 m + kc) mod 8, distinct for 8 consecutive m -> 1 per phase.
 *       Swizzle<2,3,3>: kc ^= (m >> 1) & 3 -> slot = 4 (m & 1) + (kc ^ (m>>1 & 3)): 8 distinct -> 1.
 *       Swizzle<2,3,2> (article): kc ^= m & 3 -> slot = 4 (m & 1) + (kc ^ (m & 3)); m and m + 4 give
 *               the same slot in different bank rows -> 2-way: 2 wavefronts per phase, 8 per x4.
 *       Swizzle<3,3,3>: XORs m bits 1..3 into offset bits 3..5 (kc and the row-parity bit): for 8
 *               aligned rows m bit 3 is constant -> 8 distinct slots -> 1.
 *     BK = 64, 128-byte rows: byte = 128 m + 16 kc; slot = kc, bank row m.
 *       naive:  one slot, 8 rows -> 8-way: 8 per phase, 32 per x4.
 *       pad:    pitch 144: slot = (m + kc) mod 8 -> 1.     Swizzle<3,3,3>: kc ^ (m & 7) -> 1.
 *       Swizzle<2,3,3>: kc ^ (m & 3): m and m+4 collide -> 2-way.   Swizzle<2,3,2>: XORs (m & 1,
 *               column bit 5) -> 2 distinct slots per phase -> 4-way.
 *   B fragment (ldmatrix.x4.trans): matrix q reads rows k0..k0+7 of one panel at one n chunk nc:
 *     byte = 128 k + 16 nc (panel rows are 128 bytes) -- exactly the BK = 64 A case:
 *       naive 8-way, pad 1, Swizzle<3,3,3> 1, <2,3,3> 2-way, <2,3,2> 4-way.
 *   cp.async stores (16 bytes, quarter-warp phases of 8 lanes): 8 consecutive lanes write 128
 *     contiguous logical bytes (A: two 64-byte rows or one 128-byte row; B: one panel row), which
 *     every swizzle only permutes within the bank row -> conflict-free by the shared-address rule;
 *     pad shifts each row by 16 bytes, so a quarter-warp spanning two 64-byte A rows wraps into the
 *     next bank row (2-way on one slot).  LDGSTS's shared writes are counted by ncu only in
 *     smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldgsts (not in ..._op_st), one per 64
 *     bytes at best -- the LDGSTS rule of bank_model.c, which also needs the global sources; the
 *     measured wavefronts per instruction, ldmatrix and LDGSTS, phase by phase against this
 *     arithmetic: docs/GEMM16_NOTES.md, "Which ncu counters carry the GEMM's shared traffic, and
 *     explain against them". */
#ifndef SMK_GEMM16_SMEM_CUH
#define SMK_GEMM16_SMEM_CUH

#include <stddef.h>

#include "layout.h"
#include "tiles.h"

namespace smk {
namespace g16 {

/* The tiles of a configuration: layout + swizzle id -> layout.h tiles. */
SMK_HD smk_tile a_tile(int layout, int log2_bk, int sid)
{
    return smk_tile{layout, log2_bk, 3, 1, kSwz[sid].b, kSwz[sid].m, kSwz[sid].s};
}
SMK_HD smk_tile b_tile(int layout, int sid)
{
    return smk_tile{layout, 6, 3, 1, kSwz[sid].b, kSwz[sid].m, kSwz[sid].s};
}

/* One stage = the A tile then the B panels; STAGES stages back to back. */
template <class C, int LAYOUT, int SID>
struct Smem {
    static SMK_HD smk_tile ta() { return a_tile(LAYOUT, C::LOG2_BK, SID); }
    static SMK_HD smk_tile tb() { return b_tile(LAYOUT, SID); }
    static constexpr int A_ELEMS = smk_tile_elems(a_tile(LAYOUT, C::LOG2_BK, SID), C::BM);
    static constexpr int A_PITCH = smk_tile_elems(a_tile(LAYOUT, C::LOG2_BK, SID), 1);
    static constexpr int P_PITCH = smk_tile_elems(b_tile(LAYOUT, SID), 1);
    static constexpr int PANEL_ELEMS = smk_tile_elems(b_tile(LAYOUT, SID), C::BK);
    static constexpr int B_ELEMS = PANEL_ELEMS * C::PANELS;
    static constexpr int STAGE_ELEMS = A_ELEMS + B_ELEMS;
    static constexpr size_t BYTES = (size_t)C::STAGES * STAGE_ELEMS * 2;
    /* element offsets inside one stage */
    static SMK_HD int a_off(int m, int k) { return smk_tile_offset(ta(), m, k); }
    static SMK_HD int b_off(int k, int n) { return A_ELEMS + (n >> 6) * PANEL_ELEMS + smk_tile_offset(tb(), k, n & 63); }
};

/* The staged epilogue's D tile (epilogue_rows.cuh): the block's BM x BN output in 2-byte elements, over
 * the pipeline's stages once the main loop is done.  16-byte vectors, the layout's automatic map
 * (swizzle: Swizzle<3,3,log2 BN - 3>, the 16-byte slot XORed with row & 7; explicit swizzle ids name
 * the operand tiles only).  Bank arithmetic (rows of 128, 256 or 512 bytes, whole bank rows):
 *   fragment stores (4-byte pairs): lanes (r = lane / 4 [0,7], q = lane % 4) write rows r0 + r, word q
 *     of one 16-byte slot c / 8: naive 8 rows on one slot -> 8-way (8 wavefronts); pad (pitch BN + 8:
 *     row r shifted 16 r bytes) and swizzle (slot ^ r) 8 distinct slots x 4 words -> 1.
 *   row reads (16 bytes): a quarter-warp reads 8 consecutive slots of one row = one bank row, which
 *     swizzle only permutes and pad only rotates -> 1 per phase, 4 per instruction in every layout. */
SMK_HD smk_tile d_tile(int layout, int log2_bn) { return smk_tile{layout, log2_bn, 3, 1, 0, 0, 0}; }

template <class C, int LAYOUT>
struct DTile {
    static constexpr int LOG2_BN = C::BN == 256 ? 8 : C::BN == 128 ? 7 : 6;
    static_assert((1 << LOG2_BN) == C::BN, "BN is 64, 128 or 256");
    static constexpr int CPR = C::BN / 8;               /* 16-byte slots per row = lanes per row */
    static constexpr int RPI = 32 / CPR;                /* rows per warp instruction */
    static constexpr int ITERS = C::BM / (8 * RPI);     /* row instructions per warp */
    static_assert(ITERS * 8 * RPI == C::BM, "8 warps take whole rows");
    static constexpr size_t BYTES = (size_t)smk_tile_elems(d_tile(LAYOUT, LOG2_BN), C::BM) * 2;
    static_assert(BYTES <= Smem<C, LAYOUT, 0>::BYTES, "the D tile fits in the pipeline's stages");
    static SMK_HD smk_tile t() { return d_tile(LAYOUT, LOG2_BN); }
    static SMK_HD int off(int r, int c) { return smk_tile_offset(t(), r, c); }
};

/* Thread maps shared by the kernel and the host plan. */
template <class C>
struct Map {
    /* j-th A chunk of thread tid: row m, k column kc (multiple of 8) */
    static SMK_HD void a_chunk(int j, int tid, int *m, int *k)
    {
        const int id = tid + j * C::THREADS;
        *m = id / C::KCH;
        *k = (id % C::KCH) * 8;
    }
    /* j-th B chunk: row k, column n (multiple of 8): 8 consecutive lanes fill one panel row */
    static SMK_HD void b_chunk(int j, int tid, int *k, int *n)
    {
        const int id = tid + j * C::THREADS;
        *k = id / (C::BN / 8);
        *n = (id % (C::BN / 8)) * 8;
    }
    /* ldmatrix.x4 row address of lane for A fragment mi at k step ks: m16 x k16 */
    static SMK_HD void a_ldsm(int warp, int lane, int mi, int ks, int *m, int *k)
    {
        *m = (warp / C::WARPS_N) * C::WM + mi * 16 + (lane & 15);
        *k = ks * 16 + (lane >> 4) * 8;
    }
    /* staged epilogue: the tile element of accumulator pair (mi, ni, h) of lane: row r, column c (even) */
    static SMK_HD void d_frag(int warp, int lane, int mi, int ni, int h, int *r, int *c)
    {
        *r = (warp / C::WARPS_N) * C::WM + mi * 16 + (lane >> 2) + h * 8;
        *c = (warp % C::WARPS_N) * C::WN + ni * 8 + (lane & 3) * 2;
    }
    /* staged epilogue: row instruction it of warp: lane reads tile row r, 16-byte slot k (rpi rows of
     * cpr = 32 / rpi lanes each per instruction; warp w takes rows w * rpi + 8 * rpi * it + ...) */
    static SMK_HD void d_row(int warp, int lane, int it, int cpr, int *r, int *k)
    {
        *r = (it * 8 + warp) * (32 / cpr) + lane / cpr;
        *k = lane % cpr;
    }
    /* ldmatrix.x4.trans row address for the B fragment pair nj (n8 tiles 2nj, 2nj+1) at k step ks */
    static SMK_HD void b_ldsm(int warp, int lane, int nj, int ks, int *k, int *n)
    {
        *k = ks * 16 + (lane & 15);
        *n = (warp % C::WARPS_N) * C::WN + nj * 16 + (lane >> 4) * 8;
    }
};

} /* namespace g16 */
} /* namespace smk */

#endif
