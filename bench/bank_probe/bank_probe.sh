#!/usr/bin/env bash
# bank_probe.sh -- measure wavefronts per shared-memory instruction for every pattern in
# bench/bank_probe/bank_patterns.txt with Nsight Compute, and write the table bank_model.c is checked against.
#
#   bash bench/bank_probe/bank_probe.sh OUTDIR [--quick | --subword [SUBWORD_FILE [STSM_FILE]] | PATTERN_FILE]
#
# OUTDIR gets: bank_probe (binary), bank_probe.sass + sass_check.txt, device.txt, manifest.tsv,
# ncu.csv (raw ncu output), ncu.log (ncu/probe stderr), bank_probe_<gpu>.csv (the table: width,
# kind, addresses, wavefronts, instructions, name) -- copy it to tests/data/.
# --quick uses bench/bank_probe/bank_patterns_quick.txt (~150 patterns instead of ~450).
# --subword (issue #30) measures bench/bank_probe/bank_patterns_subword.txt (1- and 2-byte LDS/STS, ~400
# patterns) into bank_probe_subword_<gpu>.csv (same columns) and then bench/bank_probe/bank_patterns_stsm.txt
# (stmatrix x1/x2/x4[.trans], ~200) into bank_probe_stsm_<gpu>.csv (bank_probe_parse.py stsmtable:
# the same columns, then every counter ncu reported; the stmatrix candidates are asked only when
# `ncu --query-metrics` lists them); ncu_subword.csv / ncu_stsm.csv, manifest_*.tsv beside them.
# SUBWORD_FILE / STSM_FILE replace the two pattern files (a subset: tests/test_probe_gpu.py).
# Env: NVCC, NCU, CUOBJDUMP override the tools; BANK_PROBE_BIN uses a prebuilt probe instead of
# compiling; BANK_PROBE_ARCH (default sm_90).
set -euo pipefail

OUT=${1:?usage: bash bench/bank_probe/bank_probe.sh OUTDIR [--quick | --subword [SUBWORD_FILE [STSM_FILE]] | PATTERN_FILE]}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(dirname "$(dirname "$HERE")")  # bench/bank_probe/ -> the repository
PAT=$HERE/bank_patterns.txt
SUBWORD=0
if [ "${2:-}" = "--quick" ]; then PAT=$HERE/bank_patterns_quick.txt
elif [ "${2:-}" = "--subword" ]; then SUBWORD=1; PAT=${3:-$HERE/bank_patterns_subword.txt}
elif [ -n "${2:-}" ]; then PAT=$2; fi
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)

find_tool() {  # name, then candidate paths
    local name=$1; shift
    if command -v "$name" >/dev/null 2>&1; then command -v "$name"; return; fi
    local c
    for c in "$@"; do
        for f in $c; do [ -x "$f" ] && { echo "$f"; return; }; done
    done
    echo ""
}
NVCC=${NVCC:-$(find_tool nvcc /usr/local/cuda/bin/nvcc)}
NCU=${NCU:-$(find_tool ncu /usr/local/cuda/bin/ncu '/opt/nvidia/nsight-compute/*/ncu' '/usr/local/NVIDIA-Nsight-Compute*/ncu' '/usr/local/cuda/nsight-compute*/ncu')}
CUOBJDUMP=${CUOBJDUMP:-$(find_tool cuobjdump /usr/local/cuda/bin/cuobjdump)}
ARCH=${BANK_PROBE_ARCH:-sm_90}

log() { echo "[bank_probe $(date +%T)] $*" >&2; }

# 1. build (or take a prebuilt binary)
if [ -n "${BANK_PROBE_BIN:-}" ]; then
    cp "$BANK_PROBE_BIN" "$OUT/bank_probe"
else
    [ -n "$NVCC" ] || { log "nvcc not found (set NVCC or BANK_PROBE_BIN)"; exit 1; }
    log "building with $NVCC -arch=$ARCH"
    "$NVCC" -O3 -arch="$ARCH" -I"$ROOT/csrc" -o "$OUT/bank_probe" "$HERE/bank_probe.cu"
fi

# 2. the SASS must hold exactly one predicated LDS/STS of the right width per kernel
if [ -n "$CUOBJDUMP" ]; then
    "$CUOBJDUMP" --dump-sass "$OUT/bank_probe" > "$OUT/bank_probe.sass"
    python3 "$HERE/bank_probe_parse.py" sass "$OUT/bank_probe.sass" 2> "$OUT/sass_check.txt" \
        || { cat "$OUT/sass_check.txt" >&2; log "SASS check failed"; exit 1; }
    log "SASS check ok (one shared instruction per kernel)"
else
    log "cuobjdump not found: SASS not checked"
fi

# 3. the device, and a dry run without ncu (catches launch errors fast)
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader 2>/dev/null || echo unknown; } > "$OUT/device.txt"
GPU=$(head -n1 "$OUT/device.txt" | grep -oiE 'H100|H200|A100|L40S?|B200|GH200' | head -n1 | tr 'A-Z' 'a-z' || true)
GPU=${GPU:-gpu}
log "device: $(head -n1 "$OUT/device.txt"); patterns: $PAT ($(grep -vc '^#' "$PAT"))"
"$OUT/bank_probe" "$PAT" --manifest "$OUT/manifest.tsv"

# 4. the measurement: one kernel launch per pattern, four counters each
[ -n "$NCU" ] || { log "ncu not found (set NCU)"; exit 1; }
BASE_METRICS=l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,smsp__inst_executed_op_shared_ld.sum,smsp__inst_executed_op_shared_st.sum

if [ "$SUBWORD" = 1 ]; then
    # 4a. 1- and 2-byte LDS/STS: the same four counters and table as the 4/8/16-byte probe
    log "profiling $PAT with $NCU ($("$NCU" --version | tail -n1))"
    start=$(date +%s)
    "$NCU" --clock-control none --print-units base -k regex:smk_bank_probe_ --metrics "$BASE_METRICS" \
        --csv "$OUT/bank_probe" "$PAT" --manifest "$OUT/manifest_subword.tsv" > "$OUT/ncu_subword.csv" 2> "$OUT/ncu_subword.log"
    log "ncu took $(( $(date +%s) - start )) s"
    rc=0
    python3 "$HERE/bank_probe_parse.py" table "$OUT/ncu_subword.csv" "$OUT/manifest_subword.tsv" \
        -o "$OUT/bank_probe_subword_$GPU.csv" || rc=1
    # 4b. stmatrix: which counters move is part of the question, so ask every candidate this ncu has
    SPAT=${4:-$HERE/bank_patterns_stsm.txt}
    "$OUT/bank_probe" "$SPAT" --manifest "$OUT/manifest_stsm.tsv"
    "$NCU" --devices 0 --query-metrics > "$OUT/ncu_query_metrics.txt" 2>&1 || true
    STSM_METRICS=$BASE_METRICS
    for m in l1tex__data_pipe_lsu_wavefronts_mem_shared.sum \
             smsp__inst_executed_op_shared_stsm.sum smsp__sass_inst_executed_op_shared_stsm.sum \
             smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_stsm.sum \
             smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_st.sum \
             smsp__sass_inst_executed_op_shared_st.sum \
             l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum; do
        if grep -qw "${m%.sum}" "$OUT/ncu_query_metrics.txt"; then STSM_METRICS=$STSM_METRICS,$m; fi
    done
    log "profiling $SPAT; metrics: $STSM_METRICS"
    start=$(date +%s)
    "$NCU" --clock-control none --print-units base -k regex:smk_bank_probe_ --metrics "$STSM_METRICS" \
        --csv "$OUT/bank_probe" "$SPAT" > "$OUT/ncu_stsm.csv" 2> "$OUT/ncu_stsm.log"
    log "ncu took $(( $(date +%s) - start )) s"
    python3 "$HERE/bank_probe_parse.py" stsmtable "$OUT/ncu_stsm.csv" "$OUT/manifest_stsm.tsv" \
        -o "$OUT/bank_probe_stsm_$GPU.csv" || rc=1
    log "wrote $OUT/bank_probe_subword_$GPU.csv and $OUT/bank_probe_stsm_$GPU.csv -- copy them to tests/data/"
    exit $rc
fi
log "profiling with $NCU ($("$NCU" --version | tail -n1))"
start=$(date +%s)
"$NCU" --clock-control none --print-units base -k regex:smk_bank_probe_ --metrics "$BASE_METRICS" \
    --csv "$OUT/bank_probe" "$PAT" > "$OUT/ncu.csv" 2> "$OUT/ncu.log"
log "ncu took $(( $(date +%s) - start )) s"

# 5. the table
python3 "$HERE/bank_probe_parse.py" table "$OUT/ncu.csv" "$OUT/manifest.tsv" -o "$OUT/bank_probe_$GPU.csv"
log "wrote $OUT/bank_probe_$GPU.csv -- copy it to tests/data/ and run the C test against it:"
log "  gcc -std=c99 -O2 -Icsrc tests/c/test_bank_model.c csrc/bank_model.c -o /tmp/tbm && /tmp/tbm tests/data/bank_probe_$GPU.csv"
