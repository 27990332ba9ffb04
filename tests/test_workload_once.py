"""One reader for every ``--problems`` command: the file is opened and read once (a FIFO, a process
substitution), label columns are accepted everywhere, and a bad header fails before the body is read."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
WORKLOAD = "N,C,K,Hi,Wi\n4,64,64,28,28\n8,128,64,14,14\n"
LABELLED = "model,N,C,K,Hi,Wi,layer\nresnet,4,64,64,28,28,conv1\nresnet,8,128,64,14,14,conv2\n"
#: Each --problems command with options that make it quick.
COMMANDS = {
    "coverage": ["coverage", "-r", "tiny", "-a", "gfx942", "--dtype", "fp16"],
    "minimize": ["minimize", "-r", "tiny", "-a", "gfx942", "--dtype", "fp16"],
    "features": ["features", "-r", "tiny", "-a", "gfx942", "--variant", "forward", "--dtype", "fp16", "--ndim", "2"],
    "report": ["report", "-r", "tiny", "-a", "gfx942", "--dtype", "fp16", "--minimize", "gfx942"],
}
needs_fifo = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")


def _cksolve(args, timeout=120, **kw) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONHASHSEED": "0"}
    return subprocess.run([sys.executable, "-m", "cksolve", *args], capture_output=True, text=True, env=env,
                          cwd=ROOT, timeout=timeout, **kw)


def _writer(path: Path, text: str, hold: threading.Event | None = None) -> threading.Thread:
    """A thread that opens the FIFO, writes ``text`` and (with ``hold``) keeps it open until ``hold`` is set."""
    def write():
        try:
            with open(path, "w", encoding="utf-8") as fh:
                fh.write(text)
                fh.flush()
                if hold is not None:
                    hold.wait(60)
        except BrokenPipeError:
            pass

    t = threading.Thread(target=write, daemon=True)
    t.start()
    return t


def _unblock(path: Path) -> None:
    """Open the FIFO for reading once without reading, so a writer still waiting for a reader can finish."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
        os.close(fd)
    except OSError:
        pass


@needs_fifo
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_fifo_is_read_once(tmp_path, command):
    fifo = tmp_path / "p.fifo"
    os.mkfifo(fifo)
    writer = _writer(fifo, WORKLOAD)
    try:
        r = _cksolve([*COMMANDS[command], "--problems", str(fifo)], timeout=120)
    finally:
        _unblock(fifo)
        writer.join(5)
    assert r.returncode == 0, f"{command} on a FIFO: exit {r.returncode}: {r.stderr[-300:]}"
    assert r.stdout, command


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash for a process substitution")
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_process_substitution_is_read(command):
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONHASHSEED": "0"}
    args = " ".join(COMMANDS[command])
    script = f"{sys.executable} -m cksolve {args} --problems <(printf '{WORKLOAD.encode('unicode_escape').decode()}')"
    r = subprocess.run(["bash", "-c", script], capture_output=True, text=True, env=env, cwd=ROOT, timeout=120)
    assert r.returncode == 0, f"{command} on <(printf ...): exit {r.returncode}: {r.stderr[-300:]}"
    assert "no problems" not in r.stderr


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_label_columns_are_accepted_by_every_command(tmp_path, command):
    plain, labelled = tmp_path / "plain.csv", tmp_path / "labelled.csv"
    plain.write_text(WORKLOAD, encoding="utf-8")
    labelled.write_text(LABELLED, encoding="utf-8")
    with_labels = _cksolve([*COMMANDS[command], "--problems", str(labelled)])
    assert with_labels.returncode == 0, f"{command}: {with_labels.stderr[-300:]}"
    if command in ("minimize", "features"):  # they print nothing of a row's labels
        without = _cksolve([*COMMANDS[command], "--problems", str(plain)])
        assert with_labels.stdout == without.stdout, command


@needs_fifo
def test_a_bad_header_fails_before_the_body_is_read(tmp_path):
    """The writer sends a header with a misspelt field and a row, then holds the FIFO open: the command must
    fail on the header without waiting for the rest (it would wait forever for an end of file)."""
    fifo = tmp_path / "p.fifo"
    os.mkfifo(fifo)
    hold = threading.Event()
    writer = _writer(fifo, "N,C,K,Hi_,Wi\n4,64,64,28,28\n", hold)
    try:
        r = _cksolve([*COMMANDS["coverage"], "--problems", str(fifo)], timeout=60)
    finally:
        hold.set()
        _unblock(fifo)
        writer.join(5)
    assert r.returncode == 2, r.stderr
    assert "column 4 of the header is not a column name" in r.stderr and "did you mean 'Hi'?" in r.stderr and r.stderr.count("\n") == 1, r.stderr


def test_a_label_named_like_a_record_key_fails_on_the_header(tmp_path):
    from cksolve.workload import ProblemError
    from cksolve.workload.problem_table import read_table

    path = tmp_path / "w.csv"
    path.write_text("N,C,K,row\n4,64,64,a\n" + "x" * 100 + "\n", encoding="utf-8")  # the body is not even CSV
    with pytest.raises(ProblemError, match="column 'row' is a name the records use"):
        read_table(path)
