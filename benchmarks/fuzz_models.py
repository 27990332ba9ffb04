"""Fuzz the model-file check: hostile LightGBM text models never kill or hang a model command.

    python benchmarks/fuzz_models.py                 # 10^4 random edits + every truncation, a model `train` writes
    python benchmarks/fuzz_models.py -n 500 --model DIR/model_tflops.lgbm --seed 3

Mutants of a real model (by default one ``cksolve train`` writes from made-up
measurements, ``cksolve.ml.madeup``, 20 trees): truncations at every tree
boundary (before each ``Tree=`` line, after each tree's last line, mid-tree)
and random edits (a byte replaced, inserted or deleted; a number replaced by
another -- an index out of range, a negative one, a huge one, nan, inf; a line
deleted, duplicated or swapped with another). Each mutant is checked in this
process (``cksolve.ml.textmodel``); those the check accepts are loaded and
predicted by LightGBM in a child process (batched; a child that dies by a signal
or stops reporting within ``--timeout`` seconds is counted and replaced). The
report counts: refused (and refusals that were not one line), loaded and
predicted, refused by LightGBM after the check, signal deaths, hangs, and the
slowest check (a check over a second counts as slow: the check itself must not
hang on a hostile file).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import select
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from cksolve.errors import CksolveError
from cksolve.ml.textmodel import check_model_text

_NUMBER = re.compile(rb"-?\d+(?:\.\d+)?(?:e[-+]?\d+)?")
_NASTY = [b"-1", b"-2", b"0", b"1", b"2", b"97", b"96", b"255", b"-256", b"2147483647", b"-2147483648",
          b"99999999999", b"nan", b"inf", b"-inf", b"1e999", b"", b" ", b"  0", b"1.5", b"-0"]

CHILD = r"""
import sys, numpy as np
from cksolve.ml.lgbm import lightgbm, native_quiet
from cksolve.ml.leafsum import leaf_sum
lgb = lightgbm(passive=True)
rng = np.random.default_rng(0)
for line in sys.stdin:
    i, path = line.split(" ", 1)
    text = open(path.strip(), encoding="utf-8").read()
    try:
        with native_quiet():
            b = lgb.Booster(model_str=text)
        x = rng.normal(size=(64, b.num_feature())) * 100
        x[::5] = np.nan
        x[1::7] = np.round(x[1::7])
        b.predict(x, num_threads=1)
        fast = leaf_sum(b, text)
        if fast is not None:
            fast.predict(x, 1)
        status = "ok"
    except Exception as exc:
        status = "lgb-refused"
    print(i, status, flush=True)
"""


def train_small(where: Path) -> bytes:
    """A 20-tree model ``cksolve train`` writes from made-up measurements (``cksolve.ml.madeup``)."""
    from cksolve.ml.madeup import write_csv
    from cksolve.ml.training import train

    csv = where / "made_up.csv"
    write_csv(csv, 40, 3, 30)
    train([csv], "gfx950", "bf16", "forward", where / "model", seed=7, folds=0, trees=20)
    return (where / "model" / "model_tflops.lgbm").read_bytes()


def truncations(data: bytes) -> list[bytes]:
    """The model cut before every ``Tree=`` line, after every tree (its empty lines), mid-tree and mid-line."""
    cuts = set()
    for m in re.finditer(rb"^Tree=", data, re.M):
        cuts.add(m.start())
        end = data.find(b"\n\n", m.start())
        if end >= 0:
            cuts.update((end, end + 1, end + 2))
        mid = data.find(b"\nleft_child=", m.start())
        if mid >= 0:
            cuts.update((mid, mid + 1, mid + 15))
    end = data.find(b"end of trees")
    cuts.update((end, end + 5, len(data) - 1, len(data) // 2, 5))
    return [data[:c] for c in sorted(c for c in cuts if 0 <= c < len(data))]


def edit(data: bytes, rng: random.Random) -> bytes:
    kind = rng.randrange(8)
    if kind == 0:  # a byte replaced
        i = rng.randrange(len(data))
        return data[:i] + bytes([rng.choice(b"0123456789- \n=.e")]) + data[i + 1:]
    if kind == 1:  # a byte inserted or deleted
        i = rng.randrange(len(data))
        return data[:i] + (bytes([rng.randrange(256)]) if rng.random() < .5 else b"") + data[i + 1:]
    lines = data.split(b"\n")
    if kind in (2, 3, 4, 5):  # a number of a tree line replaced
        tree = [k for k, ln in enumerate(lines) if b"=" in ln and not ln.startswith((b"Tree=", b"feature_"))]
        k = rng.choice(tree)
        numbers = list(_NUMBER.finditer(lines[k]))
        if numbers:
            m = rng.choice(numbers)
            new = rng.choice(_NASTY) if kind != 5 else str(rng.randint(-300, 300)).encode()
            lines[k] = lines[k][:m.start()] + new + lines[k][m.end():]
        return b"\n".join(lines)
    k, j = rng.randrange(len(lines)), rng.randrange(len(lines))
    if kind == 6:  # a line deleted or duplicated
        return b"\n".join(lines[:k] + ([lines[k], lines[k]] if rng.random() < .5 else []) + lines[k + 1:])
    lines[k], lines[j] = lines[j], lines[k]  # two lines swapped
    return b"\n".join(lines)


class Runner:
    """Accepted mutants through LightGBM in a child process; a child killed by a signal or silent past
    ``timeout`` is counted against the case it was on and replaced."""

    def __init__(self, timeout: float):
        self.timeout, self.proc = timeout, None
        self.counts = {"ok": 0, "lgb-refused": 0, "signal": 0, "hang": 0, "exit": 0}
        self.deaths: list = []

    def _start(self):
        self.proc = subprocess.Popen([sys.executable, "-c", CHILD], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, text=True, bufsize=1)

    def run(self, cases: list[tuple[int, str]]) -> None:
        pending = list(cases)
        while pending:
            if self.proc is None:
                self._start()
            for i, path in pending:
                self.proc.stdin.write(f"{i} {path}\n")
            self.proc.stdin.flush()
            while pending:
                ready, _, _ = select.select([self.proc.stdout], [], [], self.timeout)
                line = self.proc.stdout.readline() if ready else None
                if line:
                    i, status = line.split()
                    assert int(i) == pending[0][0]
                    self.counts[status] += 1
                    pending.pop(0)
                    continue
                if line is None:  # silent past the timeout: a hang
                    self.proc.kill()
                    kind = "hang"
                else:
                    kind = "signal" if (self.proc.wait() or 0) < 0 else "exit"
                self.proc.wait()
                self.counts[kind] += 1
                self.deaths.append((kind, pending.pop(0)))
                self.proc = None
                break

    def close(self):
        if self.proc is not None:
            self.proc.stdin.close()
            self.proc.wait()


#: seconds over which a check counts as slow (a 20-tree model is checked in milliseconds)
SLOW_CHECK = 1.0


def _timed(report: dict, i: int, began: float) -> None:
    took = time.monotonic() - began
    if took > report["max_check_seconds"]:
        report["max_check_seconds"] = round(took, 4)
    if took > SLOW_CHECK:
        report["slow_checks"] += 1
        report.setdefault("first_slow_check", f"case {i}: {took:.1f} s")


def fuzz(data: bytes, n: int, seed: int, timeout: float = 20.0, batch: int = 200, work: Path | None = None,
         check: bool = True) -> dict:
    """The report (module doc); ``check=False`` sends every mutant to LightGBM unchecked (what the check prevents)."""
    rng = random.Random(seed)
    work = Path(work or tempfile.mkdtemp(prefix="fuzz_models."))
    mutants = truncations(data)
    mutants += [edit(data, rng) for _ in range(n)]
    report = {"cases": len(mutants), "truncations": len(mutants) - n, "refused": 0, "not_one_line": 0,
              "checker_errors": 0, "unchanged": 0, "max_check_seconds": 0.0, "slow_checks": 0}
    runner = Runner(timeout)
    accepted: list = []
    started = time.monotonic()
    for i, m in enumerate(mutants):
        if m == data:
            report["unchanged"] += 1
        began = time.monotonic()
        try:
            if check:
                check_model_text(m, f"case{i}")
        except CksolveError as exc:
            _timed(report, i, began)
            report["refused"] += 1
            msg = str(exc)
            if "\n" in msg or len(msg) > 300:
                report["not_one_line"] += 1
            continue
        except Exception as exc:  # noqa: BLE001 -- a checker bug: a traceback in a command
            report["checker_errors"] += 1
            report.setdefault("first_checker_error", f"case {i}: {type(exc).__name__}: {exc}")
            continue
        _timed(report, i, began)
        path = work / f"case{i}.lgbm"
        path.write_bytes(m)
        accepted.append((i, str(path)))
        if len(accepted) >= batch:
            runner.run(accepted)
            for _, p in accepted:
                os.unlink(p)
            accepted = []
    runner.run(accepted)
    for _, p in accepted:
        os.unlink(p)
    runner.close()
    report.update({"loaded_and_predicted": runner.counts["ok"], "refused_by_lightgbm": runner.counts["lgb-refused"],
                   "signal_deaths": runner.counts["signal"], "hangs": runner.counts["hang"],
                   "child_exits": runner.counts["exit"],
                   "first_deaths": [f"case {i}: {k}" for k, (i, _p) in runner.deaths[:10]],
                   "seconds": round(time.monotonic() - started, 1)})
    return report


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-n", type=int, default=10_000, help="random edits (besides every truncation)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--model", type=Path, help="a LightGBM text model (default: one `train` writes, 20 trees)")
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds a child may go without finishing a case")
    ap.add_argument("--no-check", action="store_true", help="every mutant to LightGBM unchecked (the before)")
    args = ap.parse_args(argv)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    with tempfile.TemporaryDirectory(prefix="fuzz_models.") as tmp:
        data = args.model.read_bytes() if args.model else train_small(Path(tmp))
        report = fuzz(data, args.n, args.seed, args.timeout, work=Path(tmp), check=not args.no_check)
    print(json.dumps(report, indent=2))
    bad = ("signal_deaths", "hangs", "child_exits", "not_one_line", "checker_errors", "slow_checks")
    return 1 if any(report[k] for k in bad) else 0


if __name__ == "__main__":
    sys.exit(main())
