"""How good a scorer's picks are against measured TFLOPS (``cksolve evaluate``), for every scorer.

The measurement files are read once and checked (``workload.hygiene``: invalid rows
dropped, counted by rule). Candidates are *kernels*, not labels: each label is
resolved to the kernel it measured (``workload.labels``; a label map overrides), the
labels of one kernel are one candidate, and the kernel's measured TFLOPS on a problem
is its best measurement there (as for any repeated pair). Per problem (keyed by its
dimensions), the pick is the kernel the scorer scores highest (ties: the first by
kernel name); a scorer of labels (``Scorer.scores_labels``: a model of CK's feature
semantics) scores each label as CK reads its name and a kernel scores its best label's score.

Figures, over the problems (CK's conventions, ``compare_ml_vs_oracle``):

* efficiency = measured TFLOPS of the pick / the problem's best measured TFLOPS;
  ``mean``, ``median`` (numpy's), ``p10`` = sorted[n // 10], ``min``;
* ``top1``: no kernel measured strictly faster than the pick; ``top5``: fewer than 5 are;
* ``tau``: Kendall's tau-b between the scores and the measured TFLOPS of the problem's
  kernels, averaged over the problems with at least two kernels (None when none has);
* ``baselines.best_single``: always the one kernel with the best mean efficiency over the
  problems (a kernel not measured on a problem counts 0 there; ties: the first by name);
  ``tau`` None (a constant pick ranks nothing);
* ``baselines.random``: a kernel picked uniformly at random, as its expected value (every
  kernel of the problem averaged, not sampled): per problem the mean efficiency and the
  share of kernels in the top 1 / top 5; ``median``, ``p10`` and ``min`` are of those
  per-problem expectations; ``tau`` 0 (a random ranking's expectation).
* ``invalid``: ``{rows, problems, by_rule}`` of the hygiene check.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

from ..errors import CksolveError
from ..progress import phase
from ..features import read_kernel_name
from ..space.variants import VARIANTS
from ..workload.hygiene import Hygiene, HygieneOptions, check_rows
from ..workload.perf import read_measurement_file

__all__ = ["evaluate_scorer", "evaluation_text", "kendall_tau_b", "KEYS"]

#: The result's keys, in order.
KEYS = ("mean", "median", "p10", "min", "top1", "top5", "tau", "problems", "baselines", "invalid")


@dataclass
class _Problem:
    problem: object
    kernels: list  # kernel names, sorted
    measured: np.ndarray  # best measured TFLOPS per kernel
    labels: list  # per kernel: its labels (sorted)
    configs: list  # per kernel: its config


def evaluate_scorer(scorer, paths: Sequence, arch: str, dtype: str | None, options: HygieneOptions | None = None,
                    read: list | None = None) -> tuple[dict, Hygiene]:
    """The figures of ``scorer`` (prepared here for ``arch`` and the kernels' dtype, once the files say it: the one
    place it is validated, ``Scorer.prepare``) on the measurement files
    (module docstring; keys ``KEYS``) and the rows' verdict; ``dtype``: the kernels' (default: the one dtype
    the resolved kernels have); ``read``: each file's rows, when read already."""
    options = options or HygieneOptions(arch)
    rows = []
    for i, p in enumerate(paths):  # the progress bar's phases: the file read, then the steps after, n of N
        phase(f"reading the measurements (file {i + 1} of {len(paths)}): step", 1, 3)
        rows.extend(read_measurement_file(p) if read is None else read[i])
    phase(f"checking {len(rows):,} measured rows: step", 2, 3)
    kept, hygiene = check_rows(rows, options)
    table, dtype = _problems(kept, hygiene, dtype)
    if not table:
        raise CksolveError(f"{', '.join(map(str, paths))}: no valid measurement with tflops > 0 to evaluate on")
    phase(f"scoring the measured kernels of {len(table):,} problems: step", 3, 3)
    scorer.prepare(arch, dtype)
    scores = _scores(scorer, table, hygiene, arch, dtype)
    return _figures(table, scores, hygiene), hygiene


def _problems(rows, hygiene: Hygiene, dtype: str | None) -> tuple[list[_Problem], str]:
    by: dict = {}  # problem -> {kernel: [best tflops, {labels}]}
    dtypes = set()
    for m in rows:
        r = hygiene.labels[m.kernel]
        if r.config is None or m.tflops <= 0:  # kept-invalid unknown labels and failed runs cannot be candidates
            continue
        dtypes.add(r.config.dtype)
        problem = m.problem(VARIANTS[r.config.variant].direction)
        entry = by.setdefault(problem, {}).setdefault(r.kernel, [0.0, set(), r.config])
        entry[0] = max(entry[0], m.tflops)
        entry[1].add(m.kernel)
    if dtype is None:
        if len(dtypes) > 1:
            raise CksolveError(f"the measured kernels are of several dtypes ({', '.join(sorted(dtypes))}): "
                               f"give {{opt:dtype}}")
        dtype = next(iter(dtypes), "fp16")
    table = []
    for problem, kernels in by.items():
        names = sorted(k for k, e in kernels.items() if e[2].dtype == dtype)
        if names:
            table.append(_Problem(problem, names, np.array([kernels[k][0] for k in names]),
                                  [sorted(kernels[k][1]) for k in names], [kernels[k][2] for k in names]))
    return table, dtype


def _scores(scorer, table: list[_Problem], hygiene: Hygiene, arch: str, dtype: str) -> list[np.ndarray]:
    """Each problem's kernels' scores (a scorer of labels, ``Scorer.scores_labels``: its best label's)."""
    by_label = scorer.scores_labels
    pairs, owner = [], []
    for i, t in enumerate(table):
        for j, config in enumerate(t.configs):
            if by_label:
                for label in t.labels[j]:
                    pairs.append((t.problem, read_kernel_name(label)))
                    owner.append((i, j))
            else:
                pairs.append((t.problem, config))
                owner.append((i, j))
    got = scorer.score(pairs, arch, dtype)
    out = [np.full(len(t.kernels), -np.inf) for t in table]
    for (i, j), s in zip(owner, got):
        out[i][j] = max(out[i][j], float(s))
    return out


def _stats(effs: np.ndarray, top1: float, top5: float, tau) -> dict:
    s = np.sort(effs)
    return {"mean": float(np.mean(effs)), "median": float(np.median(effs)), "p10": float(s[len(s) // 10]),
            "min": float(s[0]), "top1": top1, "top5": top5, "tau": tau}


def _figures(table: list[_Problem], scores: list[np.ndarray], hygiene: Hygiene) -> dict:
    effs, ranks, taus = [], [], []
    every = sorted({k for t in table for k in t.kernels})
    single = np.zeros((len(table), len(every)))  # efficiency of always picking each kernel
    rand_eff, rand_top1, rand_top5 = [], [], []
    for i, (t, s) in enumerate(zip(table, scores)):
        best = t.measured.max()
        pick = int(np.argmax(s))  # the first maximum: kernels are in name order
        faster = np.array([np.count_nonzero(t.measured > v) for v in t.measured])
        effs.append(t.measured[pick] / best)
        ranks.append(1 + faster[pick])
        if len(t.kernels) > 1:
            tau = kendall_tau_b(s, t.measured)
            if tau is not None:
                taus.append(tau)
        for k, e in zip(t.kernels, t.measured / best):
            single[i, every.index(k)] = e
        rand_eff.append(float(np.mean(t.measured / best)))
        rand_top1.append(float(np.mean(faster == 0)))
        rand_top5.append(float(np.mean(faster < 5)))
    effs, ranks = np.array(effs), np.array(ranks)
    out = _stats(effs, float(np.mean(ranks == 1)), float(np.mean(ranks <= 5)),
                 float(np.mean(taus)) if taus else None)
    out["problems"] = len(table)
    means = single.mean(axis=0)
    b = int(np.argmax(means))
    column = single[:, b]
    ranks_b = []
    for i, t in enumerate(table):
        if every[b] in t.kernels:
            v = t.measured[t.kernels.index(every[b])]
            ranks_b.append(1 + int(np.count_nonzero(t.measured > v)))
        else:
            ranks_b.append(len(t.kernels) + 1)
    ranks_b = np.array(ranks_b)
    best_single = {"kernel": every[b], **_stats(column, float(np.mean(ranks_b == 1)), float(np.mean(ranks_b <= 5)),
                                                None)}
    rand = _stats(np.array(rand_eff), float(np.mean(rand_top1)), float(np.mean(rand_top5)), 0.0)
    out["baselines"] = {"best_single": best_single, "random": rand}
    out["invalid"] = hygiene.invalid()
    return {k: out[k] for k in KEYS}


def kendall_tau_b(x: np.ndarray, y: np.ndarray) -> float | None:
    """Kendall's tau-b of two equally long sequences (ties in either count as neither concordant nor
    discordant, and shrink the denominator); None when either is constant."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    i, j = np.triu_indices(len(x), 1)
    dx, dy = np.sign(x[i] - x[j]), np.sign(y[i] - y[j])
    n0 = len(i)
    tx, ty = np.count_nonzero(dx == 0), np.count_nonzero(dy == 0)
    denom = np.sqrt(float(n0 - tx) * float(n0 - ty))
    return None if denom == 0 else float(np.sum(dx * dy) / denom)


def evaluation_text(result: dict, what: str) -> str:
    """The table: the scorer's figures and the two baselines', one line each."""
    pct = lambda v: "-" if v is None else f"{100 * v:.1f}%"  # noqa: E731
    tau = lambda v: "-" if v is None else f"{v:.3f}"  # noqa: E731
    head = ["", "mean", "median", "p10", "min", "top-1", "top-5", "tau"]
    lines = [(what, result), ("best single kernel", result["baselines"]["best_single"]),
             ("random kernel (expected)", result["baselines"]["random"])]
    rows = [[name, *(pct(r[k]) for k in ("mean", "median", "p10", "min", "top1", "top5")), tau(r["tau"])]
            for name, r in lines]
    widths = [max(len(str(r[c])) for r in [head, *rows]) for c in range(len(head))]
    fmt = lambda r: "  ".join(str(v).ljust(w) if c == 0 else str(v).rjust(w)  # noqa: E731
                              for c, (v, w) in enumerate(zip(r, widths))).rstrip()
    inv = result["invalid"]
    n = result["problems"]
    tail = (f"{n} problem{'' if n == 1 else 's'}; best single kernel: {result['baselines']['best_single']['kernel']}; "
            f"tau: Kendall's tau-b per problem, averaged\n")
    if inv["rows"]:
        tail += f"invalid rows: {inv['rows']} of {inv['problems']} problem{'' if inv['problems'] == 1 else 's'}\n"
    return "".join(fmt(r) + "\n" for r in [head, *rows]) + tail
