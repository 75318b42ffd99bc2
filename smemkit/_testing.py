"""smemkit._testing: the C core's test and benchmark switches, set for one block and put back.

    from smemkit import _testing
    with _testing.knobs(poison=True, sgemm_config="64x64x8", sgemm_splits=7):
        ...   # kernel outputs start as NaN; SGEMM forced to one tile config and 7 K slices

The knobs are process-wide C globals with a setter only (``_C._set_knob(name, value)``; no getter).
This module is the one place that sets them: it keeps the value each knob has now (the C defaults
below until a block changes them; the staging pool's cap is read back from the pool), sets a block's
values on entry and, on exit -- normal or by an exception -- sets back the values they had on entry,
last set first, so blocks nest and an inner block restores the outer block's values.  A knob set
past this module (``_C._set_knob`` called directly) is not seen here: go through ``knobs``.

    poison              0 / 1 (or bool): every kernel output starts as 0xFF bytes (NaN)
    host_mode           -1 automatic, 0 pageable, 1 page-locked, 2 page-locked and pipelined,
                        3 staged through the pinned pool (csrc/host.h)
    staging_cap_mib     the pinned staging pool's cap in MiB (0 .. 65536)
    sgemm_config        0 or "auto": chosen per shape; else an index or a name of bench_configs("sgemm")
    sgemm_splits        0: chosen per shape; else the K slices to force (1 .. 65535)
    transpose_odd_path  1 (default): 1- and 2-byte rows off a 4-byte boundary move as re-aligned
                        whole words; 0: element by element
    transpose_skinny    16 (default since session 61): 15 with case B of cols 2..4 / 2..8 (1- / 2-byte, packed rows) on
                        the de-interleave (csrc/transpose/ilv.cu skinny_dlv_kernel); 15: 14 with 2-byte case A of
                        rows 65..84 and 129..144 as full-height strips (csrc/transpose/skinny_strip.cuh); 14 (session
                        58's): 13 with case A of
                        rows <= 16 (1- and 2-byte) on the interleave (csrc/transpose/ilv.cu); 13 (session 54's): 11 with 2-byte case B of S = 65..128 on the tiled kernel; 11 (session 44's): 10 with 1-byte S <= 84; 8 (session 43's): 7 and case A of skinny_vec's class on csrc/transpose/skinny_lean.cuh;
                        7 (session 41's default): as 3 and, for 2-byte elements with rows > cols and short
                        sides 65..128, skinny_prmt too; 3: the register-transpose kernel (csrc/transpose/skinny_prmt.cuh) for 1- and
                        2-byte elements, short sides up to 64, where it fits, else the word-wise skinny kernel
                        (csrc/transpose/skinny_vec.cuh); 2: the word-wise one alone there; 4: as 3 and
                        skinny_prmt for short sides 65..256 (session 38); 5: as 3 and skinny_prmt for
                        every rows <= cols up to 64, rows * esz off words too (session 40); 6: as 4
                        for short sides 65..128 only (session 41); 8: as 7 and every rows <= cols up to 64
                        on the lean case-A kernel (csrc/transpose/skinny_lean.cuh, session 43); 9: as 8 only
                        where 7 runs skinny_vec (output rows off words); 10: as 8 and rows <= cols with
                        rows 17..127 (1 byte) / 17..64 (2 bytes) as full-height strips with 16-byte output
                        vectors (csrc/transpose/skinny_strip.cuh, session 44); 1: the
                        element-wise skinny kernel alone (short sides up to 32, 16 for 16 bytes); 0: the tiled kernel for every shape
    transpose_mid       2 (default since session 43): the lean paths below; 0: the 1- and 2-byte tiled kernel's edge tiles move element by element; 1: as
                        whole words clipped to the matrix (csrc/transpose/configs.h mid_fits, global.cuh words);
                        2: the lean paths for odd-pitch interior and edge tiles (csrc/transpose/lean.cuh)
    transpose_shift     0 (default): none; 1: the 1- and 2-byte tiled kernel's tiles that would cross the last row
                        or column move inward to end on it (interior tiles, overlapping a neighbour; configs.h
                        edge_shift_bits); 2: every width
    transpose_copy      2 (default since session 44): 1 x n and n x 1 matrices contiguous along n move as a copy of their
                        bytes (csrc/transpose/copy.cuh, configs.h copy_fits); 1: 1- and 2-byte elements only; 0: never
    transpose_flat      1 (default since session 50): 4- and 8-byte matrices with rows = 33..64 <= cols on the flat
                        skinny kernel (csrc/transpose/skinny_flat.cuh, configs.h skinny_flat_fits); 2: short sides
                        33..128 either way round (A/B); 0: never
    transpose_gather    3 (default since session 53): 1- and 2-byte matrices of the tiled kernel with packed rows (both
                        sides >= 128 bytes), a pitch off words and output rows of >= 1024 bytes on the byte gather from
                        raw rows (csrc/transpose/gather.cuh, configs.h gather_fits), and since session 59 rows > cols
                        with input rows of 64..127 bytes; its tile 256 rows where the call moves >= 128 MiB or the
                        rows are under 128 bytes, else 128 (session 55, configs.h gather_tile_rows); 2: every pitch
                        off words; 1: every packed-row matrix; 4 (A/B, session 59): 1 and rows > cols with input rows
                        of 64..127 bytes; 0: never (the tiled kernel); 11-14 / 21-24: levels 1-4 with 256- / 128-row
                        tiles always
    transpose_tune      1 (default since session 51): where smemkit.autotune() is on and every other transpose knob is
                        at its default, the first call of a shape whose path those leave open (the sector store or
                        not, the flat skinny kernel or not) times those paths, L2 flushed, and the fastest is cached
                        per device (csrc/transpose/tune.cu); 0: the defaults' own path
    gemm16_variant      0: the shipped tensor-core GEMM; else an index or a name of bench_configs("gemm")
    gemm16_matvec       variant 0's memory-bound path (csrc/gemm16/matvec.h: M <= 8, N <= 8, K <= 32):
                        1 automatic (default), 0 off (the tiles and padded copies as before), 2 / 3 every
                        variant-0 shape forced onto its ROWS / COLS kernel, 4 every variant-0 shape with
                        K <= 128 onto the MMA kernel (tensor cores from registers), 5 every one
                        with N <= 32 onto the SKINNY kernel, 6 every one with M <= 32 onto SKINNY_M,
                        7 every one with N <= 8 onto TALL, 8 every one with M <= 8 onto MROW (tests)
    gemm16_mv_kmax      the MMA kernel's K bound under gemm16_matvec=1 (16 .. 128, default 32; within it
                        the kernel takes the shapes matvec.h smk_mv_mma_takes names); 0: the
                        routing before it (the TINYK kernel for K <= 16, ROWS slices of >= 32 k)
    gemm16_mv_v16       1 (default): the MMA kernel stores 16 bytes per lane (a quad transpose) where D's
                        rows start on 16 bytes and C is not read; 0: 4-byte pairs always
    gemm16_mv_skinny    bits (82 = 2 + 16 + 64 the default since session 44), 0: off; 1: the SKINNY kernel (csrc/gemm16/gemm16_skinny.cu: tensor
                        cores from registers, A streamed once with 16-byte loads, K split across blocks)
                        for 9 <= N <= 32, M > 8, K > 16 where the MMA kernel does not take the shape (the
                        64-wide tiles took them); 2: SKINNY for N <= 8 with M > 8, K > 16 (COLS took
                        them); 4: SKINNY_M (B streamed with 16-byte loads) for 9 <= M <= 32, N > 32,
                        K > 16 (the tiles took them); 8: SKINNY's B fragments as 4-byte loads
                        transposed by movmatrix where B's rows start on 4 bytes; 7 / 15 all of them;
                        16 (session 44, opt-in: 18 = 2 + it): TALL for N <= 8, M >= 1024, K > 16 before
                        SKINNY (csrc/gemm16/matvec_tall.h: a warp per 16 rows with 4 groups of 32 k in
                        flight, up to 8 warps of a block on K slices of the same rows summed in-kernel,
                        one launch, no reduce); 32 (with 16; 50 = 18 + it): TALL's second chunk per
                        lane by quad shuffles (each chunk requested once), 6 groups in flight; 64 (with
                        16; 82 = 18 + it): TALL only where M >= 4096 and 40 < K <= 768; 0 .. 127
    gemm16_mv_level     bits, 1855 (default since session 45: 319 + bits 512, 1024: MROW); 319 session 42's (63 + bit 256); 63 (session 41's): 15 + bits 16 and 32 below; 15 all four low bits; 7 session 40's; 3 session 39's; 0: neither; 1: ROWS (M <= 8) in 8-warp blocks that sum their K
                        slices in-kernel (matvec.h smk_mv_rows_fused: one launch where that is enough,
                        else 8x fewer partials for the reduce); 2: TINYK's block width by N; 4 (session
                        40): small calls' latency: N <= 8 with K <= kmax to the MMA kernel
                        (not COLS), SKINNY on A <= 8 MiB in 8-warp blocks summing K in-kernel
                        (smk_mv_skinny_fused: one launch), and the 8-warp blocks' sums spread over
                        their warps (one L2 round after the barrier)
                        8 (with 4; 15 = 7 + it, measured session 41): the 8-warp SKINNY only where every
                        warp has a K slice (K > 256) or the 4-warp grid leaves most SMs idle
                        (cdiv(M, 128) <= 33), else the 4-warp SKINNY as at 3 (matvec.h
                        smk_mv_skinny_fused_pays: tall A, short K)
                        16 (with 1; 31 = 15 + it, sm_90; in the default): ROWS' short K slices in
                        thread-block clusters of 2 .. 8 8-warp blocks that sum them in-kernel
                        (matvec.h smk_mv_rows_cluster: B <= 8 MiB, one launch on up to 8x the SMs)
                        32 (with 1; 63 = 31 + it, the default since session 41): the fused ROWS' K groups G
                        rounded down where cdiv(132, blocks) would spill past one wave of resident
                        blocks (TM = 3, 4, 7, 8: one per SM; matvec.h smk_mv_rows_fused_at)
                        64 (127 = 63 + it; lost on session 41's A/B, opt-in): ROWS' narrow outputs (M <= 8,
                        N <= 124, K > 16) to SKINNY_M (matvec.h smk_mv_narrow_takes)
                        128 (191 = 63 + it; opt-in, session 41): TINYK (K <= 16) as TINYK16, D written in
                        aligned 16-byte row chunks, 8 rows x 256 columns per warp, where D is 2-byte
                        and C is not read (else TINYK; gemm16_tinyk.cu)
                        256 (319 = 63 + it; opt-in, session 42): the MMA kernel's D as aligned 16-byte
                        row chunks at any ldd / offset (K <= 32, 4 n-tiles; csrc/gemm16/matvec_chunks.cuh)
                        and TINYK's shapes (K <= 16, rpw <= 32) to the MMA kernel (matvec.h
                        smk_mv_chunks_takes)
                        512 (831 = 319 + it; opt-in, session 45): M <= 8 calls whose ROWS route pays a
                        reduce launch to MROW (csrc/gemm16/matvec_mrow.h, gemm16_mrow.cu: D^T = B^T A^T
                        on tensor cores, B in 16-byte row chunks, 64 columns x a K slice per warp over one
                        wave, fp32 partials + the reduce); 1024 (with 512; 1855 = 831 + it): every M <= 8
                        call to MROW; 0 .. 2047
    gemm16_kernel       "auto" (2): the sm_90a TMA + wgmma kernel (csrc/hopper/) where
                        gemm16_kernel_for's rule takes the shape (variant 0, layout "swizzle", aligned
                        rows, compute capability 9.0, K >= 256, 128x256 tiles filling the last wave
                        >= 2/3), else the ldmatrix + mma.sync kernel; "mma" (0): always mma.sync (the
                        A/B baseline); "wgmma" (1): wgmma for variant 0 on aligned rows of a 9.0 device,
                        mma.sync everywhere else; "auto_padded" (3, the default until session 42): "auto", and where A's or B's rows
                        are not 16-byte aligned (K % 8 or N % 8 of dense rows), wgmma on padded copies of
                        those operands where api/wgmma.h smk_wgmma_auto_padded finds the copies plus the
                        wgmma kernel cheaper than the mma.sync choice; "wgmma_padded" (4): wgmma for every
                        variant-0 product on a 9.0 device, unaligned rows through padded copies (tests);
                        "cost" (5): as "auto_padded" but by the cost model alone (smk_wgmma_auto_cost: no
                        wave-fill gate, aligned rows included, K >= 128; an A/B arm); "auto_mid" (6): as
                        "auto_padded", and for K of 64..255 where B's rows are aligned the wave-fill rule (A's
                        unaligned rows copied where the copy pays: hopper/wgmma_mode.c wgmma_auto_mid; the default since session 42).
                        Its layouts are TMA's swizzle modes: "swizzle"
                        (128B), Swizzle(2,3,3) (64B), Swizzle(1,3,3) (32B), "naive" (no swizzle);
                        "pad" is a ValueError
    gemm16_epi          the mma.sync kernel's epilogue: 0 from the mma registers (4-byte pairs
                        where D allows, else 2-byte stores); 1 (the default until session 42) staged through a layout.h tile of the
                        block's output and written as aligned 16-byte row chunks
                        (csrc/gemm16/epilogue_rows.cuh) where D is 2-byte, beta == 0 and D's pairs are
                        unaligned or K <= 64; 2 staged wherever D is 2-byte and beta == 0 (tests); 3: 1,
                        and variant 0's TINYK outputs with K >= 4, M N >= 2^20 on the tiles instead; 4: 1,
                        and also K <= 256 with N >= 512 (api/gemm16_epi.h smk_gemm16_epi_staged_n; the default since session 42)
    gemm16_staged       variant 0's 64x64 tiles on rows read in place (not 16-byte aligned, not copied):
                        0 one k-tile of global loads in flight per block
                        (csrc/gemm16/load_staged.cuh); 1 (default since session 41): 4 k-tiles in flight, one block per SM
                        (csrc/gemm16/load_deep.cuh) where the grid is within a wave and a slice has >= 2
                        k-tiles (api/gemm16.h smk_gemm16_staged_deep); 2: 1, and where that path runs, the
                        chooser's K split of <= 8 k-tiles dropped (one launch, no reduction); 3 (tests):
                        the deep path on every in-place 64x64 launch (gemm16_variant 9 included)
    gemm16_shortk       variant 0's short-K tiles: 0 as the chooser models; 1 (default since session 42) its one-slice, uncopied
                        128x256 / 128x128 (one block per SM) choices with K <= 64 retiled to 128x128 at 2
                        blocks per SM, or 64x64 where that grid is within one block per SM (gemm16_choose.c)
    gemm16_small        variant 0's 64x64 launches on rows read in place: 0 (default) as they are; 1 on the
                        32x64 half tile (csrc/gemm16/small.h: 8 warps of 16x16, the deep staged loads, one
                        block per SM) where its grid (tiles x splits) is within one wave
                        (api/gemm16_small.h smk_gemm16_small_tile); 2 (tests): every such launch in
                        the automatic swizzle, gemm16_variant 9 included; 3 and 4: 1 and 2 with the ring
                        filled by 16-byte loads funnel-shifted at the store (csrc/gemm16/load_deep_wide.cuh),
                        also on the deep 64x64 launches (gemm16_staged's gate) the half tile leaves
    gemm16_narrow_async rows not 16-byte aligned but aligned to 8 / 4 bytes (K or N % 4 / % 2 == 0), read
                        in place: 0 the register-staged loads; 1 copied by 8- / 4-byte cp.async
                        into the same shared tiles (csrc/gemm16/load_narrow.cuh) on the K-heavy launches
                        (a split K or >= 16 k-tiles: api/gemm16.h smk_gemm16_narrow); 2 every in-place
                        launch, forced gemm16_variant 1 / 4 / 6 / 8 / 9 included (tests); 3 (session 44's default;
                        1 since session 45) as 1 with a split launch's slices at least 8 k-tiles (512) deep
    gemm16_pick         0 (default): variant 0's cost model picks the tile and K split; V * 1000 + S forces the tile of
                        chooser variant V (1..9) with S slices (1..64), padded copies against in-place rows still
                        modelled (api/gemm16_pick.h; the candidate grid bench/timing/gemm16_grid.py)
    sgemm_epi           the SGEMM tile kernel's epilogue: 0 from registers; 1 (default since session 41) staged through a layout.h
                        tile of the block's output and stored as whole rows (csrc/sgemm/epilogue_staged.cuh)
                        where sgemm_epi_gate says (K <= 64 per block, M N >= 2^19, output rows not all on
                        128-byte lines); 2 staged on every tile launch (tests); 3 where K <= 256 and
                        M N >= 2^19, any rows (probes)
    sgemm_deep          the SGEMM tile kernel's load pipeline: 0 two stages through registers
                        (csrc/sgemm/tile.cuh); 1 the BK = 16 rows' deep pipeline (csrc/sgemm/tile_deep.cuh: 4
                        shared stages filled by cp.async) where sgemm_deep_gate says (K > 16, at most 2 blocks
                        per SM); 2 at most 4 blocks per SM; 3 as 1, with 64x64x16's launches on the deep
                        32x64x16 half tile (csrc/sgemm/deep.h); 4 every launch of those rows, 5 as 4 with
                        64x64x16's on the half tile (tests); 6 (default since session 42) as 3 where N >= 32
    sgemm_redchain      the SGEMM chooser's price of a K split's reduction: 0 its bytes and launch; 1 (default since session 42) also
                        the chain of dependent slice loads each lane of sgemm/reduce.cuh walks (S / L of them,
                        4 in flight; ~1.8 us per round trip past the first: sgemm/choose.cu)
    sgemm_model         the SGEMM chooser's price of the tile rows: 0 (default) as before (csrc/sgemm/choose.cu); 1 on
                        the mid class (M, N > 32, K > 16) the level-1 price fitted to the H100 grid of every tile
                        config x K split (csrc/sgemm/choose_fit.cu, bench/timing/fit_sgemm_grid.py): rounds of
                        resident blocks, the deep kernel's launches, a split's measured price, every tile row offered
    sgemm_tune          the SGEMM's measured choice (csrc/sgemm/tune.cu, smemkit.tuning): 0 off (the model's choice);
                        1 (default since session 48, 0 when SMEMKIT_AUTOTUNE=0) the first automatic call of a shape
                        times the model's best few candidates and the fastest is cached per device, but not while a
                        CUDA tool is injected; 2 also under a tool
    sgemm_narrow        the SGEMM chooser's narrow-N rows: 0 (default) as before; 1 skinny-n16 / skinny-n32
                        (csrc/sgemm/skinny_n.cuh, one N tile of 16 / 32 columns) offered for 8 < N <= 32
    sgemm_gemv          the SGEMM's matrix-vector route (4, the default since session 44): 0 off; 1 automatic calls with M == 1 or N == 1 (K >= 1)
                        on csrc/sgemm/gemv.cuh (N == 1: a group of lanes per row of A; M == 1: float4 column
                        groups of B, K split over a block's warps and slices: csrc/sgemm/gemv.h), a K split summed
                        by csrc/sgemm/reduce.cuh; 2 as 1, the split summed by the kernel's last block per grid column;
                        3 (the default since session 43) as 1 for N == 1 alone; 4 as 3 for N == 1 and every call
                        with M <= 4, N > 1 on csrc/sgemm/gemv_wide.cuh (scalar 128-byte warp loads of B, any row
                        alignment; K split summed in the kernel); 5 as 4 for M == 1 alone; 6 as 4, the K split
                        summed by csrc/sgemm/reduce.cuh; 7 as 4, the fused tail's count one acq_rel atomic, no
                        device-wide fence (csrc/sgemm/gemv_wide.cuh wide_arrive)
    sgemm_rows_n        the SGEMM's narrow-N rows route (session 44): 0 (default) off; 1 automatic calls with 9 <= N <= 32,
                        M >= 1024, K >= 17 on csrc/sgemm/rows_n.cuh (8 lanes per row of A, B's K slice in shared memory,
                        a K split summed by csrc/sgemm/reduce.cuh only where the rows cannot fill the SMs); 2 as 1 for
                        2 <= N <= 32; 3 as 1 with 4, 2 (16 lanes a row) or 1 (32) rows of A a warp, the cheapest by
                        csrc/sgemm/rows_n.cu's price (a warp's serial A batches + B's shared wavefronts); 4 as 3 with
                        the rows a warp by the warps alone (2 where 4 leave the resident warps under two rounds, 1
                        where 2 leave them under one) (csrc/sgemm/rows_n.h)
    sgemm_tinyk         the SGEMM tiny-K kernel (K <= 16): 0 csrc/sgemm/tinyk.cuh; 1 (default since session 41) its lean variant
                        (csrc/sgemm/tinyk_lean.cuh: per-lane pointers computed once, the register panel as deep
                        as the K slice; D bit for bit the same)

A value the C side refuses is its ValueError (the knobs set before it are put back first); an
unknown knob, or a value that is not an int (bool) or a config name, is a TypeError naming the
valid ones.  Not for threads that set knobs concurrently (the globals are not either).

Also here, so tests and bench scripts need not reach into smemkit._C: the C core's reports they read
(``device_info``, ``staging_info``, ``sgemm_choose``).
"""
import contextlib
import numbers

from . import _C, _wgmma_plan
from .bench import bench_configs

__all__ = ["KNOBS", "current", "device_info", "gemm16_kernel_for", "knobs", "sgemm_choose", "sgemm_deep_gate", "sgemm_epi_gate",
           "sgemm_fixup_gate",
           "staging_info",
           "wgmma_launches", "wgmma_mode"]

# name -> the C default (csrc: runtime.c g_poison, host.c g_host_mode, hostpool.h SMK_STAGE_CAP_DEFAULT,
# module.c smk_py_sgemm_*, transpose/launch.cu g_odd_path, g_skinny_mode, g_raster_group, g_sector_mode, g_mid_mode, g_shift_mode, g_copy_mode and g_flat_mode,
# module_tools.c smk_py_gemm16_variant,
# gemm16/gemm16_matvec.cu smk_gemm16_matvec_mode, _mv_kmax, _mv_v16, _mv_skinny, _mv_level, hopper/wgmma.cu g_kernel,
# gemm16_choose.c smk_gemm16_epi, smk_gemm16_staged, smk_gemm16_shortk, smk_gemm16_small and smk_gemm16_narrow_async,
# sgemm/launch.cu g_new_paths, g_fixup, g_epi, g_deep, g_tinyk, g_narrow, g_gemv and g_rows_n, sgemm/choose.cu g_redchain, sgemm/choose_fit.cu g_model, runtime.c g_pdl)
KNOBS = {
    "poison": 0,
    "host_mode": -1,
    "staging_cap_mib": 128,
    "sgemm_config": 0,
    "sgemm_splits": 0,
    "transpose_odd_path": 1,
    "transpose_skinny": 16,  # 0..16 (csrc/transpose/configs.h skinny_wide_fits, skinny_lean_a_fits, skinny_strip_fits, skinny_strip_b_fits: 12 case B strips, skinny_ilv_fits, skinny_dlv_fits): 16 since session 61 (15 with case B S 2..4 uint8 / 2..8 2-byte de-interleaved; 15: 14 with 2-byte case A S 65..84 and 129..144 on strips), 14 since session 58 (13 with case A S <= 16 on csrc/transpose/ilv.cu), 13 since session 54 (11 without 2-byte case B S 65..128), 11 since session 44, 8 since session 43 (7 since session 41)
    "transpose_group": -1,  # -1 (the default since session 52): by shape (csrc/transpose/configs.h raster_group), 8 before; 0 row-major; G > 0 groups of G tile rows
    "transpose_sector": 4,  # 0..7 (csrc/transpose/configs.h sector_fits): 4 since session 50 (3 before: uint8 alone), 5 uint8 + float16 on sector_kernel.cuh, 6 + batches, 7 tests
    "transpose_mid": 2,  # 2 (the default since session 43): lean paths, 1: edge words, 0: element by element (csrc/transpose/configs.h mid_fits)
    "transpose_shift": 0,  # 1: sub-word edge tiles moved inward, 2: every width (csrc/transpose/configs.h edge_shift_bits)
    "transpose_flat": 1,  # 0..2 (csrc/transpose/configs.h skinny_flat_fits): 1 (the default since session 50) 4- / 8-byte rows 33..64 <= cols on csrc/transpose/skinny_flat.cuh, 2 short sides to 128 either way, 0 never
    "transpose_gather": 3,  # 0..4, 11..14, 21..24 (csrc/transpose/configs.h gather_fits, gather_tile_rows): 3 (the default since session 53) 1- / 2-byte tiled matrices with packed rows, a pitch off words and output rows >= 1024 bytes (and rows > cols with input rows of 64..127 bytes, session 59) on csrc/transpose/gather.cuh, 2 every pitch off words, 1 every packed-row one, 4 level 1 and rows > cols with input rows of 64..127 bytes, 0 never
    "transpose_tune": 1,  # 0..1 (1 the default since session 51): the transposes' measured choice among the defaults' open paths (csrc/transpose/tune.cu; off with smemkit.autotune(False) too)
    "transpose_copy": 2,  # 2 (the default since session 44): 1 x n / n x 1 matrices as a copy, 1: sub-word only, 0: never (csrc/transpose/configs.h copy_fits)
    "gemm16_variant": 0,
    "gemm16_matvec": 1,
    "gemm16_mv_kmax": 32,
    "gemm16_mv_v16": 1,
    "gemm16_mv_skinny": 82,  # 0..127 (bits, matvec.h; 82 = 2 + 16 + 64 the default since session 44): 1 SKINNY 9 <= N <= 32, 2 SKINNY N <= 8, 4 SKINNY_M, 8 movmatrix B, 16 TALL (session 44, matvec_tall.h), 32 TALL's chunks by shuffles, 64 TALL only for M >= 4096, 40 < K <= 768
    "gemm16_mv_level": 1855,  # 0..2047 (1855 the default since session 45; 319 since session 42; 63 since session 41) (bits, matvec.h): 1 fused ROWS, 2 TINYK width, 4 small-call latency, 8 SKINNY's 8-warp blocks only where they pay, 16 ROWS clusters, 32 fused ROWS in one wave, 64 narrow ROWS to SKINNY_M, 128 TINYK16 (16-byte D row chunks), 256 MMA for TINYK's shapes with 16-byte D row chunks at any offset, 512 MROW where ROWS pays a reduce, 1024 MROW on every M <= 8 (matvec_mrow.h)
    "gemm16_kernel": 6,  # "auto_mid", the default since session 42 (3, "auto_padded", since session 38)
    "gemm16_epi": 4,  # 0..4 (4 the default since session 42): the mma.sync kernel's epilogue, registers / staged rows (gemm16_choose.c)
    "gemm16_staged": 1,  # 0..3 (1 the default since session 41): the 64x64 in-place loads, one k-tile ahead / 4 (deep) under a wave / deep + short splits dropped / every in-place 64x64 launch, tests (gemm16_choose.c)
    "gemm16_shortk": 1,  # 0..1 (1 the default since session 42): variant 0's one-block-per-SM tiles at K <= 64 kept (0) / retiled to 128x128 at 2 per SM or 64x64 (1) (gemm16_choose.c)
    "gemm16_small": 1,  # 0..4 (1 the default since session 43): variant 0's in-place 64x64 launches as they are (0) / on the 32x64 half tile with the deep loads where its grid fits one wave (1) / every such launch, forced variant 9 included, tests (2) / 1 and 2 with the rings (the deep 64x64 one too) filled by 16-byte loads (3, 4) (api/gemm16_small.h)
    "gemm16_narrow_async": 1,  # 0..3 (1 the default since session 45; 3, session 44's: 1 on split slices >= 8 k-tiles): rows aligned to 4 / 8 bytes read in place through registers / by narrow cp.async on K-heavy launches / on every in-place launch, tests (gemm16_choose.c)
    "gemm16_pick": 0,  # 0: the cost model's tile and K split; V * 1000 + S: chooser variant V, S slices forced (gemm16_choose.c; bench/timing/gemm16_grid.py)
    "sgemm_new_paths": 11,  # 0..11: issue 27's path levels (module_tools.c py_set_knob); 11 (7 + the short tile past M = 32) the default since session 39; 7 skinny-n by waves, L1 loads; 8 the matvec rows; 9 also short tiles past M = 32; 10 also pads by price; 11 the short tiles alone
    "sgemm_epi": 1,  # 0..3 (1 the default since session 41): the SGEMM tile kernel's epilogue, registers / staged rows where the gate says (1) / always (2) / the wider probe rule (3) (sgemm/launch.h sgemm_epi_gate)
    "sgemm_deep": 6,  # 0..6 (6, the default: won session 41's and 42's A/Bs): the SGEMM tile kernel's load pipeline, registers / the BK = 16 rows' cp.async stages where the gate says at <= 2 (1) / <= 4 (2) blocks per SM, 1 + the 32x64x16 half tile (3), always (4), always + half (5), 3 where N >= 32 (6) (sgemm/deep.h sgemm_deep_gate)
    "sgemm_tinyk": 1,  # 0..1 (1 the default since session 41): the SGEMM tiny-K kernel, tinyk.cuh (0) / its lean variant, tinyk_lean.cuh (1): exact-depth panel, pointers once (sgemm/tinyk.cu)
    "sgemm_redchain": 1,  # 0..1 (1 the default since session 42): the SGEMM chooser prices a split's reduction by bytes (0) / also its load chain (1) (sgemm/choose.cu)
    "sgemm_gemv": 4,  # 0..7 (4 the default since session 44, 3 since session 43): the SGEMM's matrix-vector kernels for M == 1 / N == 1, splits summed by reduce.cuh (1) / in the kernel (2), N == 1 alone (3), + the wide kernel for M <= 4 (4) / M == 1 (5) / M <= 4 with reduce.cuh's sum (6) / the light count (7) (sgemm/gemv.h sgemv_route)
    "sgemm_model": 0,  # 0..1: the SGEMM chooser's price of the tile rows on the mid class, as before (0) / fitted to the H100 tile grid (1; sgemm/choose_fit.cu)
    "sgemm_narrow": 0,  # 0..1: the SGEMM chooser's narrow-N rows skinny-n16 / skinny-n32 for 8 < N <= 32 (1; sgemm/choose.cu sgemm_narrow_offer)
    "sgemm_tune": 1,  # 0..2 (1 the default since session 48; SMEMKIT_AUTOTUNE=0 makes it 0): the SGEMM's measured choice off / on but not under a CUDA tool / always (sgemm/tune.cu; smemkit.autotune)
    "sgemm_rows_n": 0,  # 0..4: the SGEMM's narrow-N rows route for 9 <= N <= 32 (1; 3 / 4: rows per warp by price / warps) / 2 <= N <= 32 (2), M >= 1024 (sgemm/rows_n.h rows_n_route)
    "pdl": 0,
    "splitk_fixup": 0,  # 0..3: split-K's reduction kernel (0), fused into the SGEMM / GEMM16 tile kernels: the last block where the gates say (1), always (2), the tile's cluster of <= 8 slices on sm_90 (3)
    "splitk_fence": 1,  # the fused reduction's ordering: one fence per block after a barrier (1), a fence per thread (0)
}
_NAMED = {"gemm16_kernel": ("mma", "wgmma", "auto", "auto_padded", "wgmma_padded", "cost", "auto_mid")}  # knobs whose values also have names (index = value)
_CONFIG_OP = {"sgemm_config": "sgemm", "gemm16_variant": "gemm"}  # knobs that also take a config name
_now = dict(KNOBS)  # what each knob holds now, as far as this module has set it


def _get(name):
    if name == "staging_cap_mib":  # the knobs the C core reports back
        return _C._staging_info()["cap"] >> 20
    if name in _OWN_BINDING:
        return getattr(_C, _OWN_BINDING[name])()
    return _now[name]


_OWN_BINDING = {"sgemm_tune": "_autotune"}  # knobs set through a binding of their own (csrc/module_tune.c), not _set_knob


def _set(name, value):
    if name in _OWN_BINDING:
        getattr(_C, _OWN_BINDING[name])(value)
    else:
        _C._set_knob(name, value)
    _now[name] = value


def _value(name, v):
    """v as the int _set_knob takes: bools as 0 / 1, config names as their index."""
    if isinstance(v, str) and name in _NAMED:
        if v not in _NAMED[name]:
            raise ValueError(f"knobs(): {name}={v!r}; expected one of {_NAMED[name]}")
        return _NAMED[name].index(v)
    if isinstance(v, str) and name in _CONFIG_OP:
        names = bench_configs(_CONFIG_OP[name])
        if v not in names:
            raise ValueError(f"knobs(): {name}={v!r} is not a config of this build; it has {names}")
        return names.index(v)
    if isinstance(v, numbers.Integral):  # bool included: poison=True
        return int(v)
    kinds = "an int or a config name" if name in _CONFIG_OP else "an int (or bool)"
    raise TypeError(f"knobs(): {name} must be {kinds}; got {type(v).__name__}")


def current():
    """{knob: value} as this module last set them (the staging cap as the pool reports it)."""
    return {name: _get(name) for name in KNOBS}


@contextlib.contextmanager
def knobs(**values):
    """with knobs(name=value, ...): the knobs set for the block, their previous values restored after it
    (also when it raises).  Usable as a decorator too.  See the module docstring for the knobs."""
    unknown = sorted(set(values) - set(KNOBS))
    if unknown:
        raise TypeError(f"knobs(): unknown knob{'s' if len(unknown) > 1 else ''} {', '.join(unknown)}; "
                        f"the knobs are {', '.join(KNOBS)}")
    new = {name: _value(name, v) for name, v in values.items()}  # every value checked before any is set
    saved = []
    try:
        for name, v in new.items():
            old = _get(name)
            _set(name, v)
            saved.append((name, old))
        yield
    finally:
        for name, old in reversed(saved):
            _set(name, old)


def device_info():
    """{'name', 'sms', 'l2_bytes', 'cc'} of the current device; CudaError without one."""
    return _C._device_info()


def staging_info():
    """The pinned staging pool: {'held', 'in_use', 'cap', 'peak'} in bytes and 'threads' (no GPU needed)."""
    return _C._staging_info()


def sgemm_choose(M, N, K, sms=None):
    """(config name, K slices) the SGEMM launch picks for M x N x K on `sms` SMs (None: this device's).
    A pure function of its arguments: no GPU needed when sms is given."""
    return _C._sgemm_choose(M, N, K, device_info()["sms"] if sms is None else sms)


def sgemm_fixup_gate(M, N, S, config, knob=1):
    """True where an SGEMM split launch of tile config `config` (a name or number) over S K slices of an
    M x N output reduces inside the tile kernel at splitk_fixup level `knob` (sgemm/launch.cu's gate; pure,
    no GPU: at level 3, the tile's cluster, the launcher also wants sm_90); False where the separate
    reduction kernel runs."""
    if isinstance(config, str):
        config = bench_configs("sgemm").index(config)
    return bool(_C._sgemm_fixup_gate(M, N, S, config, knob))


def sgemm_epi_gate(M, N, K, rows, config, knob=1):
    """True where an SGEMM tile launch of config `config` (a name or number) over an M x N output, K deep per
    block, whose output rows are `rows` (2: D's, and C's when read, all on 128-byte lines; 1: on 16 bytes with
    ld % 4 == 0; 0: neither) stores through shared memory (sgemm/epilogue_staged.cuh) at sgemm_epi level `knob`
    (sgemm/launch.cu's gate; pure, no GPU)."""
    if isinstance(config, str):
        config = bench_configs("sgemm").index(config)
    return bool(_C._sgemm_epi_gate(M, N, K, rows, config, knob))


def sgemm_deep_gate(M, N, K, config, splits=1, sms=132, knob=1):
    """How an SGEMM tile launch of config `config` (a name or number) over an M x N output, K deep per block, in
    `splits` K slices on `sms` SMs runs at sgemm_deep level `knob` (sgemm/launch.cu's gate; pure, no GPU): 0
    tile.cuh, 1 the deep cp.async pipeline (sgemm/tile_deep.cuh) of its own tile, 2 of the 32x64x16 half tile."""
    if isinstance(config, str):
        config = bench_configs("sgemm").index(config)
    return _C._sgemm_deep_gate(M, N, K, splits, config, sms, knob)


def wgmma_launches():
    """How many TMA + wgmma kernels this process has enqueued: a test that means the wgmma kernel checks
    that this moved (the launcher falls back to mma.sync silently where wgmma cannot run)."""
    return _C._wgmma_launches()


_LAYOUT_INDEX = {"naive": 0, "pad": 1, "swizzle": 2}


def wgmma_mode(layout):
    """The swizzle width in bytes (128 / 64 / 32; 0 = no swizzle, interleaved core matrices) that the
    wgmma kernel uses for ``layout`` ("naive", "pad", "swizzle" or a smemkit.Swizzle), or -1 where TMA
    and wgmma cannot express it (api/wgmma.h smk_wgmma_mode; pure, no GPU)."""
    if isinstance(layout, str):
        return _C._wgmma_mode(_LAYOUT_INDEX[layout], 0, 0, 0)
    return _C._wgmma_mode(2, layout.b, layout.m, layout.s)


def gemm16_kernel_for(shape, layout="swizzle", *, cc, sms, variant=0, rows_aligned=None, knob=None):
    """"wgmma" or "mma.sync": the kernel smemkit.gemm runs for shape (M, N, K) on a device of compute
    capability cc with `sms` SMs (api/wgmma.h smk_gemm16_kernel_for_ab; pure, no GPU).  rows_aligned None:
    dense rows of an aligned allocation (A's aligned iff K % 8 == 0, B's iff N % 8 == 0), a bool for both,
    or a pair (A's, B's); knob None: the gemm16_kernel knob as set now, else "mma" / "wgmma" / "auto" /
    "auto_padded" / "wgmma_padded" / "cost" / "auto_mid" (or 0-6)."""
    k = -1 if knob is None else _value("gemm16_kernel", knob)
    return _wgmma_plan.kernel_for(tuple(shape), layout, cc=tuple(cc), sms=sms, variant=variant,
                                  rows_aligned=rows_aligned, knob=k)


def gemm_plan(shape, layout="swizzle", *, sms=132, config=0, swizzle=None):
    """The tensor-core GEMM's raw access plan for explain() (gemm16_plan.cu; pure, no GPU): a dict with
    config, blocks and accesses = [(name, width, kind, repeats, shared offsets (n, 32), instr, global
    sources (n, 32) of a cp.async, else None)].  swizzle: (b, m, s) of an explicit Swizzle under
    layout "swizzle".  For probes that replay the kernel's own instructions (bench/bank_probe/ldgsts_probe.py)."""
    kw = {"swizzle": tuple(swizzle)} if swizzle is not None else {}
    return _C._plan("gemm", tuple(shape), layout, 2, sms, config, 0, **kw)


def sgemm_plan(shape, layout="swizzle", *, sms=132, config=0, splits=0):
    """The SGEMM's raw access plan for explain() (csrc/sgemm/plan.cu; pure, no GPU), shaped as gemm_plan's:
    the deep kernel's cp.async copies carry their global sources (block (0, 0)'s first k-tile, -1 for a
    zero-filled lane).  For probes that replay its instructions (bench/bank_probe/ldgsts_probe.py gen-deep)."""
    return _C._plan("sgemm", tuple(shape), layout, 4, sms, config, splits)
