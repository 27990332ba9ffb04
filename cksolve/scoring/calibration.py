"""``calibrate``: the analytic model's free factors fitted to measured TFLOPS, with problem-grouped
cross-validation.

The model stays the model (``analytic.py``): only the numbers ``factors.toml`` declares free (its ``[free]``
table: a bound per factor) move, each inside its bounds, so a calibrated model still extrapolates to tiles,
pipelines and problems it was not fitted on. The fit:

* **data**: each measured (problem, kernel) pair once: labels that stand for the same kernel (``resolve``)
  are merged (their best TFLOPS, as ``evaluate`` measures a kernel);
* **objective** (``OBJECTIVES``): ``log`` -- within each problem, the squared error of the estimate's log
  TFLOPS against the measured log TFLOPS, both centred on the problem's mean (the model's absolute level
  does not matter to a ranking), problems weighed equally; ``rank`` -- within each problem, for every pair of
  kernels measured more than 5% apart, a logistic loss on the estimate's log ratio, weighed by the measured
  log ratio (a within-problem ranking loss);
* **search**: coordinate descent in log space over the free factors that change any estimate of the data
  (the others keep their value and are not written), from the first-principles values: each factor tried at
  x·e^(±s), the better kept; s halves when a sweep gains nothing; bounded sweeps -- deterministic, numpy only;
* **cross-validation**: problems grouped by CK's key (N_C_K_G_Hi_Wi_Y_X_Di_Z_dilation_h_dilation_w), groups
  dealt to K folds largest first, each to the fold with the fewest rows (the greedy rule of scikit-learn's
  GroupKFold, ties by first appearance); each fold's held-out problems are scored by the factors fitted on
  the others. The figures: per problem, the measured TFLOPS of the kernel the model ranks first over the
  problem's best (ties by name), summarised as ``evaluate`` does (``efficiency``).
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass
from typing import Callable

import numpy as np

from ..arch.facts import arch_facts
from ..errors import CksolveError
from ..formats import table_text
from ..ml.efficiency import picks, summary
from ..ml.folds import GROUP_KEY
from ..progress import phase
from .analytic import COLUMNS, estimate_batch, problem_terms
from .device import device
from .factorfile import (base_factors, calibrated_arch_file, calibration_of, factor_name, flat, free_factors, merged,
                         sha256_of)

__all__ = ["OBJECTIVES", "CalibrationData", "calibration_data", "fit", "cross_validate", "efficiency",
           "group_folds", "factors_text", "MAX_SWEEPS", "calibrate", "calibration_report", "calibration_show", "DEFAULT_FOLDS",
           "DEFAULT_OBJECTIVE"]

OBJECTIVES = ("rank", "log")
DEFAULT_OBJECTIVE = "rank"
DEFAULT_FOLDS = 5
#: coordinate-descent sweeps over the free factors (each tries every factor both ways)
MAX_SWEEPS = 40
_START_STEP = 0.4  # the first step, in log units (x e^0.4 = x 1.5)
_MIN_STEP = 0.01
_RANK_MARGIN = math.log(1.05)  # pairs closer than 5% are noise (the same kernel differs by 6% at P90)


@dataclass
class CalibrationData:
    """The measured pairs as the model's arrays: one row per (problem, kernel)."""

    terms: dict  # problem terms (``problem_terms``), one array element per row
    columns: dict  # config columns (``analytic.COLUMNS``)
    measured: np.ndarray  # TFLOPS
    problem: np.ndarray  # problem index
    group: np.ndarray  # CK's problem group index
    name_rank: np.ndarray  # the kernel's position in name order (ties)
    kernels: list  # kernel names (name order)
    arch: str
    dtype: str
    device: object
    family: str
    warp_size: int
    labels: int = 0  # measured labels read
    rows: int = 0  # measurement rows used

    def subset(self, rows: np.ndarray) -> "CalibrationData":
        pick = lambda v: v[rows] if isinstance(v, np.ndarray) and v.shape[:1] == self.measured.shape else v  # noqa: E731
        return CalibrationData({k: pick(v) for k, v in self.terms.items()}, {k: v[rows] for k, v in self.columns.items()},
                               self.measured[rows], self.problem[rows], self.group[rows], self.name_rank[rows],
                               self.kernels, self.arch, self.dtype, self.device, self.family, self.warp_size,
                               self.labels, self.rows)

    def estimates(self, fx: dict) -> np.ndarray:
        return estimate_batch(self.terms, self.columns, self.device, self.dtype, self.family, self.warp_size,
                              fx)["tflops"]


def calibration_data(measured: dict, resolve: Callable, arch: str, dtype: str, device_name: str | None = None
                     ) -> CalibrationData:
    """``measured``: {problem: {label: TFLOPS}}; ``resolve(label)``: the kernel config the label measured.
    Labels of one kernel are merged (their best); the problem's facts and the config's columns become arrays."""
    dev = device(arch, device_name)
    a = arch_facts(arch)
    configs: dict = {}  # kernel name -> config
    labels = set()
    rows, terms_rows, config_rows, y, pid, gid = 0, [], [], [], [], []
    groups: dict = {}
    for i, (problem, by_label) in enumerate(measured.items()):
        per_kernel: dict = {}
        for label, tflops in by_label.items():
            labels.add(label)
            config = resolve(label)
            name = config.name()
            configs.setdefault(name, config)
            per_kernel.setdefault(name, []).append(tflops)
            rows += 1
        key = tuple(getattr(problem, f) for f in GROUP_KEY)
        g = groups.setdefault(key, len(groups))
        terms = problem_terms(problem.facts())
        for name in sorted(per_kernel):
            terms_rows.append(terms)
            config_rows.append(name)
            y.append(max(per_kernel[name]))  # as evaluate measures a kernel: its best label
            pid.append(i)
            gid.append(g)
    if not y:
        raise CksolveError("no measurement to calibrate on")
    kernels = sorted(configs)
    rank = {n: r for r, n in enumerate(kernels)}
    terms = {k: np.array([t[k] for t in terms_rows], dtype=np.float64 if k == "useful" else np.int64)
             for k in terms_rows[0]}
    columns = {c: np.array([getattr(configs[n], c) for n in config_rows]) for c in COLUMNS}
    return CalibrationData(terms, columns, np.array(y), np.array(pid), np.array(gid),
                           np.array([rank[n] for n in config_rows]), kernels, arch, dtype, dev, a.family,
                           a.warp_size, len(labels), rows)


def efficiency(d: CalibrationData, predicted: np.ndarray) -> dict:
    """mean, median, P10, min, top-1, top-5, problems of the picks ``predicted`` makes (``ml.efficiency``), P10
    as ``evaluate`` gives it (sorted[n // 10], CK's compare_ml_vs_oracle)."""
    _ids, effs, ranks, _rows = picks(d.problem, d.measured, predicted, d.name_rank)
    out = summary(effs, ranks)
    ordered = np.sort(effs)
    return {**out, "p10": float(ordered[len(ordered) // 10]), "min": float(ordered[0])}


def _centred(values: np.ndarray, problem: np.ndarray, counts: np.ndarray) -> np.ndarray:
    return values - (np.bincount(problem, values, minlength=len(counts)) / np.maximum(counts, 1))[problem]


class _Objective:
    """The loss of a factor table on ``d`` (smaller is better)."""

    def __init__(self, d: CalibrationData, kind: str):
        if kind not in OBJECTIVES:
            raise CksolveError(f"unknown objective {kind!r}; valid: {', '.join(OBJECTIVES)}")
        self.d, self.kind = d, kind
        _u, self.problem = np.unique(d.problem, return_inverse=True)
        self.counts = np.bincount(self.problem)
        self.weight = 1.0 / self.counts[self.problem]  # every problem weighs the same
        logy = np.log(d.measured)
        self.target = _centred(logy, self.problem, self.counts)
        if kind == "rank":
            i, j = [], []
            for p in range(len(self.counts)):
                rows = np.flatnonzero(self.problem == p)
                a, b = np.meshgrid(rows, rows, indexing="ij")
                keep = logy[a] - logy[b] > _RANK_MARGIN
                i.append(a[keep])
                j.append(b[keep])
            self.i, self.j = np.concatenate(i), np.concatenate(j)
            gap = logy[self.i] - logy[self.j]
            self.pair_weight = gap / self.counts[self.problem[self.i]] ** 2

    def __call__(self, fx: dict) -> float:
        est = self.d.estimates(fx)
        if not np.all(np.isfinite(est)) or np.any(est <= 0):
            return math.inf
        loge = np.log(est)
        if self.kind == "log":
            r = _centred(loge, self.problem, self.counts) - self.target
            return float(np.sum(self.weight * r * r) / len(self.counts))
        margin = loge[self.i] - loge[self.j]
        return float(np.sum(self.pair_weight * np.logaddexp(0.0, -margin * 10.0)) / len(self.counts))


def _sensitive(d: CalibrationData, base: dict, free: dict) -> list:
    """The free factors whose change moves some estimate of ``d`` (the others cannot be fitted on it)."""
    ref = d.estimates(base)
    leaves = flat(base)
    out = []
    for path, (low, high) in free.items():
        probes = (low, (low + high) / 2, high) if low == 0 else (low, math.sqrt(low * high), high)
        if any(not np.allclose(d.estimates(merged(base, {path: p})), ref, rtol=1e-12, atol=0.0)
               for p in probes if p != leaves[path]):
            out.append(path)
    return out


def fit(d: CalibrationData, objective: str = DEFAULT_OBJECTIVE, start: dict | None = None, sweeps: int = MAX_SWEEPS
        ) -> tuple[dict, list, float]:
    """(fitted values: path -> value, the factors fitted, final loss) from ``start`` (default: factors.toml)."""
    base = base_factors() if start is None else start
    free = free_factors()
    loss = _Objective(d, objective)
    names = _sensitive(d, base, free)
    leaves = flat(base)
    x = {p: _start(leaves[p], *free[p]) for p in names}
    best = loss(merged(base, x))
    step = _START_STEP
    for _ in range(sweeps):
        gained = False
        for p in names:
            low, high = free[p]
            for sign in (1.0, -1.0):
                # log space, or linear (in quarters of the range) for a factor whose range starts at 0
                moved = x[p] * math.exp(sign * step) if low > 0 else x[p] + sign * step * (high - low) / 4
                trial = min(max(moved, low), high)
                if trial == x[p]:
                    continue
                got = loss(merged(base, {**x, p: trial}))
                if got < best - 1e-12:
                    best, x[p], gained = got, trial, True
                    break
        if not gained:
            step /= 2
            if step < _MIN_STEP:
                break
    return {p: _rounded(v) for p, v in x.items()}, names, best


def _start(value: float, low: float, high: float) -> float:
    """Where a factor's fit starts: its table value inside its bounds; a term the table leaves out (0) at the
    geometric middle of its bounds."""
    if value == 0 and low > 0:
        return math.sqrt(low * high)
    return float(min(max(value, low), high))


def _rounded(v: float) -> float:
    """Four significant digits: the written file is the fit's numbers, its bytes the same on every machine."""
    return float(f"{v:.4g}")


def group_folds(groups: np.ndarray, folds: int) -> list[np.ndarray]:
    """Row indices of each fold's held-out rows: the module docstring's GroupKFold rule."""
    ids, first, sizes = np.unique(groups, return_index=True, return_counts=True)
    if folds < 2 or len(ids) < folds:
        raise CksolveError(f"{{opt:folds}} {folds}: need at least 2 folds and no more than the "
                           f"{len(ids)} problem groups")
    order = sorted(range(len(ids)), key=lambda g: (-sizes[g], first[g]))
    load = [0] * folds
    fold_of = np.empty(len(ids), dtype=np.int64)
    for g in order:
        f = min(range(folds), key=lambda k: (load[k], k))
        fold_of[g] = f
        load[f] += sizes[g]
    at = fold_of[np.searchsorted(ids, groups)]
    return [np.flatnonzero(at == f) for f in range(folds)]


def cross_validate(d: CalibrationData, folds: int, objective: str = DEFAULT_OBJECTIVE) -> dict:
    """Held-out figures before (factors.toml) and after calibration (factors fitted on the other folds)."""
    base = base_factors()
    before = np.empty(len(d.measured))
    after = np.empty(len(d.measured))
    held_out = group_folds(d.group, folds)
    for k, held in enumerate(held_out, 1):
        phase("cross-validating the factors: fold", k, len(held_out))
        train = np.setdiff1d(np.arange(len(d.measured)), held)
        values, _names, _loss = fit(d.subset(train), objective)
        test = d.subset(held)
        before[held] = test.estimates(base)
        after[held] = test.estimates(merged(base, values))
    return {"before": efficiency(d, before), "after": efficiency(d, after)}


def _value_text(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, list):
        return "[" + ", ".join(_value_text(x) for x in v) + "]"
    return repr(float(v)) if isinstance(v, float) else str(v)


def _string(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def factors_text(values: dict, provenance: dict) -> str:
    """A factors file (TOML): the ``[calibration]`` provenance, then each fitted value under its table, in the
    order of ``[free]``; no date, so the bytes are a function of the inputs."""
    lines = ["# A calibration of the analytic model's factors (cksolve calibrate): the values below replace",
             "# factors.toml's; every other factor keeps its first-principles value.", "", "[calibration]"]
    for key, value in provenance.items():
        if isinstance(value, dict):
            inner = ", ".join(f"{k} = {_value_text(v) if not isinstance(v, str) else _string(v)}"
                              for k, v in value.items())
            lines.append(f"{key} = {{ {inner} }}")
        elif isinstance(value, list):
            lines.append(f"{key} = [" + ", ".join(_string(v) for v in value) + "]")
        elif isinstance(value, str):
            lines.append(f"{key} = {_string(value)}")
        else:
            lines.append(f"{key} = {_value_text(value)}")
    tables: dict = {}
    for path, value in values.items():
        tables.setdefault(path[:-1], []).append((path[-1], value))
    for table, items in tables.items():
        lines += ["", f"[{factor_name(table)}]"]
        lines += [f"{factor_name((k,))} = {_value_text(v)}" for k, v in items]
    return "\n".join(lines) + "\n"


def calibrate(paths: list, arch: str, dtype: str, folds: int = DEFAULT_FOLDS, objective: str = DEFAULT_OBJECTIVE,
              device_name: str | None = None, hygiene=None) -> dict:
    """Fit ``arch``'s free factors to the measurement files ``paths``, their rows checked and their labels
    resolved by ``hygiene`` (``workload.HygieneOptions``; default: the arch's, every invalid row excluded);
    cross-validate with ``folds`` problem-grouped folds (0: none). The result: ``values`` (path -> value),
    ``text`` (the factors file), ``cv``, ``verdict`` (``workload.Hygiene``), the data's size."""
    from ..ml.training_data import measurements_of  # deferred: the readers load for this command only
    from ..workload.hygiene import HygieneOptions, check_rows  # deferred: as above
    from ..workload.perf import read_measurement_file  # deferred: as above

    if objective not in OBJECTIVES:
        raise CksolveError(f"unknown {{opt:objective}} {objective!r}; valid: {', '.join(OBJECTIVES)}")
    if folds != 0 and folds < 2:
        raise CksolveError(f"{{opt:folds}} {folds} must be 0 (no cross-validation) or at least 2")
    hygiene = hygiene or HygieneOptions(arch)
    digests, rows = [], []
    for path in paths:
        rows.extend(read_measurement_file(path))
        try:
            with open(path, "rb") as f:
                digests.append(sha256_of(f.read()))
        except OSError:  # a FIFO read already: its rows are all there is
            digests.append("")
    phase(f"checking {len(rows):,} measured rows")
    resolver = hygiene.resolver()
    kept, verdict = check_rows(rows, hygiene, resolver)
    m = measurements_of(kept, dtype=dtype)
    if not m.by_problem:
        raise CksolveError(f"{', '.join(map(str, paths))}: no valid measurement with tflops > 0 to calibrate on")
    d = calibration_data(m.by_problem, resolver.config, arch, dtype, device_name)
    d.rows = m.rows  # every row used (a repeated measurement of a pair is one pair of the data)
    cv = cross_validate(d, folds, objective) if folds else None
    # the last of the fits, after one per cross-validation fold: n of N over every fit of the run
    phase(f"fitting the factors on {len(d.kernels):,} kernels' measurements: fit", folds + 1, folds + 1)
    values, names, loss = fit(d, objective)
    leaves = flat(base_factors())
    command = (f"cksolve calibrate {' '.join(f'--measurements {os.path.basename(str(p))}' for p in paths)} "
               f"--arch {arch} --dtype {dtype}" + (f" --device {device_name}" if device_name else "")
               + f" --folds {folds} --objective {objective}")
    provenance = {"source": ", ".join(os.path.basename(str(p)) for p in paths), "source_sha256": ", ".join(digests),
                  "arch": arch, "dtype": dtype, "device": d.device.name, "objective": objective,
                  "problems": int(len(np.unique(d.problem))), "kernels": len(d.kernels), "rows": d.rows,
                  "folds": folds, "fitted": [factor_name(p) for p in names], "command": command}
    if verdict.invalid_rows:  # the rows the checks refused (kept with --keep-invalid)
        provenance["invalid_rows"] = verdict.invalid_rows
        provenance["kept_invalid"] = verdict.kept_invalid
    if cv is not None:
        provenance["cv_before"] = _figures(cv["before"])
        provenance["cv_after"] = _figures(cv["after"])
    return {"values": values, "before": {p: leaves[p] for p in values}, "fitted": names, "loss": loss, "cv": cv,
            "folds": folds, "objective": objective, "provenance": provenance, "text": factors_text(values, provenance),
            "problems": provenance["problems"], "kernels": len(d.kernels), "labels": d.labels, "rows": d.rows,
            "verdict": verdict}


def _figures(s: dict) -> dict:
    return {k: round(s[k], 4) for k in ("mean", "p10", "top1")}


def calibration_report(result: dict, fmt: str, out: str) -> str:
    """What ``calibrate`` prints: the fitted factors beside factors.toml's, and the cross-validated figures."""
    cv = result["cv"]
    if fmt == "json":
        doc = {"out": out, "problems": result["problems"], "kernels": result["kernels"], "labels": result["labels"],
               "rows": result["rows"], "invalid": result["verdict"].invalid(), "objective": result["objective"],
               "folds": result["folds"],
               "factors": {factor_name(p): {"before": result["before"][p], "after": v}
                           for p, v in result["values"].items()},
               "cv": None if cv is None else {k: {x: round(y, 4) if isinstance(y, float) else y
                                                  for x, y in cv[k].items()} for k in ("before", "after")}}
        return json.dumps(doc, indent=2) + "\n"
    text = (f"calibrated {len(result['values'])} factors on {result['problems']} problems ({result['kernels']} "
            f"kernels, {result['labels']} labels, {result['rows']} rows; objective {result['objective']}) -> {out}\n")
    text += table_text(["factor", "first principles", "calibrated"],
                       [[factor_name(p), f"{result['before'][p]:g}", f"{v:g}"] for p, v in result["values"].items()])
    if cv is not None:
        pct = lambda v: f"{100 * v:.1f}%"  # noqa: E731
        text += f"cross-validation ({result['folds']} folds by problem group; held-out problems):\n"
        text += table_text(["factors", "mean", "median", "p10", "top-1", "top-5"],
                           [[label, *(pct(cv[k][x]) for x in ("mean", "median", "p10", "top1", "top5"))]
                            for label, k in (("first principles", "before"), ("calibrated", "after"))])
    return text


def calibration_show(archs, fmt: str = "table") -> str:
    """Per arch, where the analytic model's factors come from (``calibrate --show``)."""
    rows = []
    for arch in archs:
        path = calibrated_arch_file(arch)
        rows.append({"arch": arch, "factors": calibration_of(arch) or "first principles (factors.toml)",
                     "file": None if path is None else f"cksolve/scoring/calibrations/{os.path.basename(path)}"})
    if fmt == "json":
        return json.dumps(rows, indent=2) + "\n"
    return table_text(["arch", "factors"], [[r["arch"], r["factors"]] for r in rows])
