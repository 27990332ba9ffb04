"""The model scorer: a CK model directory's predicted TFLOPS (``ml.modeldir``, CK's Predictor semantics).

Rows follow the model's recorded feature semantics (``features.RowMaker``, the one row maker). Pairs that
share one feature row -- CK's reading aliases many configs onto one row -- are
predicted once per batch.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from ..errors import CksolveError
from ..features import RowMaker
from ..ml.modeldir import read_model_dir
from .scorer_base import ScorerBase

__all__ = ["ModelScorer"]


class ModelScorer(ScorerBase):
    kind = "model"

    def __init__(self, path, **_ignored):
        self.path = str(path)
        self.model = read_model_dir(path)
        self._rows: dict = {}
        self.predicted = 0  # distinct rows predicted (for tests and benchmarks)

    def describe(self) -> str:
        s = self.model.spec
        manifest = self.model.manifest
        made_up = isinstance(manifest, dict) and manifest.get("made_up") is True  # train on cksolve.ml.madeup rows
        return (f"model {self.path} ({self.model.trees} trees, {s.get('arch', '?')} {s.get('dtype', '?')}, "
                f"{self.model.semantics} features"
                + ("" if self.model.score == "tflops" else f", scores: {self.model.score}")
                + ("; trained on MADE-UP data" if made_up else "") + ")")

    def made_for(self) -> tuple[str | None, str | None]:
        """The arch and dtype the model's spec names."""
        return self.model.spec.get("arch"), self.model.spec.get("dtype")

    @property
    def scores_labels(self) -> bool:
        """A model of CK's semantics reads a kernel as CK reads its name: each measured label is scored."""
        return self.model.semantics != "exact"

    def _maker(self, arch: str, dtype: str) -> RowMaker:
        m = self._rows.get((arch, dtype))
        if m is None:
            trained, made_dtype = self.made_for()  # a target ID (gfx942:xnack-) is its arch's
            if made_dtype not in (None, dtype):
                raise CksolveError(f"model {self.path} is a {made_dtype} model; the kernels are {dtype}")
            if trained is not None and trained.partition(":")[0] != arch.partition(":")[0]:
                raise CksolveError(f"model {self.path} is a {trained} model; the kernels are {arch}")
            m = self._rows[(arch, dtype)] = RowMaker(arch, dtype, self.model.semantics)
        return m

    def prepare(self, arch: str, dtype: str) -> None:
        self._maker(arch, dtype)

    def score(self, pairs: Sequence[tuple], arch: str, dtype: str) -> list[float]:
        if not pairs:
            return []
        maker = self._maker(arch, dtype)
        groups: dict = {}  # problem -> (its number, {kernel row id: its row among the problem's}, a config per row)
        group, local = [], []  # each pair's problem number and row within the problem
        last = got = None
        for p, c in pairs:
            if p is not last:  # a problem's pairs are adjacent in practice: one lookup per run of them
                last, got = p, groups.get(p)
                if got is None:
                    got = groups[p] = (len(groups), {}, [])
            number, rows_of, firsts = got
            kid = maker.kernel(c).id
            i = rows_of.get(kid)
            if i is None:
                i = rows_of[kid] = len(firsts)
                firsts.append(c)
            group.append(number)
            local.append(i)
        firsts_of = [firsts for _, _, firsts in groups.values()]
        starts = np.cumsum([0] + [len(f) for f in firsts_of[:-1]])
        rows = maker.blocks(zip(groups, firsts_of))
        self.predicted += len(rows)
        pred = self.model.predict(rows)
        return pred[starts[np.array(group)] + np.array(local)].tolist()
