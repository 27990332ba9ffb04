"""Long commands show progress on stderr when it is a terminal, and nothing otherwise.

Each command runs in a child with the bar's delay at 0 (``cksolve.progress.DELAY``: the bar would appear
after one second of work), once with stderr on a pseudo-terminal -- the label shows up there -- and once with
stderr on a pipe: stderr stays empty, byte for byte.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import CK

ROOT = Path(__file__).resolve().parents[1]
RUN = "import sys, cksolve.progress as p; p.DELAY = 0.0; from cksolve.entry import main; " \
      "sys.argv = ['cksolve', *sys.argv[1:]]; main()"

COMMANDS = {
    # the section gathered (n of N), with the audit's combinations and coverage's archs inside (CK's workload)
    "report": (["report", "-r", "tiny", "-a", "gfx942", "--dtype", "fp16", "--problems",
                str(CK / "workloads" / "validation_holdout.csv"), "-o", "{tmp}/r.html"],
               "counting the kernels: section 1 of 3", "auditing tiny (section 2 of 3): combination 1 of",
               "coverage (section 3 of 3) on gfx942: arch 1 of 1"),
    "sample": (["sample", "-r", "full", "-a", "gfx942", "-n", "20000"], "drawing 20,000 configs"),
    # a names file: the line checked, n of N (the file's lines)
    "check": (["check", "--arch", "gfx942", "-r", "tiny", "{tmp}/names.txt"], "checking names: line 1 of"),
    "count": (["count", "-r", "full"], "counting"),
    # a phase per combination, n of N
    # a table: the records tallied (n of N), then the table laid out (CK's workload, three dtypes)
    "coverage": (["coverage", "--problems", str(CK / "workloads" / "bwd_data_test_validation.csv"), "-r", "tiny",
                  "-a", "gfx942"], "tallying coverage records", "/30", "laying out a table of 30 records"),
    "diff": (["diff", "tiny", "default", "-a", "gfx942", "--variant", "forward"],
             "comparing gfx942 forward fp16 1d: combination 1 of 9"),
    # the file read and the steps after it, n of N (399 rows of CK's gfx950 file)
    "evaluate": (["evaluate", "--measurements", "{tmp}/m.csv", "--arch", "gfx950"],
                 "reading the measurements (file 1 of 1): step 1 of 3", "measured rows: step 2 of 3",
                 "problems: step 3 of 3"),
    "features": (["features", "-r", "tiny", "-a", "gfx942", "-o", "{tmp}/f.csv"], "writing feature rows"),
    # with a workload: the problem whose rows are written, n of N (CK's validation_holdout.csv)
    "features-problems": (["features", "-r", "tiny", "-a", "gfx942", "--variant", "forward", "--dtype", "fp16",
                           "--problems", str(CK / "workloads" / "validation_holdout.csv"), "-o", "{tmp}/f.csv"],
                          "writing feature rows: problem 1 of"),
    "minimize": (["minimize", "--problems", str(CK / "workloads" / "validation_holdout.csv"), "-r", "tiny",
                  "-a", "gfx942", "--dtype", "fp16", "-o", "{tmp}/kept.txt"], "minimizing",
                 "distinct problems: class 1 of", "by the kernels they keep: block 1 of",
                 "re-checking the kept kernels: problem"),
    # phases with n of N: over several archs one arch is counted, then drawn, at a time
    "sample-archs": (["sample", "-r", "full", "-a", "gfx942", "-a", "gfx950", "-n", "20000"],
                     "counting configs of gfx942: arch 2 of 2", "configs of gfx950: arch 2 of 2"),
    "audit-all": (["audit", "-r", "all", "-a", "gfx942", "--builder-configs", str(CK / "builder-configs")], "auditing default: rule set 1 of", "check 1 of"),
    # one rule set: the combinations scanned, then the dead rows explained (default has some on gfx942), n of N
    "audit": (["audit", "-r", "default", "-a", "gfx942"], "auditing default: combination 1 of",
              "auditing default: dead row 1 of"),
    # search: the listing by parts of the first primary axes, the bound by blocks of rows, then the probes (n of N)
    "search": (["search", "-p", "N=32,C=256,K=256,Hi=56,Wi=56,Y=3,X=3,pad_h=1,pad_w=1", "-a", "gfx942", "--top", "3"],
               "listing tile shapes: part 0 of", "bounding tile shapes 0 of",
               "solving the best tile shapes (probe 1): found 0 of 3"),
    # fits: the calibration's folds, LightGBM's fits (n of N); measurements: 399 rows of CK's gfx950 file
    "calibrate": (["calibrate", "--measurements", "{tmp}/m.csv", "--arch", "gfx950", "--dtype", "bf16", "--folds", "2",
                   "--out", "{tmp}/cal.toml"], "calibrating gfx950 bf16", "cross-validating the factors: fold 1 of 2",
                  "kernels' measurements: fit 3 of 3"),
    "train": (["train", "--measurements", "{tmp}/m.csv", "--arch", "gfx950", "--dtype", "bf16", "--variant", "forward",
               "--out", "{tmp}/model", "--trees", "5", "--folds", "2", "--jobs", "1"],
              "training a forward model for gfx950", "fitting LightGBM models: fit 1 of"),
    "plan": (["plan", "--problems", str(CK / "workloads" / "validation_holdout.csv"), "-r", "tiny", "-a", "gfx942",
              "--dtype", "fp16", "--budget", "20", "--out", "{tmp}/plan"], "planning 20 pairs",
             "ranking tiny's kernels for the problems of validation_holdout.csv", "ranking tiny's kernels: problem",
             "choosing 20 pairs among"),
    # a phase per (arch, variant) pair, n of N
    "pipeline-variants": (["pipeline-variants", "-a", "gfx942", "--variant", "forward,bwd_data", "--dtype", "fp16",
                           "--ndim", "2"], "deriving gfx942 forward: arch and variant 1 of 2",
                          "deriving gfx942 bwd_data: arch and variant 2 of 2"),
}
#: Commands that read CK's data (skipped without it).
NEEDS_CK = ("coverage", "evaluate", "features-problems", "minimize", "report", "audit-all", "calibrate", "train", "plan")


def _said(command: str) -> list[bytes]:
    """What the command's bar says on a terminal (its label and phases)."""
    return [text.encode() for text in COMMANDS[command][1:]]


def _argv(command: str, tmp_path) -> list[str]:
    if command == "check":
        subprocess.run([sys.executable, "-m", "cksolve", "enumerate", "-r", "tiny", "-a", "gfx942", "-f", "names", "-o",
                        str(tmp_path / "names.txt")], check=True, cwd=ROOT)
    if command in ("calibrate", "train", "evaluate"):
        lines = (CK / "measurements" / "training_data_forward_bf16_20.csv").read_text().splitlines(keepends=True)
        (tmp_path / "m.csv").write_text("".join(lines[:400]))
    return [a.replace("{tmp}", str(tmp_path)) for a in COMMANDS[command][0]]


def _read_all(fd: int) -> bytes:
    chunks = []
    while True:
        try:
            chunk = os.read(fd, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not chunk:
            break
        chunks.append(chunk)
    return b"".join(chunks)


@pytest.mark.skipif(not hasattr(os, "openpty"), reason="needs a pseudo-terminal")
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_progress_on_a_terminal(tmp_path, command):
    if command in NEEDS_CK and not CK.is_dir():
        pytest.skip("needs the CK workloads")
    master, slave = os.openpty()
    try:
        proc = subprocess.Popen([sys.executable, "-c", RUN, *_argv(command, tmp_path)], stdout=subprocess.DEVNULL,
                                stderr=slave, cwd=ROOT)
        os.close(slave)
        shown = _read_all(master)
        assert proc.wait(300) == 0, (command, shown[-500:])
    finally:
        os.close(master)
    missing = [text for text in _said(command) if text not in shown]
    assert not missing, (command, missing, shown[-500:])


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_no_progress_on_a_pipe(tmp_path, command):
    if command in NEEDS_CK and not CK.is_dir():
        pytest.skip("needs the CK workloads")
    proc = subprocess.run([sys.executable, "-c", RUN, *_argv(command, tmp_path)], stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, cwd=ROOT, timeout=300)
    assert proc.returncode == 0 and b"\x1b" not in proc.stderr, (command, proc.stderr[-300:])
    assert not any(text in proc.stderr for text in _said(command)), (command, proc.stderr[-300:])
