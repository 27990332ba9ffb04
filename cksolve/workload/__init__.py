"""Workloads: convolution problems, and which kernels can run them.

The library face (everything returns data; the CLI only prints)::

    from cksolve.workload import Problem, parse_problem, read_problems, applicable, coverage

    p = parse_problem("N=4,G=4,C=256,K=256,Hi=28,Wi=28,Y=1,X=1")   # CK's fields and defaults
    rs = cksolve.query.load_rule_set("full")
    applicable(p, rs, "gfx942", "fp16")        # -> kernel names, canonical order
    coverage(read_problems("workload.csv"), rs, "gfx942", ["fp16"])  # -> CoverageRecord per (problem, dtype)

A problem's C and K are totals over its G groups, as in CK's problem files; the
rules see them per group (``Problem.facts()``). The rules themselves are data
(``applicability.toml``) and become named constraints ``apply.<direction>.<rule>``
(``rules.applicability_constraints``) that ``evaluate`` and ``explain`` accept.

Measurement files are read by ``read_measurement_file`` and checked by ``check_rows``
(``HygieneOptions`` -> the rows to use and a ``Hygiene`` verdict; labels -> kernels:
``LabelResolver``, ``read_kernel_map``): docs/measurements.md.
"""

from .coverage import CoverageRecord, Workspace, applicable, coverage
from .expand import expand_short
from .hygiene import Hygiene, HygieneOptions, check_rows
from .labels import LabelResolver, read_kernel_map
from .perf import read_measurement_file
from .problem import DIRECTIONS, FIELDS, Problem, ProblemError, ProblemFacts, as_problem, parse_problem
from .problem_table import read_problems
from .rules import applicability_constraints, rules
from .coverage import iter_coverage
from .tasks import (applicable_records, coverage_records, coverage_stream, minimize_kernels, minimize_request,
                    minimize_summary, write_coverage)

__all__ = [
    "parse_problem",
    "as_problem",
    "read_problems",
    "Problem",
    "ProblemError",
    "ProblemFacts",
    "FIELDS",
    "DIRECTIONS",
    "applicable",
    "coverage",
    "CoverageRecord",
    "Workspace",
    "applicable_records",
    "coverage_records",
    "iter_coverage",
    "coverage_stream",
    "write_coverage",
    "minimize_request",
    "minimize_kernels",
    "minimize_summary",
    "rules",
    "applicability_constraints",
    "read_measurement_file",
    "check_rows",
    "HygieneOptions",
    "Hygiene",
    "LabelResolver",
    "read_kernel_map",
    "expand_short",
]
