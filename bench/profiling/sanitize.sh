#!/usr/bin/env bash
# compute-sanitizer memcheck, racecheck, initcheck and synccheck over every kernel x layout x edge
# shape (bench/profiling/sanitize_cases.py), through the Python API.  The extension is built with -lineinfo.
#   bash bench/profiling/sanitize.sh [LOGDIR]      exit 0 only if every tool reports 0 errors
set -uo pipefail
dir=${1:-.}
CS=${COMPUTE_SANITIZER:-$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null)}
[ -x "$CS" ] || { echo "compute-sanitizer not found"; exit 1; }
here=$(cd "$(dirname "$0")" && pwd)
rc=0
# memcheck twice: with the leak check on smemkit's own allocations (NumPy cases; CuPy's and PyTorch's
# pools hold blocks until exit, which the leak check would count), and without it on every case.
for run in "memcheck --leak-check full|--no-frameworks" "memcheck|" "racecheck|" "initcheck|" "synccheck|"; do
    tool=${run%%|*}
    args=${run#*|}
    name=$(echo "$tool" | tr -c 'a-z\n' '_')
    # shellcheck disable=SC2086
    "$CS" --tool $tool --error-exitcode 1 python3 "$here/sanitize_cases.py" $args > "$dir/sanitize_$name.log" 2>&1
    r=$?
    summary=$(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$dir/sanitize_$name.log" | tail -n 1)
    echo "$tool ${args:-(all cases)}: exit $r; ${summary:-no summary line}; $(grep 'sanitize cases' "$dir/sanitize_$name.log")"
    [ $r -eq 0 ] || rc=1
done
exit $rc
