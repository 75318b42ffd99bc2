/*
 * transpose/unit.cuh -- THE UNIT a transpose thread moves, per element size, and the register work on it.
 *
 * For 4-, 8- and 16-byte elements a unit is one element and its word is the element (uint32 / uint64 /
 * uint4).  For 1- and 2-byte elements a unit is a 4x4 block of bytes or a 2x2 block of halves: the thread
 * loads it as 4 (2) 32-bit words -- one per element row --, transposes it in registers with byte
 * permutes (transpose_unit: __byte_perm = PRMT, 8 for 4x4 bytes, 2 for 2x2 halves), so that word k holds
 * element COLUMN k = output row k.  Word k goes to shared "plane" k (tile.cuh): the shared tile only
 * ever sees whole 32-bit words, so the sub-word kernels are, bank for bank, the 4-byte kernel run
 * P = 4 (2) times.  Element e of a word is its bytes [e*ESZ, (e+1)*ESZ) (little endian).
 *
 * Also here: one element loaded / stored alone (the edge path), aligned or byte by byte.
 */
#ifndef SMK_TRANSPOSE_UNIT_CUH
#define SMK_TRANSPOSE_UNIT_CUH

#include <cstdint>
#include <cuda_runtime.h>

namespace {

/* How an element size is moved.  E: unit edge in elements; P: words (shared planes) per unit; W: the
 * word a plane holds (also the unit's global access); T: the element as an unsigned integer.  A new
 * element size is one more specialisation here plus a row of configs.h's kWidths. */
template <int ESZ> struct Unit;
template <> struct Unit<1> { static constexpr int E = 4, P = 4; typedef uint32_t W; typedef uint8_t T; };
template <> struct Unit<2> { static constexpr int E = 2, P = 2; typedef uint32_t W; typedef uint16_t T; };
template <> struct Unit<4> { static constexpr int E = 1, P = 1; typedef uint32_t W; typedef uint32_t T; };
template <> struct Unit<8> { static constexpr int E = 1, P = 1; typedef uint64_t W; typedef uint64_t T; };
template <> struct Unit<16> { static constexpr int E = 1, P = 1; typedef uint4 W; typedef uint4 T; };

/* PRMT: byte i of the result is byte s_i of the 8-byte value (y:x), s_i = nibble i of s. */
__device__ __forceinline__ uint32_t prmt(uint32_t x, uint32_t y, uint32_t s) { return __byte_perm(x, y, s); }

/* In-register transpose of one unit: on entry w[k] = element row k, on exit w[k] = element column k. */
template <int ESZ>
__device__ __forceinline__ void transpose_unit(typename Unit<ESZ>::W (&w)[Unit<ESZ>::P])
{
    if constexpr (ESZ == 2) {            // [a b] [c d] -> [a c] [b d]
        const uint32_t x = w[0], y = w[1];
        w[0] = prmt(x, y, 0x5410);
        w[1] = prmt(x, y, 0x7632);
    } else if constexpr (ESZ == 1) {     // 4x4 bytes: interleave byte pairs, then half pairs
        const uint32_t a = prmt(w[0], w[1], 0x5140), b = prmt(w[0], w[1], 0x7362); // a0 b0 a1 b1 | a2 b2 a3 b3
        const uint32_t c = prmt(w[2], w[3], 0x5140), d = prmt(w[2], w[3], 0x7362); // c0 d0 c1 d1 | c2 d2 c3 d3
        w[0] = prmt(a, c, 0x5410);       // a0 b0 c0 d0
        w[1] = prmt(a, c, 0x7632);       // a1 b1 c1 d1
        w[2] = prmt(b, d, 0x5410);       // a2 b2 c2 d2
        w[3] = prmt(b, d, 0x7632);       // a3 b3 c3 d3
    } else {
        (void)w;
    }
}

/* Element e of a word (sub-word units) or the word itself. */
template <int ESZ>
__device__ __forceinline__ typename Unit<ESZ>::T word_elem(typename Unit<ESZ>::W w, int e)
{
    if constexpr (ESZ < 4)
        return (typename Unit<ESZ>::T)(w >> (8 * ESZ * e));
    else
        return (void)e, w;
}

/* One element at p: as T when aligned, else byte by byte (unaligned device views). */
template <int ESZ>
__device__ __forceinline__ typename Unit<ESZ>::T load_elem(const unsigned char *p, bool aligned)
{
    typedef typename Unit<ESZ>::T T;
    if (aligned)
        return *reinterpret_cast<const T *>(p);
    union { T t; unsigned char b[ESZ]; } u;
#pragma unroll
    for (int i = 0; i < ESZ; i++)
        u.b[i] = p[i];
    return u.t;
}

template <int ESZ>
__device__ __forceinline__ void store_elem(unsigned char *p, typename Unit<ESZ>::T v, bool aligned)
{
    typedef typename Unit<ESZ>::T T;
    if (aligned) {
        *reinterpret_cast<T *>(p) = v;
        return;
    }
    union { T t; unsigned char b[ESZ]; } u;
    u.t = v;
#pragma unroll
    for (int i = 0; i < ESZ; i++)
        p[i] = u.b[i];
}

} // namespace

#endif /* SMK_TRANSPOSE_UNIT_CUH */
