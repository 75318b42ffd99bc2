/* StagedLoad: the tensor-core GEMM's load path for rows that are not 16-byte aligned (variants 1..7;
 * included by kernel.cuh).  Each 16-byte shared vector is gathered with eight predicated 2-byte global
 * loads (variant 5: the aligned 16-byte blocks around it, funnel-shifted; unaligned.cuh) into
 * registers one k-tile ahead and stored with one 16-byte st.shared into the same layout the cp.async
 * path fills: one barrier per tile, no fragment prefetch across it (measured faster with the staging's
 * register load; variant 5 measured slower than the plain gather: docs/GEMM16_NOTES.md, the first
 * benchmark table). */
#ifndef SMK_GEMM16_LOAD_STAGED_CUH
#define SMK_GEMM16_LOAD_STAGED_CUH

namespace smk {
namespace g16 {

template <class C, class S>
struct StagedLoad : CopyMap<C, S> {
    using Base = CopyMap<C, S>;
    using Base::A_STEP; using Base::B_STEP; using Base::A_PITCH; using Base::P_PITCH;
    using Base::K; using Base::kc; using Base::kb0; using Base::a_rows; using Base::a_src;
    using Base::a_jstride; using Base::b_nv; using Base::b_fast; using Base::b_src; using Base::b_jstride;
    using Base::b_step; using Base::a_dst; using Base::b_dst;
    int fastu; /* variant 5: aligned blocks + funnel shift where the row allows */
    /* The staged registers (ra: A chunks, rb: B chunks) are locals of run(), not members: in the same
     * object as the scalars above they would keep those in memory until the loops are unrolled, and
     * the kernel would compile to other instructions. */
    typedef uint4 RegsA[C::A_CHUNKS];
    typedef uint4 RegsB[C::B_CHUNKS];

    __device__ __forceinline__ StagedLoad(const smk_gemm16_params &p, int tid, int64_t bm, int64_t bn, int fu)
        : Base(p, tid, bm, bn), fastu(fu)
    {
    }

    /* k-tile kt into registers */
    __device__ __forceinline__ void load_regs(RegsA &ra, RegsB &rb, int kt) const
    {
        const int64_t k0 = (int64_t)kt * C::BK, kl = K - k0 - kc;
        const int kv = Base::k_valid(kl);
#pragma unroll
        for (int j = 0; j < C::A_CHUNKS; j++) {
            const bool ok = kv > 0 && j * A_STEP < a_rows;
            ra[j] = load8(a_src + (ok ? k0 + j * a_jstride : 0), ok ? kv : 0, fastu && ok && kl >= 15);
        }
#pragma unroll
        for (int j = 0; j < C::B_CHUNKS; j++) {
            const bool ok = b_nv > 0 && k0 + kb0 + j * B_STEP < K;
            rb[j] = load8(b_src + (ok ? kt * b_step + j * b_jstride : 0), ok ? b_nv : 0, fastu && ok && b_fast);
        }
    }
    /* the registers into stage st */
    __device__ __forceinline__ void store_regs(const RegsA &ra, const RegsB &rb, unsigned sbase, int st) const
    {
        const unsigned base = sbase + (unsigned)(st * S::STAGE_ELEMS * 2);
#pragma unroll
        for (int j = 0; j < C::A_CHUNKS; j++)
            sts128(base + a_dst + j * A_STEP * A_PITCH * 2, ra[j]);
#pragma unroll
        for (int j = 0; j < C::B_CHUNKS; j++)
            sts128(base + b_dst + j * B_STEP * P_PITCH * 2, rb[j]);
    }

    /* tiles 0 .. STAGES-2 stored, tile STAGES-1 in registers */
    __device__ __forceinline__ void prologue(RegsA &ra, RegsB &rb, unsigned sbase, int KT) const
    {
        for (int s = 0; s < C::STAGES - 1 && s < KT; s++) {
            load_regs(ra, rb, s);
            store_regs(ra, rb, sbase, s);
        }
        if (C::STAGES - 1 < KT)
            load_regs(ra, rb, C::STAGES - 1);
    }

    /* One barrier at the top of each tile, then store the tile loaded one iteration ago, start loading
     * the next, and multiply. */
    template <class W>
    __device__ __forceinline__ void mainloop(RegsA &ra, RegsB &rb, W &w, unsigned sbase, int KT) const
    {
        int st = 0;
        for (int kt = 0; kt < KT; kt++) {
            __syncthreads();
            {
                const int nt = kt + C::STAGES - 1, nst = st == 0 ? C::STAGES - 1 : st - 1;
                if (nt < KT) {
                    store_regs(ra, rb, sbase, nst);
                    if (nt + 1 < KT)
                        load_regs(ra, rb, nt + 1);
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

    /* the whole k loop: prologue, then the main loop */
    template <class W>
    __device__ __forceinline__ void run(W &w, unsigned sbase, int KT) const
    {
        uint4 ra[C::A_CHUNKS], rb[C::B_CHUNKS];
        prologue(ra, rb, sbase, KT);
        mainloop(ra, rb, w, sbase, KT);
    }
};

} /* namespace g16 */
} /* namespace smk */

#endif
