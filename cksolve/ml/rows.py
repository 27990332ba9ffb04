"""Feature rows of (problem, kernel) pairs under a model's semantics, in CK's 97-column order.

Three semantics, recorded in a model directory's ``feature_spec.json``
(``cksolve_feature_semantics``) and honoured when the model is used:

* ``ck``: what CK's engine computes from the dispatcher name, its parser's
  fallback included (``cksolve features --semantics ck``). A model directory
  without the key (CK's own) is read this way.
* ``ck-names``: CK's field mapping (block_size = tile_m, gemm_m_per_block =
  tile_n, gemm_n_per_block = tile_k) with every name read, ``_gm<g>``,
  ``_2stage`` and ``wavelet`` ones too, where CK's parser falls back to
  defaults. The default of ``cksolve train``: trains on the same columns as
  CK's models, without dropping a kernel.
* ``exact``: the true configuration (``features --semantics exact``); needs full
  kernel names in measurement files.

The formulas are the feature engine's (``cksolve.features.engine``); rows are
the same floats ``cksolve features`` writes.
"""

from __future__ import annotations

import numpy as np

from ..arch.facts import common_facts
from ..errors import CksolveError
from ..features.ckname import ck_fields, dispatcher_name
from ..features.engine import (KernelShape, hardware_block, interactions, kernel_block, kernel_shape, lds_limit,
                               problem_block, problem_gemm)
from ..space.config import KernelConfig
from .names import KernelName, config_short, short_reading

__all__ = ["MODEL_SEMANTICS", "RowMaker"]

#: The semantics a model's rows can have (module docstring); the first is what a spec without the key means.
MODEL_SEMANTICS = ("ck", "ck-names", "exact")
#: Problems whose blocks a row maker keeps (rows of one problem are made together; bounded memory)
_KEEP = 4096


def _ck_shape(r, arch: str) -> KernelShape:
    bs, gm, gn, pipeline, wave, dsb, si = r
    return KernelShape(bs, gm, gn, bs, bs / 4.0, pipeline, wave, dsb, si, 1, lds_limit(pipeline, "ck", arch))


class RowMaker:
    """Makes rows for one (arch, dtype, semantics); kernel and problem blocks computed once each."""

    def __init__(self, arch: str, dtype: str, semantics: str):
        if semantics not in MODEL_SEMANTICS:
            raise CksolveError(f"unknown feature semantics {semantics!r}; valid: {', '.join(MODEL_SEMANTICS)}")
        self.arch, self.dtype, self.semantics = arch, dtype, semantics
        self.bpe = common_facts().element_size[dtype]
        # the engine's hardware block of the model's semantics (exact: the CK version's LDS of the arch)
        self.hw = hardware_block(arch, "exact" if semantics == "exact" else "ck")
        self._kernels: dict = {}
        self._problems: dict = {}
        self._ids: dict = {}  # (shape, kernel block) -> id: configs CK's reading aliases share one

    def kernel(self, kernel: KernelConfig | KernelName) -> tuple:
        """(shape, kernel block, id) of a config or a measured kernel name; kernels whose rows are the same
        for every problem (same shape and block) share the id."""
        got = self._kernels.get(kernel)
        if got is None:
            shape = self._shape(kernel)
            block = kernel_block(shape, self.bpe)
            kid = self._ids.setdefault((shape, block), len(self._ids))
            got = self._kernels[kernel] = (shape, block, kid)
        return got

    def _shape(self, kernel) -> KernelShape:
        if isinstance(kernel, KernelName) and kernel.config is not None:
            kernel = kernel.config
        if isinstance(kernel, KernelConfig):
            if self.semantics == "exact":
                return kernel_shape(kernel, "exact", self.arch)
            name = dispatcher_name(kernel)
            if self.semantics == "ck":
                return _ck_shape(ck_fields(name), self.arch)
            return _ck_shape(short_reading(config_short(kernel)), self.arch)
        if self.semantics == "exact":
            if kernel.config is None:
                raise CksolveError(f"kernel {kernel.name[:120]!r}: exact features need the full kernel name "
                                   f"(a short dispatcher name leaves out the wave split and warp tile)")
            return kernel_shape(kernel.config, "exact", self.arch)
        if self.semantics == "ck":
            return _ck_shape(ck_fields(kernel.name), self.arch)
        return _ck_shape(short_reading(kernel.short), self.arch)

    def problem(self, problem) -> tuple:
        got = self._problems.get(problem)
        if got is None:
            if len(self._problems) >= _KEEP:
                self._problems.clear()
            gemm = problem_gemm(problem, "exact" if self.semantics == "exact" else "ck")
            got = self._problems[problem] = (problem_block(problem, self.bpe), gemm, {})
        return got

    def row(self, problem, kernel) -> tuple:
        head, gemm, inter = self.problem(problem)
        shape, block, _ = self.kernel(kernel)
        key = (shape.tile_m, shape.tile_n, shape.tile_k, shape.groups_to_merge)
        mid = inter.get(key)
        if mid is None:
            mid = inter[key] = interactions(gemm, shape, self.hw[0])
        return (*head, *block, *mid, *self.hw)

    def rows(self, problem, kernels) -> np.ndarray:
        """``row(problem, k)`` of each kernel as one float64 array, the same doubles (blocks joined by column)."""
        head, gemm, inter = self.problem(problem)
        blocks, mids = [], []
        for kernel in kernels:
            shape, block, _ = self.kernel(kernel)
            key = (shape.tile_m, shape.tile_n, shape.tile_k, shape.groups_to_merge)
            mid = inter.get(key)
            if mid is None:
                mid = inter[key] = interactions(gemm, shape, self.hw[0])
            blocks.append(block)
            mids.append(mid)
        a, b, c = len(head), len(self.hw), len(kernels)
        out = np.empty((c, a + (len(blocks[0]) + len(mids[0]) if c else 0) + b), dtype=np.float64)
        if c:
            k = a + len(blocks[0])
            out[:, :a] = np.array(head, dtype=np.float64)
            out[:, a:k] = np.array(blocks, dtype=np.float64)
            out[:, k:-b] = np.array(mids, dtype=np.float64)
            out[:, -b:] = np.array(self.hw, dtype=np.float64)
        return out
