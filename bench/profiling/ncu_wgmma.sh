#!/usr/bin/env bash
# Nsight Compute per swizzle mode of the sm_90a TMA + wgmma GEMM (issue 29): which counters exist on this
# ncu for wgmma (gmma), TMA (utma / bulk) and shared memory, which of them move with the mode, and the
# wgmma read probe (bench/bank_probe/wgmma_probe.cu).
#   bash bench/profiling/ncu_wgmma.sh OUTDIR [query] [probe] [gemm] [big]
#     query  ncu --query-metrics (base and every suffix), the section files' gmma / tma lines, and the
#            candidate list OUTDIR/cand.txt (every .sum counter whose name says gmma, tma, bulk, dsmem,
#            shared-memory bank or LSU wavefront, shared-instruction counts, L2 / xbar requests from L1)
#     probe  the probe under ncu over the candidates (hardware counters and SASS-patched ones in two runs,
#            so a patching failure costs only the second) -> probe_hw.csv / probe_sass.csv
#     gemm   bench/profiling/ncu_wgmma.py --set small under ncu, the same two runs -> gemm_hw.csv /
#            gemm_sass.csv, manifest gemm_manifest.txt
#     big    --set big (fp16 4096^3) over the counters that were non-zero in gemm -> big.csv
# T_END (epoch seconds, optional): every step is cut to end before it (a device call has a hard limit).
# A metric ncu refuses ("Failed to find metric") is dropped and the run repeated (at most 4 times).
set -uo pipefail
out=${1:?usage: bench/profiling/ncu_wgmma.sh OUTDIR [query] [probe] [gemm] [big]}
shift
mkdir -p "$out"
here=$(cd "$(dirname "$0")" && pwd)
NCU=${NCU:-$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -n 1)}
[ -x "$NCU" ] || { echo "ncu not found (set NCU)"; exit 1; }
T_END=${T_END:-$(( $(date +%s) + 3600 ))}
left() { echo $(( T_END - $(date +%s) )); }
cap() { local l; l=$(( $(left) - ${2:-5} )); [ "$l" -lt "$1" ] && echo "$l" || echo "$1"; }

# run_ncu NAME METRICFILE TIMEOUT KERNEL_REGEX SKIP -- command...: ncu --csv into OUTDIR/NAME.csv, dropping
# refused metrics and retrying; NAME.log keeps ncu's stderr.
run_ncu() {
  local name=$1 mfile=$2 t=$3 kreg=$4 skip=$5; shift 6
  local try metrics
  for try in 1 2 3 4; do
    metrics=$(paste -sd, "$mfile")
    [ -n "$metrics" ] || { echo "$name: no metrics"; return 1; }
    [ "$t" -gt 10 ] || { echo "$name: no time left"; return 1; }
    timeout "$t" "$NCU" --clock-control none --print-units base --csv --launch-skip "$skip" -k "regex:$kreg" \
      --metrics "$metrics" "$@" > "$out/$name.csv" 2> "$out/$name.log"
    local rc=$?
    local bad
    bad=$(grep -ohE "Failed to find metric[s]? [^ ]+" "$out/$name.csv" "$out/$name.log" | awk '{print $NF}' | tr -d '",' | sort -u)
    if [ -n "$bad" ]; then
      echo "$name: ncu refused: $bad (dropped, retrying)"
      grep -vxF -f <(echo "$bad") "$mfile" > "$mfile.tmp"; mv "$mfile.tmp" "$mfile"
      t=$(cap "$t"); continue
    fi
    echo "$name: rc=$rc, $(grep -c '^"' "$out/$name.csv") csv lines, $(wc -l < "$mfile") metrics"
    return $rc
  done
}

for step in "$@"; do
  echo "== ncu_wgmma $step ($(left) s left)"
  case $step in
  query)
    "$NCU" --version | tail -n 1 > "$out/ncu_version.txt"
    cat "$out/ncu_version.txt"
    timeout "$(cap 40)" "$NCU" --devices 0 --query-metrics > "$out/query_base.txt" 2>&1
    timeout "$(cap 60)" "$NCU" --devices 0 --query-metrics --query-metrics-mode all > "$out/query_all.txt" 2>&1
    echo "query: $(wc -l < "$out/query_base.txt") base lines, $(wc -l < "$out/query_all.txt") lines in mode all"
    sec=$(dirname "$(readlink -f "$NCU")")
    find "$sec/.." "$sec/../.." -maxdepth 3 -name '*.section' 2>/dev/null | sort -u | head -n 200 \
      | xargs -r grep -H -i -E 'gmma|tma|bulk|dsmem' > "$out/sections_grep.txt" 2>/dev/null
    echo "section lines naming gmma/tma/bulk/dsmem: $(wc -l < "$out/sections_grep.txt")"
    grep -i -E 'gmma|utma|_tma|tma_|bulk' "$out/query_base.txt" | head -n 80
    python3 "$here/wgmma_ncu_table.py" candidates "$out/query_all.txt" "$out/query_base.txt" -o "$out/cand.txt"
    grep -E '^(smsp|sm)__sass' "$out/cand.txt" > "$out/cand_sass.txt"
    grep -vE '^(smsp|sm)__sass' "$out/cand.txt" > "$out/cand_hw.txt"
    echo "candidates: $(wc -l < "$out/cand_hw.txt") hardware, $(wc -l < "$out/cand_sass.txt") SASS-patched" ;;
  probe)
    probe=${PROBE:-$out/wgmma_probe}
    [ -x "$probe" ] || nvcc -O3 -std=c++17 -arch=sm_90a -I"$here/../../csrc" -o "$probe" "$here/../bank_probe/wgmma_probe.cu"
    cp "$out/cand_hw.txt" "$out/probe_hw.metrics"; cp "$out/cand_sass.txt" "$out/probe_sass.metrics"
    run_ncu probe_hw "$out/probe_hw.metrics" "$(cap 40 150)" smk_wgmma_probe 0 -- "$probe"
    run_ncu probe_sass "$out/probe_sass.metrics" "$(cap 40 140)" smk_wgmma_probe 0 -- "$probe"
    python3 "$here/wgmma_ncu_table.py" probe "$out/probe_hw.csv" "$out/probe_sass.csv" > "$out/probe_summary.txt"
    head -n 60 "$out/probe_summary.txt" ;;
  gemm)
    cp "$out/cand_hw.txt" "$out/gemm_hw.metrics"; cp "$out/cand_sass.txt" "$out/gemm_sass.metrics"
    run_ncu gemm_hw "$out/gemm_hw.metrics" "$(cap 120 100)" wgmma_gemm 1 -- \
      python3 "$here/ncu_wgmma.py" "$out/gemm_manifest.txt" --set small
    run_ncu gemm_sass "$out/gemm_sass.metrics" "$(cap 100 75)" wgmma_gemm 1 -- \
      python3 "$here/ncu_wgmma.py" "$out/gemm_manifest_sass.txt" --set small
    python3 "$here/wgmma_ncu_table.py" gemm "$out/gemm_manifest.txt" "$out/gemm_hw.csv" "$out/gemm_sass.csv" \
      > "$out/gemm_summary.txt"
    head -n 120 "$out/gemm_summary.txt" ;;
  big)
    python3 "$here/wgmma_ncu_table.py" nonzero "$out/gemm_hw.csv" "$out/gemm_sass.csv" -o "$out/big.metrics"
    run_ncu big "$out/big.metrics" "$(cap 60 10)" wgmma_gemm 1 -- python3 "$here/ncu_wgmma.py" "$out/big_manifest.txt" --set big
    python3 "$here/wgmma_ncu_table.py" gemm "$out/big_manifest.txt" "$out/big.csv" > "$out/big_summary.txt"
    head -n 60 "$out/big_summary.txt" ;;
  esac
done
echo "== ncu_wgmma done ($(left) s left)"
