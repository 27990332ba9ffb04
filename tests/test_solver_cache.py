"""The solver's memos are owned by one cache object: measurable, clearable, and harmless to clear."""

from __future__ import annotations

from cksolve.rulesets import get_rule_set
from cksolve.solver import CACHE, SolverCache, solve_combo
from cksolve.space.combo import Combo

COMBOS = [Combo(a, "forward", "fp16", 2) for a in ("gfx942", "gfx950", "gfx1201")] + \
         [Combo("gfx942", "bwd_weight", "bf16", 3)]


def _names(rule_set):
    return [sorted(c.name() for c in solve_combo(rule_set, combo).configs()) for combo in COMBOS]


def test_clear_empties_every_memo_and_solves_stay_the_same():
    full = get_rule_set("full")
    before = _names(full)
    sizes = CACHE.sizes()
    assert sizes["direct.solved"] >= len(COMBOS) and sizes["relations.relations"] > 0, sizes
    assert len(CACHE) == sum(sizes.values()) and "direct.solved:" in CACHE.report()
    CACHE.clear()
    assert set(CACHE.sizes().values()) == {0} and len(CACHE) == 0 and CACHE.report() == ""
    assert _names(full) == before  # recomputed from scratch, same kernels
    assert CACHE.sizes()["direct.solved"] >= len(COMBOS)


def test_a_memo_name_is_registered_once():
    cache = SolverCache()
    memo = cache.memo("a")
    memo[1] = 2

    @cache.cached("b")
    def twice(x):
        return 2 * x

    assert twice(3) == 6 and cache.sizes() == {"a": 1, "b": 1}
    for register in (lambda: cache.memo("a"), lambda: cache.cached("b")):
        try:
            register()
        except ValueError as exc:
            assert "registered twice" in str(exc)
        else:
            raise AssertionError("a second registration under the same name was accepted")
