"""Progress bars: on a terminal only, and only for a step that runs past the delay."""

from __future__ import annotations

import io
import time

from cksolve.workload.progress import Progress


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_nothing_when_not_a_terminal():
    out = io.StringIO()
    with Progress("work", 10, stream=out, delay=0.0) as bar:
        for _ in range(10):
            bar.advance()
    assert out.getvalue() == "" and bar.done == 10


def test_nothing_for_a_quick_step_on_a_terminal():
    out = Terminal()
    with Progress("work", 10, stream=out, delay=60.0) as bar:
        for _ in range(10):
            bar.advance()
    assert out.getvalue() == ""


def test_a_bar_for_a_long_step_on_a_terminal():
    out = Terminal()
    with Progress("deciding", 3, stream=out, delay=0.0) as bar:
        bar.advance()
        time.sleep(0.15)
        bar.advance()
    assert "deciding" in out.getvalue()
