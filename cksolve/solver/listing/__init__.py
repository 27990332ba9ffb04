"""Listing in kernel-name order: one combination solved once, its configs and names in canonical order.

Re-export only::

    combos      solve_combo (memoised per process), enumerate_combo/names_combo in name order,
                bounded_configs (refused past CONFIG_LIMIT)
    stream      a solution set's names or configs in name order, in blocks, never holding the listing
    spelled     names spelled from a solution set's structure (each head once, each tail once per value)
    name_texts  how a kind's names split into head and tail texts

Above the engine (:mod:`cksolve.solver.engine`).
"""

from .combos import CONFIG_LIMIT, bounded_configs, enumerate_combo, names_combo, solve_combo
from .stream import config_blocks, name_blocks

__all__ = ["solve_combo", "enumerate_combo", "names_combo", "bounded_configs", "CONFIG_LIMIT",
           "config_blocks", "name_blocks"]
