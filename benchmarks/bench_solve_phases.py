"""Where a rule set's time goes, phase by phase, and what no per-combination solve can avoid.

Issue 3 asks for ``full`` over all 288 combinations in <= 0.2 s to configs and
<= 50 ms to count. This prints, in fresh processes (best of several runs):

``build``      building the 288 models (the rule set's tables, the arch constraints)
``solve``      solving them, cold: the first time every table is reduced, indexed, filtered
``count``      counting the factorised solutions (no config is formed)
``configs``    forming every config
``re-solve``   solving them again with every data memo hot and only the whole-solve memo
               dropped: the per-combination overhead alone, a floor for this design
``batched``    an experiment: the archs of one (variant, dtype, ndim) merged into one model
               with the arch as a column (a constraint that differs between archs becomes
               an arch-keyed table or check), solved once per group; per-arch counts are
               checked against the per-combination solve

    python benchmarks/bench_solve_phases.py [rule-set] [--repeat N]
"""

from __future__ import annotations

import argparse
import os
import sys

from bench_rulesets import TARGETS, best_of

_PHASES = r"""
import json, sys, time
from cksolve import query
from cksolve.solver import build_model
from cksolve.solver.engine import direct
from cksolve.rulesets import get_rule_set
rs = get_rule_set(sys.argv[1])
combos = query.select().combos()
t = [time.perf_counter()]
models = [build_model(c, rs) for c in combos]
t.append(time.perf_counter())
sols = [direct.solve(m) for m in models]
t.append(time.perf_counter())
n = sum(s.count() for s in sols)
t.append(time.perf_counter())
configs = sum(len(s.configs()) for s in sols)
t.append(time.perf_counter())
direct._SOLVED.clear()
for m in models:
    direct.solve(m)
t.append(time.perf_counter())
names = ("build", "solve", "count", "configs", "re-solve")
print(json.dumps({"n": n, "configs_n": configs, **{k: b - a for k, a, b in zip(names, t, t[1:])}}))
"""

_BATCHED = r"""
import json, sys, time
from itertools import chain, compress
from operator import itemgetter
from cksolve import query
from cksolve.solver import build_model
from cksolve.solver.engine import direct
from cksolve.solver.model import Model
from cksolve.solver.engine.solutions import Component
from cksolve.space.constraints import Check, Table, interned
from cksolve.rulesets import get_rule_set

def by_arch(arch, *rest):  # the check of one arch, chosen by the arch column
    *values, cases = rest
    return dict(cases)[arch].holds(tuple(values))

def merged(models):
    archs = tuple(m.combo.arch for m in models)
    out = []
    for group in zip(*(m.constraints for m in models)):
        c0 = group[0]
        if all(c is c0 for c in group) and not (isinstance(c0, Table) and not c0.forbid and len(c0.scope) > 1):
            out.append(c0)  # shared filters stay as they are; tables get the arch column to host them
        elif all(isinstance(c, Table) and c.forbid == c0.forbid for c in group):
            rows = frozenset(chain.from_iterable(map((a,).__add__, c.rows) for a, c in zip(archs, group)))
            out.append(interned(Table(c0.name, ("arch", *c0.scope), rows, c0.message, c0.source, c0.forbid,
                                      c0.applies_to)))
        else:
            out.append(interned(Check(c0.name, ("arch", *c0.scope), by_arch, c0.message, c0.source,
                                      params=(tuple(zip(archs, group)),), applies_to=c0.applies_to)))
    first = models[0]
    return Model(first.combo, first.kind, ("arch", *first.axes), {**first.domains, "arch": archs}, tuple(out))

def counts_by_arch(sol, archs):
    if sol.empty:
        return dict.fromkeys(archs, 0)
    if "arch" in sol.fixed:
        return {a: (sol.count() if a == sol.fixed["arch"] else 0) for a in archs}
    out = {}
    for a in archs:
        n = 1
        for comp in sol.components:
            if "arch" in comp.axes:
                at = comp.axes.index("arch")
                rows = tuple(compress(comp.rows, map(a.__eq__, map(itemgetter(at), comp.rows))))
                comp = Component(comp.axes, rows, comp.leaves)
            n *= comp.count()
        out[a] = n
    return out

rs = get_rule_set(sys.argv[1])
combos = query.select().combos()
groups = {}
for c in combos:
    groups.setdefault((c.variant, c.dtype, c.ndim), []).append(c)
t0 = time.perf_counter()
models = {k: [build_model(c, rs) for c in v] for k, v in groups.items()}
t1 = time.perf_counter()
batched = {k: merged(v) for k, v in models.items()}
t2 = time.perf_counter()
sols = {k: direct.solve(m) for k, m in batched.items()}
t3 = time.perf_counter()
want = {(m.combo.arch, *k): direct.solve(m).count() for k, v in models.items() for m in v}
got = {}
for k, sol in sols.items():
    for a, n in counts_by_arch(sol, [m.combo.arch for m in models[k]]).items():
        got[(a, *k)] = n
bad = sorted(f"{a}/{v}/{d}/{n}d: batched {got[(a, v, d, n)]}, per combination {c}"
             for (a, v, d, n), c in want.items() if got[(a, v, d, n)] != c)
print(json.dumps({"build": t1 - t0, "merge": t2 - t1, "solve": t3 - t2, "groups": len(groups), "bad": bad}))
"""


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("rule_set", nargs="?", default="full")
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args(argv)
    p = best_of(_PHASES, [args.rule_set], args.repeat, "solve")
    b = best_of(_BATCHED, [args.rule_set], args.repeat, "solve")
    to_count = p["build"] + p["solve"] + p["count"]
    to_configs = p["build"] + p["solve"] + p["configs"]
    print(f"{args.rule_set}: {p['n']} configs over 288 combinations (best of {args.repeat} fresh processes)")
    for k in ("build", "solve", "count", "configs", "re-solve"):
        print(f"  {k:<9} {p[k]:7.3f} s")
    print(f"  to count   {to_count:7.3f} s  ratio to {TARGETS['count']} s target {to_count / TARGETS['count']:.2f}")
    print(f"  to configs {to_configs:7.3f} s  ratio to {TARGETS['enumerate']} s target "
          f"{to_configs / TARGETS['enumerate']:.2f}")
    print(f"  floor of this design for count: build + re-solve = {p['build'] + p['re-solve']:.3f} s")
    print(f"batched by (variant, dtype, ndim), {b['groups']} groups: merge {b['merge']:.3f} s + solve "
          f"{b['solve']:.3f} s (per combination: solve {p['solve']:.3f} s); "
          f"per-arch counts {'equal' if not b['bad'] else 'DIFFER: ' + '; '.join(b['bad'][:5])}")
    return 1 if b["bad"] else 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    sys.exit(main(sys.argv[1:]))
