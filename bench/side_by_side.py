#!/usr/bin/env python3
"""Time two commands side by side and print the ratio of their times.

Usage: side_by_side.py ROUNDS RUNS LIMIT 'FIRST COMMAND' 'SECOND COMMAND'

Each round times the two commands RUNS times each with hyperfine, one right
after the other, the first one first in even rounds and last in odd ones.
This VM's speed drifts by a third within a minute, and rows timed one after
the other drift apart with it.  In one round, both commands meet the same
speed.  Each command must first run once with exit status 0 and some output:
a command that fails at once would otherwise be fast.  Prints each command's
median of the rounds' medians, the median of the rounds' ratios (first /
second), and PASS when that ratio is under LIMIT.  Exits 0 either way, like
the bench scripts.
"""
import json
import os
import shlex
import statistics
import subprocess
import sys
import tempfile


def median_ms(command, runs, json_path):
    subprocess.run(["hyperfine", "-N", "--style", "none", "--runs", str(runs),
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
    for command in (first, second):
        run = subprocess.run(shlex.split(command), capture_output=True, check=False)
        if run.returncode != 0 or not run.stdout:
            print(f"side by side: not measured, {command} exits {run.returncode} with {len(run.stdout)} bytes out")
            return 0
    firsts, seconds, ratios = [], [], []
    with tempfile.TemporaryDirectory() as work:
        json_path = os.path.join(work, "round.json")
        for round_number in range(rounds):
            if round_number % 2 == 0:
                a = median_ms(first, runs, json_path)
                b = median_ms(second, runs, json_path)
            else:
                b = median_ms(second, runs, json_path)
                a = median_ms(first, runs, json_path)
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
