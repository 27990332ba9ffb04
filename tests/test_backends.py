"""Every backend of the registry answers the protocol's four questions alike (docs/space.md#backends)."""

from __future__ import annotations

import random

import pytest

from cksolve import query
from cksolve.solver import build_model
from cksolve.solver.backends import BACKENDS, Backend, CannotCount, get_backend
from cksolve.solver.questions.evaluate import evaluate
from cksolve.space.combo import Combo
from cksolve.space.config import config_fields

NARROW = """kind = "gemm"
[pin]
tile_m = [64, 128]
tile_n = [64, 128]
tile_k = [32, 64]
pipeline = ["compv3", "mem"]
vector_a = [4, 8]
vector_b = [8]
vector_c = [8]
pad_m = [false]
pad_n = [false]
pad_k = [false]
double_smem_buffer = [false]
groups_to_merge = [1]
wave_groups = [1]
split_image = [false]
explicit_gemm = [false]
two_stage = [false]
streamk = [false]
layout = ["nhwgc"]
"""

CASES = [("tiny", Combo("gfx942", "forward", "fp16", 2)), ("default", Combo("gfx908", "bwd_data", "bf16", 2)),
         ("narrow", Combo("gfx950", "forward", "bf16", 3)), ("narrow", Combo("gfx1201", "bwd_weight", "fp16", 1))]


def _rule_set(spec, tmp_path):
    if spec == "narrow":
        path = tmp_path / "narrow.toml"
        path.write_text(NARROW)
        spec = str(path)
    return query.load_rule_set(spec)


def _pins(config) -> dict:
    return dict(zip(config_fields(type(config)), config))


@pytest.mark.parametrize("backend", list(BACKENDS))
def test_every_registered_backend_conforms(backend):
    """Conformance, for any entry of the registry: its own module, the protocol's attributes, its name."""
    b = get_backend(backend)
    module, cls = BACKENDS.target(backend).split(":")
    assert isinstance(b, Backend), f"{backend}: {type(b).__name__} lacks part of the backend protocol"
    assert type(b).__module__ == module and type(b).__name__ == cls, BACKENDS.target(backend)
    assert b.name == backend and isinstance(b.can_count, bool)
    assert get_backend(backend) is b  # loaded once


def test_naming_the_backends_loads_none():
    import subprocess
    import sys

    code = ("import sys\nfrom cksolve.solver.backends import BACKENDS, get_backend\nnames = list(BACKENDS)\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('ortools', 'constraint')\n"
            "             or m in ('cksolve.solver.cpsat', 'cksolve.solver.pyconstraint')))\n"
            "get_backend('python-constraint')\nprint('ortools' in sys.modules, 'constraint' in sys.modules)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == ["[]", "False True"], proc.stdout


def test_an_unknown_backend_is_one_line():
    with pytest.raises(query.CksolveError, match="unknown backend 'gurobi'; valid: direct, cpsat, python-constraint"):
        get_backend("gurobi")


@pytest.mark.parametrize("backend", list(BACKENDS))
@pytest.mark.parametrize("spec, combo", CASES, ids=[f"{s}-{c.key}" for s, c in CASES])
def test_backends_agree(tmp_path, backend, spec, combo):
    rs = _rule_set(spec, tmp_path)
    model = build_model(combo, rs)
    b, direct = get_backend(backend), get_backend("direct")
    want = [c.name() for c in direct.enumerate(model)]
    got = [c.name() for c in b.enumerate(model)]
    assert got == want and want, f"{backend} on {spec} {combo.key}: {len(got)} vs direct {len(want)}"
    if b.can_count:
        assert b.count(model) == len(want)
    else:
        with pytest.raises(CannotCount, match=backend):
            b.count(model)
    configs = direct.enumerate(model)
    rnd = random.Random(len(want))
    for config in rnd.sample(configs, min(5, len(configs))):
        assert b.is_feasible(model, _pins(config)), (backend, config.name())
    # a few complete configs off the solution set: feasibility equals the evaluator's membership
    for config in rnd.sample(configs, min(5, len(configs))):
        changed = config._replace(tile_k=rnd.choice([16, 128, 256]))
        expect = evaluate(changed, combo.arch, rs)
        assert b.is_feasible(model, _pins(changed)) == (expect.valid and bool(expect.member)), (backend, changed.name())
    one = b.find_one(model, {"tile_m": configs[0].tile_m})
    assert one is not None and one.tile_m == configs[0].tile_m and one.name() in set(want), (backend, one)
    assert b.find_one(model, {"tile_m": 16, "tile_n": 16, "tile_k": 4}) is None
