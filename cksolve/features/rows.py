"""The one maker of CK's 97-column feature rows: (problem, kernels) -> rows, as tuples or a numpy block.

Every (problem, kernel) feature row cksolve makes comes from here: ``cksolve
features`` (csv, jsonl and the column blocks parquet takes), training rows
(``ml``) and the model scorer's. A row joins four blocks computed once each --
the problem block per problem, the kernel block per kernel, the interactions
per (problem, tile), the hardware block per arch -- in CK's column order
(``FEATURE_NAMES``). The formulas are ``engine``'s.

Three semantics (a model directory records its own in ``feature_spec.json``,
``cksolve_feature_semantics``):

* ``ck``: what CK's engine computes from the dispatcher name, its parser's
  fallback included (``cksolve features --semantics ck``). A model directory
  without the key (CK's own) is read this way.
* ``ck-names``: CK's field mapping (block_size = tile_m, gemm_m_per_block =
  tile_n, gemm_n_per_block = tile_k) with every name read, ``_gm<g>``,
  ``_2stage`` and ``wavelet`` ones too, where CK's parser falls back to
  defaults. The default of ``cksolve train --like-ck``.
* ``exact``: the true configuration (``features --semantics exact``); a
  measured kernel needs its full name.
"""

from __future__ import annotations

from typing import Iterable, NamedTuple

import numpy as np

from ..arch.facts import common_facts
from ..errors import CksolveError
from ..space.config import KernelConfig
from .ckname import KernelName, ck_fields, config_short, dispatcher_name, read_name, short_reading
from .engine import (KernelShape, hardware_block, interactions, kernel_block, kernel_shape, lds_limit, problem_block,
                     problem_gemm)
from .spec import FEATURE_NAMES

__all__ = ["MODEL_SEMANTICS", "RowMaker", "KernelParts", "KernelPool"]

#: The semantics rows can have (module docstring); the first is what a model spec without the key means.
MODEL_SEMANTICS = ("ck", "ck-names", "exact")
#: Problems whose blocks a row maker keeps (rows of one problem are made together; bounded memory)
_KEEP = 4096


class KernelParts(NamedTuple):
    """What a row maker keeps of a kernel."""

    shape: KernelShape
    block: tuple  # block_size ... is_mem
    id: int  # kernels whose rows are the same for every problem (same shape and block) share it
    key: tuple  # the tile the interactions read: kernels of one key share them per problem


class KernelPool(NamedTuple):
    """Kernels prepared for rows (``RowMaker.pool``): their blocks, and the interactions' tiles."""

    blocks: list[tuple]  # each kernel's block
    firsts: list[KernelParts]  # a kernel of each distinct tile key, in first-use order
    key_at: list[int]  # each kernel's tile key, as an index into firsts


def _ck_shape(r, arch: str) -> KernelShape:
    bs, gm, gn, pipeline, wave, dsb, si = r
    return KernelShape(bs, gm, gn, bs, bs / 4.0, pipeline, wave, dsb, si, 1, lds_limit(pipeline, "ck", arch))


class RowMaker:
    """Rows for one (arch, dtype, semantics). A kernel is a ``KernelConfig`` or a measured ``KernelName``."""

    def __init__(self, arch: str, dtype: str, semantics: str, hardware: bool = True):
        """``hardware``: the hardware block now (an arch without a CK profile is an error here); False defers it
        to the first row (kernel blocks of ``exact`` need no profile)."""
        if semantics not in MODEL_SEMANTICS:
            raise CksolveError(f"unknown feature semantics {semantics!r}; valid: {', '.join(MODEL_SEMANTICS)}")
        self.arch, self.dtype, self.semantics = arch, dtype, semantics
        #: the engine's semantics of the problem GEMM and the hardware block (exact: the CK version's LDS)
        self.engine = "exact" if semantics == "exact" else "ck"
        self.bpe = common_facts().element_size[dtype]
        self._hw: tuple | None = hardware_block(arch, self.engine) if hardware else None
        self._kernels: dict = {}
        self._problems: dict = {}
        self._ids: dict = {}  # (shape, kernel block) -> id: configs CK's reading aliases share one
        #: full names of configs whose dispatcher name CK's parser cannot read (``ck``: engine defaults)
        self.unread: set[str] = set()

    @property
    def hw(self) -> tuple:
        """The hardware block (hw_num_cus ... hw_num_xcd); an arch without a CK profile is an error."""
        if self._hw is None:
            self._hw = hardware_block(self.arch, self.engine)
        return self._hw

    def kernel(self, kernel: KernelConfig | KernelName) -> KernelParts:
        got = self._kernels.get(kernel)
        if got is None:
            shape = self._shape(kernel)
            block = kernel_block(shape, self.bpe)
            kid = self._ids.setdefault((shape, block), len(self._ids))
            key = (shape.tile_m, shape.tile_n, shape.tile_k, shape.groups_to_merge)
            got = self._kernels[kernel] = KernelParts(shape, block, kid, key)
        return got

    def _shape(self, kernel) -> KernelShape:
        if isinstance(kernel, KernelName) and kernel.config is not None:
            kernel = kernel.config
        if isinstance(kernel, KernelConfig):
            if self.semantics == "exact":
                return kernel_shape(kernel, "exact", self.arch)
            if self.semantics == "ck":
                name = dispatcher_name(kernel)
                reading = read_name(name)
                if reading is None:
                    self.unread.add(kernel.name())
                    reading = ck_fields(name)  # the parser's fallback and the engine's defaults
                return _ck_shape(reading, self.arch)
            return _ck_shape(short_reading(config_short(kernel)), self.arch)
        if self.semantics == "exact":
            raise CksolveError(f"kernel {kernel.name[:120]!r}: exact features need the full kernel name "
                               f"(a short dispatcher name leaves out the wave split and warp tile)")
        if self.semantics == "ck":
            return _ck_shape(ck_fields(kernel.name), self.arch)
        return _ck_shape(short_reading(kernel.short), self.arch)

    def problem(self, problem) -> tuple:
        """(problem block, problem GEMM, interactions by tile key) of ``problem``."""
        got = self._problems.get(problem)
        if got is None:
            if len(self._problems) >= _KEEP:
                self._problems.clear()
            got = self._problems[problem] = (problem_block(problem, self.bpe), problem_gemm(problem, self.engine), {})
        return got

    def pool(self, kernels: Iterable) -> "KernelPool":
        """The kernels prepared for rows of any problem (a caller whose kernel lists repeat keeps it)."""
        parts = [self.kernel(k) for k in kernels]
        index: dict[tuple, int] = {}
        firsts: list[KernelParts] = []
        key_at = []
        for k in parts:
            j = index.get(k.key)
            if j is None:
                j = index[k.key] = len(firsts)
                firsts.append(k)
            key_at.append(j)
        return KernelPool([k.block for k in parts], firsts, key_at)

    def tiles(self, problem, firsts: Iterable[KernelParts]) -> tuple[tuple, list[tuple]]:
        """(problem block, the interactions block of ``problem`` with each of ``firsts``): the interactions
        (gemm_m_output ... problem_smaller_than_tile_k) read only a kernel's tile key."""
        head, gemm, inter = self.problem(problem)
        cus = self.hw[0]
        mids = []
        for k in firsts:
            mid = inter.get(k.key)
            if mid is None:
                mid = inter[k.key] = interactions(gemm, k.shape, cus)
            mids.append(mid)
        return head, mids

    def parts(self, problem, kernels) -> tuple[tuple, list[tuple], list[tuple], tuple]:
        """(problem block, each kernel's block, each kernel's interactions, hardware block): a row of each
        kernel is ``head + block + interactions + hardware``, ``FEATURE_NAMES`` order. ``kernels``: an
        iterable of kernels or their ``pool``."""
        pool = kernels if isinstance(kernels, KernelPool) else self.pool(kernels)
        head, mids = self.tiles(problem, pool.firsts)
        return head, pool.blocks, [mids[j] for j in pool.key_at], self.hw

    def rows(self, problem, kernels, after: Iterable[tuple] | None = None) -> list[tuple]:
        """The row of each kernel as a tuple (ints stay ints), each followed by its tuple of ``after`` if given."""
        pool = kernels if isinstance(kernels, KernelPool) else self.pool(kernels)
        head, mids = self.tiles(problem, pool.firsts)
        hw = self.hw
        if after is None:
            return [(*head, *b, *mids[j], *hw) for b, j in zip(pool.blocks, pool.key_at)]
        return [(*head, *b, *mids[j], *hw, *a) for b, j, a in zip(pool.blocks, pool.key_at, after)]

    def row(self, problem, kernel) -> tuple:
        return self.rows(problem, (kernel,))[0]

    def block(self, problem, kernels) -> np.ndarray:
        """``rows(problem, kernels)`` as one float64 array (len(kernels) x 97), the same doubles."""
        head, blocks, mids, hw = self.parts(problem, kernels)
        out = np.empty((len(blocks), len(FEATURE_NAMES)), dtype=np.float64)
        if blocks:
            a, b = len(head), len(head) + len(blocks[0])
            out[:, :a] = np.array(head, dtype=np.float64)
            out[:, a:b] = np.array(blocks, dtype=np.float64)
            out[:, b:-len(hw)] = np.array(mids, dtype=np.float64)
            out[:, -len(hw):] = np.array(hw, dtype=np.float64)
        return out

    def blocks(self, batch: Iterable[tuple]) -> np.ndarray:
        """A batch of (problem, kernels) -> their rows, in order, as one float64 array (rows x 97)."""
        parts = [self.block(problem, kernels) for problem, kernels in batch]
        return np.concatenate(parts) if parts else np.empty((0, len(FEATURE_NAMES)), dtype=np.float64)
