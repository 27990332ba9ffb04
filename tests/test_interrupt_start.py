"""An interrupt at the very start of ``cksolve`` (as soon as cksolve's own code runs) is one line and exit 130.

The interrupt is made to arrive at an exact moment: a finder on ``sys.meta_path`` sends SIGINT to the process
when the named module is first looked up, so the interpreter raises ``KeyboardInterrupt`` in the middle of that
import -- what a Ctrl-C in the first milliseconds does. (Before cksolve's first line runs, in the interpreter's
own start-up, the interrupt is Python's to handle.)
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

SCRIPT = """
import importlib.abc, os, runpy, signal, sys

TARGET = sys.argv[1]

class Interrupt(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name == TARGET:
            sys.meta_path.remove(self)
            os.kill(os.getpid(), signal.SIGINT)
        return None

sys.meta_path.insert(0, Interrupt())
sys.argv = ["cksolve", "count", "-r", "tiny"]
runpy.run_module("cksolve", run_name="__main__", alter_sys=True)
"""


@pytest.mark.parametrize("module", ["cksolve.entry", "gc", "cksolve.cli"])
def test_an_interrupt_while_cksolve_starts_is_one_line(module):
    proc = subprocess.run([sys.executable, "-c", SCRIPT, module], capture_output=True, cwd=ROOT, timeout=60)
    assert proc.returncode == 130 and proc.stderr == b"cksolve: interrupted by SIGINT\n", \
        (module, proc.returncode, proc.stderr[-400:])
