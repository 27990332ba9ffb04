"""``select``: per problem, the K best kernels that can run it, by a scorer.

The candidates of a problem are exactly the kernels ``applicable`` lists
(``workload.iter_coverage``: CK Tile's run-time checks, decided for all
distinct problems at once), implicit-GEMM ones
(the scorers describe GEMM kernels; depthwise kernels are not ranked). They are
ranked by score, higher first, ties by name, so the output is the same whatever
order the pool came in. A problem no kernel can run gets one record naming the
rule that rejects most of its candidates. Problems are scored in chunks (a
scorer scores one chunk's pairs in one batch) and written as they are ranked:
what is held grows with the distinct problems' decisions, not with the output.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Iterable, Iterator, Sequence, TextIO

from ..errors import CksolveError
from ..rulesets.listed import ListedRuleSet
from ..space.kinds import GEMM, kernel_kind
from ..space.naming import parse_name, parse_names
from ..space.textfile import read_text
from ..workload import iter_coverage

__all__ = ["SelectRecord", "select", "write_select", "names_rule_set", "SELECT_FORMATS", "CHUNK"]

SELECT_FORMATS = ("table", "jsonl", "csv")
#: problems whose pairs a scorer gets in one batch
CHUNK = 64


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


def _blocked(rejected, candidates: int, gemm_free: bool) -> str:
    if gemm_free:
        return "only depthwise kernels can run it (select ranks implicit-GEMM kernels)"
    if not rejected:
        return "no kernel of the rule set for this direction, dtype and ndim"
    rule, n = rejected[0]
    return f"{rule} (rejects {n} of {candidates})"


def select(problems: Sequence, rule_set, arch: str, dtype: str, scorer, top: int = 5) -> Iterator[SelectRecord]:
    """SelectRecords, problem by problem (file order), rank by rank."""
    if top < 1:
        raise CksolveError(f"{{opt:top}} {top} must be at least 1")
    configs: dict = {}  # name -> config: names repeat across problems

    def config(name: str):
        c = configs.get(name)
        if c is None:
            c = configs[name] = parse_name(name)
        return c

    chunk: list = []
    for record in iter_coverage(problems, rule_set, arch, [dtype], with_kernels=True):
        chunk.append(record)
        if len(chunk) >= CHUNK:
            yield from _chunk(chunk, config, arch, dtype, scorer, top)
            chunk = []
    if chunk:
        yield from _chunk(chunk, config, arch, dtype, scorer, top)


def _chunk(chunk, config, arch: str, dtype: str, scorer, top: int) -> Iterator[SelectRecord]:
    pairs, spans = [], []
    for record in chunk:
        start = len(pairs)
        pairs.extend((record.problem, c) for c in map(config, record.kernels) if kernel_kind(c.kind) is GEMM)
        spans.append((record, start, len(pairs)))
    scores = scorer.score(pairs, arch, dtype) if pairs else []
    for record, start, end in spans:
        row, problem = record.row, record.problem
        if start == end:
            why = _blocked(record.rejected, record.candidates, bool(record.kernels))
            yield SelectRecord(row, None, None, None, why, problem.spec())
            continue
        ranked = sorted(((scores[i], pairs[i][1].name()) for i in range(start, end)), key=lambda t: (-t[0], t[1]))
        for rank, (score, name) in enumerate(ranked[:top], 1):
            yield SelectRecord(row, rank, name, score, None, problem.spec())


def write_select(records: Iterable[SelectRecord], fmt: str, out: TextIO) -> int:
    """Write the records in ``fmt`` (``SELECT_FORMATS``); returns how many problems were blocked."""
    blocked = 0
    if fmt == "csv":
        out.write("problem,rank,name,score,blocked_by\n")
    last = None
    for r in records:
        blocked += r.blocked_by is not None
        if fmt == "jsonl":
            out.write(json.dumps(r.as_dict()) + "\n")
        elif fmt == "csv":
            cells = [str(r.problem), "" if r.rank is None else str(r.rank), r.name or "",
                     "" if r.score is None else f"{r.score:.6g}", r.blocked_by or ""]
            out.write(",".join(f'"{c}"' if "," in c else c for c in cells) + "\n")
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
