"""The whole valid space: count it, sample it and search it (a rule-set file with only ``kind = "gemm"``).

Targets:
  count, every combination of gfx942: <= 30 s whole process, <= 1 GiB peak
  count, every combination of all 8 archs: <= 180 s whole process
  sample -n 100000 from one combination (gfx942/forward/fp16/2d): <= 5 s whole process
  sample -n 1000000 from the same combination (issue 31): <= 5 s, <= 150 MiB (memory does not grow with -n)
  sample -n 1000 and -n 1000000 over every combination of all 8 archs (no --arch): <= 300 MB peak each
    (before: 343 MB and 406 MB; one arch's solve and draws at a time). Time: <= 300 s (before: about 1 and
    4.5 minutes on a loaded two-core machine)
  search for one problem over the whole space of one combination: <= 5 s, --top 10: <= 10 s (each backend)

Each case runs `cksolve` as a fresh process; peak memory is the child's max RSS.
Best (lowest) of N runs; times are printed with their ratio to the target, and peaks with a memory target
with theirs (MB: 10^6 bytes, as the target is stated).

    python benchmarks/bench_space.py [--runs N] [--quick] [--only TEXT]   (--quick: without the all-arch cases)
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
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
    return min(r[0] for r in results), min(r[1] for r in results), max(r[2] for r in results)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="skip the all-arch cases")
    parser.add_argument("--only", metavar="TEXT", help="only the cases whose label contains TEXT")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        whole = Path(tmp) / "whole.toml"
        whole.write_text('kind = "gemm"\n')
        one = ["-a", "gfx942", "--variant", "forward", "--dtype", "fp16", "--ndim", "2"]
        cases = [("count whole space, gfx942 (all combinations)", ["count", "-r", str(whole), "-a", "gfx942"], 30.0),
                 ("sample -n 100000, gfx942/forward/fp16/2d",
                  ["sample", "-r", str(whole), *one, "-n", "100000", "--seed", "1"], 5.0),
                 ("sample -n 1000000, gfx942/forward/fp16/2d (<= 150 MiB)",
                  ["sample", "-r", str(whole), *one, "-n", "1000000", "--seed", "1"], 5.0)]
        problem = ["--problem", "N=4,G=1,C=256,K=256,Hi=28,Wi=28,Y=3,X=3", "-a", "gfx942", "--dtype", "fp16"]
        for backend in ("direct", "cpsat"):
            for top, target in (("1", 5.0), ("10", 10.0)):
                what = "performance model" if backend == "direct" else "padding score"
                cases.append((f"search --top {top} --backend {backend} ({what}), whole space",
                              ["search", "-r", str(whole), *problem, "--top", top, "--backend", backend], target))
        if not args.quick:
            cases.append(("count whole space, all 8 archs", ["count", "-r", str(whole)], 180.0))
            for n in ("1000", "1000000"):
                cases.append((f"sample -n {n}, all 8 archs (<= 300 MB)",
                              ["sample", "-r", str(whole), "-n", n, "--seed", "1"], 300.0, 300.0))
        print(f"{'case':50} {'seconds':>8} {'target':>7} {'ratio':>6} {'peak MiB':>9} {'peak MB':>8} "
              f"{'target':>7} {'ratio':>6} exit   (best of {args.runs})")
        for label, argv, target, *memory in cases:
            if args.only and args.only not in label:
                continue
            seconds, peak, code = best(argv, args.runs)
            mb = peak * 2 ** 20 / 1e6
            versus = f"{memory[0]:7.0f} {mb / memory[0]:6.2f}" if memory else f"{'':7} {'':6}"
            print(f"{label:50} {seconds:8.2f} {target:7.0f} {seconds / target:6.2f} {peak:9.0f} {mb:8.0f} "
                  f"{versus} {code}")


if __name__ == "__main__":
    main()
