/*
 * layout.h -- THE shared-memory index maps of smemkit, and the bank arithmetic.
 *
 * Plain C that also compiles as CUDA: every kernel and the CPU bank model include this file, so the
 * index a kernel stores to and the index the model replays are the same expression.  Nobody retypes
 * `r*(TILE+1)+c` anywhere else.
 *
 * A tile is `rows x cols` logical elements of `esz` bytes, accessed by a warp in vectors of `vec`
 * elements (vec = 1 for the transpose, 4 for float4 SGEMM tiles).  cols, vec and esz are powers of
 * two and are carried as their log2 in an smk_tile.  The three layouts:
 *
 *   naive    offset = r*cols + c                    row-major, the textbook tile
 *   pad      offset = r*(cols + vec) + c            one access width of padding per row
 *   swizzle  offset = Swizzle<B,M,S>(r*cols + c)    rows XOR-permute their vectors, no extra storage
 *
 * Swizzle<B,M,S> (CuTe's names BBits, MBase, SShift), for S >= 0:
 *
 *       offset bit:   ... [ yyy: B bits at M+S ] ... [ zzz: B bits at M ] [ M bits kept ]
 *       result      = offset ^ ((offset & yyy_mask) >> S)
 *
 * i.e. the B bits of the row part are XORed into the B bits just above the M kept bits.  For the
 * tile we pick  M = log2(vec)  (a vector is never split), S = log2(cols) - log2(vec)  (yyy = the low
 * bits of the row), and  B = min(log2(cols/vec), log2(128 bytes / vector bytes))  (permute at most the
 * vectors of one 128-byte bank row; more bits would only move vectors between bank rows).
 *
 *   32x32 fp32, vec 1:   Swizzle<5,0,5>  -> r*32 + (c ^ r)          the article's XOR transpose
 *   32x32 fp64, vec 1:   Swizzle<4,0,5>  -> r*32 + (c ^ (r & 15))   16 lanes fill a phase of 8-byte access
 *   BK x 32 fp32, vec 4: Swizzle<3,2,3>  keeps each float4 whole, XORs its 16-byte slot with row & 7
 *   BK x 64 fp32, vec 4: Swizzle<3,2,4>
 *   BM x 32 fp16/bf16, vec 8 (64-byte rows):   Swizzle<2,3,3>  XORs the 16-byte slot with bank row & 3
 *   BM x 64 fp16/bf16, vec 8 (128-byte rows):  Swizzle<3,3,3>  XORs the 16-byte slot with row & 7
 *
 * Why these are conflict-free for a column access (lane i reads (i, c)):
 *   naive:   byte = (i*cols + c)*esz; with cols*esz a multiple of 128 every lane hits one bank.
 *   pad:     row pitch = (cols+vec)*esz = 128k + vec*esz bytes, so lane i is shifted i*vec*esz bytes:
 *            consecutive lanes walk through consecutive access widths, covering the banks once.
 *   swizzle: lane i's vector slot is (c/vec) ^ (i mod 2^B); XOR with distinct i is a bijection, so the
 *            2^B lanes of one phase land in 2^B distinct slots of the bank row.
 * The bank model (bank_model.c) replays these offsets and the CPU tests check every statement above.
 */
#ifndef SMK_LAYOUT_H
#define SMK_LAYOUT_H

/* One qualifier for every map (CuTe's CUTE_HOST_DEVICE): constexpr in C++ so kernels size their
 * static shared arrays with smk_tile_elems(), plain static inline in C. */
#if defined(__CUDACC__)
#define SMK_HD __host__ __device__ __forceinline__ constexpr
#elif defined(__cplusplus)
#define SMK_HD inline constexpr
#else
#define SMK_HD static inline
#endif

/* The layouts, spelled the same everywhere (C, Python, tests, README). */
typedef enum { SMK_NAIVE = 0, SMK_PAD = 1, SMK_SWIZZLE = 2, SMK_NUM_LAYOUTS = 3 } smk_layout;

#define SMK_NUM_BANKS 32
#define SMK_BANK_BYTES 4

/* One tile's shape and access, as log2 values.  A literal type, so kernels use it as constexpr.
 * swz_b/swz_m/swz_s name the tile's Swizzle<B,M,S> explicitly; swz_b == 0 (what a 4-field
 * initialiser leaves) means the automatic choice of smk_tile_swizzle(), which removes every
 * row-vs-row conflict within a 128-byte bank row.  A kernel names a smaller swizzle when it needs to
 * separate only the rows one of its instructions actually touches together: fewer distinct XOR
 * constants per row means fewer index instructions (SGEMM, Swizzle<1,4,log2 BM - 2>). */
typedef struct {
    int layout;     /* smk_layout */
    int log2_cols;  /* elements per logical row */
    int log2_vec;   /* elements per access (vector width) */
    int log2_esz;   /* bytes per element */
    int swz_b, swz_m, swz_s; /* explicit Swizzle<B,M,S> for the 'swizzle' layout; 0,0,0 = automatic */
} smk_tile;

/* Swizzle<B,M,S> parameters. */
typedef struct {
    int b, m, s;
} smk_swz;

/* CuTe's map: offset ^ ((offset & yyy_mask) >> S); a negative S shifts left (yyy below zzz).
 * Offsets are tile offsets (< 2^31): 32-bit arithmetic keeps the index math to three instructions. */
SMK_HD int smk_swizzle(int off, int b, int m, int s)
{
    int bmask = (1 << b) - 1;
    if (s >= 0)
        return off ^ ((off & (bmask << (m + s))) >> s);
    return off ^ ((off & (bmask << m)) << -s);
}

SMK_HD int smk_min_int(int a, int b) { return a < b ? a : b; }

/* floor(log2(x)) for x >= 1: tile parameters are carried as log2 values. */
SMK_HD int smk_ilog2(int x) { return x <= 1 ? 0 : 1 + smk_ilog2(x / 2); }

/* The swizzle a tile uses (see the header comment for why these B, M, S). */
SMK_HD smk_swz smk_tile_swizzle(smk_tile t)
{
    smk_swz z = {t.swz_b, t.swz_m, t.swz_s};
    if (t.swz_b > 0)
        return z;
    int vec_slots_in_row = t.log2_cols - t.log2_vec;            /* log2(vectors per logical row) */
    int vec_slots_in_bank_row = 7 - t.log2_esz - t.log2_vec;    /* log2(vectors per 128 bytes) */
    z.b = smk_min_int(vec_slots_in_row, vec_slots_in_bank_row);
    z.m = t.log2_vec;
    z.s = vec_slots_in_row;
    /* Rows shorter than 128 bytes, vectors of whole bank words (e.g. 16-byte vectors of a 32 x 2-byte
     * row: 64-byte rows, two per bank row).  The rows sharing a bank row already sit in different
     * slots; what collides is rows in different bank rows, so yyy must be the low bits of the BANK
     * ROW index (offset bits from log2(128 / esz) up), not of the row index: Swizzle<2,3,3>, not
     * <2,3,2> (which XORs with r & 3, so rows r and r + 4 of an 8-row ldmatrix phase still share a
     * slot: 2-way).  Sub-word vectors (vec * esz < 4, the 2-byte transpose) keep the row rule: there
     * two elements share one bank word and the row bits are what separates them. */
    if (vec_slots_in_row < vec_slots_in_bank_row && t.log2_vec + t.log2_esz >= 2)
        z.s = vec_slots_in_bank_row;
    return z;
}

/* Element offset of logical (r, c) in the tile's storage.  Every shared-memory index comes from here. */
SMK_HD int smk_tile_offset(smk_tile t, int r, int c)
{
    int cols = 1 << t.log2_cols;
    if (t.layout == SMK_PAD)
        return r * (cols + (1 << t.log2_vec)) + c;
    if (t.layout == SMK_SWIZZLE) {
        smk_swz z = smk_tile_swizzle(t);
        return smk_swizzle(r * cols + c, z.b, z.m, z.s);
    }
    return r * cols + c;
}

/* smk_tile_offset split for one row r (added for the SGEMM inner loop; defined from smk_tile_offset):
 *
 *     smk_tile_offset(t, r, c) == smk_tile_row_offset(t, r) + (c ^ smk_tile_row_xor(t, r))
 *                                                             for every 0 <= c < cols, every layout.
 *
 * naive / pad: the row's first element and XOR 0.  swizzle: the yyy bits of r*cols + c are all row
 * bits and the zzz bits all column bits (S = log2 cols - M), so the map XORs the column with a
 * per-row constant ((r & (2^B - 1)) << M) = smk_tile_offset(t, r, 0) mod cols.  With r a compile-time
 * constant the row part folds into an instruction's immediate and the XOR is one LOP3 per distinct
 * column base; the single expression in smk_tile_offset makes the compiler add before it XORs. */
SMK_HD int smk_tile_row_xor(smk_tile t, int r)
{
    return t.layout == SMK_SWIZZLE ? (smk_tile_offset(t, r, 0) & ((1 << t.log2_cols) - 1)) : 0;
}

SMK_HD int smk_tile_row_offset(smk_tile t, int r)
{
    return smk_tile_offset(t, r, 0) - smk_tile_row_xor(t, r);
}

/* smk_tile_offset of the tile's element i in row-major order (r = i >> log2_cols, c = i mod cols), in closed form:
 *
 *     smk_tile_linear(t, i) == smk_tile_offset(t, i >> t.log2_cols, i & (cols - 1))      for every i >= 0.
 *
 * naive: i.  pad: r vectors of padding before row r, i + (r << log2_vec).  swizzle: smk_tile_offset's swizzle
 * is of r*cols + c = i already.  For kernels that walk a tile as one flat buffer (the skinny transposes' F): with
 * log2_cols known only at run time, the 2-D form costs a mask, a shift and a multiply-add an access where
 * this one costs a shift and an add (tests/c/test_bank_model.c checks the identity). */
SMK_HD int smk_tile_linear(smk_tile t, int i)
{
    if (t.layout == SMK_PAD)
        return i + ((i >> t.log2_cols) << t.log2_vec);
    if (t.layout == SMK_SWIZZLE) {
        smk_swz z = smk_tile_swizzle(t);
        return smk_swizzle(i, z.b, z.m, z.s);
    }
    return i;
}

/* Elements of storage a rows x cols tile needs in this layout. */
SMK_HD int smk_tile_elems(smk_tile t, int rows)
{
    int cols = 1 << t.log2_cols;
    return rows * (t.layout == SMK_PAD ? cols + (1 << t.log2_vec) : cols);
}

/* Bank of a byte offset into shared memory. */
SMK_HD int smk_bank(long long byte_offset)
{
    return (int)((byte_offset / SMK_BANK_BYTES) % SMK_NUM_BANKS);
}

/* Bank row of a byte offset: two accesses to one bank conflict iff their rows differ.
 * (Added for bank_model.c.) */
SMK_HD long long smk_bank_row(long long byte_offset)
{
    return byte_offset / (SMK_NUM_BANKS * SMK_BANK_BYTES);
}

#endif /* SMK_LAYOUT_H */
