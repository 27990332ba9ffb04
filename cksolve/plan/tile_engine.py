"""CK's tile-engine grouped-convolution runner: the inputs a plan writes for it and how it is run.

Read in ``ROCm/composable_kernel``, ``tile_engine/ops/grouped_conv/`` (no CK code copied):

* **Runner** (``grouped_conv_full_benchmark.py`` @54f25023e8af49decbd174c8a6154356e8f815d0):
  ``python grouped_conv_full_benchmark.py CONFIG.json [CONFIG.json ...] --arch ARCH --problems SET
  --csv OUT [--workers N] [--batch-size N] [--kernel-timeout S] [--max-kernels N]``. ``--workers``
  (default 8) is parallel *build* workers; kernels run one at a time on the GPU, in subprocess
  batches of ``--batch-size`` (default 20). ``SET`` is one name of the runner's own table, which maps
  it to a module of ``problems/`` beside the script and a list in it: ``forward_2d`` ->
  ``problems/forward_2d.py`` ``PROBLEMS_FORWARD_2D``, likewise ``forward_3d``, ``bwd_data_{2d,3d}``,
  ``bwd_weight_{2d,3d}`` (and three validation sets). The problems directory is put first on the
  module path, so a list is chosen by *replacing that module*. Every built kernel of the configs is
  run on every problem of the list; each successful launch is one CSV row of 24 columns
  (``workload.perf.CK_COLUMNS``), ``problem_idx`` its 0-based position in the list; failures and
  timeouts are only printed.
* **Problem list** (``problems/forward_2d.py`` @54f25023, ``forward_synthetic_extended.py`` @017dca1b):
  a module defining the list as ``GroupedConvProblem(N=..., C=..., K=..., G=..., Hi=..., Wi=...,
  Y=..., X=..., stride_h=..., stride_w=..., pad_h=..., pad_w=..., direction="forward")`` entries, with
  ``Di``, ``Z``, ``stride_d``, ``pad_d`` and ``dilation_{d,h,w}`` keywords where they differ from 1/0
  (``GroupedConvProblem`` from ``dispatcher/python/grouped_conv_utils.py``, which the runner puts on
  the module path). C and K are totals over the G groups, as in cksolve.
* **Sweep config** (``configs/forward_2d.json`` @54f25023; ``bwd_*`` @610e69bf, @017dca1b):
  ``{"variant": V, "trait_config": {TRAIT: {"values": [...]}, ...}}`` with traits ``data_type``,
  ``pipeline``, ``scheduler``, ``ndim_spatial``, ``num_groups_to_merge``, ``double_smem_buffer``,
  ``split_image``, ``explicit_gemm``, ``two_stage``. ``grouped_conv_instance_builder.expand_sweep``
  (@017dca1b) reads each trait as an allow-list and crosses the survivors with every tile of the
  dispatcher's ``COMMON_TILES`` (compv4 only on its compatible tiles): **a config selects a trait
  combination, never a tile**.

So the closest the runner comes to "exactly the planned pairs" is one *run* per trait combination:
a config allowing exactly that combination, and a problem list of exactly the problems planned with
a label of it. A run measures every tile of its combination on its problems; rows of tiles the plan
did not ask for are by-products, which ``plan merge`` reports and drops (``--keep-extra`` keeps them).
"""

from __future__ import annotations

import json

from ..features.ckname import read_short

__all__ = ["RUNNER", "trait_of", "set_name", "list_name", "sweep_config", "problems_module", "run_script"]

#: the runner script, relative to a CK checkout (CK_TILE_ENGINE points at its directory)
RUNNER = "grouped_conv_full_benchmark.py"
#: the keywords of a problem-list entry that default to 1 (0 for the pads) when left out
_OPTIONAL = {"Di": 1, "Z": 1, "stride_d": 1, "pad_d": 0, "dilation_d": 1, "dilation_h": 1, "dilation_w": 1}
_ALWAYS = ("N", "C", "K", "G", "Hi", "Wi", "Y", "X", "stride_h", "stride_w", "pad_h", "pad_w")


def trait_of(label: str) -> tuple:
    """(variant, dtype, ndim, pipeline, scheduler, groups to merge, dsb, split image, two stage) of a short
    name: what one run's sweep config allows."""
    f = read_short(label)
    variant, dtype, ndim, _m, _n, _k, pipeline, scheduler, gm, dsb, si, two = f
    return (variant, dtype, ndim, pipeline, scheduler, gm, dsb, si, two)


def set_name(trait: tuple) -> str:
    """The runner's problem-set name (and module name) of a trait's variant and ndim: ``forward_2d``."""
    return f"{trait[0]}_{trait[2]}d"


def list_name(trait: tuple) -> str:
    """The list the runner reads from the module: ``PROBLEMS_FORWARD_2D``."""
    return f"PROBLEMS_{set_name(trait).upper()}"


def sweep_config(trait: tuple) -> str:
    """The sweep config allowing exactly ``trait`` (JSON text)."""
    variant, dtype, ndim, pipeline, scheduler, gm, dsb, si, two = trait
    traits = {"data_type": [dtype], "pipeline": [pipeline], "scheduler": [scheduler], "ndim_spatial": [ndim],
              "num_groups_to_merge": [gm], "double_smem_buffer": [dsb], "split_image": [si],
              "explicit_gemm": [False], "two_stage": [two]}
    return json.dumps({"variant": variant, "trait_config": {k: {"values": v} for k, v in traits.items()}},
                      indent=2) + "\n"


def problems_module(trait: tuple, problems: list, note: str) -> str:
    """The problem-list module of a run: ``problems`` (cksolve Problems) in order, as the list the runner
    reads for the trait's set."""
    lines = [f'"""{note}"""', "", "from grouped_conv_utils import GroupedConvProblem", "",
             f"{list_name(trait)} = ["]
    for p in problems:
        args = [f"{k}={getattr(p, k)}" for k in _ALWAYS]
        args += [f"{k}={getattr(p, k)}" for k, d in _OPTIONAL.items() if getattr(p, k) != d]
        lines.append(f"    GroupedConvProblem({', '.join(args)}, direction={p.direction!r}),")
    lines.append("]")
    return "\n".join(lines) + "\n"


def run_script(arch: str, runs: list[tuple[str, tuple]]) -> str:
    """A shard's ``run.sh``: each run's problem module put in place of the runner's (restored at exit),
    the runner started on the run's config, the runs' CSVs joined into ``results.csv``."""
    sets = sorted({set_name(t) for _, t in runs})
    out = ["#!/bin/sh",
           "# Measures this shard with CK's tile engine. CK_TILE_ENGINE: tile_engine/ops/grouped_conv of a CK",
           "# checkout (one checkout per shard running at the same time: its problems/ modules are swapped in",
           "# for each run and restored at exit). WORKERS: the runner's --workers (parallel builds).",
           "set -eu",
           'here=$(cd "$(dirname "$0")" && pwd)',
           'te=${CK_TILE_ENGINE:?set CK_TILE_ENGINE to tile_engine/ops/grouped_conv of a CK checkout}',
           'saved=$(mktemp -d)',
           *(f'cp "$te/problems/{s}.py" "$saved/{s}.py"' for s in sets),
           'trap \'cp "$saved"/*.py "$te/problems/"; rm -rf "$saved"\' EXIT']
    for run, trait in runs:
        s = set_name(trait)
        out += [f'cp "$here/runs/{run}/problems/{s}.py" "$te/problems/{s}.py"',
                f'python3 "$te/{RUNNER}" "$here/runs/{run}/configs/{s}.json" --arch {arch} --problems {s} '
                f'--csv "$here/runs/{run}/results.csv" ${{WORKERS:+--workers "$WORKERS"}}']
    out += ["# one CSV: the first run's header, every run's rows",
            'awk \'FNR == 1 && NR != 1 { next } { print }\' "$here"/runs/run_*/results.csv > "$here/results.csv"']
    return "\n".join(out) + "\n"
