"""The performance model's ``search`` is exact: over small rule sets its top K tile shapes and scores are brute
force's over ``applicable`` (every kernel scored by the same model, the best per tile shape), with the shipped
factors and with factors files that contradict every preference an earlier search listed by hand (default
epilogue, no specialization, split image, narrow vectors) or perturb the table at random (seeded). The search's
bound comes from the model, so no edit of the numbers can make it wrong."""

from __future__ import annotations

import random

import pytest

from cksolve import explore, query
from cksolve.scoring import get_scorer
from cksolve.scoring.factorfile import base_factors, factor_name, flat, free_factors
from cksolve.workload import applicable_records, parse_problem

PROBLEMS = ("N=1,C=3,K=64,Hi=224,Wi=224,Y=7,X=7,stride_h=2,stride_w=2,pad_h=3,pad_w=3",  # ResNet-50's stem
            "N=32,C=64,K=64,Hi=56,Wi=56,Y=1,X=1", "N=8,C=128,K=128,Hi=28,Wi=28,pad_h=1,pad_w=1")
TOP = 4


def _brute(spec: str, configs: list, arch: str, dtype: str, factors) -> list[float]:
    """The best score of each tile shape of ``configs`` (``applicable``'s), the ``TOP`` best."""
    problem = parse_problem(spec)
    scores = get_scorer("analytic", factors=factors).score([(problem, c) for c in configs], arch, dtype)
    best: dict = {}
    for c, s in zip(configs, scores):
        shape = (c.tile_m, c.tile_n, c.tile_k)
        best[shape] = max(best.get(shape, 0.0), s)
    return sorted(best.values(), reverse=True)[:TOP]


def _write(path, delta: dict) -> str:
    tables: dict = {}
    for key, value in delta.items():
        tables.setdefault(key[:-1], []).append(f"{factor_name(key[-1:])} = {value!r}")
    path.write_text("".join(f"[{factor_name(t)}]\n" + "\n".join(lines) + "\n" for t, lines in tables.items()))
    return str(path)


def _perturbed(seed: int) -> dict:
    """Every scalar factor of the table moved by up to half its value (within its bounds), seeded."""
    rng, bounds = random.Random(seed), free_factors()
    out = {}
    for key, value in flat(base_factors()).items():
        if isinstance(value, list) or key[-1] in ("load_bytes", "many_waves", "full_vector_bytes", "waves_to_hide"):
            continue
        low, high = bounds.get(key, (0.0, float("inf")))
        out[key] = round(min(high, max(low, value * rng.uniform(0.5, 1.5))), 6)
    return out


CONTRARY = {("other", "specialized"): 0.9, ("other", "default_epilogue_store"): 1.2, ("other", "split_image"): 1.05,
            ("vector", "wide"): 1.3, ("tile", "non_power_of_two"): 1.1}


@pytest.mark.parametrize("rule_set,arch,dtype", [("tiny", "gfx942", "fp16"), ("tiny", "gfx950", "bf16"),
                                                  ("full-tests", "gfx950", "bf16")])
def test_search_equals_brute_force_over_applicable(rule_set, arch, dtype, tmp_path):
    rs = query.load_rule_set(rule_set)
    files = [None, _write(tmp_path / "contrary.toml", CONTRARY)]
    files += [_write(tmp_path / f"random{seed}.toml", _perturbed(seed)) for seed in (1, 2)]
    for spec in PROBLEMS:
        configs = [r.config for r in applicable_records(spec, rs, arch, [dtype]) if r.config.kind == "gemm"]
        for factors in files:
            want = _brute(spec, configs, arch, dtype, factors)
            got, status = explore.search(spec, arch, dtype, rs, TOP, ranking={"factors": factors})
            assert status == ("OPTIMAL" if want else "INFEASIBLE"), (spec, factors, status)
            assert [r.score for r in got] == pytest.approx(want, rel=1e-9), (spec, factors)
