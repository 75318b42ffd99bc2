#!/usr/bin/env bash
# compute-sanitizer memcheck, racecheck, initcheck and synccheck over every kernel x layout x edge
# shape (bench/sanitize_cases.py), through the Python API.  The extension is built with -lineinfo.
#   bash bench/sanitize.sh [LOGDIR]      exit 0 only if every tool reports 0 errors
set -uo pipefail
dir=${1:-.}
CS=${COMPUTE_SANITIZER:-$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer 2>/dev/null)}
[ -x "$CS" ] || { echo "compute-sanitizer not found"; exit 1; }
here=$(cd "$(dirname "$0")" && pwd)
rc=0
for tool in memcheck racecheck initcheck synccheck; do
    extra=()
    [ "$tool" = memcheck ] && extra=(--leak-check full)
    "$CS" --tool "$tool" --error-exitcode 1 "${extra[@]}" python3 "$here/sanitize_cases.py" > "$dir/sanitize_$tool.log" 2>&1
    r=$?
    summary=$(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$dir/sanitize_$tool.log" | tail -n 1)
    echo "$tool: exit $r; ${summary:-no summary line}; $(grep 'sanitize cases' "$dir/sanitize_$tool.log")"
    [ $r -eq 0 ] || rc=1
done
exit $rc
