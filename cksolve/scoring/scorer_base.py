"""What every scorer shares (``ScorerBase``); apart from the registry so a scorer's module and the registry that
names it do not import each other."""

from __future__ import annotations

from typing import Sequence

import numpy as np

__all__ = ["ScorerBase"]


class ScorerBase:
    """What every scorer shares: the grid batch from its pairs, one problem's row per call of ``score`` (what
    is held at once grows with the configs, not with problems x configs)."""

    scores_labels = False  # scores kernels, not the names CK read (``Scorer.scores_labels``)
    hygiene = None  # reads no measurements (``Scorer.hygiene``)

    def made_for(self) -> tuple[str | None, str | None]:
        """Made for no arch or dtype in particular (``Scorer.made_for``)."""
        return None, None

    def unmeasured_note(self, problems: Sequence, dtype: str, allow: bool) -> str | None:
        """Reads no measurements: nothing to say (``Scorer.unmeasured_note``)."""
        return None

    def score_grid(self, problems: Sequence, configs: Sequence, arch: str, dtype: str) -> np.ndarray:
        problems, configs = list(problems), list(configs)
        out = np.zeros((len(problems), len(configs)), dtype=np.float64)
        if configs:
            for i, p in enumerate(problems):
                out[i] = self.score([(p, c) for c in configs], arch, dtype)
        return out
