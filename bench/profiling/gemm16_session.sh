#!/usr/bin/env bash
# One device session for the tensor-core GEMM (issue 14): GPU tests, the benchmark of the shipped
# default and of candidate variants, Nsight Compute counts vs explain(), per-instruction source
# counters and one full profile.  Every step has its own time limit; logs go to $OUT (or ./out).
#   bash bench/profiling/gemm16_session.sh [steps...]   steps: info tests bench cand ncu src full (default: all)
set -uo pipefail
OUT=${OUT:-out}
mkdir -p "$OUT" "$OUT/ncu"
here=$(cd "$(dirname "$0")" && pwd)
timing=$(cd "$here/../timing" && pwd)  # bench_gemm.py
steps=${*:-info bench cand ncu src full tests}
t0=$(date +%s)
stamp() { echo "== $1 at +$(( $(date +%s) - t0 )) s"; }
NCU=${NCU:-$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -n 1)}
for s in $steps; do
  stamp "$s"
  case $s in
  info)
    nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv
    python3 -c "import smemkit, torch; print(smemkit.device_name(), torch.__version__)" ;;
  tests)
    timeout ${T_TESTS:-270} python3 -m pytest -q -p no:cacheprovider --require-gpu --durations=8 \
      ${TESTS:-tests} \
      > "$OUT/pytest.log" 2>&1; echo "pytest rc=$?"; tail -n 15 "$OUT/pytest.log" ;;
  bench)
    timeout ${T_BENCH:-100} python3 "$timing/bench_gemm.py" --md "$OUT/bench.md" > "$OUT/bench.log" 2>&1
    echo "bench rc=$?"; grep '^|' "$OUT/bench.log" | grep -v -- '---' ;;
  cand)
    # the interior fast path (config 1) against the general path on every tile (config 7), same tiles,
    # alternated twice; the padded path (0) against in-place register staging (2) on odd shapes
    ( timeout ${T_CAND:-100} bash -c "
      for r in 1 2; do python3 '$timing/bench_gemm.py' --shapes 4096,4096,4096 8192,8192,8192 --configs 1 7 --layouts swizzle pad; done
      python3 '$timing/bench_gemm.py' --shapes 4097,4095,4093 513,257,129 --configs 0 2 --layouts swizzle
      python3 '$timing/bench_gemm.py' --shapes 1024,1024,1024 --configs 0 1 4 --layouts swizzle
    " ) > "$OUT/cand.log" 2>&1; echo "cand rc=$?"; grep '^|' "$OUT/cand.log" | grep -v -- '---' | grep -v '^| shape' | sort -u ;;
  ncu)
    timeout ${T_NCU:-110} bash "$here/ncu_kernels.sh" "$OUT/ncu" --ops gemm > "$OUT/ncu/run.log" 2>&1
    echo "ncu rc=$?"; tail -n 3 "$OUT/ncu/run.log"
    python3 "$here/compare_ncu.py" "$OUT/ncu" --md "$OUT/ncu/compare.md" | tail -n 60 ;;
  src)
    timeout ${T_SRC:-45} "$NCU" --section SourceCounters --import-source no -k regex:gemm16_kernel -f -o "$OUT/ncu/src" \
      python3 "$here/gemm16_launches.py" ${SRC_LAUNCHES:-4096,4096,4096:swizzle 4096,4096,4096:swizzle:7 \
      777,640,960:pad 1000,1000,1000:swizzle} \
      > "$OUT/ncu/src_run.log" 2>&1; echo "src rc=$?"
    "$NCU" -i "$OUT/ncu/src.ncu-rep" --page source --csv --print-source sass > "$OUT/ncu/src_sass.csv" 2> "$OUT/ncu/src_err.log"
    echo "source export rc=$? lines=$(wc -l < "$OUT/ncu/src_sass.csv")"; head -c 600 "$OUT/ncu/src_err.log" ;;
  full)
    timeout ${T_FULL:-40} "$NCU" --set full -k regex:gemm16_kernel -c ${FULL_COUNT:-1} \
      python3 "$here/gemm16_launches.py" ${FULL_LAUNCHES:-4096,4096,4096:swizzle:1} > "$OUT/ncu/full.txt" 2>&1
    echo "full rc=$?"; grep -E "Duration|Compute \(SM\) Throughput|Memory Throughput|L1/TEX Hit|L2 Hit|Registers Per|Achieved Occupancy|Issue Slots Busy|Executed Ipc A" "$OUT/ncu/full.txt" | head -20 ;;
  esac
done
stamp done
( cd "$OUT" && tar czf ncu.tgz ncu && rm -rf ncu )
