"""The ``features`` and ``pipeline-variants`` commands as functions over a rule set and a selection."""

from __future__ import annotations

from pathlib import Path

from ..errors import CksolveError
from ..formats import check_format
from ..rulesets import RuleSet, takes_rule_set
from ..selection import VARIANTS, Selection, gemm_variants
from ..workload.problem_table import read_problems
from .table_writers import FORMATS, check_parquet, render, write_parquet, write_rows
from .engine import SEMANTICS
from .table import FeatureTable, features, iter_features
from .pipeline_variants import PipelineVariant, pipeline_variants as derive

__all__ = ["FEATURE_FORMATS", "FEATURE_SEMANTICS", "feature_table", "feature_text", "feature_stream", "write_features",
           "check_parquet", "selection_pipeline_variants"]

#: ``features``' output formats and semantics
FEATURE_FORMATS: tuple[str, ...] = tuple(FORMATS)
FEATURE_SEMANTICS: tuple[str, ...] = tuple(SEMANTICS)


def feature_table(rule_set: RuleSet, selection: Selection, problems: Path | None, semantics: str) -> FeatureTable:
    """CK's ML-selector rows, per kernel or, with a problem file, per (problem, applicable kernel) pair."""
    check_format(semantics, FEATURE_SEMANTICS, "semantics")
    return features(rule_set, selection.combos(), _problems(problems), semantics)


@takes_rule_set
def feature_stream(rule_set: RuleSet, selection: Selection, problems: Path | None, semantics: str):
    """``feature_table``'s rows one at a time: (columns, rows, unread) -- ``unread()`` once the rows are done."""
    check_format(semantics, FEATURE_SEMANTICS, "semantics")
    return iter_features(rule_set, selection.combos(), _problems(problems), semantics)


def _problems(path: Path | None):
    """The workload's problems, read by columns (``read_problems``' answer and errors), or None."""
    return read_problems(path) if path is not None else None


def write_features(columns, rows, fmt: str, out=None, path=None) -> int:
    """Rows to the text stream ``out`` (csv, jsonl) or, for parquet, to ``path`` (a file name, or a binary stream
    such as a FIFO opened for writing); rows written."""
    check_format(fmt, FEATURE_FORMATS)
    if fmt == "parquet":
        return write_parquet(columns, rows, path)
    return write_rows(columns, rows, fmt, out)


def feature_text(table: FeatureTable, fmt: str) -> str:
    return render(table.columns, table.rows, check_format(fmt, FEATURE_FORMATS))


def selection_pipeline_variants(selection: Selection) -> list[PipelineVariant]:
    """The valid (pipeline, scheduler, double LDS buffer, split image) combinations of the selection's
    variants, GEMM ones only (select them with ``gemm_variants``), derived from the constraints."""
    variants = gemm_variants(selection.variants)
    other = [v for v in selection.variants if v not in variants]
    if other:  # as features does: an explicit depthwise variant is a mistake, not silently dropped
        raise CksolveError(f"{other[0]} kernels have no GEMM pipeline; choose {', '.join(gemm_variants(VARIANTS))}")
    return derive(selection.archs, variants, selection.dtypes, selection.ndims)
