"""How much better, by the padding score (objective="padding"), the best config of the whole valid space is than the best
kernel of `full` for each of CK's hold-out problems (the table in docs/space.md), and search's time
per problem with the chosen backend (direct: exact best-first; cpsat: CP-SAT), over the whole space and
over `full`.

    python benchmarks/search_gap.py [--arch gfx942] [--dtype fp16] [--every N] [--backend direct|cpsat]
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from cksolve import explore, query
from cksolve.workload import read_problems

ROOT = Path(__file__).resolve().parents[1]
HOLDOUT = ROOT.parent / "shared" / "ck" / "workloads" / "validation_holdout.csv"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--arch", default="gfx942")
    parser.add_argument("--dtype", default="fp16")
    parser.add_argument("--every", type=int, default=1, help="take every N-th problem")
    parser.add_argument("--backend", default="direct", choices=explore.SEARCH_BACKENDS)
    args = parser.parse_args()
    problems = read_problems(HOLDOUT)[::args.every]
    full = query.load_rule_set("full")
    by_direction: dict[str, list] = {}
    times, full_times = [], []
    none_in_full = 0
    for p in problems:
        t = time.perf_counter()
        whole, status = explore.search(p.spec(), args.arch, args.dtype, None, 1, backend=args.backend, objective="padding")
        times.append(time.perf_counter() - t)
        t = time.perf_counter()
        best_full, _ = explore.search(p.spec(), args.arch, args.dtype, full, 1, backend=args.backend, objective="padding")
        full_times.append(time.perf_counter() - t)
        if not whole:
            continue
        if not best_full:
            none_in_full += 1
            continue
        ratio = whole[0].score / best_full[0].score
        by_direction.setdefault(p.facts().direction, []).append((ratio, status, p.spec(), best_full[0].score,
                                                               whole[0].score))
    print(f"{len(problems)} hold-out problems, {args.arch} {args.dtype}; {none_in_full} with no kernel of full")
    print("| direction | problems | median ratio | mean ratio | max ratio | whole > full |")
    print("|---|---|---|---|---|---|")
    for d, rows in by_direction.items():
        ratios = [r[0] for r in rows]
        print(f"| {d} | {len(rows)} | {statistics.median(ratios):.3f} | {statistics.mean(ratios):.3f} | "
              f"{max(ratios):.3f} | {sum(r > 1 + 1e-9 for r in ratios)} |")
    print()
    worst = sorted((r for rows in by_direction.values() for r in rows), reverse=True)[:5]
    print("| problem | best of full | best of the whole space | ratio |")
    print("|---|---|---|---|")
    for ratio, _s, spec, f, w in worst:
        print(f"| `{spec}` | {f:.4f} | {w:.4f} | {ratio:.2f} |")
    print(f"\n{args.backend} search over the whole space: median {statistics.median(times):.2f} s, max "
          f"{max(times):.2f} s per problem; over full: median {statistics.median(full_times):.2f} s, max "
          f"{max(full_times):.2f} s; statuses: {sorted({r[1] for rows in by_direction.values() for r in rows})}")


if __name__ == "__main__":
    main()
