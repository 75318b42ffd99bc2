"""Sum the closing lines of several pytest runs (stdin: their logs) into one line, pytest's own form:
'N passed, N skipped, N failed, ... (whole suite over K runs)'.  Used by session.sh's suite step."""
import re
import sys

runs, total = 0, {}
for line in sys.stdin:
    if re.match(r"^=*\s*(\d+ \w+(, )?)+.* in [\d.]+s", line.strip()) or re.match(r"^\d+ (passed|failed|skipped)", line):
        runs += 1
        for n, what in re.findall(r"(\d+) (passed|failed|skipped|errors?|deselected|xfailed|xpassed|warnings?)", line):
            what = {"error": "errors", "warning": "warnings"}.get(what, what)
            total[what] = total.get(what, 0) + int(n)
order = ["passed", "failed", "errors", "skipped", "deselected", "xfailed", "xpassed", "warnings"]
print(", ".join(f"{total[k]} {k}" for k in order if k in total) + f" (whole suite over {runs} pytest runs)")
