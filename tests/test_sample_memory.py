"""What ``sample`` holds while it solves and draws: one object per distinct value in the solver's tables, and
compact arrays (not tuples) once the draws are decoded.

``sample`` over every arch of the whole space peaks inside one arch's solve and draw (gfx1250's tabulated
tables: 0.8 million row tuples of 0.2 million values; gfx942's decoder: a million-row product table and
every row's options copied per row). The memory itself is measured by ``benchmarks/bench_space.py``; these
tests pin what keeps it down, on spaces small enough to solve in a second.
"""

from __future__ import annotations

from conftest import fresh_solves
from test_stream import WIDE  # a pinned whole-space file, small enough to list

from cksolve import explore, query
from cksolve.explore.sampling import solution_sets
from cksolve.solver.engine import conditioning, direct
from cksolve.solver.engine.conditioning import Branches, Part
from cksolve.solver.engine.relations import domain_ids, index_rows, relation
from cksolve.solver.engine.solutions import Component
from cksolve.space.constraints import Check

SELECTION = (["gfx942"], ["forward", "bwd_weight"], ["fp16"], ["2", "3"])


def _sets(monkeypatch, tmp_path, conditioned: bool):
    """(rule set, the selection's solution sets), solved afresh: ``full`` (leaves: vectors, specialization,
    flags), or ``conditioned``, a pinned whole-space file through conditioning's pieces and tabulated tables
    (the path the whole space takes)."""
    fresh_solves(monkeypatch)
    for memo in ("_LEAF_MEMO", "_LEAF_ROWS"):
        monkeypatch.setattr(direct, memo, {}, raising=False)
    for memo in ("_PIECES", "_TABULATED", "_TABLE_ROWS", "_GRIDS"):
        monkeypatch.setattr(conditioning, memo, {}, raising=False)
    if conditioned:
        monkeypatch.setattr(direct, "ROW_LIMIT", 3)
        monkeypatch.setattr(conditioning, "PIECE_LIMIT", 40)
        monkeypatch.setattr(conditioning, "TAB_LIMIT", 64)
        path = tmp_path / "pinned.toml"
        path.write_text(WIDE)
        rs = query.load_rule_set(str(path))
    else:
        rs = query.load_rule_set("full")
    return rs, solution_sets(rs, query.select(*SELECTION))


def _shared(values) -> None:
    """Equal values are one object."""
    seen: dict = {}
    for v in values:
        assert seen.setdefault(v, v) is v, f"{v!r} is held twice"
    assert seen, "nothing to compare"


def test_an_index_holds_each_distinct_sub_row_once():
    rows = frozenset({(1, 4, 5), (2, 4, 5), (3, 4, 5), (3, 6, 7)})
    index = index_rows(rows, (0,), (1, 2))
    _shared(v for values in index.values() for v in values)


def _at_most(a, b, c, total):
    return a + b + c <= total


def test_tables_tabulated_over_the_same_domains_share_their_row_tuples(monkeypatch):
    """Two filters over the same domains (the tile coverage under two pipelines, say) tabulate to tables that
    overlap: each value is one tuple in both."""
    for memo in ("_TABULATED", "_TABLE_ROWS", "_GRIDS"):
        monkeypatch.setattr(conditioning, memo, {}, raising=False)
    domains = {a: tuple(range(8)) for a in ("x", "y", "z")}
    ids = domain_ids(domains)
    tables = []
    for total in (6, 9):
        check = Check(f"test.at_most_{total}", ("x", "y", "z"), _at_most, "x + y + z > {total}", params=(total,))
        table = conditioning._tabulated(relation(check, domains, ids), domains)
        assert table.is_table and 0 < len(table.rows) < 8 ** 3
        tables.append(table.rows)
    assert tables[0] < tables[1]
    _shared(row for rows in tables for row in rows)


def test_leaf_options_hold_each_distinct_row_and_list_once(monkeypatch, tmp_path):
    _sets(monkeypatch, tmp_path, conditioned=False)
    memos = list(direct._LEAF_MEMO.values())
    _shared(row for memo in memos for options in memo.values() for row in options)
    _shared(options for memo in memos for options in memo.values() if options)


def _components(node, out: dict) -> dict:
    if isinstance(node, Part):
        for part in node.parts:
            _components(part, out)
    elif isinstance(node, Branches):
        for _values, part in node.options:
            _components(part, out)
    elif isinstance(node, Component):
        out[id(node)] = node
        if node.tree is not None:
            _components(node.tree, out)
    return out


def test_drawing_in_blocks_keeps_arrays_not_the_rows_as_tuples(monkeypatch, tmp_path):
    for conditioned in (False, True):
        rs, sets = _sets(monkeypatch, tmp_path, conditioned)
        names = "".join(explore.sample_names(rs, query.select(*SELECTION), 2000, seed=1))
        assert names.count("\n") == 2000
        comps: dict = {}
        for _combo, solutions in sets:
            assert "decoder.merged" not in solutions.memo  # the product table of the row-only components
            for comp in solutions.components:
                _components(comp, comps)
        assert any(comp.leaves or comp.tree for comp in comps.values()), "no leaves or trees drawn from"
        cached = [comp.axes for comp in comps.values() if "sampling" in vars(comp)]
        assert not cached, f"{len(cached)} components keep their sorted rows and options as tuples"
