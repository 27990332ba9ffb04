"""The solver's memos are owned by one cache object: measurable, clearable, and harmless to clear."""

from __future__ import annotations

import gc
import re
import subprocess
import sys
import tracemalloc
from pathlib import Path

import pytest

from cksolve import query  # noqa: F401  (loads every layer, so every module's memos are registered)
from cksolve.rulesets import get_rule_set
from cksolve.solver import enumerate_combo, solve_combo
from cksolve.space.combo import Combo
from cksolve.space.memos import MEMOS, Memos

COMBOS = [Combo(a, "forward", "fp16", 2) for a in ("gfx942", "gfx950", "gfx1201")] + \
         [Combo("gfx942", "bwd_weight", "bf16", 3)]


def _names(rule_set):
    return [sorted(c.name() for c in solve_combo(rule_set, combo).configs()) for combo in COMBOS]


def test_clear_empties_every_memo_and_solves_stay_the_same():
    full = get_rule_set("full")
    before = _names(full)
    sizes = MEMOS.sizes()
    assert sizes["direct.solved"] >= len(COMBOS) and sizes["relations.relations"] > 0, sizes
    assert len(MEMOS) == sum(sizes.values()) and "direct.solved:" in MEMOS.report()
    MEMOS.clear()
    assert set(MEMOS.sizes().values()) == {0} and len(MEMOS) == 0 and MEMOS.report() == ""
    assert _names(full) == before  # recomputed from scratch, same kernels
    assert MEMOS.sizes()["direct.solved"] >= len(COMBOS)


def test_a_memo_name_is_registered_once():
    cache = Memos()
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


# --- every memo of the process, not only the solver's ----------------------------------------


PACKAGE = Path(__file__).resolve().parents[1] / "cksolve"
#: process state that is not a memo, with the reason it stays outside MEMOS
NOT_MEMOS = {
    "outputs.py": "_live",  # live temporary files: the signal handlers remove them
    "cli/options.py": "_warned",  # the command's warnings, once each: one command per process
    "space/naming.py": "_NUMBERS",  # the fields the name grammar spells as numbers, filled once at import
}


def _work():
    """Solve, name, render and check a little of everything: fills memos of every layer."""
    from cksolve.emit.render import render_kernel
    from cksolve.workload import applicable, parse_problem

    combos = [Combo(a, v, "fp16", 2) for a in ("gfx1201", "gfx942") for v in ("bwd_weight", "forward")]
    for name in ("default", "full", "tiny"):
        rs = get_rule_set(name)
        for c in combos:
            configs = list(enumerate_combo(rs, c))
            [x.name() for x in configs]
    render_kernel("gfx942", configs[0])
    applicable(parse_problem("N=4,G=1,C=64,K=64,Hi=28,Wi=28,Y=3,X=3,pad_h=1,pad_w=1"), get_rule_set("default"),
               "gfx942", "fp16")


def test_no_memo_outside_the_owner():
    """No bare lru_cache or module-level dict/set memo: each is registered with MEMOS (or listed above)."""
    bare = []
    for f in sorted(PACKAGE.rglob("*.py")):
        rel = f.relative_to(PACKAGE).as_posix()
        if rel == "space/memos.py":
            continue
        for n, line in enumerate(f.read_text(encoding="utf-8").splitlines(), 1):
            state = re.match(r"(\w+)\s*(?::[^=]+)?=\s*(\{\}|set\(\)|dict\(\))\s*$", line)
            if "lru_cache" in line or "functools.cache" in line or (state and NOT_MEMOS.get(rel) != state[1]):
                bare.append(f"{rel}:{n}: {line.strip()}")
    assert not bare, "\n".join(bare)


def test_clear_empties_every_registered_memo():
    _work()
    full = {name: n for name, n in MEMOS.sizes().items() if n}
    for layer in ("space.", "arch.", "rulesets.", "direct.", "relations.", "subsets.", "workload.", "emit."):
        assert any(name.startswith(layer) for name in full), (layer, sorted(full))
    MEMOS.clear()
    assert set(MEMOS.sizes().values()) == {0} and len(MEMOS) == 0


@pytest.mark.slow
def test_clear_returns_the_memory():
    _work()  # first: imports and anything loaded once per process
    MEMOS.clear()
    gc.collect()
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        _work()
        gc.collect()
        grown = tracemalloc.get_traced_memory()[0] - base
        MEMOS.clear()
        gc.collect()
        kept = tracemalloc.get_traced_memory()[0] - base
    finally:
        tracemalloc.stop()
    assert grown > 1_000_000, grown  # the work did memoise
    assert kept < 0.1 * grown, f"{kept:,} of {grown:,} bytes stay after clear()"


def test_the_registry_is_complete_before_anything_above_it_is_imported():
    """Every rule set, the derived full-tests and tiny included, is named by the registry alone; the one
    link up to the derived layer is an import string in the registry, resolved on first use."""
    code = ("import sys, cksolve.rulesets as r; print(list(r.RULE_SETS)); "
            "print(sorted(m for m in sys.modules if m.startswith('cksolve.derived')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.splitlines()
    assert out == ["['default', 'tests', 'profiler', 'full', 'full-tests', 'tiny']", "[]"], out
    below = [f.name for f in (PACKAGE / "rulesets").rglob("*.py")
             if re.search(r"[\"']cksolve\.derived", f.read_text(encoding="utf-8"))]  # a module named by string
    assert below == ["builtin.py"], below
