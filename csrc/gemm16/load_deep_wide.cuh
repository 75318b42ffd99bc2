/* StagedDeepWide: StagedDeep's ring of C::DEEP k-tiles in flight (load_deep.cuh), filled with 16-byte loads:
 * each whole chunk of 8 elements (any 2-byte alignment) as the one or two 16-byte-aligned blocks around it
 * (predicated LDG.128, unaligned.cuh ldg16_if), funnel-shifted into its 16-byte vector at the store.  Knob
 * gemm16_small levels 3 / 4, the half tile only (small.h VHalfWide; gemm16_k_small.cu specialises StagedDeep
 * for it, so the layout translation units and their kernels are unchanged).
 *
 * Why: on the 64x64 deep path a call costs ~3.7 us plus ~0.9 us per k-tile (H100, seed 181: 525x168x19 3.70,
 * 121x556x82 4.80, 584x82x171 5.64, 124x215x220 7.03, 69x59x343 9.24), far more than a k-tile's MMAs or the
 * ring's round trips (4 tiles each).  A k-tile is 256 warp LDG.U16 per block, each touching 4 rows of 128
 * bytes (4..8 L1 wavefronts), eight of them over the same bytes: ~1.5k L1 cycles per k-tile on one SM.  Two
 * LDG.128 per chunk read those bytes once: a quarter of the wavefronts.
 *
 * The shift: a thread's chunks all start at the same address mod 16 (sh, even, per operand): A's chunks are
 * 32 rows (64 lda bytes) and k-tiles 128 bytes apart, B's 32 rows and 64 rows apart (64 ldb, 128 ldb bytes),
 * so sh is computed once.  Bytes read: the aligned block holding p[0] and, where sh != 0, the next one, at
 * most p[-7] .. p[14]; whole only where the chunk's row has >= 15 columns left (A: K - k0 - kc >= 15 on a
 * row inside M; B: b_fast on rows inside K), as variant 5's load8; other k-tiles of a thread take
 * StagedDeep's element loads, and a per-set flag says which form the set holds (one for both operands: a thread's edge k-tile is its last). */
#ifndef SMK_GEMM16_LOAD_DEEP_WIDE_CUH
#define SMK_GEMM16_LOAD_DEEP_WIDE_CUH

namespace smk {
namespace g16 {

template <class C, class S>
struct StagedDeepWide : StagedDeep<C, S> {
    using Deep_ = StagedDeep<C, S>;
    using Base = CopyMap<C, S>;
    using Base::A_STEP; using Base::B_STEP; using Base::K; using Base::kc; using Base::kb0; using Base::a_rows;
    using Base::a_src; using Base::a_jstride; using Base::b_nv; using Base::b_fast; using Base::b_src;
    using Base::b_jstride; using Base::b_step;
    using typename Deep_::Raw;
    using Deep_::a_whole;
    static constexpr int P = C::DEEP, CH = Deep_::CH;
    /* one ring set: the raw words, and whether its chunks hold aligned blocks (else elements) */
    struct Set {
        Raw r;
        bool wide;
    };

    unsigned sha, shb; /* byte offsets mod 16 of every A / B chunk of this thread */

    __device__ __forceinline__ StagedDeepWide(const smk_gemm16_params &p, int tid, int64_t bm, int64_t bn, int fu)
        : Deep_(p, tid, bm, bn, fu)
    {
        sha = (unsigned)((uintptr_t)a_src & 15u);
        shb = (unsigned)((uintptr_t)b_src & 15u);
    }

    /* the blocks around chunk p (sh = p mod 16): words 0..3 the block holding p[0], 4..7 the next */
    static __device__ __forceinline__ void load_blocks(unsigned (&e)[8], const unsigned short *p, unsigned sh)
    {
        const uintptr_t a = (uintptr_t)p - sh;
        const uint4 lo = ldg16_if(a, true), hi = ldg16_if(a + 16, sh != 0);
        e[0] = lo.x; e[1] = lo.y; e[2] = lo.z; e[3] = lo.w;
        e[4] = hi.x; e[5] = hi.y; e[6] = hi.z; e[7] = hi.w;
    }
    /* the 16-byte vector at byte sh of the 32 bytes in w (variant 5's funnel shift, unaligned.cuh load8) */
    static __device__ __forceinline__ uint4 funnel(const unsigned (&e)[8], unsigned sh)
    {
        unsigned w0 = e[0], w1 = e[1], w2 = e[2], w3 = e[3], w4 = e[4], w5 = e[5], w6 = e[6], w7 = e[7];
        if (sh & 8) { w0 = w2; w1 = w3; w2 = w4; w3 = w5; w4 = w6; w5 = w7; }
        if (sh & 4) { w0 = w1; w1 = w2; w2 = w3; w3 = w4; w4 = w5; }
        if (sh & 2)
            return make_uint4(__byte_perm(w0, w1, 0x5432), __byte_perm(w1, w2, 0x5432), __byte_perm(w2, w3, 0x5432),
                              __byte_perm(w3, w4, 0x5432));
        return make_uint4(w0, w1, w2, w3);
    }

    /* k-tile kt into set s: whole operands' chunks as aligned blocks, the rest as StagedDeep loads them */
    __device__ __forceinline__ void load_set(Set &s, int kt) const
    {
        const int64_t k0 = (int64_t)kt * C::BK;
        s.wide = a_whole && K - k0 - kc >= 15 && b_fast && k0 + kb0 + (C::B_CHUNKS - 1) * B_STEP < K;
        if (s.wide) {
#pragma unroll
            for (int j = 0; j < C::A_CHUNKS; j++)
                load_blocks(s.r[j], a_src + k0 + j * a_jstride, sha);
#pragma unroll
            for (int j = 0; j < C::B_CHUNKS; j++)
                load_blocks(s.r[C::A_CHUNKS + j], b_src + kt * b_step + j * b_jstride, shb);
        } else { /* an edge k-tile or thread: every chunk element by element */
            Deep_::load_raw(s.r, kt);
        }
    }
    /* set s into stage st, at the places StagedDeep stores */
    __device__ __forceinline__ void store_set(const Set &s, unsigned sbase, int st) const
    {
        if (!s.wide) {
            Deep_::store_raw(s.r, sbase, st);
            return;
        }
        const unsigned base = sbase + (unsigned)(st * S::STAGE_ELEMS * 2);
#pragma unroll
        for (int j = 0; j < CH; j++) {
            const unsigned off = j < C::A_CHUNKS ? this->a_dst + j * A_STEP * Base::A_PITCH * 2
                                                 : this->b_dst + (j - C::A_CHUNKS) * B_STEP * Base::P_PITCH * 2;
            sts128(base + off, funnel(s.r[j], j < C::A_CHUNKS ? sha : shb));
        }
    }

    /* StagedDeep's prologue and main loop over sets (the same ring, stages and barriers) */
    __device__ __forceinline__ void prologue(Set (&r)[P], unsigned sbase, int KT) const
    {
#pragma unroll
        for (int s = 0; s < P; s++)
            if (s < KT)
                load_set(r[s], s);
#pragma unroll
        for (int s = 0; s < C::STAGES - 1; s++)
            if (s < KT) {
                store_set(r[s], sbase, s);
                if (s + P < KT)
                    load_set(r[s], s + P);
            }
    }
    template <class W>
    __device__ __forceinline__ void mainloop(Set (&r)[P], W &w, unsigned sbase, int KT) const
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
                    const int set = (u + C::STAGES - 1) % P;
                    if (nt < KT) {
                        store_set(r[set], sbase, nst);
                        if (nt + P < KT)
                            load_set(r[set], nt + P);
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
        Set r[P];
        prologue(r, sbase, KT);
        mainloop(r, w, sbase, KT);
    }
};

} /* namespace g16 */
} /* namespace smk */

#endif
