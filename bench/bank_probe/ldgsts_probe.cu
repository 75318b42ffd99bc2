/*
 * ldgsts_probe.cu -- one warp, ONE cp.async (LDGSTS) of 4, 8 or 16 bytes, shared AND global offsets chosen
 * by the caller; Nsight Compute counts its wavefronts (smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldgsts).
 * This is how bank_model.c's LDGSTS rule is checked one pattern at a time (bank_probe.cu's cpasync kind has
 * fixed sources 16 bytes off a line; the GEMM's counts are sums over classes).
 *
 *   ldgsts_probe PATTERNS [--manifest FILE]
 *
 * PATTERNS (bench/bank_probe/ldgsts_probe.py gen): one pattern a line,
 *   "W form s0 .. s31 | g0 .. g31 [# name]"
 * W = 4 / 8 / 16 bytes; form plain (no src-size: LDGSTS) or zfill (src-size W: LDGSTS.ZFILL, the kernel's
 * edge form); s: shared byte offsets into a 48 KB buffer (-1 = lane off), g: global byte offsets into a 4 MB
 * buffer whose start is 4096-byte aligned (ignored where s is -1; -1 on an active lane of the zfill form: src-size
 * 0 from the buffer's start, as the SGEMM deep kernel's zero-filled lanes).  16 bytes: cp.async.cg (the GEMM's
 * aligned copies); 4 / 8: cp.async.ca (load_narrow.cuh).  Pattern i is launched with gridDim = (1, i+1, 1),
 * blocks with blockIdx.y != 0 exit at once, so ncu's "Grid Size" joins rows to patterns.
 *
 * Build: nvcc -O3 -arch=sm_90 -o ldgsts_probe bench/bank_probe/ldgsts_probe.cu
 */
#include <cuda_runtime.h>

#include <cstdint>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#define LANES 32
#define SMEM_BYTES (48 * 1024)
#define GLOBAL_BYTES (4 << 20)

/* n: the src-size of the zfill form, W on every probe lane (the kernel's whole chunks of an edge block),
 * read from the pattern so that ptxas keeps the operand (LDGSTS.ZFILL, as the GEMM's) */
template <int W, bool Z>
__device__ __forceinline__ void copy(unsigned dst, const void *src, long long a, int n)
{
    if (W == 16 && !Z)
        asm volatile("{\n\t.reg .pred p;\n\tsetp.ge.s64 p, %0, 0;\n\t@p cp.async.cg.shared.global [%1], [%2], 16;\n\t}"
                     :: "l"(a), "r"(dst), "l"(src) : "memory");
    else if (W == 16)
        asm volatile("{\n\t.reg .pred p;\n\tsetp.ge.s64 p, %0, 0;\n\t@p cp.async.cg.shared.global [%1], [%2], 16, %3;\n\t}"
                     :: "l"(a), "r"(dst), "l"(src), "r"(n) : "memory");
    else if (!Z)
        asm volatile("{\n\t.reg .pred p;\n\tsetp.ge.s64 p, %0, 0;\n\t@p cp.async.ca.shared.global [%1], [%2], %3;\n\t}"
                     :: "l"(a), "r"(dst), "l"(src), "n"(W) : "memory");
    else
        asm volatile("{\n\t.reg .pred p;\n\tsetp.ge.s64 p, %0, 0;\n\t@p cp.async.ca.shared.global [%1], [%2], %3, %4;\n\t}"
                     :: "l"(a), "r"(dst), "l"(src), "n"(W), "r"(n) : "memory");
    asm volatile("cp.async.wait_all;\n" ::: "memory");
}

template <int W, bool Z>
__device__ __forceinline__ void body(const long long *__restrict__ sg, const char *__restrict__ gbuf,
                                     unsigned *__restrict__ out)
{
    __shared__ __align__(128) unsigned char smem[SMEM_BYTES];
    if (blockIdx.y != 0)
        return;
    const int lane = threadIdx.x;
    const long long s = sg[lane], g = sg[LANES + lane];
    const unsigned dst = (unsigned)__cvta_generic_to_shared(smem) + (unsigned)(s < 0 ? 0 : s);
    copy<W, Z>(dst, gbuf + (s < 0 || g < 0 ? 0 : g), s, g >= 0 ? W : 0);
    __syncwarp();
    out[lane] = smem[(lane * 97) % SMEM_BYTES]; /* keep the copy observable */
    if (lane == 0)
        out[LANES] = (unsigned)__cvta_generic_to_shared(smem);
}

#define KERNEL(NAME, W, Z)                                                                                  \
    extern "C" __global__ void __launch_bounds__(LANES)                                                      \
        smk_ldgsts_probe_##NAME(const long long *__restrict__ sg, const char *__restrict__ gbuf,            \
                                unsigned *__restrict__ out)                                                  \
    {                                                                                                        \
        body<W, Z>(sg, gbuf, out);                                                                           \
    }
KERNEL(w4, 4, false)
KERNEL(w4z, 4, true)
KERNEL(w8, 8, false)
KERNEL(w8z, 8, true)
KERNEL(w16, 16, false)
KERNEL(w16z, 16, true)

typedef void (*kernel_t)(const long long *, const char *, unsigned *);

static kernel_t kernel_for(int w, bool z)
{
    switch (w) {
    case 4: return z ? smk_ldgsts_probe_w4z : smk_ldgsts_probe_w4;
    case 8: return z ? smk_ldgsts_probe_w8z : smk_ldgsts_probe_w8;
    case 16: return z ? smk_ldgsts_probe_w16z : smk_ldgsts_probe_w16;
    default: return nullptr;
    }
}

struct Pattern {
    int width;
    bool zfill;
    long long sg[2 * LANES];
    std::string name;
};

static bool numbers(const char *&c, long long *v, int n, std::string &why)
{
    for (int l = 0; l < n; l++) {
        char *end = nullptr;
        errno = 0;
        v[l] = strtoll(c, &end, 10);
        if (end == c || errno) {
            why = "expected 32 offsets on each side";
            return false;
        }
        c = end;
    }
    return true;
}

static bool parse(const char *text, Pattern &p, std::string &why)
{
    std::string s(text);
    const size_t hash = s.find('#');
    if (hash != std::string::npos) {
        const size_t b = s.find_first_not_of(" \t", hash + 1), e = s.find_last_not_of(" \t\r\n");
        p.name = b != std::string::npos && e != std::string::npos && e >= b ? s.substr(b, e - b + 1) : "";
        s.resize(hash);
    }
    char form[16] = {0};
    int n = 0;
    const char *c = s.c_str();
    if (sscanf(c, "%d %15s%n", &p.width, form, &n) != 2 || !kernel_for(p.width, false) ||
        (strcmp(form, "plain") && strcmp(form, "zfill"))) {
        why = "expected: W (4, 8, 16) plain|zfill s0 .. s31 | g0 .. g31";
        return false;
    }
    p.zfill = !strcmp(form, "zfill");
    c += n;
    if (!numbers(c, p.sg, LANES, why))
        return false;
    while (*c == ' ' || *c == '\t')
        c++;
    if (*c++ != '|') {
        why = "expected '|' between the shared and the global offsets";
        return false;
    }
    if (!numbers(c, p.sg + LANES, LANES, why))
        return false;
    for (int l = 0; l < LANES; l++) {
        const long long a = p.sg[l], g = p.sg[LANES + l];
        if (a < 0) {
            p.sg[l] = -1;
            continue;
        }
        if (g == -1 && p.zfill)
            continue; /* src-size 0 from the buffer's base: a zero-filled lane (the SGEMM deep kernel's ragged k) */
        if (a % p.width || a + p.width > SMEM_BYTES || g < 0 || g % p.width || g + p.width > GLOBAL_BYTES) {
            why = "lane " + std::to_string(l) + ": offsets unaligned or out of the buffers";
            return false;
        }
    }
    return true;
}

#define CUDA_OK(call)                                                                                       \
    do {                                                                                                    \
        cudaError_t e_ = (call);                                                                            \
        if (e_ != cudaSuccess) {                                                                            \
            fprintf(stderr, "ldgsts_probe: %s: %s\n", #call, cudaGetErrorString(e_));                      \
            return 1;                                                                                       \
        }                                                                                                   \
    } while (0)

int main(int argc, char **argv)
{
    const char *path = argc > 1 ? argv[1] : nullptr, *manifest = nullptr;
    for (int i = 2; i + 1 < argc; i++)
        if (!strcmp(argv[i], "--manifest"))
            manifest = argv[++i];
    FILE *f = path ? fopen(path, "r") : nullptr;
    if (!f) {
        fprintf(stderr, "usage: ldgsts_probe PATTERNS [--manifest FILE]\n");
        return 2;
    }
    std::vector<Pattern> pats;
    char buf[8192];
    int lineno = 0, bad = 0;
    while (fgets(buf, sizeof buf, f)) {
        lineno++;
        const char *t = buf + strspn(buf, " \t");
        if (*t == '#' || *t == '\n' || *t == '\r' || !*t)
            continue;
        Pattern p;
        std::string why;
        if (!parse(t, p, why)) {
            fprintf(stderr, "ldgsts_probe: %s:%d: %s\n", path, lineno, why.c_str());
            bad++;
            continue;
        }
        pats.push_back(p);
    }
    fclose(f);
    if (bad || pats.empty() || pats.size() > 65535)
        return 2;
    if (manifest) {
        FILE *m = fopen(manifest, "w");
        if (!m)
            return 2;
        for (size_t i = 0; i < pats.size(); i++)
            fprintf(m, "%zu\t%d\t%s\t%s\n", i, pats[i].width, pats[i].zfill ? "zfill" : "plain", pats[i].name.c_str());
        fclose(m);
    }
    long long *d_sg = nullptr;
    char *d_g = nullptr;
    unsigned *d_out = nullptr;
    CUDA_OK(cudaMalloc(&d_sg, sizeof pats[0].sg));
    CUDA_OK(cudaMalloc(&d_g, GLOBAL_BYTES + 4096));
    CUDA_OK(cudaMalloc(&d_out, (LANES + 1) * sizeof(unsigned)));
    char *g0 = (char *)(((uintptr_t)d_g + 4095) & ~(uintptr_t)4095);
    CUDA_OK(cudaMemset(d_g, 1, GLOBAL_BYTES + 4096));
    for (size_t i = 0; i < pats.size(); i++) {
        CUDA_OK(cudaMemcpy(d_sg, pats[i].sg, sizeof pats[i].sg, cudaMemcpyHostToDevice));
        kernel_for(pats[i].width, pats[i].zfill)<<<dim3(1, (unsigned)i + 1, 1), LANES>>>(d_sg, g0, d_out);
        CUDA_OK(cudaGetLastError());
        CUDA_OK(cudaDeviceSynchronize());
        unsigned base = 0;
        CUDA_OK(cudaMemcpy(&base, d_out + LANES, sizeof base, cudaMemcpyDeviceToHost));
        if (base % 128) {
            fprintf(stderr, "ldgsts_probe: shared buffer at 0x%x, not on a bank row\n", base);
            return 1;
        }
    }
    fprintf(stderr, "ldgsts_probe: launched %zu patterns from %s\n", pats.size(), path);
    return 0;
}
