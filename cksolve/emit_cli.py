"""``cksolve emit``: choose the kernels (rule set or names file), check them, hand them to the writer.

Every problem with the input -- an unknown or invalid name, a bad selection --
is reported before a single file is written.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Optional

from . import query
from .query import CksolveError

__all__ = ["run_emit", "select_for_emit"]


def select_for_emit(rule_set: Optional[str], names: Optional[Path], arch, variant, dtype, ndim,
                    builder_configs: Optional[str]) -> list[tuple[str, object]]:
    if (rule_set is None) == (names is None):
        raise CksolveError("emit needs exactly one of --rule-set or --names")
    selection = query.select(arch, variant, dtype, ndim)
    if rule_set is not None:
        rs = query.load_rule_set(rule_set, builder_configs)
        return [(r.combo.arch, r.config) for r in query.enumerate_records(rs, selection)]
    if not arch or len(selection.archs) != 1:
        raise CksolveError("emit --names needs exactly one --arch")
    (target,) = selection.archs
    configs = [c for _, c in query.read_names(Path(names))]
    for config in configs:
        verdict = query.evaluate(config, target)
        if not verdict.valid:
            first = verdict.violations[0]
            raise CksolveError(f"{names}: {config.name()} is not valid for {target}: {first.message} [{first.constraint}]")
    return [(target, c) for c in configs]


def run_emit(*, out: Path, rule_set, names, arch, variant, dtype, ndim, jobs, builder_configs) -> None:
    from .emit import emit  # deferred: the writer and its templates load only when emitting

    items = select_for_emit(rule_set, names, arch, variant, dtype, ndim, builder_configs)
    summary = emit(items, Path(out), jobs=jobs, progress=sys.stderr.isatty())
    sys.stdout.write(summary.line() + "\n")
