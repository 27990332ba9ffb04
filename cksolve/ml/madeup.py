"""MADE-UP measurements for tests and the docs: a documented function of (problem, kernel), with noise.

Nothing here was measured on a GPU, and nothing trained on it says anything
about real hardware. The function exists so that ``train`` -> ``evaluate`` can
be shown to recover a known ranking on problem groups it never saw:

    tflops = 900 * eff_m * eff_n * fill * pipeline[p] * scheduler[s] * size * exp(noise)

with the forward implicit GEMM (M = N*Ho*Wo, N = K, K = C*Y*X, one group),
``eff_m``/``eff_n`` the useful share of the padded M/N tiles, ``fill`` the
share of the last round of workgroups over 256 CUs, ``size`` = min(1,
flops/2e10)^0.25 and noise normal with sigma 0.05. Rows are written as CK's
tile-engine CSV (24 columns, short kernel names, some with ``_gm2``; ``non_zero``: every output
element, as a run that wrote its output counts) plus a 25th, ``run_id``, that is ``made_up`` on every
row: CK's converter (``convert_csv_to_parquet.py``) ignores a ``run_id`` column, and cksolve carries
it, so what is trained on these rows says so (``train_manifest.json``'s ``made_up``, ``train``'s line).

``python -m cksolve.ml.madeup --problems 40 --seed 1 > made_up.csv``
"""

from __future__ import annotations

import argparse
import math
import sys

import numpy as np

from ..workload.perf import MADE_UP
from ..formats import csv_writer
from ..workload.problem_facts import output_sizes
from .training_data import CK_COLUMNS

__all__ = ["made_up_rows", "write_csv", "made_up_tflops", "MADE_UP_COLUMNS", "TILES", "PIPELINE", "SCHEDULER"]

#: the columns ``main`` writes: CK's, then ``run_id`` (``MADE_UP`` on every row)
MADE_UP_COLUMNS = (*CK_COLUMNS, "run_id")

TILES = ((64, 64, 64), (128, 128, 64), (128, 64, 64), (64, 128, 64), (256, 128, 32), (128, 256, 32),
         (256, 256, 32), (16, 64, 64), (32, 64, 64), (64, 32, 64), (32, 32, 64), (256, 64, 64))
PIPELINE = {"compv3": 1.0, "compv4": 1.08, "compv5": 0.93, "mem": 0.8, "basic_v1": 0.55}
SCHEDULER = {"intrawave": 1.0, "interwave": 0.9}


def _output_hw(p: dict) -> tuple:
    return output_sizes((p["Hi"], p["Wi"]), (p["Y"], p["X"]), (p["stride_h"], p["stride_w"]), (p["pad_h"], p["pad_w"]),
                        (p["dilation_h"], p["dilation_w"]))


def made_up_tflops(p: dict, tile: tuple, pipeline: str, scheduler: str) -> float:
    ho, wo = _output_hw(p)
    m, n, k = p["N"] * ho * wo, p["K"], p["C"] * p["Y"] * p["X"]
    tm, tn, _tk = tile
    em = m / (math.ceil(m / tm) * tm)
    en = n / (math.ceil(n / tn) * tn)
    wg = math.ceil(m / tm) * math.ceil(n / tn)
    fill = wg / (math.ceil(wg / 256) * 256)
    size = min(1.0, 2.0 * m * n * k / 2e10) ** 0.25
    return 900.0 * em * en * fill * PIPELINE[pipeline] * SCHEDULER[scheduler] * size


def _problem(rng) -> dict:
    hw = int(rng.choice([7, 14, 28, 56]))
    y = int(rng.choice([1, 3]))
    stride = int(rng.choice([1, 1, 2]))
    return {"N": int(rng.choice([1, 2, 4, 8, 16, 32])), "C": int(rng.choice([64, 128, 256, 512, 1024])),
            "K": int(rng.choice([64, 128, 256, 512, 1024])), "G": 1, "Di": 1, "Hi": hw, "Wi": hw, "Z": 1,
            "Y": y, "X": y, "stride_d": 1, "stride_h": stride, "stride_w": stride, "pad_d": 0, "pad_h": y // 2,
            "pad_w": y // 2, "dilation_d": 1, "dilation_h": 1, "dilation_w": 1}


def made_up_rows(problems: int, seed: int, kernels_per_problem: int = 40, dtype: str = "bf16"):
    """CK-CSV rows (tuples in ``CK_COLUMNS`` order) of ``problems`` random problems, MADE UP (module docstring)."""
    rng = np.random.default_rng(seed)
    kernels = [(t, p, s, gm) for t in TILES for p in PIPELINE for s in SCHEDULER for gm in (1, 2)]
    for idx in range(problems):
        p = _problem(rng)
        chosen = sorted(rng.choice(len(kernels), size=min(kernels_per_problem, len(kernels)), replace=False))
        for j in chosen:
            tile, pipe, sched, gm = kernels[j]
            name = (f"grouped_conv_forward_{dtype}_2d_{tile[0]}x{tile[1]}x{tile[2]}_{pipe}_{sched}"
                    + ("_gm2" if gm == 2 else ""))
            tflops = made_up_tflops(p, tile, pipe, sched) * (0.97 if gm == 2 else 1.0)
            tflops *= math.exp(rng.normal(0.0, 0.05))
            flops = 2.0 * p["N"] * p["K"] * p["C"] * p["Y"] * p["X"] * p["Hi"] * p["Wi"] / p["stride_h"] ** 2
            ms = flops / (tflops * 1e9)
            written = p["N"] * p["K"] * math.prod(_output_hw(p))
            yield (name, idx, p["N"], p["C"], p["K"], p["G"], p["Di"], p["Hi"], p["Wi"], p["Z"], p["Y"], p["X"],
                   p["stride_d"], p["stride_h"], p["stride_w"], p["pad_d"], p["pad_h"], p["pad_w"], p["dilation_d"],
                   p["dilation_h"], p["dilation_w"], round(ms, 6), round(tflops, 4), written)


def write_csv(out, problems: int, seed: int, kernels_per_problem: int = 40) -> None:
    """``made_up_rows`` as CK's CSV with ``run_id`` = made_up on every row (module docstring), to ``out`` (a text
    stream or a path): the one writer of made-up files, so whatever is trained on them says so."""
    if not hasattr(out, "write"):
        with open(out, "w", newline="", encoding="utf-8") as f:
            return write_csv(f, problems, seed, kernels_per_problem)
    writer = csv_writer(out)
    writer.writerow(MADE_UP_COLUMNS)
    writer.writerows((*row, MADE_UP) for row in made_up_rows(problems, seed, kernels_per_problem))


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description="Write MADE-UP measurements (CK's benchmark CSV) to stdout.")
    ap.add_argument("--problems", type=int, default=40)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--kernels", type=int, default=40, help="kernels measured per problem")
    args = ap.parse_args(argv)
    write_csv(sys.stdout, args.problems, args.seed, args.kernels)


if __name__ == "__main__":
    main()
