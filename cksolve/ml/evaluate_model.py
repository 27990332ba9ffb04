"""``evaluate``: a model's picks among each problem's measured kernels, and their efficiency."""

from __future__ import annotations

import json

from ..errors import CksolveError
from ..formats import table_text
from .training_data import read_measurements
from .modeldir import read_model_dir

__all__ = ["evaluate", "evaluate_text", "EVALUATE_FORMATS", "SUMMARY_KEYS"]

EVALUATE_FORMATS = ("table", "json")
SUMMARY_KEYS = ("mean", "median", "p10", "top1", "top5", "problems")


def evaluate(model_dir, paths, arch: str | None = None, dtype: str | None = None) -> dict:
    """{mean, median, p10, top1, top5, problems, per_problem: [...]} of the model on the measurement files.

    ``arch``/``dtype`` default to the model's spec (CK's specs carry both)."""
    from .training import evaluate_rows  # deferred: numpy-heavy, imported with the model

    model = read_model_dir(model_dir)
    arch = arch or model.spec.get("arch")
    dtype = dtype or model.spec.get("dtype")
    if not arch or not dtype:
        raise CksolveError(f"{model_dir}: the spec names no arch/dtype; give {{opt:arch}} and {{opt:dtype}}")
    variant = model.spec.get("variant")
    m = read_measurements(paths, variant, dtype)
    got = evaluate_rows(model, m, arch, dtype)
    problems = list(m.by_problem)
    d = got["data"]
    names = sorted(m.kernels)
    per = []
    for pid, eff, rank, i in zip(got["ids"], got["effs"], got["ranks"], got["rows"]):
        per.append({"problem": problems[int(pid)].spec(), "pick": names[int(d.name_rank[i])],
                    "efficiency": float(eff), "rank": int(rank)})
    return {**got["summary"], "per_problem": per}


def evaluate_text(result: dict, fmt: str) -> str:
    if fmt == "json":
        return json.dumps(result, indent=2) + "\n"
    rows = [[r["problem"], r["pick"], f"{r['efficiency']:.3f}", str(r["rank"])] for r in result["per_problem"]]
    text = table_text(["problem", "pick", "efficiency", "rank"], rows)
    s = {k: result[k] for k in SUMMARY_KEYS}
    pct = lambda v: "-" if v is None else f"{100 * v:.1f}%"  # noqa: E731
    return (text + f"{s['problems']} problems: mean {pct(s['mean'])}, median {pct(s['median'])}, "
            f"p10 {pct(s['p10'])}, top-1 {pct(s['top1'])}, top-5 {pct(s['top5'])}\n")
