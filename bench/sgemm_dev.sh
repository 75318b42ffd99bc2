#!/usr/bin/env bash
# Build and run the SGEMM device harness (bench/sgemm_dev.cu) on a GPU machine, in one shot.
#   bash bench/sgemm_dev.sh            full run (~1-2 min incl. ~35 s compile)
#   bash bench/sgemm_dev.sh --quick    skip 8192^3
#   bash bench/sgemm_dev.sh --host-only   index/bank checks only (no GPU needed)
# Prints the kernels' ptxas register/spill figures, then the harness output (correctness, timing table,
# candidate configs).  Exit status: non-zero if any check failed.
set -euo pipefail
cd "$(dirname "$0")/.."
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
ARCH=${SMK_SGEMM_ARCH:-sm_90}
mkdir -p build
t0=$(date +%s)
"$NVCC" -std=c++17 -O3 -arch="$ARCH" -lineinfo -Xptxas -v -Icsrc -Xcompiler -fopenmp \
    bench/sgemm_dev.cu -o build/sgemm_dev -lcublas -lgomp 2> build/sgemm_dev.ptxas.txt || {
    cat build/sgemm_dev.ptxas.txt >&2
    exit 1
}
echo "built in $(( $(date +%s) - t0 )) s with $("$NVCC" --version | tail -1)"
# one line per sgemm kernel: config (BM,BN,BK,WM,WN,WNITER,TM,TN,THREADS,MINB), layout, vec, registers, spills
python3 - build/sgemm_dev.ptxas.txt <<'PY' || true
import re, sys
s = open(sys.argv[1]).read()
L = {"0": "naive", "1": "pad", "2": "swizzle"}
for b in re.split(r"Compiling entry function '", s)[1:]:
    name = b.split("'")[0]
    if "sgemm_kernel" not in name:
        continue
    cfg = re.search(r"SgemmCfgI(.*?)EEE", name).group(1).replace("Li", "").replace("E", ",")
    lv = re.search(r"EEELi(\d)ELb(\d)", name)
    regs = re.search(r"Used (\d+) registers", b).group(1)
    sp = re.search(r"(\d+) bytes spill stores", b).group(1)
    print(f"ptxas {cfg:32s} {L[lv.group(1)]:8s} vec={lv.group(2)} regs={regs:>3s} spill={sp}")
PY
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-$(nproc)}
t0=$(date +%s)
rc=0
./build/sgemm_dev "$@" || rc=$?
echo "ran in $(( $(date +%s) - t0 )) s"
exit $rc
