#!/usr/bin/env bash
# Count shared-memory wavefronts and instructions of smemkit's own kernels with Nsight Compute.
#   bash bench/profiling/ncu_kernels.sh OUTDIR [--new | --case op,MxNxK,dtype[,torch][,cfg=N] ...] [--ops transpose sgemm gemm]
#     -> OUTDIR/ncu_kernels.csv, OUTDIR/ncu_manifest.txt
# Counters: LDS / STS wavefronts and instructions (..._op_ld / _op_st, inst_executed_op_shared_*), the
# same wavefronts per instruction from SASS patching (smsp__sass_..._op_ld / _op_st); the
# tensor-core GEMM's ldmatrix wavefronts land in ..._op_ld too, its instructions only in
# smsp__inst_executed_op_ldsm; its cp.async shared writes only in the ..._op_ldgsts pair (see
# docs/GEMM16_NOTES.md).
set -euo pipefail
out=${1:?usage: bench/profiling/ncu_kernels.sh OUTDIR [--ops ...]}
shift
NCU=${NCU:-$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -n 1)}
[ -x "$NCU" ] || { echo "ncu not found (set NCU)"; exit 1; }
metrics=l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum
metrics=$metrics,smsp__inst_executed_op_shared_ld.sum,smsp__inst_executed_op_shared_st.sum
metrics=$metrics,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
metrics=$metrics,smsp__inst_executed_op_ldsm.sum,smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldsm.sum
metrics=$metrics,smsp__sass_inst_executed_op_ldgsts.sum,smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldgsts.sum
metrics=$metrics,smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_st.sum
# every smemkit kernel (the GEMMs' padded copies, reductions and memory-bound kernels too), and the marker
# kernel ncu_kernels.py launches before each call (torch's spin_kernel) that groups them into calls
kernels='spin_kernel|transpose_kernel|transpose_sector_kernel|skinny_flat_kernel|skinny_strip_b_kernel|sgemm_deep_kernel|tinyk_lean_kernel|sgemm_rows_n_kernel|mv_tinyk16_kernel|mv_mrow_kernel|skinny_kernel|skinny_vec_kernel|skinny_lean_a_kernel|skinny_prmt(_a)?_kernel|sgemm_kernel|skinny_[mn]_kernel|tinyk_kernel|matvec_kernel'
kernels=$kernels'|gemm16_kernel|mv_[a-z]+_kernel|reduce_kernel|pad_rows_kernel|skinny_strip_kernel|copy_kernel|sgemv_[a-z]+_kernel'
"$NCU" --clock-control none --print-units base --csv --metrics "$metrics" -k "regex:$kernels" \
    python3 "$(dirname "$0")/ncu_kernels.py" "$out/ncu_manifest.txt" "$@" > "$out/ncu_kernels.csv"
echo "ncu kernels (markers included): $(grep -c '"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"' "$out/ncu_kernels.csv")"
