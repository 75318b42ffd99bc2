#!/usr/bin/env bash
# One device call: build for sm_90, then the steps named on the command line, each under its own time
# limit, logs under $OUT (the device tool's folder; ./out elsewhere).  The last lines printed are a
# short summary per step.
#   bash bench/device/session.sh build tests:FILES calls:sgemm:N:SEED calls:gemm:N:SEED widths:N:SEED
#   steps:  build                 pip install -e . for sm_90 (nvcc on every core)
#           tests[:paths]         python3 -m pytest --require-gpu (default: the whole suite)
#           suite                 the WHOLE suite with --require-gpu in SHARDS (default 4) concurrent pytest
#                                 processes over disjoint test files (the float64 references are CPU-bound),
#                                 then the timing- and memory-sensitive files (SERIAL) alone; prints each shard's
#                                 summary line and their sum
#           calls:OP:N:SEED       bench/timing/bench_calls.py (OP sgemm or gemm; env LAYOUTS, default swizzle;
#                                 CALLS_ARGS: more arguments, e.g. "--knob gemm16_matvec=0")
#           widths:N:SEED         bench/timing/bench_widths.py --random N --seed SEED
#           prof:OP:N:SEED        bench/timing/profile_calls.py --op OP --random N --seed SEED: the acceptance's
#                                 method (summed kernel device time, torch.profiler; OP sgemm, gemm, transpose)
#           ncu[:new]             bench/profiling/ncu_kernels.sh + compare_ncu.py: explain() against Nsight Compute
#                                 on every kernel of each call (new: only the every-shape issues' cases)
#           py:FILE[:ARGS]        any python script (ARGS comma-separated)
#           pack                  every log under $OUT into $OUT/logs.tgz (the device tool returns 8 files)
set -uo pipefail
OUT=${OUT:-out}
mkdir -p "$OUT"
t0=$(date +%s)
stamp() { echo "== $1 at +$(( $(date +%s) - t0 )) s"; }
export PYTHONUNBUFFERED=1
for s in "$@"; do
  stamp "$s"
  IFS=: read -r kind a b c <<< "$s"
  case $kind in
  build)
    nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv,noheader
    SMEMKIT_CUDA_ARCH=90 SMEMKIT_BUILD_JOBS=$(nproc) timeout ${T_BUILD:-400} \
      python3 -m pip install --no-build-isolation --no-deps -e . > "$OUT/build.log" 2>&1
    echo "build rc=$?"; grep -E "compiled in|error" "$OUT/build.log" | head -n 20 ;;
  tests)
    # shellcheck disable=SC2086
    timeout ${T_TESTS:-500} python3 -m pytest -q -p no:cacheprovider --require-gpu --maxfail=25 --durations=5 \
      ${a:+${a//,/ }} > "$OUT/pytest${a:+-part}.log" 2>&1
    echo "pytest rc=$?"; tail -n 12 "$OUT/pytest${a:+-part}.log" ;;
  suite)
    serial=${SERIAL:-"tests/test_timing.py tests/test_bench.py tests/test_probe_gpu.py tests/test_multi_gpu.py tests/test_examples.py tests/test_hardening.py"}
    files=$(ls -S tests/test_*.py | grep -vxF -f <(tr ' ' '\n' <<< "$serial"))
    n=${SHARDS:-4}; i=0; pids=()
    for k in $(seq 0 $((n - 1))); do
      shard=$(awk -v k="$k" -v n="$n" 'NR % n == k' <<< "$files" | tr '\n' ' ')
      timeout ${T_SUITE:-420} python3 -m pytest -q -p no:cacheprovider --require-gpu $shard > "$OUT/suite-$k.log" 2>&1 &
      pids+=($!)
    done
    for p in "${pids[@]}"; do wait "$p"; echo "shard rc=$?"; done
    timeout ${T_SUITE:-420} python3 -m pytest -q -p no:cacheprovider --require-gpu $serial > "$OUT/suite-serial.log" 2>&1
    echo "serial rc=$?"
    for f in "$OUT"/suite-*.log; do echo "$(basename "$f"): $(tail -n 1 "$f")"; done
    grep -h -E "^(FAILED|ERROR) " "$OUT"/suite-*.log | head -n 30
    cat "$OUT"/suite-*.log | python3 bench/device/sum_pytest.py ;;
  calls)
    timeout ${T_CALLS:-300} python3 bench/timing/bench_calls.py --op "$a" --random "$b" --seed "$c" \
      --layouts "${LAYOUTS:-swizzle}" ${CALLS_ARGS:-} --out "$OUT/calls_${a}_${c}.jsonl" --md "$OUT/calls_${a}_${c}.md" \
      > "$OUT/calls_${a}_${c}.log" 2>&1
    echo "calls rc=$?"; grep '^|' "$OUT/calls_${a}_${c}.md" | head -n 30 ;;
  widths)
    timeout ${T_WIDTHS:-300} python3 bench/timing/bench_widths.py --random "$a" --seed "$b" \
      --out "$OUT/widths_${b}.jsonl" --md "$OUT/widths_${b}.md" > "$OUT/widths_${b}.log" 2>&1
    echo "widths rc=$?"; grep '^|' "$OUT/widths_${b}.md" | head -n 30 ;;
  prof)
    timeout ${T_PROF:-300} python3 bench/timing/profile_calls.py --op "$a" --random "$b" --seed "$c" \
      --out "$OUT/prof_${a}_${c}.jsonl" --md "$OUT/prof_${a}_${c}.md" > "$OUT/prof_${a}_${c}.log" 2>&1
    echo "prof rc=$?"; grep '^|' "$OUT/prof_${a}_${c}.md" | head -n 30 ;;
  ncu)
    mkdir -p "$OUT/ncu"
    timeout ${T_NCU:-400} bash bench/profiling/ncu_kernels.sh "$OUT/ncu" ${a:+--$a} > "$OUT/ncu.log" 2>&1
    echo "ncu rc=$?"; tail -n 2 "$OUT/ncu.log"
    python3 bench/profiling/compare_ncu.py "$OUT/ncu" --md "$OUT/ncu_compare.md" > "$OUT/ncu_compare.log" 2>&1
    echo "compare rc=$?"; tail -n 3 "$OUT/ncu_compare.log" ;;
  py)
    # shellcheck disable=SC2086
    timeout ${T_PY:-200} python3 "$a" ${b:+${b//,/ }} > "$OUT/$(basename "$a" .py).log" 2>&1
    echo "py rc=$?"; tail -n 25 "$OUT/$(basename "$a" .py).log" ;;
  pack)
    (cd "$OUT" && find . -type f ! -name logs.tgz ! -name session.log -printf '%P\n' \
       | tar czf logs.tgz -T - --remove-files) ;;
  esac
done
stamp done
