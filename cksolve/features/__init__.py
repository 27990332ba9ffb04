"""CK's ML kernel-selector features, computed from exact kernel configurations.

CK's dispatcher ranks (problem, kernel) pairs with a LightGBM model over 97
features; it rebuilds the kernel side by parsing kernel names and its candidate
pools from tile lists. cksolve knows every kernel's configuration and which
kernels can run a problem, so it produces those inputs directly::

    from cksolve.features import features
    from cksolve.rulesets import Combo, get_rule_set
    from cksolve.workload import read_problems

    rs = get_rule_set("full")
    combos = [Combo("gfx950", "forward", "bf16", n) for n in (2, 3)]
    t = features(rs, combos, read_problems("validation_holdout.csv"))           # CK's semantics
    t = features(rs, combos, read_problems("validation_holdout.csv"), "exact")  # true values
    pandas.DataFrame(t.rows, columns=t.columns)

``semantics="ck"`` reproduces CK's engine, including how its parser reads a
dispatcher name (block_size is really tile_m); ``"exact"`` writes the true
values. Every (problem, kernel) row -- these, training's, the model scorer's --
is made by one ``RowMaker`` (``rows``: tuples, or a numpy block). The columns, formulas and sources are in ``features.toml`` and
docs/ml-features.md; ``pipeline_variants`` derives the valid (pipeline,
scheduler, double LDS buffer, split image) combinations from the constraints.
"""

from .ckname import KernelName, ShortName, config_short, dispatcher_name, read_kernel_name, read_short
from .engine import SEMANTICS
from .rows import MODEL_SEMANTICS, RowMaker
from .spec import FEATURE_NAMES, KERNEL_NAMES
from .table import FeatureTable, features
from .feature_tasks import FEATURE_FORMATS, check_parquet, feature_stream, selection_pipeline_variants, write_features
from .pipeline_variants import PipelineVariant, pipeline_variants

__all__ = [
    "features",
    "FeatureTable",
    "SEMANTICS",
    "FEATURE_NAMES",
    "KERNEL_NAMES",
    "pipeline_variants",
    "PipelineVariant",
    "feature_stream",
    "write_features",
    "FEATURE_FORMATS",
    "check_parquet",
    "selection_pipeline_variants",
    "RowMaker",
    "MODEL_SEMANTICS",
    "KernelName",
    "ShortName",
    "read_kernel_name",
    "config_short",
    "dispatcher_name",
    "read_short",
]
