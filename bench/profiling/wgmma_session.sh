#!/usr/bin/env bash
# One device call for issue 29's per-mode counts: the sm_90 build, the wgmma GPU tests, Nsight Compute per
# swizzle mode (bench/profiling/ncu_wgmma.sh: metric query, the wgmma read probe, the GEMM at 1024^3 and
# 2048x2048x1024 fp16 / bf16, then 4096^3 fp16 over the counters that moved) and one bench_wgmma.py run at
# 4096^3, everything packed into $OUT/all.tgz.  T_END (epoch seconds) bounds the whole call.
#   T_END=$(( $(date +%s) + 300 )) bash bench/profiling/wgmma_session.sh
set -uo pipefail
OUT=${OUT:-out}
mkdir -p "$OUT"
export T_END=${T_END:-$(( $(date +%s) + 300 ))}
left() { echo $(( T_END - $(date +%s) )); }
(nvcc -O3 -std=c++17 -arch=sm_90a -Icsrc -o "$OUT/wgmma_probe" bench/bank_probe/wgmma_probe.cu > "$OUT/probe_build.log" 2>&1
 echo "probe build rc=$?" >> "$OUT/probe_build.log") &
bp=$!
bash bench/device/session.sh build 2>&1 | tail -n 6
wait $bp
tail -n 2 "$OUT/probe_build.log"
T_TESTS=60 bash bench/device/session.sh tests:tests/test_wgmma.py,tests/test_wgmma_auto.py 2>&1 | tail -n 6
PROBE=$OUT/wgmma_probe bash bench/profiling/ncu_wgmma.sh "$OUT/ncu" query probe gemm > "$OUT/ncu_wgmma.log" 2>&1
grep -v '^|' "$OUT/ncu_wgmma.log" | head -n 60
cut -c1-700 "$OUT/ncu/probe_summary.txt" 2>/dev/null | head -n 40
l=$(( $(left) - 30 )); [ $l -gt 70 ] && l=70
if [ $l -gt 15 ]; then
  timeout $l python3 bench/timing/bench_wgmma.py --shapes 4096,4096,4096 > "$OUT/bench_wgmma.log" 2>&1
  tail -n 16 "$OUT/bench_wgmma.log"
fi
bash bench/profiling/ncu_wgmma.sh "$OUT/ncu" big > "$OUT/ncu_big.log" 2>&1
tail -n 3 "$OUT/ncu_big.log"
head -c 4000 "$OUT/ncu/gemm_summary.txt" 2>/dev/null
rm -f "$OUT/wgmma_probe"
tar czf /tmp/wgmma_all.tgz -C "$OUT" . && find "$OUT" -mindepth 1 -delete && mv /tmp/wgmma_all.tgz "$OUT/all.tgz"
ls -la "$OUT"
