"""Names spelled from a solution set's structure (``solver.listing.spelled``) are its configs' own names."""

from __future__ import annotations

import pytest

from cksolve import query
from cksolve.rulesets import get_rule_set
from cksolve.solver import enumerate_combo, names_combo, solve_combo
from cksolve.solver.model import config_class
from cksolve.solver.listing.spelled import spelled_names, spelled_rows
from cksolve.space.kinds import kernel_kind


@pytest.mark.parametrize("rule_set", ["full", "default", "tiny"])
def test_structure_names_are_the_configs_names(rule_set):
    rs = get_rule_set(rule_set)
    spelled = 0
    for combo in query.select(["gfx942", "gfx1100"]).combos():
        solutions = solve_combo(rs, combo)
        got = spelled_rows(solutions)
        if got is None:
            continue
        names, rows, pick = got
        cls = config_class(solutions.model.kind)
        configs = [tuple.__new__(cls, pick(r)) for r in rows]
        want = [kernel_kind(solutions.model.kind).spell(c) for c in configs]
        bad = [(n, w) for n, w in zip(names, want) if n != w]
        assert not bad, f"{rule_set} {combo.key}: {len(bad)} names differ, first {bad[0]}"
        assert sorted(configs) == sorted(solutions.configs()), f"{rule_set} {combo.key}: other configs"
        spelled += 1
    assert spelled, f"{rule_set}: no combination was spelled from its structure"


def test_listing_order_is_name_order_with_configs_aligned():
    rs = get_rule_set("full")
    for combo in list(query.select(["gfx950"]).combos())[:40]:
        names = names_combo(rs, combo)
        assert list(names) == sorted(names), combo.key
        configs = enumerate_combo(rs, combo)
        assert [c.name() for c in configs] == list(names), combo.key


@pytest.mark.parametrize("rule_set", ["full", "tiny"])
def test_names_without_rows_are_the_same_names(rule_set):
    """``spelled_names`` (a names listing: no rows formed) gives the names ``spelled_rows`` gives, in some order."""
    rs = get_rule_set(rule_set)
    spelled = 0
    for combo in query.select(["gfx942", "gfx1100"], ["forward", "bwd_weight"]).combos():
        solutions = solve_combo(rs, combo)
        got = spelled_rows(solutions)
        names = spelled_names(solutions)
        assert (names is None) == (got is None), combo.key
        if got is not None:
            assert sorted(names) == sorted(got[0]), combo.key
            spelled += 1
    assert spelled, f"{rule_set}: no combination was spelled from its structure"
