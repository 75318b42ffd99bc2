/* AsyncLoad: the tensor-core GEMM's load path for 16-byte-aligned rows (included by kernel.cuh); with
 * NARROW, rows aligned to 4 or 8 bytes copied by narrow cp.async (load_narrow.cuh), the rest the same.
 * Global -> shared with 16-byte cp.async into STAGES buffers; one __syncthreads per k-tile, at its last
 * k step: wait for tile kt+1, sync, prefetch tile kt+1's first fragments, then the last MMAs of tile
 * kt; the top of the next tile refills the stage tile kt used.  The fragment prefetch and the
 * interior fast path are measured in docs/GEMM16_NOTES.md ("History" under the first benchmark table,
 * and "What limits 4096^3: ncu, one step"). */
#ifndef SMK_GEMM16_LOAD_ASYNC_CUH
#define SMK_GEMM16_LOAD_ASYNC_CUH

namespace smk {
namespace g16 {

template <class C, class S, bool NARROW = false>
struct AsyncLoad : CopyMap<C, S> {
    using Base = CopyMap<C, S>;
    using Base::A_STEP; using Base::B_STEP; using Base::A_PITCH; using Base::P_PITCH;
    using Base::A; using Base::B; using Base::K; using Base::m0; using Base::kc; using Base::kb0; using Base::nc;
    using Base::a_rows; using Base::a_src; using Base::a_jstride; using Base::b_nv; using Base::b_src;
    using Base::b_jstride; using Base::b_step; using Base::a_dst; using Base::b_dst;
    bool interior; /* the block's tile lies inside M x N (and C::FAST): whole k-tiles take load_interior */
    int kt_full;   /* k-tiles wholly inside K */
    const char *a_base, *b_base; /* interior: chunk 0's rows at k = 0 */
    int64_t a_jbytes, b_jbytes, b_tbytes;
    int wa, wb; /* NARROW: the copy width of A's / B's rows, 4, 8 or 16 bytes (load_narrow.cuh) */

    __device__ __forceinline__ AsyncLoad(const smk_gemm16_params &p, int tid, int64_t bm, int64_t bn, int fu)
        : Base(p, tid, bm, bn)
    {
        wa = NARROW ? fu & 31 : 16;
        wb = NARROW ? (fu >> 8) & 31 : 16;
        interior = C::FAST && bm + C::BM <= p.M && bn + C::BN <= p.N;
        kt_full = (int)(K / C::BK);
        a_base = (const char *)(interior ? A + (bm + m0) * p.lda + kc : A);
        b_base = (const char *)(interior ? B + (int64_t)kb0 * p.ldb + bn + nc : B);
        a_jbytes = a_jstride * 2;
        b_jbytes = b_jstride * 2;
        b_tbytes = b_step * 2;
    }

    /* Interior blocks on k-tiles wholly inside K (nearly every tile of a large GEMM): every chunk is 16
     * in-range bytes, so one plain cp.async each, addresses from per-thread base pointers -- no
     * predicate, select or src-size (the general path costs ~250 integer instructions per warp per
     * k-tile beside 128 HMMA: docs/GEMM16_NOTES.md, "What limits 4096^3: ncu, one step"). */
    __device__ __forceinline__ void load_interior(unsigned base, int kt) const
    {
        const char *pa = a_base + (int64_t)kt * (C::BK * 2), *pb = b_base + (int64_t)kt * b_tbytes;
#pragma unroll
        for (int j = 0; j < C::A_CHUNKS; j++)
            cp_async16_full(base + a_dst + j * A_STEP * A_PITCH * 2, pa + j * a_jbytes);
#pragma unroll
        for (int j = 0; j < C::B_CHUNKS; j++)
            cp_async16_full(base + b_dst + j * B_STEP * P_PITCH * 2, pb + j * b_jbytes);
    }

    /* Elsewhere: a chunk whose rows (A: m >= M) or columns (B: n >= N) are all outside the matrix is not
     * copied at all -- those tile rows / columns only feed outputs that are never stored, so whatever
     * the stage holds there is harmless; a chunk inside M and N but past K is zeroed with a st.shared
     * (it is multiplied into kept outputs); a chunk partly past K or N is a cp.async whose src-size
     * zero-fills the rest. */
    __device__ __forceinline__ void load_edge(unsigned base, int kt) const
    {
        const int64_t k0 = (int64_t)kt * C::BK, kl = K - k0 - kc;
        const int kv = Base::k_valid(kl);
#pragma unroll
        for (int j = 0; j < C::A_CHUNKS; j++) {
            const unsigned dst = base + a_dst + j * A_STEP * A_PITCH * 2;
            if (j * A_STEP < a_rows) {
                if (kv > 0)
                    cp_async16(dst, a_src + k0 + j * a_jstride, kv * 2);
                else
                    sts128(dst, make_uint4(0u, 0u, 0u, 0u));
            }
        }
#pragma unroll
        for (int j = 0; j < C::B_CHUNKS; j++) {
            const unsigned dst = base + b_dst + j * B_STEP * P_PITCH * 2;
            if (b_nv > 0) {
                if (k0 + kb0 + j * B_STEP < K)
                    cp_async16(dst, b_src + kt * b_step + j * b_jstride, b_nv * 2);
                else
                    sts128(dst, make_uint4(0u, 0u, 0u, 0u));
            }
        }
    }

    /* NARROW: A's chunks of k-tile kt at width W (load_narrow.cuh); whole = load_interior's case,
     * else load_edge's rules (chunks outside M not copied, past K zeroed, partly past K zero-filled). */
    template <int W>
    __device__ __forceinline__ void narrow_a(unsigned base, int kt, bool whole) const
    {
        if (whole) {
            const char *pa = a_base + (int64_t)kt * (C::BK * 2);
#pragma unroll
            for (int j = 0; j < C::A_CHUNKS; j++)
                chunk_full<W>(base + a_dst + j * A_STEP * A_PITCH * 2, pa + j * a_jbytes);
            return;
        }
        const int64_t k0 = (int64_t)kt * C::BK;
        const int kv = Base::k_valid(K - k0 - kc);
#pragma unroll
        for (int j = 0; j < C::A_CHUNKS; j++) {
            const unsigned dst = base + a_dst + j * A_STEP * A_PITCH * 2;
            if (j * A_STEP < a_rows) {
                if (kv > 0)
                    chunk_part<W>(dst, (const char *)(a_src + k0 + j * a_jstride), kv * 2);
                else
                    sts128(dst, make_uint4(0u, 0u, 0u, 0u));
            }
        }
    }
    /* NARROW: B's chunks of k-tile kt at width W, as narrow_a */
    template <int W>
    __device__ __forceinline__ void narrow_b(unsigned base, int kt, bool whole) const
    {
        if (whole) {
            const char *pb = b_base + (int64_t)kt * b_tbytes;
#pragma unroll
            for (int j = 0; j < C::B_CHUNKS; j++)
                chunk_full<W>(base + b_dst + j * B_STEP * P_PITCH * 2, pb + j * b_jbytes);
            return;
        }
        const int64_t k0 = (int64_t)kt * C::BK;
#pragma unroll
        for (int j = 0; j < C::B_CHUNKS; j++) {
            const unsigned dst = base + b_dst + j * B_STEP * P_PITCH * 2;
            if (b_nv > 0) {
                if (k0 + kb0 + j * B_STEP < K)
                    chunk_part<W>(dst, (const char *)(b_src + kt * b_step + j * b_jstride), b_nv * 2);
                else
                    sts128(dst, make_uint4(0u, 0u, 0u, 0u));
            }
        }
    }
    /* NARROW: k-tile kt at each operand's width (one uniform branch per operand per k-tile) */
    __device__ __forceinline__ void load_narrow(unsigned base, int kt) const
    {
        const bool whole = interior && kt < kt_full;
        if (wa == 4)
            narrow_a<4>(base, kt, whole);
        else if (wa == 8)
            narrow_a<8>(base, kt, whole);
        else
            narrow_a<16>(base, kt, whole);
        if (wb == 4)
            narrow_b<4>(base, kt, whole);
        else if (wb == 8)
            narrow_b<8>(base, kt, whole);
        else
            narrow_b<16>(base, kt, whole);
    }

    /* k-tile kt into stage st */
    __device__ __forceinline__ void load(unsigned sbase, int kt, int st) const
    {
        const unsigned base = sbase + (unsigned)(st * S::STAGE_ELEMS * 2);
        if constexpr (NARROW) {
            load_narrow(base, kt);
            return;
        }
        if (interior && kt < kt_full) {
            load_interior(base, kt);
            return;
        }
        load_edge(base, kt);
    }

    /* tiles 0 .. STAGES-2 in flight */
    __device__ __forceinline__ void prologue(unsigned sbase, int KT) const
    {
#pragma unroll
        for (int s = 0; s < C::STAGES - 1; s++) {
            if (s < KT)
                load(sbase, s, s);
            cp_async_commit();
        }
        cp_async_wait<C::STAGES - 2>();
    }

    /* At the top of tile kt every warp has read tile kt-1 into registers (the barrier at the end of tile
     * kt-1 came after its last fragment loads), so tile kt+STAGES-1 goes into that stage.  Fragments
     * are double-buffered one k step ahead; the last step of a tile waits for tile kt+1, syncs, and
     * prefetches tile kt+1's first fragments before its own MMAs. */
    template <class W>
    __device__ __forceinline__ void mainloop(W &w, unsigned sbase, int KT) const
    {
        constexpr int KS = W::KS;
        static_assert(KS % 2 == 0, "fragment double buffer: tile kt+1's first step lands in buffer 0");
        int st = 0;
        __syncthreads();
        if (KT > 0)
            w.load_frags(sbase, 0, 0, 0);
        for (int kt = 0; kt < KT; kt++) {
            {
                const int nt = kt + C::STAGES - 1, nst = st == 0 ? C::STAGES - 1 : st - 1;
                if (nt < KT)
                    load(sbase, nt, nst);
                cp_async_commit();
            }
            const int st_next = st + 1 == C::STAGES ? 0 : st + 1;
#pragma unroll
            for (int ks = 0; ks < KS; ks++) {
                if (ks + 1 < KS) {
                    w.load_frags(sbase, st, ks + 1, (ks + 1) & 1);
                } else {
                    cp_async_wait<C::STAGES - 2>();
                    __syncthreads();
                    if (kt + 1 < KT)
                        w.load_frags(sbase, st_next, 0, 0);
                }
                w.step(ks & 1);
            }
            st = st_next;
        }
        cp_async_wait<0>();
    }

    /* the whole k loop: prologue, then the main loop */
    template <class W>
    __device__ __forceinline__ void run(W &w, unsigned sbase, int KT) const
    {
        prologue(sbase, KT);
        mainloop(w, sbase, KT);
    }
};

} /* namespace g16 */
} /* namespace smk */

#endif
