/*
 * bank_probe.cu -- one warp, ONE shared-memory instruction, addresses chosen by the caller; Nsight
 * Compute counts the wavefronts it takes.  This is how bank_model.c's rules are measured.
 *
 *   bank_probe PATTERNS [--manifest FILE] [--first N] [--count N]
 *
 * PATTERNS: one pattern a line, "width kind a0 ... a31 [# name]" (bench/bank_probe/gen_bank_patterns.py):
 * width 1/2/4/8/16 bytes, kind ld/st, per-lane byte offsets into a 48 KB shared buffer, negative =
 * the lane skips the instruction.  Widths 1 and 2 are LDS.U8 / LDS.U16 and STS.U8 / STS.U16
 * (ld.shared.u8/u16, st.shared.b8/b16 from a 32-bit register: PTX lets the register be wider than
 * the access; bench/bank_probe/bank_patterns_subword.txt).  Tensor-core kinds (width 16 only; bench/bank_probe/bank_patterns_tc.txt):
 *   ldsm1 ldsm2 ldsm4 ldsm1t ldsm2t ldsm4t   ldmatrix.sync.aligned.m8n8.x{1,2,4}[.trans].b16: lane l
 *        gives the 16-byte row address of row l%8 of matrix l/8 (x1 reads lanes 0-7, x2 lanes 0-15);
 *        the instruction is warp-wide and cannot be predicated per lane, so a negative offset is
 *        replaced by 0 (use it only for lanes the instruction ignores).
 *   cpasync   cp.async.cg.shared.global 16 bytes from a global buffer to the lane's offset (the
 *        shared-memory write side of LDGSTS), predicated per lane; cp.async.wait_all follows.
 *   stsm1 stsm2 stsm4 stsm1t stsm2t stsm4t   stmatrix.sync.aligned.m8n8.x{1,2,4}[.trans].shared.b16
 *        (sm_90 and later; bench/bank_probe/bank_patterns_stsm.txt): the same lane -> row-address map as
 *        ldmatrix, the same rule for negative offsets (replaced by 0); the registers hold
 *        lane-dependent values.  Built for an older architecture these kernels do nothing (the
 *        SASS check then fails, so a run cannot silently measure nothing).
 * Each pattern is one launch of smk_bank_probe_<kind><width>; pattern
 * number i (0-based, in file order) is launched with gridDim = (1, i+1, 1): blocks with
 * blockIdx.y != 0 exit before touching shared memory, so the counters see exactly one warp and one
 * shared instruction, and ncu's "Grid Size" column says which pattern a row belongs to (the parser
 * joins on it, so a skipped or reordered launch cannot shift the table).  --manifest writes the
 * parsed patterns with their index for bench/bank_probe/bank_probe_parse.py.
 *
 * Why inline PTX: the width must be exactly what the pattern says (the compiler may split or merge
 * C++ accesses), and an inactive lane must skip the SAME instruction by predicate (a branch around
 * it could make the compiler emit two).  bench/bank_probe/bank_probe.sh checks the SASS: exactly one LDS/STS of
 * the right width per kernel.  Loads write what they read to global memory and stores write
 * lane-dependent values, and the asm is volatile, so nothing is optimised away.
 *
 * Build: nvcc -O3 -arch=sm_90 -o bank_probe bench/bank_probe/bank_probe.cu  (stmatrix needs sm_90)
 */
#include <cuda_runtime.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#define PROBE_LANES 32
#define PROBE_SMEM_BYTES (48 * 1024) /* the most a block gets without opting in */
#define PROBE_MAX_PATTERNS 65535     /* gridDim.y limit: the launch tag */

/* One shared instruction of W bytes at byte offset a (skipped when a < 0).  v[]: 4 registers. */
template <int W, bool STORE>
__device__ __forceinline__ void probe_access(unsigned saddr, long long a, unsigned (&v)[4])
{
    if (STORE) {
        if (W == 1)
            asm volatile("{\n\t.reg .pred p;\n\tsetp.ge.s64 p, %0, 0;\n\t"
                         "@p st.shared.b8 [%1], %2;\n\t}"
                         :: "l"(a), "r"(saddr), "r"(v[0]) : "memory");
        else if (W == 2)
            asm volatile("{\n\t.reg .pred p;\n\tsetp.ge.s64 p, %0, 0;\n\t"
                         "@p st.shared.b16 [%1], %2;\n\t}"
                         :: "l"(a), "r"(saddr), "r"(v[0]) : "memory");
        else if (W == 4)
            asm volatile("{\n\t.reg .pred p;\n\tsetp.ge.s64 p, %0, 0;\n\t"
                         "@p st.shared.b32 [%1], %2;\n\t}"
                         :: "l"(a), "r"(saddr), "r"(v[0]) : "memory");
        else if (W == 8)
            asm volatile("{\n\t.reg .pred p;\n\tsetp.ge.s64 p, %0, 0;\n\t"
                         "@p st.shared.v2.b32 [%1], {%2, %3};\n\t}"
                         :: "l"(a), "r"(saddr), "r"(v[0]), "r"(v[1]) : "memory");
        else
            asm volatile("{\n\t.reg .pred p;\n\tsetp.ge.s64 p, %0, 0;\n\t"
                         "@p st.shared.v4.b32 [%1], {%2, %3, %4, %5};\n\t}"
                         :: "l"(a), "r"(saddr), "r"(v[0]), "r"(v[1]), "r"(v[2]), "r"(v[3])
                         : "memory");
    } else {
        if (W == 1)
            asm volatile("{\n\t.reg .pred p;\n\tsetp.ge.s64 p, %1, 0;\n\t"
                         "@p ld.shared.u8 %0, [%2];\n\t}"
                         : "+r"(v[0]) : "l"(a), "r"(saddr) : "memory");
        else if (W == 2)
            asm volatile("{\n\t.reg .pred p;\n\tsetp.ge.s64 p, %1, 0;\n\t"
                         "@p ld.shared.u16 %0, [%2];\n\t}"
                         : "+r"(v[0]) : "l"(a), "r"(saddr) : "memory");
        else if (W == 4)
            asm volatile("{\n\t.reg .pred p;\n\tsetp.ge.s64 p, %1, 0;\n\t"
                         "@p ld.shared.b32 %0, [%2];\n\t}"
                         : "+r"(v[0]) : "l"(a), "r"(saddr) : "memory");
        else if (W == 8)
            asm volatile("{\n\t.reg .pred p;\n\tsetp.ge.s64 p, %2, 0;\n\t"
                         "@p ld.shared.v2.b32 {%0, %1}, [%3];\n\t}"
                         : "+r"(v[0]), "+r"(v[1]) : "l"(a), "r"(saddr) : "memory");
        else
            asm volatile("{\n\t.reg .pred p;\n\tsetp.ge.s64 p, %4, 0;\n\t"
                         "@p ld.shared.v4.b32 {%0, %1, %2, %3}, [%5];\n\t}"
                         : "+r"(v[0]), "+r"(v[1]), "+r"(v[2]), "+r"(v[3]) : "l"(a), "r"(saddr)
                         : "memory");
    }
}

/* Tensor-core kinds: 0..5 = ldmatrix x1/x2/x4 (+3: .trans), 6 = cp.async 16 bytes, 7..12 = stmatrix
 * x1/x2/x4 (+3: .trans; sm_90+). */
template <int TK>
__device__ __forceinline__ void probe_tc_access(unsigned saddr, long long a, const unsigned *gsrc, unsigned (&v)[4])
{
    if (TK == 0)
        asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];" : "=r"(v[0]) : "r"(saddr) : "memory");
    else if (TK == 1)
        asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];" : "=r"(v[0]), "=r"(v[1]) : "r"(saddr)
                     : "memory");
    else if (TK == 2)
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                     : "=r"(v[0]), "=r"(v[1]), "=r"(v[2]), "=r"(v[3]) : "r"(saddr) : "memory");
    else if (TK == 3)
        asm volatile("ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {%0}, [%1];" : "=r"(v[0]) : "r"(saddr)
                     : "memory");
    else if (TK == 4)
        asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];" : "=r"(v[0]), "=r"(v[1])
                     : "r"(saddr) : "memory");
    else if (TK == 5)
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];"
                     : "=r"(v[0]), "=r"(v[1]), "=r"(v[2]), "=r"(v[3]) : "r"(saddr) : "memory");
    else if (TK == 6)
        asm volatile("{\n\t.reg .pred p;\n\tsetp.ge.s64 p, %0, 0;\n\t"
                     "@p cp.async.cg.shared.global [%1], [%2], 16;\n\t"
                     "cp.async.wait_all;\n\t}"
                     :: "l"(a), "r"(saddr), "l"(gsrc) : "memory");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900 /* stmatrix: PTX ISA 7.8, sm_90 */
    else if (TK == 7)
        asm volatile("stmatrix.sync.aligned.m8n8.x1.shared.b16 [%0], {%1};" :: "r"(saddr), "r"(v[0]) : "memory");
    else if (TK == 8)
        asm volatile("stmatrix.sync.aligned.m8n8.x2.shared.b16 [%0], {%1, %2};" :: "r"(saddr), "r"(v[0]), "r"(v[1])
                     : "memory");
    else if (TK == 9)
        asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};"
                     :: "r"(saddr), "r"(v[0]), "r"(v[1]), "r"(v[2]), "r"(v[3]) : "memory");
    else if (TK == 10)
        asm volatile("stmatrix.sync.aligned.m8n8.x1.trans.shared.b16 [%0], {%1};" :: "r"(saddr), "r"(v[0])
                     : "memory");
    else if (TK == 11)
        asm volatile("stmatrix.sync.aligned.m8n8.x2.trans.shared.b16 [%0], {%1, %2};" :: "r"(saddr), "r"(v[0]),
                     "r"(v[1]) : "memory");
    else if (TK == 12)
        asm volatile("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%0], {%1, %2, %3, %4};"
                     :: "r"(saddr), "r"(v[0]), "r"(v[1]), "r"(v[2]), "r"(v[3]) : "memory");
#endif
}

template <int TK>
__device__ __forceinline__ void probe_tc_body(const long long *__restrict__ addr, unsigned *__restrict__ out)
{
    __shared__ __align__(128) unsigned char smem[PROBE_SMEM_BYTES];
    if (blockIdx.y != 0)
        return;
    const int lane = threadIdx.x;
    const long long a = addr[lane];
    const unsigned saddr = (unsigned)__cvta_generic_to_shared(smem) + (unsigned)(a < 0 ? 0 : a);
    unsigned v[4] = {0u, 0u, 0u, 0u};
    for (int j = 0; j < 4 && TK >= 7; j++) /* stmatrix writes lane-dependent values */
        v[j] = 0x5a000000u + (unsigned)(lane * 4 + j);
    probe_tc_access<TK>(saddr, a, out + PROBE_LANES * 4 + 4 + lane * 4, v); /* 16-byte aligned source */
    for (int j = 0; j < 4; j++)
        out[lane * 4 + j] = v[j];
    if (lane == 0)
        out[PROBE_LANES * 4] = (unsigned)__cvta_generic_to_shared(smem);
}

template <int W, bool STORE>
__device__ __forceinline__ void probe_body(const long long *__restrict__ addr, unsigned *__restrict__ out)
{
    __shared__ __align__(128) unsigned char smem[PROBE_SMEM_BYTES]; /* offset 0 = bank 0, row 0 */
    if (blockIdx.y != 0) /* the y extent only tags the launch for ncu */
        return;
    const int lane = threadIdx.x;                       /* [0, 31] */
    const long long a = addr[lane];                     /* byte offset, < 0: inactive */
    const unsigned saddr = (unsigned)__cvta_generic_to_shared(smem) + (unsigned)(a < 0 ? 0 : a);
    unsigned v[4];
    for (int j = 0; j < 4; j++)
        v[j] = STORE ? 0x5a000000u + (unsigned)(lane * 4 + j) : 0u;
    probe_access<W, STORE>(saddr, a, v);
    /* Every lane writes global memory after the access, so an inactive lane cannot simply exit
     * before it: the access stays one predicated instruction, for loads and stores alike. */
    for (int j = 0; j < (W + 3) / 4; j++) /* widths 1 and 2: the one register */
        out[lane * 4 + j] = v[j];
    if (lane == 0) /* the host checks that the buffer starts a bank row (offsets = bank arithmetic) */
        out[PROBE_LANES * 4] = (unsigned)__cvta_generic_to_shared(smem);
}

/* Plain names so ncu's "Kernel Name" and the SASS dump read as what they are. */
typedef void (*probe_kernel)(const long long *, unsigned *);
typedef probe_kernel probe_kernel_t;

#define PROBE_KERNEL(KIND, W, STORE)                                                              \
    extern "C" __global__ void __launch_bounds__(PROBE_LANES)                                      \
        smk_bank_probe_##KIND##W(const long long *__restrict__ addr, unsigned *__restrict__ out)   \
    {                                                                                              \
        probe_body<W, STORE>(addr, out);                                                           \
    }
PROBE_KERNEL(ld, 1, false)
PROBE_KERNEL(ld, 2, false)
PROBE_KERNEL(ld, 4, false)
PROBE_KERNEL(ld, 8, false)
PROBE_KERNEL(ld, 16, false)
PROBE_KERNEL(st, 1, true)
PROBE_KERNEL(st, 2, true)
PROBE_KERNEL(st, 4, true)
PROBE_KERNEL(st, 8, true)
PROBE_KERNEL(st, 16, true)

#define PROBE_TC_KERNEL(NAME, TK)                                                                   \
    extern "C" __global__ void __launch_bounds__(PROBE_LANES)                                      \
        smk_bank_probe_##NAME(const long long *__restrict__ addr, unsigned *__restrict__ out)       \
    {                                                                                              \
        probe_tc_body<TK>(addr, out);                                                              \
    }
PROBE_TC_KERNEL(ldsm1_16, 0)
PROBE_TC_KERNEL(ldsm2_16, 1)
PROBE_TC_KERNEL(ldsm4_16, 2)
PROBE_TC_KERNEL(ldsm1t16, 3)
PROBE_TC_KERNEL(ldsm2t16, 4)
PROBE_TC_KERNEL(ldsm4t16, 5)
PROBE_TC_KERNEL(cpasync16, 6)
PROBE_TC_KERNEL(stsm1_16, 7)
PROBE_TC_KERNEL(stsm2_16, 8)
PROBE_TC_KERNEL(stsm4_16, 9)
PROBE_TC_KERNEL(stsm1t16, 10)
PROBE_TC_KERNEL(stsm2t16, 11)
PROBE_TC_KERNEL(stsm4t16, 12)

#define TC_CPASYNC 6 /* the only predicated tensor-core kind; the only store before stmatrix */
#define TC_STSM_FIRST 7
static const char *const TC_KINDS[] = {"ldsm1", "ldsm2", "ldsm4", "ldsm1t", "ldsm2t", "ldsm4t", "cpasync",
                                       "stsm1", "stsm2", "stsm4", "stsm1t", "stsm2t", "stsm4t"};
static const probe_kernel_t TC_KERNELS[] = {smk_bank_probe_ldsm1_16, smk_bank_probe_ldsm2_16, smk_bank_probe_ldsm4_16,
                                            smk_bank_probe_ldsm1t16, smk_bank_probe_ldsm2t16, smk_bank_probe_ldsm4t16,
                                            smk_bank_probe_cpasync16, smk_bank_probe_stsm1_16,  smk_bank_probe_stsm2_16,
                                            smk_bank_probe_stsm4_16,  smk_bank_probe_stsm1t16,  smk_bank_probe_stsm2t16,
                                            smk_bank_probe_stsm4t16};


static probe_kernel kernel_for(int width, bool store)
{
    switch (width) {
    case 1: return store ? smk_bank_probe_st1 : smk_bank_probe_ld1;
    case 2: return store ? smk_bank_probe_st2 : smk_bank_probe_ld2;
    case 4: return store ? smk_bank_probe_st4 : smk_bank_probe_ld4;
    case 8: return store ? smk_bank_probe_st8 : smk_bank_probe_ld8;
    case 16: return store ? smk_bank_probe_st16 : smk_bank_probe_ld16;
    default: return nullptr;
    }
}

struct Pattern {
    int width;
    bool store;
    int tc;          /* -1: ld/st; else index into TC_KINDS */
    long long addr[PROBE_LANES];
    std::string name;
    int line;
};

/* Parse one non-comment line; returns false (with a message) when it is not a valid pattern. */
static bool parse_line(const char *text, int lineno, Pattern &p, std::string &why)
{
    std::string s(text);
    size_t hash = s.find('#');
    p.name.clear();
    if (hash != std::string::npos) {
        size_t b = s.find_first_not_of(" \t", hash + 1);
        size_t e = s.find_last_not_of(" \t\r\n");
        if (b != std::string::npos && e != std::string::npos && e >= b)
            p.name = s.substr(b, e - b + 1);
        s.resize(hash);
    }
    p.line = lineno;
    char kind[16] = {0};
    int n = 0;
    const char *c = s.c_str();
    if (sscanf(c, "%d %15s%n", &p.width, kind, &n) != 2) {
        why = "expected: width kind a0 .. a31";
        return false;
    }
    if (p.width != 1 && p.width != 2 && p.width != 4 && p.width != 8 && p.width != 16) {
        why = "width must be 1, 2, 4, 8 or 16";
        return false;
    }
    p.tc = -1;
    if (!strcmp(kind, "ld"))
        p.store = false;
    else if (!strcmp(kind, "st"))
        p.store = true;
    else {
        for (int k = 0; k < (int)(sizeof TC_KINDS / sizeof TC_KINDS[0]); k++)
            if (!strcmp(kind, TC_KINDS[k]))
                p.tc = k;
        if (p.tc < 0) {
            why = "kind must be ld, st, ldsm1/2/4[t], stsm1/2/4[t] or cpasync";
            return false;
        }
        if (p.width != 16) {
            why = "ldmatrix, stmatrix and cp.async patterns have width 16";
            return false;
        }
        p.store = p.tc >= TC_CPASYNC;
    }
    c += n;
    for (int l = 0; l < PROBE_LANES; l++) {
        char *end = nullptr;
        errno = 0;
        long long a = strtoll(c, &end, 10);
        if (end == c || errno) {
            why = "expected 32 addresses, got " + std::to_string(l);
            return false;
        }
        c = end;
        if (a < 0)
            a = -1;
        else if (a % p.width || a + p.width > PROBE_SMEM_BYTES) {
            why = "lane " + std::to_string(l) + ": offset " + std::to_string(a) +
                  " is unaligned or beyond the 48 KB buffer";
            return false;
        }
        p.addr[l] = a;
    }
    while (*c == ' ' || *c == '\t' || *c == '\r' || *c == '\n')
        c++;
    if (*c) {
        why = "more than 32 addresses";
        return false;
    }
    return true;
}

#define CUDA_OK(call)                                                                              \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "bank_probe: %s: %s: %s\n", #call, cudaGetErrorName(e_),               \
                    cudaGetErrorString(e_));                                                       \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)

int main(int argc, char **argv)
{
    const char *path = nullptr, *manifest = nullptr;
    long first = 0, count = -1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--manifest") && i + 1 < argc)
            manifest = argv[++i];
        else if (!strcmp(argv[i], "--first") && i + 1 < argc)
            first = strtol(argv[++i], nullptr, 10);
        else if (!strcmp(argv[i], "--count") && i + 1 < argc)
            count = strtol(argv[++i], nullptr, 10);
        else if (!path && argv[i][0] != '-')
            path = argv[i];
        else {
            fprintf(stderr, "usage: %s PATTERNS [--manifest FILE] [--first N] [--count N]\n", argv[0]);
            return 2;
        }
    }
    if (!path) {
        fprintf(stderr, "usage: %s PATTERNS [--manifest FILE] [--first N] [--count N]\n", argv[0]);
        return 2;
    }

    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "bank_probe: cannot open %s: %s\n", path, strerror(errno));
        return 2;
    }
    std::vector<Pattern> pats;
    char buf[4096];
    int lineno = 0, bad = 0;
    while (fgets(buf, sizeof buf, f)) {
        lineno++;
        const char *t = buf + strspn(buf, " \t");
        if (*t == '#' || *t == '\n' || *t == '\r' || *t == 0)
            continue;
        Pattern p;
        std::string why;
        if (!parse_line(t, lineno, p, why)) {
            fprintf(stderr, "bank_probe: %s:%d: %s\n", path, lineno, why.c_str());
            bad++;
            continue;
        }
        pats.push_back(p);
    }
    fclose(f);
    if (bad)
        return 2;
    if (pats.size() > PROBE_MAX_PATTERNS) {
        fprintf(stderr, "bank_probe: %zu patterns; at most %d per run (split the file)\n", pats.size(),
                PROBE_MAX_PATTERNS);
        return 2;
    }
    long last = (count < 0) ? (long)pats.size() : std::min((long)pats.size(), first + count);

    if (manifest) {
        FILE *m = fopen(manifest, "w");
        if (!m) {
            fprintf(stderr, "bank_probe: cannot write %s: %s\n", manifest, strerror(errno));
            return 2;
        }
        fprintf(m, "index\twidth\tkind\taddresses\tname\n");
        for (long i = first; i < last; i++) {
            const Pattern &p = pats[i];
            fprintf(m, "%ld\t%d\t%s\t", i, p.width, p.tc >= 0 ? TC_KINDS[p.tc] : p.store ? "st" : "ld");
            for (int l = 0; l < PROBE_LANES; l++)
                fprintf(m, l ? " %lld" : "%lld", p.addr[l]);
            fprintf(m, "\t%s\n", p.name.c_str());
        }
        fclose(m);
    }

    long long *d_addr = nullptr;
    unsigned *d_out = nullptr;
    CUDA_OK(cudaMalloc(&d_addr, PROBE_LANES * sizeof(long long)));
    CUDA_OK(cudaMalloc(&d_out, (PROBE_LANES * 8 + 8) * sizeof(unsigned))); /* + cp.async sources */
    for (long i = first; i < last; i++) {
        const Pattern &p = pats[i];
        CUDA_OK(cudaMemcpy(d_addr, p.addr, sizeof p.addr, cudaMemcpyHostToDevice));
        probe_kernel k = p.tc >= 0 ? TC_KERNELS[p.tc] : kernel_for(p.width, p.store);
        k<<<dim3(1, (unsigned)i + 1, 1), PROBE_LANES>>>(d_addr, d_out);
        CUDA_OK(cudaGetLastError());
        CUDA_OK(cudaDeviceSynchronize());
        if (i == first) {
            unsigned base = 0;
            CUDA_OK(cudaMemcpy(&base, d_out + PROBE_LANES * 4, sizeof base, cudaMemcpyDeviceToHost));
            if (base % 128) {
                fprintf(stderr, "bank_probe: shared buffer starts at 0x%x, not a multiple of 128: "
                                "offsets would not be bank arithmetic\n", base);
                return 1;
            }
        }
    }
    CUDA_OK(cudaFree(d_addr));
    CUDA_OK(cudaFree(d_out));
    fprintf(stderr, "bank_probe: launched %ld patterns (%ld..%ld of %zu) from %s\n", last - first,
            first, last - 1, pats.size(), path);
    return 0;
}
