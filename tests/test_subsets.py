"""Rule sets ``full-tests`` and ``tiny``: the coverage contract on every combination.

Every (arch, variant, dtype, ndim) for all archs (the oracle's five plus
gfx908, gfx1200, gfx1250). ``full``'s enumeration is computed once per combo
and shared (``subsets.full_configs`` is cached), so the module runs in seconds.
"""

from __future__ import annotations

from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cksolve.arch.facts import BUNDLED_ARCHS
from cksolve.query import select
from cksolve.solver import solve_combo
from cksolve.derived.cover import CoverError, minimum_cover, minimum_cover_cpsat
from cksolve.space.naming import parse_name
from cksolve.rulesets import Combo, get_rule_set, rule_set_names
from cksolve.derived import subsets
from cksolve.derived.subsets import (
    CATEGORIES, STRIDE, TINY_SIZE, category, coverage, coverage_of, full_configs, full_tests_selection, pair,
    tiny_selection,
)

from conftest import oracle, split_key

ORACLE_ARCHS = ("gfx90a", "gfx942", "gfx950", "gfx1100", "gfx1201")


def _combos(arch: str) -> list[Combo]:
    return select(archs=[arch]).combos()


def _names(configs) -> list[str]:
    return [c.name() for c in configs]


def _shape(c) -> tuple:
    return (c.tile_h, c.tile_w) if c.kind == "depthwise" else (c.tile_m, c.tile_n, c.tile_k)


def test_all_archs_are_checked():
    assert set(ORACLE_ARCHS) | {"gfx908", "gfx1200", "gfx1250"} <= set(BUNDLED_ARCHS)
    assert {"full-tests", "tiny"} <= set(rule_set_names())


def test_every_rule_set_resolves_in_a_fresh_interpreter_without_import_order():
    """The registry has no side effects to wait for: ``rulesets`` alone names and loads the derived sets
    (their module imported on first use, not before)."""
    import subprocess
    import sys

    code = ("import sys\nfrom cksolve.rulesets import get_rule_set, rule_set_names\n"
            "assert {'full-tests', 'tiny'} <= set(rule_set_names())\n"
            "assert 'cksolve.derived.subsets' not in sys.modules\n"
            "print(get_rule_set('tiny').name, get_rule_set('full-tests').name)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["tiny", "full-tests"]


# --- full-tests ------------------------------------------------------------------------


def _check_full_tests(combo: Combo) -> None:
    full = full_configs(combo)
    ft = full_tests_selection(combo)
    names = _names(ft)
    assert names == sorted(set(names)), "name order, no duplicates"
    assert set(names) <= set(_names(full)), "subset of full"
    if combo.variant == "forward_depthwise":
        assert {category(c) for c in full} <= {"depthwise"}
    else:
        assert "depthwise" not in {category(c) for c in full}
    # 1. every 5th config (0, 5, 10, ...) of each category, at least one per category
    stride = set()
    for cat in CATEGORIES:
        members = [c for c in full if category(c) == cat]
        stride.update(_names(members[::STRIDE]))
        assert bool(members) == any(category(c) == cat for c in ft)
    assert stride <= set(names)
    # 2. the others: one per (pipeline, scheduler) pair of full the stride picks miss, the first in name order
    stride_pairs = {pair(c) for c in full if c.name() in stride}
    extras = [c for c in ft if c.name() not in stride]
    assert len({pair(c) for c in extras}) == len(extras), "at most one extra per pair"
    for c in extras:
        p = pair(c)
        assert p is not None and p not in stride_pairs
        assert c is next(x for x in full if pair(x) == p), "extra is the first config with its pair"
    assert {pair(c) for c in ft} == {pair(c) for c in full}
    assert coverage_of(ft) == coverage_of(full)


@pytest.mark.parametrize("arch", BUNDLED_ARCHS)
def test_full_tests_contract(arch):
    for combo in _combos(arch):
        _check_full_tests(combo)


# --- tiny ------------------------------------------------------------------------------


def _brute_force_cover(items: list[frozenset]) -> tuple[int, tuple[int, ...]]:
    """Smallest cover size and the lexicographically smallest such cover, by enumeration."""
    universe = frozenset().union(*items) if items else frozenset()
    if not universe:
        return 0, ()
    first = {}
    for i, s in enumerate(items):
        first.setdefault(s, i)
    candidates = sorted(first.values())
    for k in range(1, len(candidates) + 1):
        covers = [ix for ix in combinations(candidates, k) if frozenset().union(*(items[i] for i in ix)) == universe]
        if covers:
            return k, min(covers)
    raise AssertionError("no cover")  # pragma: no cover


def _check_tiny(combo: Combo) -> None:
    ft = full_tests_selection(combo)
    sel = tiny_selection(combo)
    names = _names(sel.configs)
    assert names == sorted(set(names))
    assert set(names) <= set(_names(ft)), "subset of full-tests"
    # cover: covers every category and pair of full-tests, minimum by the exact search (status OPTIMAL)
    assert sel.status == "OPTIMAL"
    assert sel.universe == coverage_of(ft)
    assert coverage_of(sel.cover) == sel.universe
    assert coverage_of(sel.configs) == coverage_of(ft)
    # independent check of minimality and of the tie-break (earliest names)
    size, lex = _brute_force_cover([coverage(c) for c in ft])
    assert len(sel.cover) == size
    assert _names(sel.cover) == [ft[i].name() for i in lex]
    if combo.variant == "forward_depthwise" and ft:
        assert len(sel.cover) == 1 and all(pair(c) is None for c in ft)
    # padding: up to min(10, |full-tests|); new tile shapes first, each phase in name order
    assert len(sel.configs) == max(len(sel.cover), min(TINY_SIZE, len(ft)))
    assert set(_names(sel.cover)) | set(_names(sel.padding)) == set(names)
    assert not set(_names(sel.cover)) & set(_names(sel.padding))
    shapes = {_shape(c) for c in sel.cover}
    chosen = set(_names(sel.cover))
    new_phase = True
    previous = {True: "", False: ""}
    for c in sel.padding:
        is_new = _shape(c) not in shapes
        if not is_new:
            new_phase = False
            unused_new = [x for x in ft if x.name() not in chosen and _shape(x) not in shapes]
            assert not unused_new, f"{c.name()} repeats a shape while {unused_new[0].name()} would add one"
        else:
            assert new_phase, "a new-shape config after the repeat phase started"
        assert c.name() > previous[is_new]
        previous[is_new] = c.name()
        shapes.add(_shape(c))
        chosen.add(c.name())


@pytest.mark.parametrize("arch", BUNDLED_ARCHS)
def test_tiny_contract(arch):
    for combo in _combos(arch):
        _check_tiny(combo)


# --- the rule sets through the solver (the table encoding) ------------------------------


@pytest.mark.parametrize("arch", BUNDLED_ARCHS)
def test_rule_sets_solve_to_the_selection(arch):
    ft_rs, tiny_rs = get_rule_set("full-tests"), get_rule_set("tiny")
    for combo in _combos(arch):
        assert _names(sorted(solve_combo(tiny_rs, combo).configs(), key=lambda c: c.name())) == \
            _names(tiny_selection(combo).configs)
        assert solve_combo(ft_rs, combo).count() == len(full_tests_selection(combo))


@pytest.mark.parametrize("name", ["full-tests", "tiny"])
def test_listed_solve_equals_the_general_solve(name):
    """Over ``full`` solved, the selection table is solved by membership (direct._solve_listed);
    the general join over every constraint must give the same configs on every combination."""
    from cksolve.solver import build_model
    from cksolve.solver.engine import direct

    rs = get_rule_set(name)
    for combo in select().combos():
        full_configs(combo)  # full solved for the combo: the listed path applies
        model = build_model(combo, rs)
        listed = direct._solve_listed(model)
        assert listed is not None, f"{combo.key}: the listed path was not taken"
        general = direct._solve(model)
        assert listed.count() == general.count(), combo.key
        assert sorted(_names(listed.configs())) == sorted(_names(general.configs())), combo.key


def test_solve_takes_the_listed_path_on_every_combination(monkeypatch):
    """Once ``full`` is solved, solving tiny never falls back to the general join (empty sets included)."""
    from cksolve.solver import build_model
    from cksolve.solver.engine import direct

    rs = get_rule_set("tiny")
    models = []
    for combo in select().combos():
        full_configs(combo)
        model = build_model(combo, rs)
        direct._SOLVED.pop(direct._key(model)[0], None)
        models.append(model)

    def general(model):
        raise AssertionError(f"{model.combo.key}: solved by the general join")

    monkeypatch.setattr(direct, "_solve", general)
    counts = [direct.solve(m).count() for m in models]
    assert 0 in counts and any(counts)  # both empty and non-empty selections went through it


def test_listed_solve_waits_for_the_base_model():
    """A listed table over a model not solved yet is solved the general way (the base could be huge)."""
    from cksolve.solver import build_model
    from cksolve.solver.engine import direct
    from cksolve.rulesets.rule_set import configs_table

    combo = Combo("gfx942", "forward", "fp16", 2)
    picked = full_configs(combo)[:3]
    listed = configs_table("test.listed", "gemm", picked, "not listed", "test")
    model = build_model(combo, None, extra=[listed])  # base: the bare arch space, never solved
    assert direct._solve_listed(model) is None
    assert sorted(_names(direct.solve(model).configs())) == sorted(_names(picked))


def test_check_explains_a_full_config_outside_tiny():
    from cksolve.solver.questions.evaluate import evaluate  # the API `check` uses

    combo = Combo("gfx942", "forward", "fp16", 2)
    outside = next(c for c in full_configs(combo) if c not in set(tiny_selection(combo).configs))
    rows = get_rule_set("tiny").constraints(combo)[-1]
    assert rows.name == "rules.tiny.selection"
    assert not rows.holds(tuple(getattr(outside, a) for a in rows.scope))
    verdict = evaluate(outside, combo.arch, get_rule_set("tiny"))
    assert verdict.valid and verdict.member is False
    assert [v.constraint for v in verdict.rule_violations] == ["rules.tiny.selection"], verdict


# --- determinism -----------------------------------------------------------------------


def test_deterministic_recomputation():
    combos = [Combo("gfx942", "forward", "fp16", 2), Combo("gfx950", "bwd_weight", "bf16", 3),
              Combo("gfx1201", "forward_depthwise", "fp32", 2), Combo("gfx908", "forward", "fp32", 1)]
    before = {c: (_names(full_tests_selection(c)), _names(tiny_selection(c).configs)) for c in combos}
    for memoised in (subsets._full_configs, subsets._full_tests_selection, subsets._tiny_selection,
                     subsets._constraints):
        memoised.cache_clear()
    for c in combos:
        assert (_names(full_tests_selection(c)), _names(tiny_selection(c).configs)) == before[c]
        items = [coverage(x) for x in full_tests_selection(c)]
        assert len({minimum_cover(items) for _ in range(3)}) == 1


# --- the cover solver ------------------------------------------------------------------


@pytest.mark.parametrize("solve", [minimum_cover, minimum_cover_cpsat], ids=["search", "cpsat"])
def test_minimum_cover_small_cases(solve):
    items = [frozenset("ab"), frozenset("cd"), frozenset("a"), frozenset("bc"), frozenset("d"), frozenset("ad")]
    assert solve(items) == ((0, 1), "OPTIMAL")
    assert solve(items, {"a", "c"}) == ((0, 1), "OPTIMAL")
    assert solve(items, {"b", "c"}) == ((3,), "OPTIMAL")
    assert solve(items, set()) == ((), "OPTIMAL")
    # tie among minimum covers: earliest indices win, duplicates resolve to the first
    dup = [frozenset("x"), frozenset("ab"), frozenset("ab"), frozenset("a"), frozenset("b")]
    assert solve(dup, {"a", "b"}) == ((1,), "OPTIMAL")
    # the greedy first set (the largest) is in no minimum cover
    trap = [frozenset("abcd"), frozenset("ace"), frozenset("bdf")]
    assert solve(trap) == ((1, 2), "OPTIMAL")
    with pytest.raises(CoverError):
        solve(items, {"z"})


def test_cpsat_one_by_one_lexicographic_phase_agrees(monkeypatch):
    """The phase used beyond 60 distinct sets gives the same answers as the weighted one."""
    import cksolve.derived.cover as cover

    monkeypatch.setattr(cover, "_LEX_BITS", 0)
    items = [frozenset("ab"), frozenset("cd"), frozenset("a"), frozenset("bc"), frozenset("d"), frozenset("ad")]
    assert minimum_cover_cpsat(items) == ((0, 1), "OPTIMAL")
    dup = [frozenset("x"), frozenset("ab"), frozenset("ab"), frozenset("a"), frozenset("b")]
    assert minimum_cover_cpsat(dup, {"a", "b"}) == ((1,), "OPTIMAL")


@pytest.mark.slow
@settings(max_examples=150, deadline=None, derandomize=True)
@given(st.lists(st.frozensets(st.sampled_from("abcdefgh"), max_size=4), min_size=1, max_size=14))
def test_search_equals_cpsat_on_random_families(items):
    universe = frozenset().union(*items)
    assert minimum_cover(items, universe) == minimum_cover_cpsat(items, universe)


def test_search_is_certified_optimal_by_cpsat_on_every_combination():
    """tiny's covers come from the exact search; CP-SAT proves each one minimum and the same tie-break.

    Every combination of every architecture (tiny's real instances), not a sample.
    """
    seen = 0
    for combo in select().combos():
        items = [coverage(c) for c in full_tests_selection(combo)]
        if not items:
            continue
        got, want = minimum_cover(items), minimum_cover_cpsat(items)
        assert want[1] == "OPTIMAL", f"{combo.key}: CP-SAT did not prove optimality ({want[1]})"
        assert got == want, f"{combo.key}: search chose items {got[0]}, CP-SAT's optimum is {want[0]}"
        assert tiny_selection(combo).cover == tuple(full_tests_selection(combo)[i] for i in got[0]), combo.key
        seen += 1
    assert seen > 100  # 108 combinations have full-tests kernels today: all of them were certified


# --- against CK's own selection --------------------------------------------------------


@pytest.mark.parametrize("rule_set", ["tiny", "full-tests"])
def test_covers_at_least_what_ck_covers(rule_set):
    """cksolve's subset covers every category and (pipeline, scheduler) pair CK's accepted names cover.

    Where the coverages are equal, tiny's minimum-cover part is never larger
    than CK's list (the padding to 10 can be: CK pads before its arch filter).
    """
    ck = oracle(rule_set)
    for key, entry in ck.items():
        combo = Combo(*split_key(key))
        theirs = [parse_name(n) for n in entry["accepted"]]
        ours = tiny_selection(combo).configs if rule_set == "tiny" else full_tests_selection(combo)
        missing = coverage_of(theirs) - coverage_of(ours)
        assert not missing, f"{key}: CK's {rule_set} covers {sorted(missing)}, cksolve's does not"
        if rule_set == "tiny" and theirs and coverage_of(theirs) == coverage_of(ours):
            cover = tiny_selection(combo).cover
            assert len(cover) <= len(theirs), \
                f"{key}: equal coverage, but the minimum cover has {len(cover)} configs and CK's tiny {len(theirs)}"


@pytest.mark.parametrize("name", ["tiny", "full-tests"])
def test_constraints_compute_the_basis_once(monkeypatch, name):
    """A subset rule set's ``constraints(combo)`` reads full's answer (its basis) once, not again per selection."""
    import cksolve.derived.subsets as subsets
    from cksolve.space.memos import MEMOS

    calls = []
    real = subsets._basis
    monkeypatch.setattr(subsets, "_basis", lambda combo: calls.append(combo) or real(combo))
    combo = Combo("gfx942", "forward", "fp16", 2)
    got = get_rule_set(name).constraints(combo)
    MEMOS.clear()
    calls.clear()
    again = get_rule_set(name).constraints(combo)
    assert len(calls) == 1, calls
    assert [c.name for c in again] == [c.name for c in got]
