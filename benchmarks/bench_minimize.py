"""Speed of ``minimize`` (issues 14, 20): its phases apart from reading, best of N fresh processes.

Targets (issue 20; ``full``, gfx942, fp16, default request):
  10^5 problems OPTIMAL <= 60 s and <= 2 GB, 3 x 10^4 problems <= 10 s (whole process:
  ``bench_workload_scale.py --only minimize``; here the same work split into phases)
  --perf full of ties (1,886 forward problems, 8-16 measured kernels each at one of four
  TFLOPS values): an answer, OPTIMAL or FEASIBLE with its gap, within the default time limit

Each case runs in a fresh process and prints, per phase, seconds and the peak RSS at its
end: read (the workload file), decide (the column engine: which rule groups run each
distinct problem), classes (scores, atoms and groups of alike problems: ``grouping``),
solve (CP-SAT, classes of kernels and the model included), recheck (coverage of the kept
set) and ratios; "own" is minimize's part, everything but read. Workloads: "generated"
repeats CK's hold-out shapes with varied N, H, W (``workload_probe.problems``: few distinct),
"distinct" perturbs C, K, H, W, N too (``write_distinct_csv``: almost all distinct).

    python benchmarks/bench_minimize.py [--runs N] [--max 100000] [--ties-only]
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from workload_probe import best

_PROBE = r"""
import json, resource, sys, time
from cksolve import query
from cksolve.workload.problem_table import read_problems, read_table
from cksolve.workload import grouping, minimize_plan as P
from cksolve.workload.minimize import Request, solve
from cksolve.workload.perf import read_perf

path, keep, perf_path = sys.argv[1].split("|")
phases, t = {}, [time.perf_counter()]


def lap(name):
    t.append(time.perf_counter())
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    phases[name] = [phases.get(name, [0.0])[0] + t[-1] - t[-2], rss]


class Timed(grouping.Decisions):
    def __init__(self, *a, **k):
        lap("classes")
        super().__init__(*a, **k)
        lap("decide")


grouping.Decisions = Timed
ps = read_problems(path) if perf_path else read_table(path)  # what minimize reads with (no perf: the table's columns)
rs = query.load_rule_set("full")
perf = read_perf(perf_path, P.known_kernels(rs, ps, "gfx942", ["fp16"])) if perf_path else None
lap("read")
req = Request(keep=float(keep))
table = grouping.GroupedWorkload(ps, rs, "gfx942", ["fp16"], req.keep, perf)
lap("classes")
result = solve(table.grouped, req)
lap("solve")
P._recheck(table, req, result, "gfx942", ["fp16"])
lap("recheck")
table.ratios(result.kept)
lap("ratios")
own = sum(v[0] for k, v in phases.items() if k != "read")
print(json.dumps({"seconds": own, "phases": phases, "status": result.status, "gap": result.gap,
                  "tie_break": result.tie_break, "kept": len(result.kept), "groups": len(table.grouped.weight),
                  "distinct": len(table.distinct), "model": result.extra}))
"""


def ties(tmp: Path) -> tuple[Path, Path]:
    """1,886 distinct forward problems and a perf file: 8-16 of each problem's kernels measured at one of
    four TFLOPS values (seeded)."""
    import random

    from cksolve import query
    from cksolve.workload import FIELDS, coverage, read_problems
    from workload_probe import write_distinct_csv

    problems, perf = tmp / "ties-problems.csv", tmp / "ties-perf.csv"
    write_distinct_csv(1886, problems, seed=1886)
    rng = random.Random(1886)
    with open(perf, "w", encoding="utf-8") as f:
        f.write(",".join(FIELDS) + ",kernel,tflops\n")
        for r in coverage(read_problems(problems), query.load_rule_set("full"), "gfx942", ["fp16"]):
            names = sorted(r.kernels)
            for k in rng.sample(names, min(len(names), rng.randint(8, 16))):
                shape = ",".join(str(getattr(r.problem, a)) for a in FIELDS)
                f.write(f"{shape},{k},{rng.choice((100, 200, 300, 400))}\n")
    return problems, perf


def show(what: str, r: dict, runs: int) -> None:
    ph = r["phases"]
    split = ", ".join(f"{k} {v[0]:.2f}" for k, v in ph.items())
    peak = max(v[1] for v in ph.values())
    extra = "" if r["status"] == "OPTIMAL" else f" gap {r['gap']:.1%}"
    print(f"{what}: {r['distinct']:,} distinct, {r['groups']:,} groups, {r['model']['problem_classes']} problem / "
          f"{r['model']['kernel_classes']} kernel classes -> {r['kept']} kept, {r['status']}{extra} "
          f"(tie-break {r['tie_break']}); own {r['seconds']:.2f} s + read {ph['read'][0]:.2f} s [{split}]; "
          f"peak RSS {peak:.0f} MB; best of {runs}", flush=True)


def main() -> None:
    from workload_probe import problems, write_csv, write_distinct_csv

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--max", type=int, default=10 ** 5)
    ap.add_argument("--ties-only", action="store_true")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="cksolve-minimize-") as tmp:
        tmp = Path(tmp)
        if not args.ties_only:
            for n in [n for n in (3000, 30_000, 10 ** 5) if n <= args.max]:
                for kind in ("generated", "distinct"):
                    path = tmp / f"{kind}-{n}.csv"
                    write_csv(problems(n), path) if kind == "generated" else write_distinct_csv(n, path)
                    show(f"minimize {n:7,d} {kind:9s} keep 0.9", best(_PROBE, f"{path}|0.9|", args.runs), args.runs)
                    path.unlink()
        workload, perf = ties(tmp)
        for keep in ("1.0", "0.7", "0.5"):
            show(f"minimize --perf ties (1,886) keep {keep}", best(_PROBE, f"{workload}|{keep}|{perf}", args.runs),
                 args.runs)


if __name__ == "__main__":
    main()
