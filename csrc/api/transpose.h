/*
 * api/transpose.h -- the transpose kernels' C API (transpose.cu): a plain params struct, the launcher
 * (returns a cudaError_t, never exits, leaves nothing allocated), the tile-variant table and the
 * access plan.  No Python, no runtime status codes.
 */
#ifndef SMK_API_TRANSPOSE_H
#define SMK_API_TRANSPOSE_H

#include <stddef.h>
#include <stdint.h>
#include <cuda_runtime_api.h>

#include "api/plan.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    const void *in;    /* batch matrices of rows x cols elements: element (r, c) of matrix b at
                        * in[b*in_bs + r*in_rs + c*in_cs] (element strides; any sign for rs/cs) */
    void *out;         /* batch matrices of cols x rows, C-contiguous: matrix b at out + b*rows*cols
                        * elements, its element (c, r) at out[b*rows*cols + c*rows + r] */
    int64_t rows, cols;
    int64_t in_rs, in_cs; /* element strides of the input */
    int esz;           /* element size in bytes: smk_transpose_supports() says which (1, 2, 4, 8, 16) */
    int layout;        /* smk_layout */
    int64_t batch;     /* number of matrices, >= 1; 0 is read as 1 (callers that memset the struct) */
    int64_t in_bs;     /* element stride between consecutive input matrices (ignored when batch <= 1) */
} smk_transpose_params;

/* 1 if the transpose kernels move elements of `esz` bytes, else 0.  Bindings derive dtype acceptance
 * from this instead of retyping a list. */
int smk_transpose_supports(int esz);
/* Enqueue the transpose of every matrix of the batch on `stream`, in ONE launch.  Returns a
 * cudaError_t: cudaErrorInvalidValue for a bad esz, layout or negative size, cudaErrorInvalidConfiguration
 * when the grid would exceed the device limits (tiles per matrix > 2^31 - 1, or batch > 65535^2).
 * rows == 0 or cols == 0 launches nothing.  A matrix with a side of at most 32 elements (16 for 16-byte
 * ones; 64 for 1- and 2-byte ones, word-wise: transpose/skinny_vec.cuh) and contiguous columns takes a
 * skinny kernel (transpose/skinny.cuh; the choice is
 * transpose/configs.h's choose()), every other one the tiled kernel.  Any pointer alignment and strides work (1- and 2-byte rows
 * that do not start on a 4-byte boundary move as aligned words re-aligned in registers; misaligned
 * elements of 4 bytes and more, and non-unit column strides, fall back to element-wise accesses).  Where every
 * knob is at its default and the defaults leave the path open, the path is the measured choice
 * (transpose/tune.cu, api/transpose_tune.h: the first call of a shape times the open paths, which synchronises
 * `stream`). */
int smk_transpose_launch(const smk_transpose_params *p, cudaStream_t stream);
/* The benchmark's tile sweep: variant 0 is the shipped kernel for p->esz (tiled or skinny by shape),
 * variant v >= 1 is row v of the compiled tile shapes (each still runs all three layouts; the skinny
 * row, tile (0, 0) in smk_transpose_variant_geometry, moves any shape); row 0 is the shipped shape for
 * 4 bytes. */
int smk_transpose_launch_variant(const smk_transpose_params *p, int variant, cudaStream_t stream);
int smk_transpose_num_variants(void);
/* Tests and benchmarks: 0 makes 1- and 2-byte rows that do not start on a 4-byte boundary take the
 * element-wise path again (default 1: whole words re-aligned in registers). */
void smk_transpose_set_odd_path(int on);
/* Tests and benchmarks: the skinny paths, 3 (default) transpose/skinny_prmt.cuh where configs.h's
 * skinny_prmt_fits, else as 2; 2 the word-wise skinny kernel for 1- and 2-byte
 * elements with a short side up to 64 (transpose/skinny_vec.cuh), 1 the element-wise skinny kernel
 * alone (short side up to 32, 16 for 16-byte elements), 0 the tiled kernel for every shape.  The plan
 * (explain) follows the same mode. */
void smk_transpose_set_skinny(int mode);
/* Tests and benchmarks: the tiled kernel's raster, G > 0 groups of G tile rows, 0 row-major, -1 (the default) by
 * shape (transpose/configs.h raster_group: 8, or every tile row of a matrix). */
void smk_transpose_set_raster_group(int g);
/* The raster group a tiled launch of variant `variant` (0: the width's shipped tile) of that shape takes under the
 * knob as it is (tests, bench); -1 for a bad width or variant, or a variant that is not tiled.  Pure: no GPU. */
int64_t smk_transpose_raster_group(int64_t rows, int64_t cols, int esz, int64_t batch, int variant);
int smk_transpose_skinny_mode(void);
/* Tests and benchmarks: the sector store of the tiled kernel (transpose/sector.cuh) where configs.h's
 * sector_fits (output rows off 32-byte sectors): 0 never (the default), 1 for 4-byte elements with an output
 * pitch of at least 2 KB, 2 for 1-, 2- and 4-byte elements at any pitch.  The plan follows the same mode. */
void smk_transpose_set_sector(int mode);
int smk_transpose_sector_mode(void);
/* Tests and benchmarks: the 1- and 2-byte tiled kernel's global paths off the aligned interior one
 * (transpose/configs.h's mid_fits): 2, the default since session 43, transpose/lean.cuh's lean paths for odd-pitch
 * interior and edge tiles; 1 edge tiles as whole words clipped to the matrix; 0 element by element.  explain()
 * names 1 and 2. */
void smk_transpose_set_mid(int mode);
int smk_transpose_mid_mode(void);
/* Tests and benchmarks: edge tiles moved inward (transpose/configs.h's edge_shift_bits): 1 the 1- and 2-byte
 * tiled launches, 2 every width, 0 (the default) none.  explain() names it. */
void smk_transpose_set_shift(int mode);
int smk_transpose_shift_mode(void);
/* Tests and benchmarks: the copy route for 1 x n and n x 1 matrices (transpose/configs.h's copy_fits, transpose/copy.cuh):
 * 2 (default since session 44) every width, 1 1- and 2-byte elements, 0 never. */
void smk_transpose_set_copy(int mode);
int smk_transpose_copy_mode(void);
/* Tests and benchmarks: the flat skinny kernel for 4- and 8-byte matrices (transpose/configs.h's skinny_flat_fits,
 * transpose/skinny_flat.cuh): 1 (default since session 50) rows = 33..64 <= cols, 2 short sides to 128 both ways, 0 never. */
void smk_transpose_set_flat(int mode);
int smk_transpose_flat_mode(void);
/* Tests and benchmarks: the gather kernel for 1- and 2-byte tiled matrices (transpose/configs.h's gather_fits,
 * transpose/gather.cuh): 3 (default since session 53) those with a pitch off words and output rows of >= 1024 bytes,
 * 2 every packed-row matrix with a pitch off words, 1 every packed-row matrix of the shipped tiled config, 0 never.
 * explain() replays it (transpose/gather_plan.h). */
void smk_transpose_set_gather(int mode);
int smk_transpose_gather_mode(void);
/* Tile edge and thread rows of a variant, in units (an element; a 4x4 byte / 2x2 half block for 1 / 2
 * bytes).  The first form answers for 4-byte elements. */
void smk_transpose_variant_geometry(int variant, int *tile, int *block_rows);
void smk_transpose_variant_geometry_esz(int variant, int esz, int *tile, int *block_rows);

/* The transpose's access plan (see api/plan.h): 0 on success, -1 for bad arguments. */
int smk_transpose_plan(int64_t rows, int64_t cols, int esz, int layout, smk_plan *plan);
/* The same for a batch of `batch` matrices (one launch): blocks and repeats scale by batch. */
int smk_transpose_plan_batched(int64_t batch, int64_t rows, int64_t cols, int esz, int layout, smk_plan *plan);

#ifdef __cplusplus
}
#endif

#endif /* SMK_API_TRANSPOSE_H */
