"""A progress bar on stderr for the long workload steps, only where a person is watching.

Nothing is shown when stderr is not a terminal (pipes, files, CI logs stay
byte-identical), and nothing for a step that ends within ``DELAY`` seconds:
the bar appears only once a step has run that long. rich is imported only
then. The bar is transient: it is gone when the step ends, leaving stderr as
it would be without it.
"""

from __future__ import annotations

import sys
import time

__all__ = ["DELAY", "Progress"]

#: Seconds a step runs before its bar appears.
DELAY = 1.0


class Progress:
    """``with Progress("deciding problems", total) as bar: ... bar.advance()``; ``total`` None: a spinner."""

    def __init__(self, label: str, total: int | None = None, stream=None, delay: float = DELAY):
        self.label, self.total = label, total
        self.stream = sys.stderr if stream is None else stream
        self.delay = delay
        self.done = 0
        self._bar = None
        self._task = None
        self._t0 = 0.0
        self._next = 0.0
        try:
            self.enabled = bool(self.stream is not None and self.stream.isatty())
        except (AttributeError, ValueError, OSError):
            self.enabled = False

    def __enter__(self) -> "Progress":
        self._t0 = time.monotonic()
        self._next = self._t0 + self.delay
        return self

    def advance(self, n: int = 1) -> None:
        self.done += n
        if not self.enabled:
            return
        now = time.monotonic()
        if now < self._next:
            return
        self._next = now + 0.1  # redraw at most ten times a second
        if self._bar is None:
            self._start()
        self._bar.update(self._task, completed=self.done)

    def tick(self) -> None:
        """For a step without countable work (a solver): show the bar's elapsed time."""
        self.advance(0)

    def _start(self) -> None:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, SpinnerColumn, TextColumn, TimeElapsedColumn
        from rich.progress import Progress as Bar

        columns = [SpinnerColumn(), TextColumn("{task.description}")]
        if self.total is not None:
            columns += [BarColumn(), MofNCompleteColumn()]
        columns.append(TimeElapsedColumn())
        self._bar = Bar(*columns, console=Console(file=self.stream), transient=True)
        self._bar.start()
        self._task = self._bar.add_task(self.label, total=self.total, completed=self.done)

    def __exit__(self, *exc) -> bool:
        if self._bar is not None:
            self._bar.stop()
            self._bar = None
        return False
