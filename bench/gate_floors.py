#!/usr/bin/env python3
"""The known shortfalls of bench/bench_gate.c from measured runs.

    python3 bench/gate_floors.py RUN.json [RUN.json ...]

Reads `vncl bench --json` files (any suites, quick or full, any hosts) and,
for every case under a goal gate (the ops and FFT suites), takes the lowest
ratio to its peer over the runs. It prints a table entry, floor = three
quarters of that ratio rounded down to 0.05 (at least 0.05), for each case
that fell below its goal in some run (and for each case without a goal,
the random numbers), and lists the cases the runs call known shortfalls
that met their goal in every run (candidates to leave the table, once
every host agrees). Paste what holds into bench_gate.c with the host and
the lowest ratio beside each floor."""
import json
import math
import sys


def main(paths):
    if not paths:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    low = {}  # (suite, name, dtype) -> [lowest ratio, goal, known, file]
    for path in paths:
        with open(path) as f:
            run = json.load(f)
        for c in run.get("cases", []):
            if "known_shortfall" not in c:  # not a goal-gated case
                continue
            key = (c["suite"], c["name"], c["dtype"])
            r = c.get("ratio") or 0.0
            if r <= 0:
                continue
            e = low.setdefault(key, [r, c.get("goal", 0.0), False, path])
            if r < e[0]:
                e[0], e[3] = r, path
            e[2] = e[2] or c["known_shortfall"]
    leave = []
    for (suite, name, dtype), (r, goal, known, path) in sorted(low.items()):
        if goal and r >= goal:
            if known:
                leave.append((suite, name, dtype, r))
            continue
        floor = max(0.05, math.floor(0.75 * r / 0.05 + 1e-9) * 0.05)
        print('    {"%s", "%s", "%s", %.2f}, /* %.2fx, %s */' %
              (suite, name, dtype, floor, r, path))
    for suite, name, dtype, r in leave:
        print("met its goal in every run (lowest %.2fx): %s %s %s" %
              (r, suite, name, dtype))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
