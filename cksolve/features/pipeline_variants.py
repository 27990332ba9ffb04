"""The valid (pipeline, scheduler, double LDS buffer, split image) combinations, derived.

CK keeps this table by hand (``PIPELINE_VARIANTS``, "empirically verified" from
benchmark CSVs) and it has drifted. Here a combination is valid when some
kernel of the whole space has it and meets every space, arch and LDS-buffering
constraint: a witness search per combination, so the answer follows the
constraints wherever they change.

The witness is the first kernel python-constraint's backtracking finds (static
variable order, values in domain order): the least solution in that order. Once
the combination is pinned and the domains pruned, the axes left open fall into
parts no constraint joins (the tile core, the epilogue, the pads, ...), and the
least solution of the whole is the least solution of each part. So each part
is searched alone, and a part met again -- the same domains under the same
constraints, as the tile core is for every scheduler and split-image value --
is answered from memory: the same witnesses, found once.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import product
from typing import Iterable, NamedTuple

from ..progress import phase
from ..solver import build_model, connected, get_backend, prune_domains
from ..space.axes import AXES
from ..space.buffering import BUFFERING_RULES
from ..space.kinds import GEMM
from ..rulesets import Combo, kind_of

__all__ = ["PipelineVariant", "pipeline_variants", "VARIANT_AXES"]

#: The solver that searches a witness per combination: a backtracking search stops at the first one.
WITNESS_BACKEND = "python-constraint"
#: The axes of a pipeline variant, in CK's tuple order (pipeline, wave mode, dsb, si).
VARIANT_AXES = ("pipeline", "scheduler", "double_smem_buffer", "split_image")


class PipelineVariant(NamedTuple):
    arch: str
    variant: str
    pipeline: str
    scheduler: str
    double_smem_buffer: bool
    split_image: bool
    witness: str  # a kernel of the space that has the combination (some dtype and ndim)


def pipeline_variants(archs: Iterable[str], variants: Iterable[str], dtypes: Iterable[str],
                      ndims: Iterable[int]) -> list[PipelineVariant]:
    """Per (arch, variant): every combination valid for at least one of the dtypes and ndims.

    Order: arch and variant as given, then the axes' domain order (pipelines as in axes.toml).
    A step per (arch, variant) is told to the progress bar (``cksolve.progress.phase``).
    """
    dtypes, ndims = tuple(dtypes), tuple(ndims)
    candidates = list(product(*(AXES[a].domain for a in VARIANT_AXES)))
    steps = [(arch, variant) for arch in archs for variant in variants if kind_of(variant) == GEMM.name]
    out = []
    for k, (arch, variant) in enumerate(steps, 1):
        phase(f"deriving {arch} {variant}: arch and variant", k, len(steps))
        witnesses = _Witnesses([build_model(Combo(arch, variant, d, n), None, BUFFERING_RULES)
                                for d in dtypes for n in ndims])
        for values in candidates:
            witness = witnesses.first(dict(zip(VARIANT_AXES, values)))
            if witness is not None:
                out.append(PipelineVariant(arch, variant, *values, witness.name()))
    return out


@dataclass(frozen=True)
class _Part:
    """Axes of a model that constraints join, with their pruned domains: a model to the witness backend,
    whose solution stays a mapping (``make_config``) to be joined with the other parts'."""

    axes: tuple
    domains: dict
    constraints: tuple

    def make_config(self, values):
        return dict(values)


class _Witnesses:
    """The witness of a combination in the first of ``models`` that has one (the order given: dtype, ndim)."""

    def __init__(self, models):
        self.find_one = get_backend(WITNESS_BACKEND).find_one
        # pruned once per model: pruning the pinned domains from here reaches the same fixpoint
        self.models = [(m, prune_domains(m.constraints, {a: tuple(m.domains[a]) for a in m.axes})) for m in models]
        self.memo: dict = {}  # (constraints, domains) of a part -> its least solution, or None

    def first(self, pins: dict):
        for model, pruned in self.models:
            witness = self._witness(model, pruned, pins)
            if witness is not None:
                return witness
        return None

    def _witness(self, model, pruned: dict, pins: dict):
        domains = dict(pruned)
        for axis, value in pins.items():
            domains[axis] = tuple(v for v in domains[axis] if v == value)
        domains = prune_domains(model.constraints, domains)
        if any(len(d) == 0 for d in domains.values()):
            return None
        values = {a: d[0] for a, d in domains.items() if len(d) == 1}
        for axes in _parts(model, domains):
            constraints = tuple(c for c in model.constraints if not axes.isdisjoint(c.scope))
            # the part's open axes and the fixed ones its constraints read, in the model's order
            scope = tuple(a for a in model.axes if a in axes or any(a in c.scope for c in constraints))
            key = (tuple(map(id, constraints)), tuple(domains[a] for a in scope), scope)
            if key not in self.memo:
                self.memo[key] = self.find_one(_Part(scope, {a: domains[a] for a in scope}, constraints))
            solution = self.memo[key]
            if solution is None:
                return None
            values.update(solution)
        return model.make_config(values)


def _parts(model, domains: dict) -> list[frozenset]:
    """The open axes (more than one value) grouped by the constraints that join them, in the model's order."""
    open_axes = tuple(a for a in model.axes if len(domains[a]) > 1)
    joins = [_Join(free) for c in model.constraints if (free := tuple(a for a in c.scope if len(domains[a]) > 1))]
    return [frozenset(axes) for axes, _ in connected(open_axes, joins)]


class _Join(NamedTuple):
    """A constraint as ``connected`` reads it: the open axes it joins."""

    free: tuple
