#!/usr/bin/env bash
# bank_probe.sh -- measure wavefronts per shared-memory instruction for every pattern in
# bench/bank_probe/bank_patterns.txt with Nsight Compute, and write the table bank_model.c is checked against.
#
#   bash bench/bank_probe.sh OUTDIR [--quick | PATTERN_FILE]
#
# OUTDIR gets: bank_probe (binary), bank_probe.sass + sass_check.txt, device.txt, manifest.tsv,
# ncu.csv (raw ncu output), ncu.log (ncu/probe stderr), bank_probe_<gpu>.csv (the table: width,
# kind, addresses, wavefronts, instructions, name) -- copy it to tests/data/.
# --quick uses bench/bank_patterns_quick.txt (~150 patterns instead of ~450).
# Env: NVCC, NCU, CUOBJDUMP override the tools; BANK_PROBE_BIN uses a prebuilt probe instead of
# compiling; BANK_PROBE_ARCH (default sm_90).
set -euo pipefail

OUT=${1:?usage: bash bench/bank_probe.sh OUTDIR [--quick | PATTERN_FILE]}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(dirname "$(dirname "$HERE")")  # bench/bank_probe/ -> the repository
PAT=$HERE/bank_patterns.txt
if [ "${2:-}" = "--quick" ]; then PAT=$HERE/bank_patterns_quick.txt; elif [ -n "${2:-}" ]; then PAT=$2; fi
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
log "profiling with $NCU ($("$NCU" --version | tail -n1))"
start=$(date +%s)
"$NCU" --clock-control none --print-units base -k regex:smk_bank_probe_ \
    --metrics l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,smsp__inst_executed_op_shared_ld.sum,smsp__inst_executed_op_shared_st.sum \
    --csv "$OUT/bank_probe" "$PAT" > "$OUT/ncu.csv" 2> "$OUT/ncu.log"
log "ncu took $(( $(date +%s) - start )) s"

# 5. the table
python3 "$HERE/bank_probe_parse.py" table "$OUT/ncu.csv" "$OUT/manifest.tsv" -o "$OUT/bank_probe_$GPU.csv"
log "wrote $OUT/bank_probe_$GPU.csv -- copy it to tests/data/ and run the C test against it:"
log "  gcc -std=c99 -O2 -Icsrc tests/c/test_bank_model.c csrc/bank_model.c -o /tmp/tbm && /tmp/tbm tests/data/bank_probe_$GPU.csv"
