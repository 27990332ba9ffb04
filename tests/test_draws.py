"""Vectorised draws and names of ``sample``: the same numbers, state and names as one draw at a time."""

from __future__ import annotations

import random

import pytest

from cksolve import explore, query
from cksolve.rulesets import get_rule_set
from cksolve.solver.sampling.draws import randbelow_many


@pytest.mark.parametrize("n", [1, 2, 3, 7, 100, 2**31 - 1, 2**31, 2**32 - 1, 2**32, 2**32 + 1, 450_088_869_888,
                               2**62 + 12345, 2**63, 2**64 - 1])
def test_randbelow_many_is_randrange(n):
    for seed in (0, 5):
        for m in (1, 9, 3000):
            one, many = random.Random(seed), random.Random(seed)
            want = [one.randrange(n) for _ in range(m)]
            got = randbelow_many(many, n, m)
            assert got == want, f"n={n} seed={seed} m={m}: draws differ"
            assert many.getstate() == one.getstate(), f"n={n} seed={seed} m={m}: generator state differs after"


@pytest.mark.parametrize("rule_set, archs", [("full", ["gfx942", "gfx950"]), ("default", ["gfx90a", "gfx942"])])
def test_sample_names_are_the_records_names(rule_set, archs):
    rs = get_rule_set(rule_set)
    sel = query.select(archs)
    for distinct in (False, True):
        records = explore.sample_stream(rs, sel, 300, 11, distinct)
        want = "".join(f"{r.name}\n" for r in records)
        got = "".join(explore.sample_names(rs, sel, 300, 11, distinct))
        assert got == want, f"{rule_set} {archs} distinct={distinct}: sample names differ from the records' names"
    assert "".join(explore.sample_names(rs, sel, 0, 1)) == ""
