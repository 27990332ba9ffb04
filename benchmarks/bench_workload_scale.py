"""Workloads at scale: whole-process time and peak memory of coverage and minimize, 10^2 ... 10^6 problems.

    python benchmarks/bench_workload_scale.py [--max 1000000] [--minimize-max 100000] [--features-max 10000000]
                                              [--runs 1] [--only coverage|copies|with-kernels|minimize|features]
                                              [--minimize-distinct-max 0]

Each measurement is one fresh ``cksolve`` process (``full``, gfx942, fp16):
``coverage --format jsonl`` (no kernels) on N distinct forward problems made
from CK's hold-out list with perturbed C, K, H, W and N; ``coverage`` on N rows
that are copies of 1,000 distinct problems; ``coverage --with-kernels`` (memory);
``minimize`` on the generated workload of ``workload_probe.problems``; ``minimize`` on N distinct problems
(as coverage's, up to ``--minimize-distinct-max``: 10^6 is minutes and about a gigabyte, so off by default);
``features --format parquet`` on as many distinct problems as give 10^5 ... 10^7
(problem, kernel) pairs (``forward``). Prints wall seconds, CPU seconds (user +
system: what a loaded machine does not inflate) and peak RSS (the child's
ru_maxrss), and ratios to the targets:

  coverage 10^6 distinct <= 15 s, <= 1 GB; 10^5 <= 3 s
  coverage 10^6 rows, <= 1,000 distinct <= 5 s
  coverage --with-kernels 10^5 <= 500 MB
  minimize 10^5 <= 60 s, <= 2 GB; 3x10^4 <= 10 s
  minimize 10^6 distinct <= 1.5 GB
  features 10^7 pairs to parquet <= 60 s, <= 1.5 GB
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).parent))

from workload_probe import problems, write_csv, write_distinct_csv  # noqa: E402

TARGETS = {("coverage", 10 ** 6): (15.0, 1024), ("coverage", 10 ** 5): (3.0, None),
           ("copies", 10 ** 6): (5.0, None), ("with-kernels", 10 ** 5): (None, 500),
           ("minimize", 10 ** 5): (60.0, 2048), ("minimize-distinct", 10 ** 6): (None, 1536), ("minimize", 30_000): (10.0, None),
           ("features", 10 ** 7): (60.0, 1536)}


def run(*args: str) -> tuple[float, float, float]:
    """(seconds, peak RSS in MB, CPU seconds) of one ``cksolve`` process, its output discarded."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    t0 = time.perf_counter()
    with open(os.devnull, "wb") as null:
        proc = subprocess.Popen([sys.executable, "-m", "cksolve", *args], stdout=null, stderr=subprocess.PIPE,
                                env=env, cwd=ROOT)
        _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - t0
    if status:
        raise SystemExit(f"cksolve {' '.join(args)} failed: {proc.stderr.read().decode()[-300:]}")
    return seconds, usage.ru_maxrss / 1024, usage.ru_utime + usage.ru_stime


def best(runs: int, *args: str) -> tuple[float, float, float]:
    return min((run(*args) for _ in range(runs)), key=lambda r: r[0])


def report(what: str, n: int, seconds: float, mb: float, cpu: float, runs: int, unit: str = "problems") -> None:
    t_target, m_target = TARGETS.get((what, n), (None, None))
    ratio = ""
    if t_target:
        ratio += f"; time/target {seconds / t_target:.2f} (target {t_target:g} s)"
    if m_target:
        ratio += f"; memory/target {mb / m_target:.2f} (target {m_target} MB)"
    print(f"{what:13s} {n:10,d} {unit}: {seconds:7.2f} s (cpu {cpu:6.2f} s), peak RSS {mb:6.0f} MB{ratio}; "
          f"best of {runs}; load average {os.getloadavg()[0]:.1f}", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--max", type=int, default=10 ** 6)
    ap.add_argument("--minimize-max", type=int, default=10 ** 5)
    ap.add_argument("--features-max", type=int, default=10 ** 7)
    ap.add_argument("--minimize-distinct-max", type=int, default=0)
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--only", choices=("coverage", "copies", "with-kernels", "minimize", "minimize-distinct", "features"))
    args = ap.parse_args()
    common = ("-r", "full", "-a", "gfx942", "--dtype", "fp16")
    sizes = [n for n in (10 ** 2, 10 ** 3, 10 ** 4, 10 ** 5, 10 ** 6) if n <= args.max]
    with tempfile.TemporaryDirectory(prefix="cksolve-scale-") as tmp:
        for n in sizes:
            path = Path(tmp) / f"distinct-{n}.csv"
            write_distinct_csv(n, path)
            if args.only in (None, "coverage"):
                report("coverage", n, *best(args.runs, "coverage", "--problems", str(path), *common, "--format",
                                            "jsonl"), args.runs)
            if args.only in (None, "minimize-distinct") and n <= args.minimize_distinct_max:
                report("minimize-distinct", n, *best(args.runs, "minimize", "--problems", str(path), *common, "-o",
                                                     str(Path(tmp) / "kept.txt")), args.runs)
            if args.only in (None, "with-kernels") and n <= 10 ** 5:
                report("with-kernels", n, *best(args.runs, "coverage", "--problems", str(path), *common, "--format",
                                                "jsonl", "--with-kernels"), args.runs)
            path.unlink()
        if args.only in (None, "copies") and args.max >= 10 ** 6:
            base = Path(tmp) / "base.csv"
            write_distinct_csv(1000, base)
            lines = base.read_text().splitlines(keepends=True)
            copies = Path(tmp) / "copies.csv"
            with open(copies, "w") as f:
                f.write(lines[0])
                for i in range(10 ** 6):
                    f.write(lines[1 + i % 1000])
            report("copies", 10 ** 6, *best(args.runs, "coverage", "--problems", str(copies), *common, "--format",
                                             "jsonl"), args.runs)
        if args.only in (None, "minimize"):
            for n in [n for n in (10 ** 2, 10 ** 3, 3 * 10 ** 3, 10 ** 4, 3 * 10 ** 4, 10 ** 5) if n <= args.minimize_max]:
                path = Path(tmp) / f"generated-{n}.csv"
                write_csv(problems(n), path)
                report("minimize", n, *best(args.runs, "minimize", "--problems", str(path), *common, "-o",
                                            str(Path(tmp) / "kept.txt")), args.runs)
        if args.only in (None, "features"):
            per_problem = _pairs_per_problem(Path(tmp))
            for pairs in [p for p in (10 ** 5, 10 ** 6, 10 ** 7) if p <= args.features_max]:
                path = Path(tmp) / f"features-{pairs}.csv"
                write_distinct_csv(max(1, round(pairs / per_problem)), path, seed=2021)
                out = Path(tmp) / "features.parquet"
                result = best(args.runs, "features", "--problems", str(path), "-r", "full", "-a", "gfx942",
                              "--variant", "forward", "--dtype", "fp16", "--format", "parquet", "-o", str(out))
                report("features", pairs, *result, args.runs, unit=f"pairs wanted ({_rows(out):,d} written)")
                path.unlink()


def _pairs_per_problem(tmp: Path) -> float:
    """Mean applicable forward kernels of a generated problem (``full``, gfx942, fp16), from 2,000 of them."""
    from cksolve.query import load_rule_set
    from cksolve.workload import iter_coverage
    from cksolve.workload.problem_table import read_problems

    path = tmp / "sample.csv"
    write_distinct_csv(2000, path, seed=2021)
    records = list(iter_coverage(read_problems(path), load_rule_set("full"), "gfx942", ["fp16"],
                                 with_kernels=False, with_rejected=False))
    return sum(r.applicable for r in records) / len(records)


def _rows(path: Path) -> int:
    import pyarrow.parquet as pq

    return pq.ParquetFile(path).metadata.num_rows


if __name__ == "__main__":
    main()
