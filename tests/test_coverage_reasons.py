"""Coverage says why not, at any size: an uncovered problem's jsonl/csv record names its blocking rule, and a
table too long to print still gives the reasons (uncovered records per blocking rule)."""

from __future__ import annotations

import csv
import io
import json

from cksolve import query
from cksolve.space.constraints import scope_values
from cksolve.solver import bounded_configs
from cksolve.space.combo import Combo
from cksolve.workload import applicability_constraints, parse_problem
from cksolve.workload.coverage import NO_KERNELS, CoverageStream, iter_coverage
from cksolve.workload.problem_table import table_of
from cksolve.workload.writers import write_coverage

#: Uncovered by tiny on gfx942 in fp16: split-K 2 (forward kernels need 1), C = 3 (no vector divides it); one
#: covered; a bwd_data problem where tiny has no kernel of the combination.
SPECS = ["N=4,C=64,K=64,split_k=2", "N=4,C=64,K=64", "N=4,C=3,K=64", "direction=bwd_data,N=4,C=64,K=64,Di=4,Z=3"]


def _stream(specs, **kw):
    problems = [parse_problem(s) for s in specs]
    return CoverageStream(table_of(problems), query.load_rule_set("tiny"), "gfx942", ["fp16"], **kw)


def _rows(fmt: str, specs=SPECS) -> list[dict]:
    out = io.StringIO()
    write_coverage(_stream(specs, with_rejected=False), fmt, out)
    text = out.getvalue()
    return [json.loads(line) for line in text.splitlines()] if fmt == "jsonl" else list(csv.DictReader(io.StringIO(text)))


def test_uncovered_records_name_the_rule_that_blocks_them():
    rs = query.load_rule_set("tiny")
    library = list(iter_coverage([parse_problem(s) for s in SPECS], rs, "gfx942", ["fp16"]))
    for fmt in ("jsonl", "csv"):
        rows = _rows(fmt)
        assert [r.get("blocked_by", "") for r in rows] == [
            "apply.forward.split_k", "", "apply.forward.vector_a", NO_KERNELS], fmt
        for row, rec in zip(rows, library):
            if rec.applicable == 0 and rec.rejected:
                assert row["blocked_by"] == rec.rejected[0][0], fmt  # the rule rejecting the most candidates
    jsonl = _rows("jsonl")
    assert "blocked_by" not in jsonl[1]  # a covered record is as it was


def test_the_blocking_rule_rejects_kernels_of_the_problem():
    """The rule named is one that ``explain --problem`` would list for kernels of the combination."""
    rs = query.load_rule_set("tiny")
    for spec, row in zip(SPECS, _rows("jsonl")):
        rule = row.get("blocked_by")
        if not rule or rule == NO_KERNELS:
            continue
        p = parse_problem(spec)
        checks = {c.name: c for c in applicability_constraints(p.facts(), "gfx942", "fp16", "gemm")}
        configs = bounded_configs(rs, Combo("gfx942", "forward", "fp16", p.ndim))
        assert any(not checks[rule].holds(scope_values(c, checks[rule].scope)) for c in configs), (spec, rule)


def test_a_long_table_still_gives_the_reasons():
    specs = SPECS * 3
    out = io.StringIO()
    write_coverage(_stream(specs), "table", out, table=lambda h, rows: "", table_rows=5)
    text = out.getvalue()
    assert "12 records are too many for a table" in text
    assert "uncovered forward fp16 blocked by apply.forward.split_k: 3" in text
    assert "uncovered forward fp16 blocked by apply.forward.vector_a: 3" in text
    assert f"uncovered bwd_data fp16 blocked by {NO_KERNELS}: 3" in text


def test_record_path_and_column_path_write_the_same_bytes():
    rs = query.load_rule_set("tiny")
    problems = [parse_problem(s) for s in SPECS]
    for fmt in ("jsonl", "csv"):
        columns, records = io.StringIO(), io.StringIO()
        write_coverage(_stream(SPECS, with_rejected=False), fmt, columns)
        write_coverage(iter_coverage(problems, rs, "gfx942", ["fp16"], with_kernels=False), fmt, records)
        assert columns.getvalue() == records.getvalue(), fmt
