"""Memory on bounded inputs (issue 11): check streams, count sums out, enumerate refuses.

Targets:
  check of 1,000,000 names: peak memory independent of the number of names
  (ratio 1M / 100k names <= 1.2; it was 5.2 GiB at 1M names)
  count of a rule-set file with no base that pins only the pipeline, gfx942,
  all 36 combinations: answers, peak memory <= 1 GiB (it passed 12 GB)
  enumerate of the same file: refuses at once (limit 10 million configs)

Each case runs `cksolve` as a fresh process; peak memory is the child's max RSS.
Best (lowest) of N runs.

    python benchmarks/bench_inputs.py [--runs N] [--names N]
"""

from __future__ import annotations

import argparse
import itertools
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run(args: list[str]) -> tuple[float, float, int]:
    """(seconds, peak MiB, exit code) of one fresh `cksolve` process."""
    script = ("import resource, subprocess, sys, time\n"
              "t = time.perf_counter()\n"
              "p = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n"
              "print(time.perf_counter() - t, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, p.returncode)\n")
    out = subprocess.run([sys.executable, "-c", script, sys.executable, "-m", "cksolve", *args],
                         capture_output=True, text=True, cwd=ROOT, check=True).stdout.split()
    return float(out[0]), int(out[1]) / 1024, int(out[2])


def best(args: list[str], runs: int) -> tuple[float, float, int]:
    results = [run(args) for _ in range(runs)]
    return min(r[0] for r in results), min(r[1] for r in results), results[0][2]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--names", type=int, default=1_000_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        names = subprocess.run([sys.executable, "-m", "cksolve", "enumerate", "-r", "full", "-a", "gfx942"],
                               capture_output=True, text=True, cwd=ROOT, check=True).stdout.split()
        # every 7th name gets a wrong tile so that invalid names are part of the stream too
        pool = [n if i % 7 else n.replace("_16x", "_17x", 1) for i, n in enumerate(names)]
        peaks = {}
        for count in (args.names // 10, args.names):
            path = tmp / f"names{count}.txt"
            with open(path, "w") as fh:
                fh.writelines(f"{n}\n" for n in itertools.islice(itertools.cycle(pool), count))
            secs, mib, code = best(["check", "-a", "gfx942", str(path)], args.runs)
            peaks[count] = mib
            print(f"check {count:>9,} names: {secs:6.2f} s, peak {mib:7.1f} MiB (exit {code})")
        small, large = sorted(peaks)
        ratio = peaks[large] / peaks[small]
        print(f"check peak ratio {large:,}/{small:,} names: {ratio:.2f} (target <= 1.2: {ratio / 1.2:.2f} of target)")

        free = tmp / "free.toml"
        free.write_text('[pin]\npipeline = ["compv3"]\n')
        secs, mib, code = best(["count", "-r", str(free), "-a", "gfx942"], args.runs)
        print(f"count, base-less file, gfx942 (36 combinations): {secs:6.2f} s, peak {mib:7.1f} MiB (exit {code}; "
              f"target <= 1024 MiB: {mib / 1024:.2f} of target)")
        secs, mib, code = best(["enumerate", "-r", str(free), "-a", "gfx942"], args.runs)
        print(f"enumerate, same file: refused in {secs:6.2f} s, peak {mib:7.1f} MiB (exit {code}, expected 2)")


if __name__ == "__main__":
    t0 = time.perf_counter()
    main()
    print(f"total {time.perf_counter() - t0:.1f} s ({resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024} MiB self)")
