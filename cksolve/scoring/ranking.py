"""``select``: per problem, the K best kernels that can run it, by a scorer.

The candidates of a problem are exactly the kernels ``applicable`` lists
(the column engine, ``workload.coverage.Decisions``: CK Tile's run-time checks,
decided for all distinct problems at once; its configs and names as they are, no
name parsed back), implicit-GEMM ones
(the scorers describe GEMM kernels; depthwise kernels are not ranked). They are
ranked by score, higher first, ties by name, so the output is the same whatever
order the pool came in. A problem no kernel can run gets one record naming the
rule that rejects most of its candidates. Problems are scored in chunks (a
scorer scores one chunk's pairs in one batch) and written as they are ranked;
a problem met again (the file repeats it) takes the ranking it got before,
unscored. What is held grows with the distinct problems' decisions (and up to
``_KEEP`` rankings), not with the output.
"""

from __future__ import annotations

import heapq
import json
from dataclasses import dataclass
from typing import Iterable, Iterator, Sequence, TextIO

from ..errors import CksolveError
from ..formats import csv_writer
from ..progress import Progress
from ..rulesets.listed import ListedRuleSet
from ..space.kinds import GEMM, kernel_kind
from ..space.naming import parse_names
from ..space.textfile import read_text
from ..workload import Workspace
from ..workload.coverage import Decisions
from ..rulesets import takes_rule_set

__all__ = ["SelectRecord", "select", "write_select", "names_rule_set", "SELECT_FORMATS", "CHUNK"]

SELECT_FORMATS = ("table", "jsonl", "csv")
#: problems whose pairs a scorer gets in one batch
CHUNK = 64
#: distinct problems whose rankings (and applicable lists) are kept for problems met again (bounded memory)
_KEEP = 4096
#: ranked records kept for them at most (--top K keeps _RANKED // K problems' rankings)
_RANKED = 1 << 18


@dataclass(frozen=True)
class SelectRecord:
    problem: int  # 0-based row of the problem list
    rank: int | None  # 1 = best; None for a problem no kernel can run
    name: str | None
    score: float | None
    blocked_by: str | None = None  # the rule that rejects most candidates, for a problem no kernel can run
    spec: str = ""

    def as_dict(self) -> dict:
        d = {"problem": self.problem, "rank": self.rank, "name": self.name,
             "score": None if self.score is None else round(self.score, 6)}
        if self.blocked_by is not None:
            d["blocked_by"] = self.blocked_by
        return d


def _blocked(record) -> str:
    """Why no kernel is ranked for a problem: depthwise kernels only, or what blocks it (``coverage.blocking``,
    the statement ``cover`` and ``report`` print) with how many of its candidates that rule rejects."""
    if record.applicable:
        return "only depthwise kernels can run it (select ranks implicit-GEMM kernels)"
    if not record.rejected:
        return record.blocked
    return f"{record.blocked} (rejects {record.rejected[0][1]} of {record.candidates})"


@takes_rule_set
def select(problems: Sequence, rule_set, arch: str, dtype: str, scorer, top: int = 5) -> Iterator[SelectRecord]:
    """SelectRecords, problem by problem (file order), rank by rank."""
    if top < 1:
        raise CksolveError(f"{{opt:top}} {top} must be at least 1")
    problems = problems if isinstance(problems, Sequence) else list(problems)
    table = Decisions.of_problems(Workspace(rule_set), problems, arch, [dtype])
    pools = _Pools(table, dtype)
    done: dict = {}  # problem -> its ranking [(score, name)] or what blocks it: a problem met again is not rescored
    chunk: list = []
    with Progress("writing records", len(problems)) as bar:
        for row, problem in enumerate(problems):
            chunk.append(table.record(row, problem, int(table.inverse[row]), dtype, with_kernels=False))
            if len(chunk) >= CHUNK:
                yield from _chunk(chunk, pools, done, arch, dtype, scorer, top)
                chunk = []
            bar.advance()
        if chunk:
            yield from _chunk(chunk, pools, done, arch, dtype, scorer, top)


class _Pools:
    """The implicit-GEMM kernels that run a distinct problem, as (names, configs), both as the column engine
    holds them: its lists repeat (one per verdict class of problems) and are filtered once each."""

    def __init__(self, table: Decisions, dtype: str):
        self.table, self.dtype = table, dtype
        self._pools: dict = {}  # the engine's (combo, config) lists -> (names, configs)

    def __call__(self, record) -> tuple:
        i = int(self.table.inverse[record.row])

        def make(found):
            pairs = [(name, c) for name, (_, c) in zip(self.table.kernels(i, self.dtype), found)
                     if kernel_kind(c.kind) is GEMM]
            return tuple(n for n, _ in pairs), tuple(c for _, c in pairs)

        return self.table.per_found(i, self.dtype, self._pools, make, _KEEP)


def _chunk(chunk, pools: _Pools, done: dict, arch: str, dtype: str, scorer, top: int) -> Iterator[SelectRecord]:
    if len(done) + len(chunk) > min(_KEEP, max(CHUNK, _RANKED // top)):
        done.clear()  # bounded (problems, and records with a large --top): one met again is scored again, alike
    todo: dict = {}  # problem -> (record, names, configs): the chunk's problems not ranked before, once each
    for record in chunk:
        if record.problem not in done and record.problem not in todo:
            todo[record.problem] = (record, *pools(record))
    pairs = [(problem, c) for problem, (_, _, configs) in todo.items() for c in configs]
    scores = scorer.score(pairs, arch, dtype) if pairs else []
    at = 0
    for problem, (record, names, _) in todo.items():
        if not names:
            done[problem] = (problem.spec(), _blocked(record))
            continue
        ranked = heapq.nsmallest(top, zip(scores[at:at + len(names)], names), key=lambda t: (-t[0], t[1]))
        done[problem] = (problem.spec(), ranked)
        at += len(names)
    for record in chunk:
        spec, ranked = done[record.problem]
        if isinstance(ranked, str):
            yield SelectRecord(record.row, None, None, None, ranked, spec)
            continue
        for rank, (score, name) in enumerate(ranked, 1):
            yield SelectRecord(record.row, rank, name, score, None, spec)


def write_select(records: Iterable[SelectRecord], fmt: str, out: TextIO) -> int:
    """Write the records in ``fmt`` (``SELECT_FORMATS``); returns how many problems were blocked."""
    blocked = 0
    writer = csv_writer(out)
    if fmt == "csv":
        writer.writerow(("problem", "rank", "name", "score", "blocked_by"))
    last = None
    for r in records:
        blocked += r.blocked_by is not None
        if fmt == "jsonl":
            out.write(json.dumps(r.as_dict()) + "\n")
        elif fmt == "csv":
            cells = [str(r.problem), "" if r.rank is None else str(r.rank), r.name or "",
                     "" if r.score is None else f"{r.score:.6g}", r.blocked_by or ""]
            writer.writerow(cells)
        else:
            if r.problem != last:
                out.write(f"problem {r.problem}: {r.spec}\n")
                last = r.problem
            if r.blocked_by is not None:
                out.write(f"  no kernel can run it: {r.blocked_by}\n")
            else:
                out.write(f"  {r.rank:>3}  {r.score:12.6g}  {r.name}\n")
    return blocked


def names_rule_set(path):
    """The kernels a names file lists, as a rule set (``select --names FILE``)."""
    text = read_text(path, "names file")
    return ListedRuleSet(f"names:{path}", parse_names(text.splitlines(), str(path)), str(path))
