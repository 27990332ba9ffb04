"""minimize's limits: signals stop CP-SAT, a default time limit bounds every stage, odd values give one line.

The signal tests run a CP-SAT model that takes far longer than the test waits
(a random assignment with knapsack side constraints, capped at 60 s) through
``minimize._run``, the one place minimize calls ``Solve``.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from cksolve.errors import CksolveError
from cksolve.workload.minimize import DEFAULT_TIME_LIMIT, MAX_KERNELS, Request

from conftest import CK

ROOT = Path(__file__).resolve().parents[1]
HOLDOUT = CK / "workloads" / "validation_holdout.csv"

HARD = textwrap.dedent("""
    import random, sys
    from ortools.sat.python import cp_model
    from cksolve.workload.minimize import _run, _solver

    def hard():
        m, r, n = cp_model.CpModel(), random.Random(1), 60
        x = [[m.NewBoolVar("") for _ in range(n)] for _ in range(n)]
        for i in range(n):
            m.AddExactlyOne(x[i])
        for j in range(n):
            m.AddAtMostOne(x[i][j] for i in range(n))
        for _ in range(40):
            m.Add(sum(r.randint(1, 50) * x[i][j] for i in range(n) for j in range(n) if r.random() < 0.3) <= 800)
        m.Maximize(sum(r.randint(0, 1000) * x[i][j] for i in range(n) for j in range(n)))
        return m
""")


def _start(script: str) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=env, cwd=ROOT)


@pytest.mark.parametrize("signum, code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_signal_stops_the_solver_within_2s(signum, code):
    # cksolve's own handlers (entry.py), as the console script installs them, then a long solve.
    script = ("import signal\nfrom cksolve.entry import _stop\n"
              "for s in (signal.SIGINT, signal.SIGTERM): signal.signal(s, _stop)\n" + HARD +
              "print('solving', flush=True)\n_run(_solver(60.0), hard())\nprint('finished')\n")
    proc = _start(script)
    assert proc.stdout.readline().strip() == "solving"
    time.sleep(1.0)  # inside Solve by now
    assert proc.poll() is None, "the model solved too fast to test an interrupt"
    t0 = time.monotonic()
    proc.send_signal(signum)
    out, err = proc.communicate(timeout=10)
    took = time.monotonic() - t0
    assert proc.returncode == code, (proc.returncode, err)
    assert took < 2.0, f"exit {took:.2f} s after {signal.Signals(signum).name}"
    assert err.strip().splitlines() == [f"cksolve: interrupted by {signal.Signals(signum).name}"], err
    assert "finished" not in out


def test_keyboard_interrupt_stops_the_search():
    # A library caller's default SIGINT handler raises KeyboardInterrupt: the search is stopped, not left running.
    script = HARD + textwrap.dedent("""
        import threading, time, os, signal
        threading.Timer(1.0, lambda: os.kill(os.getpid(), signal.SIGINT)).start()
        t0 = time.monotonic()
        try:
            _run(_solver(60.0), hard())
        except KeyboardInterrupt:
            took = round(time.monotonic() - t0, 1)
            end = time.monotonic() + 10  # StopSearch is asynchronous: the worker ends soon after, not at once
            while time.monotonic() < end and any(t.name == "cp-sat" for t in threading.enumerate()):
                time.sleep(0.05)
            alive = [t.name for t in threading.enumerate() if t.name == "cp-sat"]
            print("interrupted", took, alive)
    """)
    proc = _start(script)
    out, err = proc.communicate(timeout=30)
    assert out.startswith("interrupted"), (out, err)
    seconds = float(out.split()[1])
    assert seconds < 3.0 and out.strip().endswith("[]"), out


def test_default_time_limit_is_in_force():
    assert Request().seconds == DEFAULT_TIME_LIMIT
    assert Request(time_limit=5).seconds == 5


@pytest.mark.parametrize("kwargs, message", [
    (dict(max_kernels=99999999999999999999), "^max_kernels 99999999999999999999 is too large"),
    (dict(max_kernels=2 ** 63), "is too large"),
    (dict(max_kernels=MAX_KERNELS + 1), "is too large"),
])
def test_odd_requests_are_one_error(kwargs, message):
    """The library names the parameter; the command line (``for_flag``) names the flag."""
    with pytest.raises(CksolveError, match=message) as caught:
        Request(**kwargs)
    assert caught.value.for_flag().startswith("--max-kernels ")


def _cli(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "cksolve", *args], capture_output=True, text=True, env=env,
                          cwd=ROOT, timeout=300)


def _perf(tmp_path: Path, column: str, first: str, rest: str) -> tuple[Path, Path]:
    from cksolve import query
    from cksolve.workload import applicable, read_problems

    problems = read_problems(HOLDOUT)[:3]
    rs = query.load_rule_set("full")
    rows = [f"N,G,C,K,Hi,Wi,Y,X,pad_h,pad_w,kernel,{column}"]
    for p in problems:
        for i, k in enumerate(applicable(p, rs, "gfx942", "fp16")[:3]):
            rows.append(f"{p.N},{p.G},{p.C},{p.K},{p.Hi},{p.Wi},{p.Y},{p.X},{p.pad_h},{p.pad_w},{k},"
                        f"{first if i == 0 else rest}")
    perf = tmp_path / "perf.csv"
    perf.write_text("\n".join(rows) + "\n")
    workload = tmp_path / "w.csv"
    workload.write_text("".join(HOLDOUT.read_text().splitlines(keepends=True)[:4]))
    return workload, perf


@pytest.mark.ck_data
def test_huge_tflops_are_scored(tmp_path):
    workload, perf = _perf(tmp_path, "tflops", "1e306", "1e305")
    r = _cli("minimize", "--problems", str(workload), "-r", "full", "-a", "gfx942", "--dtype", "fp16", "--perf",
             str(perf))
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr
    assert "OPTIMAL is for the count of kernels" in r.stderr


@pytest.mark.ck_data
def test_tiny_time_ms_is_one_error(tmp_path):
    workload, perf = _perf(tmp_path, "time_ms", "1e-320", "1")
    r = _cli("minimize", "--problems", str(workload), "-r", "full", "-a", "gfx942", "--dtype", "fp16", "--perf",
             str(perf))
    assert r.returncode == 2 and r.stderr.count("\n") == 1, r.stderr
    assert "time_ms: 1e-320 is too small" in r.stderr


@pytest.mark.ck_data
def test_tiny_time_limit_is_not_called_infeasible():
    r = _cli("minimize", "--problems", str(HOLDOUT), "-r", "full", "-a", "gfx942", "--dtype", "fp16",
             "--time-limit", "1e-300")
    assert r.returncode == 2 and r.stderr.count("\n") == 1, r.stderr
    assert "infeasible" not in r.stderr and "time limit" in r.stderr, r.stderr


def test_max_kernels_overflow_cli():
    r = _cli("minimize", "--problems", str(HOLDOUT), "-r", "full", "-a", "gfx942", "--max-kernels",
             "99999999999999999999")
    assert r.returncode == 2 and r.stderr == "cksolve: error: --max-kernels 99999999999999999999 is too large " \
                                             "(at most 1000000000)\n", r.stderr
