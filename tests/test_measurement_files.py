"""One reader of measurement files (``workload.perf.read_measurement_file``): every command that reads one
(``minimize --perf``, ``train``, ``evaluate``, ``select``/``search --measurements``) refuses the same
malformed cell with the same error line, exit 2; and ``minimize --perf`` reads its file once (a FIFO works).

Every measurement here is MADE UP.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from test_cli import GOOD, run

ROOT = Path(__file__).resolve().parents[1]
PROBLEM = "N=1,C=64,K=128"
HEADER = "N,G,C,K,kernel,tflops\n"

# (id, file text, line of the error, start of the message after "file:line: ")
CELLS = [
    ("underscore", f"{HEADER}1,1,64,128,{GOOD},1_0\n", 2, "field tflops: '1_0' is not a number"),
    ("arabic", f"{HEADER}1,1,64,128,{GOOD},\u0661\u0660\n", 2, "field tflops: '\u0661\u0660' is not a number"),
    ("word-true", f"{HEADER}1,1,64,128,{GOOD},true\n", 2, "field tflops: 'true' is not a number"),
    ("nan", f"{HEADER}1,1,64,128,{GOOD},nan\n", 2, "field tflops: 'nan' is not a number"),
    ("json-true", f'{{"N": 1, "C": 64, "K": 128, "kernel": "{GOOD}", "tflops": true}}\n', 1,
     "field tflops: true is not a number"),
    ("negative", f"{HEADER}1,1,64,128,{GOOD},-1\n", 2, "field tflops: -1.0 must not be negative"),
    ("arabic-field", f"{HEADER}\u0661,1,64,128,{GOOD},1\n", 2,
     "field N: not an integer (expected decimal ASCII digits, at most 18)"),  # a cell: named, not echoed
    ("json-true-field", f'{{"N": true, "C": 64, "K": 128, "kernel": "{GOOD}", "tflops": 1}}\n', 1,
     "field N: not an integer (expected decimal ASCII digits, at most 18)"),
    ("unknown-column", f"N,C,K,kernel,speed\n1,64,128,{GOOD},1\n", 1, "column 5 of the header is not a column name"),
    ("unknown-json-key", f'{{"N": 1, "C": 64, "K": 128, "kernel": "{GOOD}", "tflops": 1, "speed": 2}}\n', 1,
     "unknown field 'speed'"),
    ("column-twice", f"N,C,K,kernel,tflops,tflops\n1,64,128,{GOOD},1,2\n", 1, "column 'tflops' given twice"),
    ("no-kernel", "N,C,K,kernel,tflops\n1,64,128,,1\n", 2, "no 'kernel' value"),
    ("no-score", f"N,C,K,kernel\n1,64,128,{GOOD}\n", 2, "needs 'tflops' or 'time_ms'"),
]


def _commands(d: Path, f: Path, model: Path | None) -> dict[str, list[str]]:
    workload = d / "w.csv"
    workload.write_text("N,G,C,K\n1,1,64,128\n", encoding="utf-8")
    out = {
        "minimize": ["minimize", "--problems", str(workload), "-r", "default", "-a", "gfx942", "--dtype", "fp16",
                     "--perf", str(f)],
        "train": ["train", "--measurements", str(f), "--arch", "gfx942", "--dtype", "fp16", "--variant", "forward",
                  "--out", str(d / "model")],
        "select": ["select", "--problem", PROBLEM, "-r", "tiny", "-a", "gfx942", "--dtype", "fp16",
                   "--measurements", str(f)],
        "search": ["search", "--problem", PROBLEM, "-r", "tiny", "-a", "gfx942", "--dtype", "fp16",
                   "--measurements", str(f)],
    }
    if model is not None:
        out["evaluate"] = ["evaluate", "--model", str(model), "--measurements", str(f)]
    return out


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    """A small model (MADE-UP data) for ``evaluate``; None without lightgbm."""
    try:
        import lightgbm  # noqa: F401
    except ImportError:
        return None
    from cksolve.ml.madeup import made_up_rows
    from cksolve.ml.training_data import CK_COLUMNS
    from cksolve.ml.training import train

    d = tmp_path_factory.mktemp("model")
    csv = d / "m.csv"
    csv.write_text(",".join(CK_COLUMNS) + "\n" + "".join(",".join(map(str, r)) + "\n"
                                                        for r in made_up_rows(8, 1, 6)), encoding="utf-8")
    train([csv], "gfx950", "bf16", "forward", d / "model", seed=1, folds=0, trees=3)
    return d / "model"


@pytest.mark.parametrize("case", [c[0] for c in CELLS])
def test_every_command_refuses_a_bad_cell_alike(tmp_path, capsys, model, case):
    _, text, line, start = next(c for c in CELLS if c[0] == case)
    f = tmp_path / "m.txt"
    f.write_text(text, encoding="utf-8")
    want = f"cksolve: error: {f}:{line}: {start}"
    got = {}
    for name, argv in _commands(tmp_path, f, model).items():
        code, out, err = run(capsys, *argv)
        got[name] = (code, out, err)
    wrong = {name: err for name, (code, out, err) in got.items()
             if code != 2 or out or err.count("\n") != 1 or not err.startswith(want)}
    assert not wrong, f"{case}: want {want!r}; got {wrong}"


def test_the_reader_is_one_function():
    """``ml.training_data`` and ``workload.perf`` read files with the same function and state numbers once."""
    import cksolve.ml.training_data as ml
    import cksolve.workload.perf as perf

    assert ml.read_measurement_file is perf.read_measurement_file
    assert not hasattr(ml, "_number") and not hasattr(ml, "_int") and not hasattr(ml, "_rows")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_minimize_perf_reads_a_fifo_once(tmp_path):
    """``minimize --perf FIFO``: the file is read once (a second open would wait for a writer that is gone)."""
    from cksolve.rulesets import get_rule_set
    from cksolve.workload import applicable, parse_problem

    p = parse_problem("N=8,C=64,K=64,pad_h=1,pad_w=1")
    names = applicable(p, get_rule_set("tiny"), "gfx942", "fp16")
    favourite = names[len(names) // 2]
    text = "N,C,K,pad_h,pad_w,kernel,tflops\n" + "".join(
        f"8,64,64,1,1,{n},{100 if n == favourite else 10}\n" for n in names)
    workload = tmp_path / "w.csv"
    workload.write_text("N,C,K,pad_h,pad_w\n8,64,64,1,1\n", encoding="utf-8")
    fifo = tmp_path / "perf.fifo"
    os.mkfifo(fifo)

    def write():
        try:
            with open(fifo, "w", encoding="utf-8") as fh:
                fh.write(text)
        except BrokenPipeError:
            pass

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    try:
        r = subprocess.run([sys.executable, "-m", "cksolve", "minimize", "--problems", str(workload), "-r", "tiny",
                            "-a", "gfx942", "--dtype", "fp16", "--perf", str(fifo), "--keep", "1.0"],
                           capture_output=True, text=True, env=env, cwd=ROOT, timeout=60)
    finally:
        try:  # a writer still waiting for a reader can finish
            os.close(os.open(fifo, os.O_RDONLY | os.O_NONBLOCK))
        except OSError:
            pass
        writer.join(5)
    assert r.returncode == 0, r.stderr[-400:]
    assert r.stdout.split() == [favourite], (r.stdout, r.stderr[-400:])
