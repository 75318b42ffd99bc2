/* StagedDeep: the staged load path (rows not 16-byte aligned, read in place through registers) with
 * C::DEEP k-tiles of global loads in flight per thread instead of one (knob gemm16_staged, issue #28's
 * small calls; included by kernel.cuh for the Deep<> configurations of tiles.h only).
 *
 * Why: on grids under a wave (4..132 blocks of 64x64 on 132 SMs) a block's K loop is latency: StagedLoad
 * keeps one k-tile of loads in flight and its prologue loads STAGES - 1 tiles one after another, so a
 * call of KT k-tiles waits about KT global round trips (~1 us each from DRAM: 666x12x372, 6 k-tiles, 10.4
 * us where cuBLAS takes 3.6).  Here a ring of DEEP register sets holds k-tiles DEEP tiles ahead of their
 * store: the prologue issues tiles 0 .. DEEP-1 at once, and each later round trip brings DEEP tiles.
 *
 * The registers hold the loaded 2-byte elements unpacked, one per register (a tile's A_CHUNKS + B_CHUNKS
 * chunks x 8): gather8 packs them right after its loads, and a packing instruction that consumes a load
 * makes the warp wait for it there, not at the store DEEP tiles later.  DEEP x 32 registers for 64x64
 * (four chunks), which is why Deep<> tiles are one block per SM (MINB 1): the gate takes them only where
 * the grid is under a wave, where the blocks are one per SM anyway.
 *
 * Ring: tile t is loaded into set t % DEEP, stored into stage t % STAGES at the top of iteration
 * t - (STAGES - 1) (after its barrier: every warp is done with that stage, as in StagedLoad), and the set
 * is refilled with tile t + DEEP right after.  The k loop is unrolled by DEEP so every set index is a
 * constant (registers cannot be indexed at run time). */
#ifndef SMK_GEMM16_LOAD_DEEP_CUH
#define SMK_GEMM16_LOAD_DEEP_CUH

namespace smk {
namespace g16 {

template <class C, class S>
struct StagedDeep : CopyMap<C, S> {
    using Base = CopyMap<C, S>;
    using Base::A_STEP; using Base::B_STEP; using Base::A_PITCH; using Base::P_PITCH;
    using Base::K; using Base::kc; using Base::kb0; using Base::a_rows; using Base::a_src;
    using Base::a_jstride; using Base::b_nv; using Base::b_src; using Base::b_jstride;
    using Base::b_step; using Base::a_dst; using Base::b_dst;
    static constexpr int P = C::DEEP, CH = C::A_CHUNKS + C::B_CHUNKS;
    static_assert(P >= C::STAGES - 1, "the prologue stores tiles 0 .. STAGES-2 from distinct sets");
    typedef unsigned Raw[CH][8]; /* one k-tile: chunk (A chunks, then B chunks) x element, unpacked */

    bool a_whole; /* every A chunk's row inside M */

    __device__ __forceinline__ StagedDeep(const smk_gemm16_params &p, int tid, int64_t bm, int64_t bn, int)
        : Base(p, tid, bm, bn)
    {
        a_whole = (C::A_CHUNKS - 1) * A_STEP < a_rows;
    }

    /* p[0 .. v-1] into e[0 .. v-1], zeros after (v in 0..8): the edge chunks' predicated form. */
    static __device__ __forceinline__ void load8_edge(unsigned (&e)[8], const unsigned short *p, int v)
    {
        if (v == 0) { /* rows or columns outside the matrix, or past K: no loads */
#pragma unroll
            for (int i = 0; i < 8; i++)
                e[i] = 0u;
            return;
        }
#pragma unroll
        for (int i = 0; i < 8; i++)
            e[i] = i < v ? (unsigned)__ldg(p + i) : 0u;
    }
    /* k-tile kt's in-range elements into r (the rest zero): 2-byte loads that nothing consumes before the
     * store.  Where all of a thread's A chunks (B chunks) lie inside the matrix -- every k-tile but the
     * last, on all but the edge blocks' threads -- they take one branch of plain loads off one address per
     * chunk (immediate offsets): the per-element predicate and address of the edge form are most of a
     * k-tile's instructions (ncu, 666x12x372: ~430 instructions per warp per k-tile in StagedLoad at ~7
     * cycles each, two warps per scheduler). */
    __device__ __forceinline__ void load_raw(Raw &r, int kt) const
    {
        const int64_t k0 = (int64_t)kt * C::BK;
        const int kv = Base::k_valid(K - k0 - kc);
        if (kv == 8 && a_whole) {
            const unsigned short *p = a_src + k0;
#pragma unroll
            for (int j = 0; j < C::A_CHUNKS; j++)
#pragma unroll
                for (int i = 0; i < 8; i++)
                    r[j][i] = __ldg(p + j * a_jstride + i);
        } else {
#pragma unroll
            for (int j = 0; j < C::A_CHUNKS; j++) {
                const bool ok = kv > 0 && j * A_STEP < a_rows;
                load8_edge(r[j], a_src + (ok ? k0 + j * a_jstride : 0), ok ? kv : 0);
            }
        }
        if (b_nv == 8 && k0 + kb0 + (C::B_CHUNKS - 1) * B_STEP < K) {
            const unsigned short *p = b_src + kt * b_step;
#pragma unroll
            for (int j = 0; j < C::B_CHUNKS; j++)
#pragma unroll
                for (int i = 0; i < 8; i++)
                    r[C::A_CHUNKS + j][i] = __ldg(p + j * b_jstride + i);
        } else {
#pragma unroll
            for (int j = 0; j < C::B_CHUNKS; j++) {
                const bool ok = b_nv > 0 && k0 + kb0 + j * B_STEP < K;
                load8_edge(r[C::A_CHUNKS + j], b_src + (ok ? kt * b_step + j * b_jstride : 0), ok ? b_nv : 0);
            }
        }
    }
    /* r packed into 16-byte vectors (one PRMT per element pair), stored into stage st (the same places StagedLoad stores) */
    __device__ __forceinline__ void store_raw(const Raw &r, unsigned sbase, int st) const
    {
        const unsigned base = sbase + (unsigned)(st * S::STAGE_ELEMS * 2);
#pragma unroll
        for (int j = 0; j < CH; j++) {
            const uint4 v = make_uint4(__byte_perm(r[j][0], r[j][1], 0x5410), __byte_perm(r[j][2], r[j][3], 0x5410),
                                       __byte_perm(r[j][4], r[j][5], 0x5410), __byte_perm(r[j][6], r[j][7], 0x5410));
            const unsigned off = j < C::A_CHUNKS ? a_dst + j * A_STEP * A_PITCH * 2
                                                 : b_dst + (j - C::A_CHUNKS) * B_STEP * P_PITCH * 2;
            sts128(base + off, v);
        }
    }

    /* tiles 0 .. P-1 in flight; tiles 0 .. STAGES-2 stored, each set refilled with tile s + P */
    __device__ __forceinline__ void prologue(Raw (&r)[P], unsigned sbase, int KT) const
    {
#pragma unroll
        for (int s = 0; s < P; s++)
            if (s < KT)
                load_raw(r[s], s);
#pragma unroll
        for (int s = 0; s < C::STAGES - 1; s++)
            if (s < KT) {
                store_raw(r[s], sbase, s);
                if (s + P < KT)
                    load_raw(r[s], s + P);
            }
    }

    /* Iteration kt: barrier, store tile kt + STAGES-1 (set (kt + STAGES-1) % P) into the stage tile kt-1
     * used, refill the set with tile kt + STAGES-1 + P, multiply tile kt.  kt0 steps by P, so with u
     * unrolled the set index is the constant (u + STAGES-1) % P. */
    template <class W>
    __device__ __forceinline__ void mainloop(Raw (&r)[P], W &w, unsigned sbase, int KT) const
    {
        int st = 0;
        for (int kt0 = 0; kt0 < KT; kt0 += P) {
#pragma unroll
            for (int u = 0; u < P; u++) {
                const int kt = kt0 + u;
                if (kt >= KT)
                    break;
                __syncthreads();
                {
                    const int nt = kt + C::STAGES - 1, nst = st == 0 ? C::STAGES - 1 : st - 1;
                    const int set = (u + C::STAGES - 1) % P; /* a constant once u is unrolled */
                    if (nt < KT) {
                        store_raw(r[set], sbase, nst);
                        if (nt + P < KT)
                            load_raw(r[set], nt + P);
                    }
                }
#pragma unroll
                for (int ks = 0; ks < W::KS; ks++) {
                    w.load_frags(sbase, st, ks, ks & 1);
                    w.step(ks & 1);
                }
                st = st + 1 == C::STAGES ? 0 : st + 1;
            }
        }
    }

    template <class W>
    __device__ __forceinline__ void run(W &w, unsigned sbase, int KT) const
    {
        Raw r[P];
        prologue(r, sbase, KT);
        mainloop(r, w, sbase, KT);
    }
};

} /* namespace g16 */
} /* namespace smk */

#endif
