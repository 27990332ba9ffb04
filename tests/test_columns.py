"""One engine: each rule of ``checks.py`` is written once, elementwise, and answers the same on one pair
(plain values, the solver's ``Check``) as over columns (a workload).

Two levels, both on random input (hypothesis) with edge values (1, sizes past
2**31 and 2**53, per-group sizes that vector widths do not divide, 3D, groups > 1,
depthwise shapes):

* rule by rule: every rule of ``applicability.toml`` called on columns of the
  problem's facts and rows of random scope values from the axis domains, against
  the same function called on each pair's plain values;
* whole answers: ``iter_coverage`` (columns, identical problems collapsed, huge
  problems on Python ints) against a brute-force loop over every kernel and every
  ``Check`` of ``applicability_constraints`` (one pair at a time) on random
  workloads with repeated rows and random kernel subsets of real rule sets: the
  same kernels, in the same order, the same candidates and the same rejections.
"""

from __future__ import annotations

import json
import random
import re
from functools import lru_cache
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from conftest import ck_available

from cksolve import query
from cksolve.rulesets.listed import ListedRuleSet
from cksolve.solver import bounded_configs
from cksolve.space.axes import AXES
from cksolve.space.combo import Combo
from cksolve.space.combo import kind_of
from cksolve.workload import DIRECTIONS, Problem, ProblemError, rules, Workspace, applicability_constraints
from cksolve.workload import checks
from cksolve.workload.columns import facts_of
from cksolve.workload.coverage import iter_coverage
from cksolve.workload.problem_facts import ceil_div

ROOT_COPYLESS = Path(__file__).resolve().parents[1]
HUGE = (2 ** 31, 2 ** 53 + 1, 10 ** 18 - 1)
BIG = (2 ** 20, 2 ** 31 - 1)  # large, yet decided by the columns
SIZES = st.one_of(st.sampled_from([1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 16, 24, 56, 64, 112, 256]), st.integers(1, 600),
                  st.sampled_from(BIG))
SMALL = st.sampled_from([1, 2, 3])


@st.composite
def problems(draw, huge: bool = True) -> Problem:
    sizes = st.one_of(SIZES, st.sampled_from(HUGE)) if huge and draw(st.booleans()) else SIZES
    g = draw(st.sampled_from([1, 1, 2, 3, 4, 8, 64, 512]))
    depthwise = draw(st.booleans())
    cg = 1 if depthwise else draw(sizes)
    kg = 1 if depthwise else draw(sizes)
    three_d = draw(st.booleans())
    fields = dict(
        direction=draw(st.sampled_from(sorted(DIRECTIONS))),
        N=draw(st.one_of(st.sampled_from([1, 2, 4, 8, 16, 24]), sizes)),
        G=g, C=g * cg, K=g * kg,
        Hi=draw(sizes), Wi=draw(sizes),
        Y=draw(st.sampled_from([1, 3, 5, 7])), X=draw(st.sampled_from([1, 3, 5, 7])),
        stride_h=draw(SMALL), stride_w=draw(SMALL),
        pad_h=draw(st.sampled_from([0, 1, 2, 3])), pad_w=draw(st.sampled_from([0, 1, 2, 3])),
        dilation_h=draw(st.sampled_from([1, 1, 2])), dilation_w=draw(st.sampled_from([1, 1, 2])),
        split_k=draw(st.sampled_from([1, 1, 2, 3, 4, 64, 128, 129, 256, 2 ** 30] + ([2 ** 40] if huge else []))),
    )
    if three_d:
        fields.update(Di=draw(st.sampled_from([1, 2, 8, 2 ** 31 if huge else 2 ** 20])), Z=draw(st.sampled_from([1, 3])),
                      pad_d=draw(st.sampled_from([0, 1])), stride_d=draw(SMALL))
    try:
        return Problem(**fields)
    except ProblemError:
        assume(False)


def test_every_rule_has_one_check():
    missing = sorted({r.check for r in rules() if not callable(getattr(checks, r.check, None))})
    assert not missing, f"rules without a check in checks.py: {missing}"


def _edge_domain(axis: str, facts) -> list:
    """The axis's domain, and for an integer axis also (a second list) values at the problem's boundaries (its output
    sizes, per-group sizes, N, G, filter and stride, each -1 and +1), so that ``<`` against ``<=`` shows."""
    domain = list(AXES[axis].domain)
    if not all(type(v) is int for v in domain) or axis == "ndim":
        return [domain]
    near = {*facts.output, facts.c_per_group, facts.k_per_group, facts.N, facts.G, *facts.filter, *facts.stride,
            *facts.pad, facts.split_k}
    return [domain, sorted(v + d for v in near for d in (-1, 0, 1) if 1 <= v + d < 2 ** 20)]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(data=st.data())
def test_rule_by_rule(data):
    p = data.draw(problems(huge=False))
    facts = p.facts()
    cols, exact = facts_of([p], p.direction, p.ndim)
    assume(exact[0])  # past exact int64 arithmetic the engine decides the problem on Python ints
    arch = data.draw(st.sampled_from(["gfx942", "gfx950", "gfx1100", "gfx90a"]))
    dtype = data.draw(st.sampled_from(["fp16", "bf16", "fp32"]))
    rng = data.draw(st.randoms(use_true_random=False))
    for rule in rules():
        if p.direction not in rule.directions:
            continue
        domains = [_edge_domain(a, facts) for a in rule.scope]
        combos = [tuple(rng.choice(rng.choice(d)) for d in domains) for _ in range(64)]
        rows = [list(v) for v in zip(*combos)]
        n = len(combos)
        arrays = [np.asarray(v, dtype=object if isinstance(v[0], str) else None).reshape(1, -1) for v in rows]
        got = np.broadcast_to(getattr(checks, rule.check)(*arrays, cols, arch, dtype), (1, n))[0]
        want = [bool(getattr(checks, rule.check)(*vals, facts, arch, dtype)) for vals in zip(*rows)]
        differ = [(vals, bool(g), w) for vals, g, w in zip(combos, got, want) if bool(g) != w]
        assert not differ, f"{rule.name(p.direction)} on {p.spec()} {arch} {dtype}: (scope {rule.scope}, column, " \
                           f"per pair): {differ[:3]}"


#: (rule set, combination) pools whose kernels the workload test samples from; ``tests`` (CK Builder's .conf
#: files, reference data) only where that data is, so the test still runs on a checkout without it.
POOLS = [("full", "forward", 2), ("full", "forward_depthwise", 2), ("full", "forward", 3),
         ("full", "bwd_data", 2), ("full", "bwd_weight", 2), ("full", "bwd_weight", 3)] \
    + ([("tests", "forward", 2)] if ck_available() else [])


@lru_cache(maxsize=None)
def _kernels(rule_set: str, variant: str, ndim: int, dtype: str) -> tuple:
    from conftest import CK

    rs = query.load_rule_set(rule_set, str(CK / "builder-configs") if rule_set == "tests" else None)
    return tuple(bounded_configs(rs, Combo("gfx942", variant, dtype, ndim)))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(workload=st.lists(problems(), min_size=1, max_size=12), repeats=st.lists(st.integers(0, 11), max_size=6),
       seed=st.integers(0, 2 ** 16), dtype=st.sampled_from(["fp16", "fp32"]), arch=st.sampled_from(["gfx942", "gfx950"]))
def test_whole_answers_agree(workload, repeats, seed, dtype, arch):
    workload = workload + [workload[i % len(workload)] for i in repeats]  # identical rows collapse
    rng = random.Random(seed)
    configs = []
    for rs, variant, ndim in POOLS:
        pool = _kernels(rs, variant, ndim, dtype)
        configs.extend(rng.sample(pool, min(len(pool), rng.choice([1, 5, 40]))))
    rule_set = ListedRuleSet("sample", configs)
    for rec in iter_coverage(workload, rule_set, arch, [dtype]):
        want_names, want_rejected, candidates = _per_pair(rec.problem, rule_set, arch, dtype)
        where = f"row {rec.row} {rec.problem.spec()} {arch} {dtype}"
        assert rec.kernels == want_names, f"{where}: column engine lists {len(rec.kernels)} kernels, per pair " \
                                          f"{len(want_names)}; first differing: " \
                                          f"{sorted(set(rec.kernels) ^ set(want_names))[:3]}"
        assert rec.candidates == candidates, where
        assert rec.rejected == want_rejected, f"{where}: rejections {rec.rejected} vs per pair {want_rejected}"


def _per_pair(problem, rule_set, arch, dtype):
    """(applicable names in canonical order, rejections ranked, candidates) by a loop over every kernel and
    every ``Check`` -- the solver's per-pair form of the rules -- with no grouping and no columns."""
    names, rejected, candidates = [], {}, 0
    for variant in DIRECTIONS[problem.direction]:
        configs = sorted(bounded_configs(rule_set, Combo(arch, variant, dtype, problem.ndim)), key=lambda c: c.name())
        candidates += len(configs)
        checks_ = applicability_constraints(problem.facts(), arch, dtype, kind_of(variant))
        for c in configs:
            failed = [k.name for k in checks_ if not k.holds(tuple(getattr(c, a) for a in k.scope))]
            for name in failed:
                rejected[name] = rejected.get(name, 0) + 1
            if not failed:
                names.append(c.name())
    return tuple(names), tuple(sorted(rejected.items(), key=lambda kv: (-kv[1], kv[0]))), candidates


@pytest.mark.ck_data
def test_counts_without_kernels_match():
    rs = query.load_rule_set("full")
    from conftest import CK
    from cksolve.workload import read_problems

    workload = read_problems(CK / "workloads" / "validation_holdout.csv")
    full = list(iter_coverage(workload, rs, "gfx942", ["fp16", "bf16"]))
    bare = list(iter_coverage(workload, rs, "gfx942", ["fp16", "bf16"], with_kernels=False))
    assert [r.applicable for r in full] == [r.applicable for r in bare]
    assert [r.rejected for r in full] == [r.rejected for r in bare]
    assert all(r.kernels == () for r in bare)


@pytest.mark.parametrize("spec", ["N=999999999999999999,C=64,K=64", "N=2,C=64,K=64,Hi=9007199254740993,Wi=3",
                                  "N=2,G=2147483648,C=2147483648,K=2147483648,Hi=8,Wi=8,pad_h=1,pad_w=1",
                                  "direction=bwd_weight,N=4294967296,C=64,K=64,Hi=4294967296,Wi=3,split_k=5"])
def test_huge_values_are_decided_on_python_ints(spec):
    from cksolve.workload import parse_problem

    p = parse_problem(spec)
    _, exact = facts_of([p], p.direction, p.ndim)
    assert not exact[0]
    rs = query.load_rule_set("full")
    for rec in iter_coverage([p, p], rs, "gfx942", ["fp16"]):
        names, rejected, _ = _per_pair(p, rs, "gfx942", "fp16")
        assert rec.kernels == names
        assert rec.rejected == rejected
    found, rejected, _ = Workspace(rs).decide(p, "gfx942", "fp16")
    assert tuple(c.name() for _, c in found) == names


def test_ceilings_are_integer_ceilings():
    """A float ``ceil(a / b)`` rounds ``a / b`` first: past 2**53 it loses the remainder. The rules take the
    integer ceiling (``facts.ceil_div``), in both forms, so a huge problem gets the exact answer."""
    split_k, warp_tile_k = 10 ** 17 + 1, 16
    gemm_k = warp_tile_k * (split_k - 1) + 1  # needs exactly split_k warp tiles
    from math import ceil
    assert ceil(gemm_k / warp_tile_k) == split_k - 1  # the float form would refuse the kernel
    assert ceil_div(gemm_k, warp_tile_k) == split_k
    assert ceil_div(np.array([[gemm_k]], dtype=object), np.array([[warp_tile_k]], dtype=object))[0, 0] == split_k
    f = Problem(direction="bwd_weight").facts()._replace(gemm_k=gemm_k, split_k=split_k)
    assert checks.bwd_weight_split_k_warp_tile(False, warp_tile_k, f, "gfx942", "fp16")
    assert not checks.bwd_weight_split_k_warp_tile(False, warp_tile_k, f._replace(gemm_k=gemm_k - 1), "gfx942",
                                                   "fp16")
    rows = np.array([[warp_tile_k, 2 * warp_tile_k]], dtype=object)
    assert checks.bwd_weight_split_k_warp_tile(np.array([[False, False]]), rows, f, "gfx942", "fp16").tolist() \
        == [[True, False]]


NEW_RULE = '''
[[rule]]
key = "made_up_even_n"
directions = ["forward"]
scope = ["tile_n"]
check = "made_up_even_n"
message = "N {N} is odd: a made-up rule wants it even when tile_n is {tile_n}"
source = "a test"
tag = "I"
doc = "A made-up rule: forward problems need an even N on kernels with tile_n at least 256."
'''
NEW_CHECK = '''

def made_up_even_n(tile_n, f, arch, dtype):
    return (tile_n < 256) | (f.N % 2 == 0)
'''


def test_a_new_rule_is_one_entry_and_one_function(tmp_path):
    """A copy of the package with one entry added to applicability.toml and one function to checks.py: every
    face of the rules (coverage over columns, applicable, explain --problem one pair at a time) applies it."""
    from package_copy import copy_with, run

    root = copy_with(tmp_path, "workload/applicability.toml", NEW_RULE)
    checks_py = root / "cksolve" / "workload" / "checks.py"
    checks_py.write_text(checks_py.read_text(encoding="utf-8") + NEW_CHECK, encoding="utf-8")
    workload = tmp_path / "w.csv"
    workload.write_text("N,C,K\n3,64,64\n4,64,64\n", encoding="utf-8")
    common = ["-r", "tiny", "-a", "gfx942", "--dtype", "fp16"]
    before = [json.loads(line) for line in run(ROOT_COPYLESS, "coverage", "--problems", str(workload), *common,
                                                "-f", "jsonl", "--with-kernels").stdout.splitlines()]
    r = run(root, "coverage", "--problems", str(workload), *common, "-f", "jsonl", "--with-kernels")
    assert r.returncode == 0, r.stderr
    after = [json.loads(line) for line in r.stdout.splitlines()]
    big = [k for k in before[0]["kernels"] if int(re.search(r"_\d+x(\d+)x\d+_", k).group(1)) >= 256]  # tile_n
    assert big and len(big) < len(before[0]["kernels"]), "tiny has kernels with tile_n >= 256 and below"
    assert sorted(after[0]["kernels"]) == sorted(set(before[0]["kernels"]) - set(big))  # N = 3: rule applies
    assert after[1]["kernels"] == before[1]["kernels"]  # N = 4: nothing changes
    one = run(root, "applicable", "-p", "N=3,C=64,K=64", *common)
    assert one.returncode == 0 and set(one.stdout.split()) == set(after[0]["kernels"]), one.stderr
    why = run(root, "explain", big[0], "-a", "gfx942", "-r", "tiny", "--problem", "N=3,C=64,K=64")
    assert "apply.forward.made_up_even_n" in why.stdout and "N 3 is odd" in why.stdout, why.stdout
