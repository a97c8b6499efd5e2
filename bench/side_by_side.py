#!/usr/bin/env python3
"""Time two commands side by side and print the ratio of their times.

Usage: side_by_side.py ROUNDS RUNS LIMIT 'FIRST COMMAND' 'SECOND COMMAND'

Each round times the first command RUNS times with hyperfine, then the second
RUNS times.  This VM's speed drifts by a third within a minute, and rows timed
one after the other drift apart with it.  In one round, both commands meet
the same speed.  Prints each command's median of the rounds' medians, the
median of the rounds' ratios (first / second), and PASS when that ratio is
under LIMIT.  Exits 0 either way, like the bench scripts.
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile


def median_ms(command, runs, json_path):
    subprocess.run(["hyperfine", "-N", "-i", "--style", "none", "--runs", str(runs),
                    "--export-json", json_path, command],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    with open(json_path, encoding="utf-8") as f:
        return json.load(f)["results"][0]["median"] * 1000


def main(argv):
    if len(argv) != 6:
        sys.stderr.write(__doc__)
        return 2
    rounds, runs, limit = int(argv[1]), int(argv[2]), float(argv[3])
    first, second = argv[4], argv[5]
    firsts, seconds, ratios = [], [], []
    with tempfile.TemporaryDirectory() as work:
        json_path = os.path.join(work, "round.json")
        for _ in range(rounds):
            a = median_ms(first, runs, json_path)
            b = median_ms(second, runs, json_path)
            firsts.append(a)
            seconds.append(b)
            ratios.append(a / b)
    ratio = statistics.median(ratios)
    print(f"side by side, {rounds} rounds of {runs} runs each: {statistics.median(firsts):.2f} ms against "
          f"{statistics.median(seconds):.2f} ms, ratio {ratio:.2f}x (rounds {min(ratios):.2f}x to "
          f"{max(ratios):.2f}x); under {limit}x: {'PASS' if ratio < limit else 'FAIL'}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
