"""``plan``: which (problem, kernel) pairs to benchmark under a GPU budget, in CK's tile-engine formats, in
shards; ``plan merge``: the shards' results checked against their plans and merged (docs/plan.md)."""

from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer

from .. import query
from ..errors import CksolveError
from ..outputs import write_stdout
from ..progress import Progress
from .app import app
from .errors import say
from .options import (BuilderOpt, arch_option, choices, load_rule_set, one_arch, refuse_unwritable, rule_set_option,
                      stdout_dash, write)

ACTIONS = ("merge",)


@app.command("plan")
def plan_cmd(
    action: Optional[List[str]] = typer.Argument(None, metavar="[merge FILE...]",
                                                 help="merge: check the shards' results.csv files against their "
                                                      "plans and merge them (-o)."),
    problems: Optional[Path] = typer.Option(None, "--problems", metavar="FILE",
                                            help="The workload: CSV with CK's header, or JSONL with the same keys."),
    rule_set: Optional[str] = rule_set_option(False),
    names: Optional[Path] = typer.Option(None, "--names", metavar="FILE",
                                         help="A names file: its kernels instead of a rule set's."),
    arch: Optional[str] = arch_option(),
    dtype: Optional[str] = typer.Option(None, "--dtype", metavar="DTYPE", help=f"{choices(query.DTYPES)}."),
    budget: Optional[int] = typer.Option(None, "--budget", metavar="N", help="Pairs to measure."),
    measurements: Optional[List[Path]] = typer.Option(
        None, "--measurements", metavar="FILE", help="Earlier rounds' results (repeatable): never planned again."),
    model: Optional[Path] = typer.Option(None, "--model", metavar="DIR",
                                         help="A model of earlier rounds (train's output): its picks and misses."),
    seed: int = typer.Option(0, "--seed", metavar="S", help="The plan's seed (same inputs and seed, same plan)."),
    shards: int = typer.Option(1, "--shards", metavar="W", help="Shard folders, balanced by estimated GPU time."),
    repeats: int = typer.Option(1, "--repeats", metavar="R",
                                help="Launches the runner times per pair (the GPU time estimate is est_ms x R)."),
    out: Optional[Path] = typer.Option(None, "--out", metavar="DIR", help="The plan directory (new or empty)."),
    output: Optional[Path] = typer.Option(None, "--output", "-o", metavar="FILE", callback=stdout_dash,
                                          help="merge: the merged CSV (else stdout)."),
    keep_extra: bool = typer.Option(False, "--keep-extra",
                                    help="merge: keep by-product rows (tiles a run measured that were not planned)."),
    builder_configs: Optional[str] = BuilderOpt,
) -> None:
    """Choose the (problem, kernel) pairs to benchmark under a budget, as CK's tile-engine inputs in shards;
    or merge the shards' results (plan merge FILE... -o OUT)."""
    from .. import plan  # deferred: the plan package loads for its command only

    if action:
        if action[0] not in ACTIONS:
            raise CksolveError(f"unknown action {action[0]!r}; valid: {', '.join(ACTIONS)}")
        if len(action) < 2:
            raise CksolveError("plan merge needs the shards' results files (DIR/shard_*/results.csv)")
        refuse_unwritable(output)
        result = plan.merge_results([Path(a) for a in action[1:]], keep_extra)
        write(result.text, output)
        say(result.line(keep_extra))
        return
    for flag, value in (("--problems", problems), ("--arch", arch), ("--dtype", dtype), ("--budget", budget),
                        ("--out", out)):
        if value is None:
            raise CksolveError(f"plan needs {flag}")
    if (rule_set is None) == (names is None):
        raise CksolveError("plan needs one of --rule-set and --names")
    if dtype not in query.DTYPES:
        raise CksolveError(f"unknown --dtype {dtype!r}; valid: {choices(query.DTYPES)}")
    arch = one_arch(arch)
    plan.check_out_dir(out)
    if names is not None:
        from ..scoring import names_rule_set  # deferred: the scoring layer loads for --names only

        rs = names_rule_set(names)
    else:
        rs = load_rule_set(rule_set, builder_configs)
    with Progress(f"planning {budget} pairs for {problems.name} on {arch}", ticking=True):
        chosen, w, counts = plan.plan_workload(problems, rs, arch, dtype, budget, seed, measurements or (), model)
        info = plan.write_plan(chosen, w.problems, w.rows, out, arch, dtype, shards, repeats,
                                   {"problems_file": problems.name, "kernels": rs.name, **counts})
    s = info["summary"]
    loads = [sh["est_gpu_ms"] for sh in info["shards"]]
    line = (f"planned {s['pairs']} pairs on {s['problems']} of {s['of_problems']} problems "
            f"({', '.join(f'{k} {v}' for k, v in s['why'].items())}) -> {out}\n"
            f"estimated GPU time {sum(loads):.6g} ms in {len(loads)} shard{'s' if len(loads) != 1 else ''}, "
            f"largest {info['imbalance']:.3f} x the mean")
    if counts["measured_pairs"] or measurements:
        line += (f"\nearlier rounds: {counts['measured_pairs']} measured pairs left out"
                 + (f", the model misses {counts['model_wrong']} problems' best" if model is not None else ""))
    write_stdout(line + "\n")
