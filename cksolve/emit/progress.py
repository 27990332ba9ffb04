"""Emit's progress bar: a rich bar on stderr while kernels render, or nothing."""

from __future__ import annotations

import sys
from typing import Callable

__all__ = ["ProgressBar"]


class ProgressBar:
    """Context manager yielding ``advance(n)``; a rich bar on stderr, or nothing."""

    def __init__(self, enabled: bool, total: int):
        self.enabled, self.total, self.bar = enabled, total, None

    def __enter__(self) -> Callable[[int], None]:
        if not self.enabled:
            return lambda n: None
        from rich.console import Console  # deferred, with the next line: rich loads only when a bar is shown
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn  # deferred

        self.bar = Progress(TextColumn("emit"), BarColumn(), MofNCompleteColumn(), TextColumn("kernels"),
                            TimeElapsedColumn(), console=Console(file=sys.stderr), transient=True)
        self.bar.start()
        task = self.bar.add_task("emit", total=self.total)
        return lambda n: self.bar.advance(task, n)

    def __exit__(self, *exc):
        if self.bar is not None:
            self.bar.stop()
        return False
