"""Selection and listing, the library's face for them: select, enumerate, count, check, explain, diff,
the architectures and the rule sets.

Re-export only; everything returns data and nothing prints::

    from cksolve import query
    rs = query.load_rule_set("default")
    names = list(query.enumerate_names(rs, query.select(["gfx942"], ["forward"], ["fp16"], [2])))

Workloads, ML features, audits, the whole space and the solver have faces of their
own (``cksolve.workload``, ``.features``, ``.audit``, ``.explore``, ``.solver``,
``.space``); ``tests/test_faces.py`` holds each ``__all__`` to exactly the public
names the face shows, and to at least what the command line and the docs use.
"""

from ..arch.facts import archs
from ..arch.target_id import base_arch
from ..errors import CksolveError
from ..rulesets import RULE_SETS, rule_set_names
from ..rulesets import takes_rule_set as _takes_rule_set
from ..rulesets.listed import rule_set_file
from ..selection import (BUNDLED_ARCHS, DTYPES, NDIMS, VARIANTS, Record, Selection, arch_spellings, canonical_order,
                         gemm_variants, select, split_archs, split_values)
from ..solver import BACKENDS, evaluate as _evaluate
from ..space.axes import value_text
from ..space.combo import Combo
from .ck import CkVersion, active_ck, bundled_listing, bundled_versions, ck_version, use_ck, using_ck
from .checking import CheckRecord, check_names, explain_name
from .diff import Source, diff_sources, open_source, read_sectioned_names
from .neighbors import NEIGHBOR_METHODS, neighbors
from .listing import (ENUMERATE_LIMIT, arch_facts_list, archs_document, count_records, enumerate_lines, enumerate_names, enumerate_text, name_lines,
                      enumerate_records, load_rule_set, rule_set_constraints, rule_set_descriptions)

#: the solver's evaluate, its rule_set read as every entry point's (a RuleSet, a name or file)
evaluate = _takes_rule_set(_evaluate)

__all__ = [
    "CksolveError",
    "BUNDLED_ARCHS",
    "archs",
    "arch_spellings",
    "split_archs",
    "VARIANTS",
    "DTYPES",
    "NDIMS",
    "RULE_SETS",
    "Combo",
    "Selection",
    "Record",
    "select",
    "split_values",
    "base_arch",
    "canonical_order",
    "gemm_variants",
    "rule_set_names",
    "load_rule_set",
    "rule_set_descriptions",
    "rule_set_constraints",
    "rule_set_file",
    "ENUMERATE_LIMIT",
    "enumerate_records",
    "enumerate_names",
    "enumerate_lines",
    "enumerate_text",
    "name_lines",
    "count_records",
    "BACKENDS",
    "check_names",
    "CheckRecord",
    "neighbors",
    "NEIGHBOR_METHODS",
    "value_text",
    "evaluate",
    "explain_name",
    "open_source",
    "Source",
    "read_sectioned_names",
    "diff_sources",
    "arch_facts_list",
    "archs_document",
    "ck_version",
    "use_ck",
    "using_ck",
    "active_ck",
    "CkVersion",
    "bundled_versions",
    "bundled_listing",
]
