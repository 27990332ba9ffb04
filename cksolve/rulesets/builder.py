"""Rule sets ``tests`` and ``profiler``: the kernels of CK Builder ``.conf`` files.

CK's ``grouped_config_rules_builder.py`` reads the Builder's instance files
(``<forward|backward_weight|backward_data>/<tests|profiler>/<layout>_<dtype>[_streamk].conf``
and ``forward/<subset>/ngchw_depthwise.conf``), converts every instance into a
dispatcher config for the target's warp size, drops the Builder's own skips and
duplicates, and skips compv2 for bwd_weight. Here the same conversion
(:mod:`.builder_lines`, :mod:`.builder_conf`) yields, per combination, the rows of one
allowed table over every axis -- so ``count``, ``check``, ``diff`` and ``emit`` treat these
sets like any other rule set.

CK does not run ``is_valid_for_arch`` on builder sets; cksolve applies both
arch layers to every rule set, so a builder config that only the first layer
rejects is invalid here. CK tags each builder config with its dtype, and on a
tagged config the first layer's WMMA rule also bounds the warp tile's K on
wave32 parts: that rule (``arch.wmma_k``) is part of these rule sets.

The files are found through the ``builder_configs`` option (the CLI's
``--builder-configs``) or ``CKSOLVE_BUILDER_CONFIGS``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Sequence

from ..arch.arch_constraints import wmma_k_constraint
from ..arch.facts import arch_facts
from ..space.constraints import Constraint, Table
from ..space.kinds import DEPTHWISE
from ..space.memos import MEMOS
from .rule_set import Combo, RuleSet, RuleSetError, configs_table, kind_of
from .builder_conf import Instance, builder_data
from .builder_lines import parse_conf, unusable

__all__ = ["BuilderRuleSet", "TestsRuleSet", "ProfilerRuleSet", "ENV_VAR", "conf_files"]

ENV_VAR = "CKSOLVE_BUILDER_CONFIGS"
_SOURCE = "grouped_config_rules_builder.py get_configs + generate_instances.py parse_*_instances"


def conf_files(root: Path, subset: str) -> list[tuple[str, str, int, str, Path]]:
    """Every file CK's builder rule set reads: (variant, dtype, ndim, layout, path).

    Stream-K files add to bwd_weight; the depthwise file serves every dtype.
    """
    data = builder_data()
    dtypes = data["dtypes"]
    out = []
    for variant, directory in data["directories"].items():
        base = root / directory / subset
        for prefix, lay in data["layouts"].items():
            for dtype in dtypes:
                suffixes = ("", "_streamk") if variant == "bwd_weight" else ("",)
                for suffix in suffixes:
                    out.append((variant, dtype, lay["ndim"], lay["layout"], base / f"{prefix}_{dtype}{suffix}.conf"))
    dw = data["depthwise"]
    for dtype in dtypes:
        out.append(("forward_depthwise", dtype, dw["ndim"], dw["layout"],
                    root / data["directories"]["forward"] / subset / dw["file"]))
    return out


def _missing_root_message(name: str) -> str:
    return (f"rule set {name!r} reads CK Builder .conf files: pass {{opt:builder_configs}} DIR or set {ENV_VAR}=DIR "
            "(DIR holds forward/, backward_weight/, backward_data/; in CK: "
            "experimental/grouped_convolution_tile_instances/configs)")


class BuilderRuleSet(RuleSet):
    """Base of ``tests`` and ``profiler``: one CK Builder subset of ``.conf`` files."""

    OPTIONS = ("builder_configs", "strict")
    subset = ""

    def __init__(self, builder_configs: str | os.PathLike | None = None, strict: bool = False) -> None:
        root = builder_configs if builder_configs not in (None, "") else os.environ.get(ENV_VAR) or None
        if root is None:
            raise RuleSetError(_missing_root_message(self.name))
        self.root = Path(root).expanduser()
        if not self.root.is_dir():
            raise RuleSetError(f"{self.root}: builder-configs directory not found; {_missing_root_message(self.name)}")
        subset = builder_data()["subsets"][self.subset]
        dirs = [self.root / d / subset for d in builder_data()["directories"].values()]
        if not any(d.is_dir() for d in dirs):
            raise RuleSetError(
                f"{self.root}: not a CK Builder configs directory (none of "
                f"{', '.join(str(d.relative_to(self.root)) for d in dirs)} exists)"
            )
        # Read every file now: a malformed line fails at load time, before anything is printed.
        self._files: dict[tuple[str, str, int], list[tuple[str, Path, list[Instance]]]] = {}
        parsed: dict[Path, list[Instance]] = {}
        #: what the Builder would skip without a word (a warning each; an error when ``strict``)
        self.warnings: list[str] = []

        def warn(message: str) -> None:
            if strict:
                raise RuleSetError(f"{message} ({{opt:strict}})")
            self.warnings.append(message)

        for variant, dtype, ndim, layout, path in conf_files(self.root, subset):
            if not path.is_file():
                if path.is_symlink() or path.exists():
                    what = "a dangling symbolic link" if not path.exists() else "not a regular file"
                    warn(f"{path}: {what}; {variant}/{dtype} has no {self.name} kernels from it")
                continue  # CK warns and goes on: the combination simply has no builder kernels
            if path not in parsed:
                parsed[path] = parse_conf(path, variant)
                for inst in parsed[path]:
                    why = unusable(inst)
                    if why is not None:
                        warn(f"{inst.path}:{inst.line}: {inst.kind}: {why}; the instance is dropped")
            self._files.setdefault((variant, dtype, ndim), []).append((layout, path, parsed[path]))
        self.files_read = len(parsed)

    # --- configs ---------------------------------------------------------------------

    @MEMOS.cached("rulesets.builder.BuilderRuleSet.configs")
    def configs(self, variant: str, dtype: str, ndim: int, warp_size: int) -> tuple:
        """CK's builder configs of one combination for one warp size, deduplicated, in file order."""
        skip = set(builder_data()["skip"]["bwd_weight_pipelines"]) if variant == "bwd_weight" else set()
        configs = (inst.config(warp_size, dtype, ndim, layout)
                   for layout, _, instances in self._files.get((variant, dtype, ndim), ()) for inst in instances)
        return tuple(dict.fromkeys(c for c in configs if c is not None and getattr(c, "pipeline", None) not in skip))

    def constraints(self, combo: Combo) -> Sequence[Constraint]:
        instances = self._instances(combo.variant, combo.dtype, combo.ndim, arch_facts(combo.arch).warp_size)
        if kind_of(combo.variant) == DEPTHWISE.name:
            return (instances,)
        return (instances, wmma_k_constraint(combo.arch))

    @MEMOS.cached("rulesets.builder.BuilderRuleSet._instances")
    def _instances(self, variant: str, dtype: str, ndim: int, ws: int) -> Table:
        """The allowed table of one combination's instances (built once: ``check`` asks per config)."""
        configs = self.configs(variant, dtype, ndim, ws)
        files = [str(path) for _, path, _ in self._files.get((variant, dtype, ndim), ())]
        where = ", ".join(files) if files else f"no .conf file under {self.root}"
        return configs_table(
            f"rules.{self.name}.instances", kind_of(variant), configs,
            f"{self.name}: not one of the {len(configs)} CK Builder instances for {variant}/{dtype}/"
            f"{ndim}d on wave{ws} targets ({where})",
            f"{_SOURCE}; {where}", doc="The kernels the CK Builder .conf files list for this combination, as the Builder maps them.",
        )


class TestsRuleSet(BuilderRuleSet):
    name = "tests"
    subset = "tests"


class ProfilerRuleSet(BuilderRuleSet):
    name = "profiler"
    subset = "profiler"
