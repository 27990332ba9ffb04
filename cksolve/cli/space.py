"""``sample`` and ``search``: the whole valid space (``cksolve.explore``). (``--backend`` of enumerate,
count and check is in their families' modules.)"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import List, Optional

import typer

from .. import explore, query
from ..errors import CksolveError
from ..formats import render, table_text
from ..progress import Progress
from ..scoring import scorers_for
from .app import app
from .listing import records_blocks, write_blocks
from .options import (AllowUnmeasuredOpt, BuilderOpt, FactorsOpt, OneArchOpt, backend_option, OutputOpt,
                      SelectionArgs, check_format, choices, format_option, load_rule_set, one_arch, refuse_unwritable,
                      rule_set_option, selection_options, write, KeepInvalidOpt, KernelMapOpt, MinWrittenOpt,
                      hygiene_options, say_hygiene, scorer_kind, scorer_option)

SAMPLE_FORMATS = ("names", "jsonl", "csv")
SEARCH_FORMATS = ("table", "jsonl", "csv", "names")
#: what search ranks by: the performance model (re-ranked by a model or measurements), or the padding score
SEARCH_SCORERS = scorers_for("search")


@app.command("sample")
@selection_options()
def sample_cmd(
    rule_set: str = rule_set_option(),
    sel: SelectionArgs = None,
    n: int = typer.Option(10, "-n", "--count", metavar="N", help="How many configs to draw."),
    seed: int = typer.Option(0, "--seed", metavar="S",
                             help="Random seed (0 or more): the same seed gives the same output."),
    distinct: bool = typer.Option(False, "--distinct",
                                  help="Draw without replacement (no config twice; holds the N indices drawn)."),
    fmt: str = format_option("names", SAMPLE_FORMATS),
    output: Optional[Path] = OutputOpt,
    builder_configs: Optional[str] = BuilderOpt,
) -> None:
    """Draw configs exactly uniformly from every valid config of a rule set (nothing is listed: works on
    the whole space)."""
    check_format(fmt, SAMPLE_FORMATS)
    if n < 0:
        raise CksolveError(f"-n {n} must not be negative")
    if seed < 0:  # Python's generator seeds with |S|: -7 would silently draw what 7 draws
        raise CksolveError(f"--seed {seed} must not be negative")
    refuse_unwritable(output)
    selection = sel.select()
    rs = load_rule_set(rule_set, builder_configs)
    # drawn, decoded and written in blocks: memory does not grow with -n (--distinct: O(n) indices)
    with Progress(f"drawing {n:,} configs", ticking=True):  # on a terminal, past 1 s
        if len(selection.archs) > 1:  # one arch solved at a time; names in '# arch: A' sections, as enumerate
            write_blocks(explore.sample_arch_lines(rs, selection, n, seed, distinct) if fmt == "names" else
                         records_blocks(explore.sample_arch_stream(rs, selection, n, seed, distinct), fmt,
                                        selection.one_kind), output)
        elif fmt == "names":  # names straight from the decoded draws: no record or config formed
            write_blocks(explore.sample_names(rs, selection, n, seed, distinct), output)
        else:
            write_blocks(records_blocks(explore.sample_stream(rs, selection, n, seed, distinct), fmt,
                                        selection.one_kind), output)


def _infeasible_reason(problem: str, arch: str, dtype: str, rs, where: bool) -> str:
    """Why a search found nothing: the rule set has no kernel at all for the problem's combination, or none
    of its (or the space's) configs can run the problem (and meet --where)."""
    from ..workload import parse_problem  # deferred: the workload layer loads numpy (search imported it already)

    facts = parse_problem(problem).facts()
    key = f"{arch}/{facts.direction}/{dtype}/{facts.ndim}d"
    if rs is not None:
        one = query.select([arch], [facts.direction], [dtype], [str(facts.ndim)])
        if not sum(query.count_records(rs, one).values()):
            return f"{rs.name} has no kernel for {key}"
    where_text = " and meet --where" if where else ""
    return f"no config of {rs.name if rs is not None else 'the space'} for {key} can run this problem{where_text}"


@app.command("search")
def search_cmd(
    problem: str = typer.Option(..., "--problem", "-p", metavar="PROBLEM", help="The problem (FIELD=VALUE,...)."),
    arch: str = OneArchOpt,
    dtype: str = typer.Option("fp16", "--dtype", metavar="DTYPE", help=f"{choices(query.DTYPES)}."),
    rule_set: Optional[str] = rule_set_option(False, "Search this rule set (default: the whole valid space)."),
    top: int = typer.Option(1, "--top", metavar="K",
                            help="How many best distinct tile shapes to show (--backend cpsat: score tuples)."),
    where: Optional[List[str]] = typer.Option(None, "--where", metavar="EXPR",
                                              help="Extra condition, as in a rule-set file's where (repeatable)."),
    fmt: str = format_option("table", SEARCH_FORMATS),
    output: Optional[Path] = OutputOpt,
    builder_configs: Optional[str] = BuilderOpt,
    backend: Optional[str] = backend_option(" that searches (direct: the performance model, best-first; cpsat: the "
                                            "padding score)", explore.SEARCH_BACKENDS),
    time_limit: float = typer.Option(explore.TIME_LIMIT, "--time-limit", metavar="S",
                                     help="Seconds one CP-SAT solve may take (then status FEASIBLE with its gap)."),
    device: Optional[str] = typer.Option(None, "--device", metavar="DEVICE",
                                         help="Rank by the performance model for this device (docs/selection.md)."),
    model: Optional[Path] = typer.Option(None, "--model", metavar="DIR",
                                         help="Re-rank the performance model's pool with this model directory."),
    measured: Optional[Path] = typer.Option(None, "--measurements", metavar="FILE",
                                            help="Re-rank the performance model's pool by measured TFLOPS."),
    pool: Optional[int] = typer.Option(None, "--pool", metavar="N",
                                       help="Tile shapes the performance model hands --model/--measurements (50)."),
    factors: Optional[Path] = FactorsOpt,
    kernel_map: Optional[Path] = KernelMapOpt,
    min_written: float = MinWrittenOpt,
    keep_invalid: bool = KeepInvalidOpt,
    allow_unmeasured: bool = AllowUnmeasuredOpt,
    scorer: Optional[str] = scorer_option(SEARCH_SCORERS, "analytic; --backend cpsat: padding"),
) -> None:
    """The best valid configs for a problem by the performance model (one line per tile shape), over a rule set
    or the whole space; --backend cpsat (--scorer padding) ranks by the padding score."""
    check_format(fmt, SEARCH_FORMATS)
    backend = _search_backend(scorer, backend, model, measured)
    refuse_unwritable(output)
    arch = one_arch(arch)
    if dtype not in query.DTYPES:
        raise CksolveError(f"unknown --dtype {dtype!r}; valid: {choices(query.DTYPES)}")
    rs = load_rule_set(rule_set, builder_configs) if rule_set else None
    if backend != "cpsat":  # the performance model (the direct backend's search)
        if backend is not None and backend not in explore.SEARCH_BACKENDS:
            explore.search(problem, arch, dtype, rs, top, (), backend)  # the one error line for this backend
        hygiene = hygiene_options(arch, kernel_map, min_written, keep_invalid) if measured is not None else None
        _ranked_search(problem, arch, dtype, rs, top, tuple(where or ()), fmt, output, device, model, measured, pool,
                       hygiene, allow_unmeasured, factors)
        return
    if any(x is not None for x in (device, model, measured, pool, factors)) or allow_unmeasured:
        raise CksolveError("--backend cpsat searches by the padding score: --device, --model, --measurements, "
                           "--allow-unmeasured, --pool and --factors need the performance model's search (the "
                           "default backend)")
    with Progress(f"searching for {problem}", ticking=True):
        results, status = explore.search(problem, arch, dtype, rs, top, tuple(where or ()), backend, time_limit)
    said = ("ranked by the padding score (tile padding x occupancy x reuse x vectors: --backend cpsat)\n"
            f"status: {status}" + (" (gap 0)" if status == "OPTIMAL" else ""))
    _write_results(results, status, said, ["score", "tile", "occupancy", "reuse", "vector", "configs", "name"],
                   fmt, output, sys.stderr.write, lambda: _infeasible_reason(problem, arch, dtype, rs, bool(where)))


def _search_backend(scorer: Optional[str], backend: Optional[str], model, measured) -> Optional[str]:
    """The backend ``--scorer`` asks for: padding is the CP-SAT search's score; the performance model's search
    (the default backend) ranks by analytic, or re-ranks by a model or measurements."""
    if scorer is None:
        return backend
    kind = scorer_kind(scorer, SEARCH_SCORERS, "analytic", model, measured, "search")
    if kind == "padding":
        if backend not in (None, "cpsat"):
            raise CksolveError(f"--scorer padding is the score of --backend cpsat, not --backend {backend}")
        return "cpsat"
    if backend == "cpsat":
        raise CksolveError(f"--backend cpsat searches by the padding score, not --scorer {kind}")
    return backend


def _write_results(results, status: str, said: str, columns: list, fmt: str, output, tell, why) -> None:
    """A search's results and what it says (ranking, status, and ``why()`` when infeasible): a table holds
    the saying (it is part of the report); machine formats keep it off stdout, given to ``tell``."""
    rows = [r.as_dict() for r in results]
    if status == "INFEASIBLE":
        said += f" ({why()})"
    said += "\n"
    if fmt == "table":
        write(table_text(columns, [[str(row[c]) for c in columns] for row in rows]) + said, output)
        return
    write(render(fmt, rows, ("name",)), output)
    tell(said)


def _ranked_search(problem, arch, dtype, rs, top, where, fmt, output, device, model, measured, pool,
                   hygiene=None, allow_unmeasured=False, factors=None) -> None:
    """``search`` by the performance model, one line per tile shape, re-ranked by a model or measurements."""
    from .. import scoring  # deferred: the scorers (and lightgbm for --model) load for this search only
    from .errors import say  # deferred: only this search says what ranks

    if model is not None and measured is not None:
        raise CksolveError("give at most one of --model and --measurements")
    rescorer = (scoring.get_scorer("model", path=model) if model is not None
                else scoring.get_scorer("measured", path=measured, hygiene=hygiene) if measured is not None else None)
    if allow_unmeasured and measured is None:
        raise CksolveError("--allow-unmeasured goes with --measurements")
    if rescorer is not None:
        rescorer.prepare(arch, dtype)
        say_hygiene(rescorer.hygiene)
    note = None
    if measured is not None:
        from ..workload import parse_problem  # deferred (see _infeasible_reason)

        note = rescorer.unmeasured_note([parse_problem(problem)], dtype, allow_unmeasured)
    size = explore.RANK_POOL if pool is None else pool
    analytic = scoring.get_scorer("analytic", device=device, factors=factors)
    analytic.prepare(arch, dtype)  # a bad factors file: one error before the search
    ranking = {"device": device, "rescorer": rescorer, "pool": size, "factors": factors}
    with Progress(f"searching for {problem}", ticking=True):  # on a terminal, past 1 s; phases from the search
        results, status = explore.search(problem, arch, dtype, rs, top, where, None, explore.TIME_LIMIT, ranking)
    if rescorer is None:
        said = f"ranked by {analytic.describe()}; one line per tile shape\nstatus: {status}"
    else:
        said = (f"searched with {analytic.describe()} to a pool of {size} tile shapes, re-ranked by "
                f"{rescorer.describe()}\nstatus: {status}")
    if note:
        said += f"\n{note.removeprefix('note: ')}"
    for line in [explore.tie_note(results), *explore.cost_notes(results, analytic.factors_for(arch), dtype)]:
        said += f"\n{line}" if line else ""
    _write_results(results, status, said, ["score", "analytic", "configs", "tile", "name"], fmt, output,
                   lambda text: [say(line) for line in text.splitlines()],
                   lambda: _infeasible_reason(problem, arch, dtype, rs, bool(where)))
