"""Progress bars: on a terminal only, and only for a step that runs past the delay."""

from __future__ import annotations

import io
import time

from cksolve.progress import Progress


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


def test_emit_shows_the_one_progress_bar(tmp_path, monkeypatch):
    """emit's bar is ``cksolve.progress.Progress`` (there is no second bar): on a terminal, past the delay."""
    import sys
    from pathlib import Path

    import cksolve.progress
    from cksolve.emit import emit
    from cksolve.rulesets import get_rule_set
    from cksolve.solver import solve_combo
    from cksolve.query import select

    assert not (Path(cksolve.progress.__file__).parent / "emit" / "progress.py").exists()
    rs = get_rule_set("tiny")
    configs = [("gfx942", c) for combo in select(["gfx942"], ["forward"], ["fp16"], ["2"]).combos()
               for c in solve_combo(rs, combo).configs()][:20]
    assert configs
    out = Terminal()
    monkeypatch.setattr(sys, "stderr", out)
    monkeypatch.setattr(cksolve.progress, "DELAY", 0.0)
    emit(configs, tmp_path / "o", jobs=1, progress=True)
    assert "emitting kernels" in out.getvalue()
    quiet = Terminal()
    monkeypatch.setattr(sys, "stderr", quiet)
    emit(configs, tmp_path / "q", jobs=1, progress=False)
    assert quiet.getvalue() == ""
