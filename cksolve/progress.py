"""A progress bar on stderr for long steps, only where a person is watching.

Nothing is shown when stderr is not a terminal (pipes, files, CI logs stay
byte-identical), and nothing for a step that ends within ``DELAY`` seconds:
the bar appears only once a step has run that long. rich is imported only
then. The bar is transient: it is gone when the step ends, leaving stderr as
it would be without it.

Two ways to drive one: a step that can count its work calls ``advance``; a
step that cannot (a solve, a command's whole work) is ``ticking``: a timer
starts the bar after ``DELAY`` and rich's own refresh keeps its spinner and
elapsed time moving, with no call from the work. One bar is shown at a time:
a bar asked for while another is on screen stays hidden (the outer one goes
on telling that the command is busy).

A step inside a command says where it is with ``phase("counting arch", 3, 8)``
from any layer: the innermost bar entered (shown or not yet) takes it as its
text, ``counting arch 3 of 8``; with no bar entered it does nothing. ``watched()`` says whether
an N that costs something to count (a file's lines) would be seen.

Low (beside ``outputs``): every command may show one, from any layer.
"""

from __future__ import annotations

import sys
import threading
import time

__all__ = ["DELAY", "Progress", "is_terminal", "phase", "watched"]

#: Seconds a step runs before its bar appears.
DELAY = 1.0

_LOCK = threading.RLock()
#: the bar on screen, if any (one at a time: rich allows one live display)
_shown: list = []
#: the bars entered, innermost last (``phase`` tells the innermost)
_entered: list = []


def phase_text(label: str, done: int | None = None, total: int | None = None) -> str:
    """``label``, then ``done of total`` (or ``done``) when given: a phase as a bar shows it."""
    if done is None:
        return label
    return f"{label} {done:,}" + ("" if total is None else f" of {total:,}")


def phase(label: str, done: int | None = None, total: int | None = None) -> None:
    """The innermost entered bar's text becomes this phase (and its n of N); nothing without one."""
    with _LOCK:
        bar = _entered[-1] if _entered else None
    if bar is not None:
        bar.set_phase(phase_text(label, done, total))


def watched() -> bool:
    """Whether the innermost entered bar can show (its stream a terminal): a step's N is worth counting."""
    with _LOCK:
        return bool(_entered) and _entered[-1].enabled


def is_terminal(stream) -> bool:
    """Whether ``stream`` is a terminal (a closed, missing or odd stream is not)."""
    try:
        return bool(stream is not None and stream.isatty())
    except (AttributeError, ValueError, OSError):
        return False


class Progress:
    """``with Progress("deciding problems", total) as bar: ... bar.advance()``; ``total`` None: a spinner.

    ``ticking``: the bar appears by itself after ``delay`` seconds and keeps time without ``advance``.
    ``show`` False: never a bar (a caller asked for none, or has no work worth one).
    """

    def __init__(self, label: str, total: int | None = None, stream=None, delay: float | None = None,
                 ticking: bool = False, show: bool = True):
        self.label, self.total = label, total
        self.stream = sys.stderr if stream is None else stream
        self.delay = DELAY if delay is None else delay  # read now: a test may change DELAY
        self.ticking = ticking
        self.done = 0
        self._bar = None
        self._task = None
        self._timer = None
        self._closed = False
        self._t0 = 0.0
        self._next = 0.0
        self.enabled = show and is_terminal(self.stream)

    def __enter__(self) -> "Progress":
        with _LOCK:
            _entered.append(self)
        self._t0 = time.monotonic()
        self._next = self._t0 + self.delay
        if self.enabled and self.ticking:
            self._timer = threading.Timer(self.delay, self._show)
            self._timer.daemon = True
            self._timer.start()
        return self

    def advance(self, n: int = 1) -> None:
        self.done += n
        if not self.enabled:
            return
        now = time.monotonic()
        if now < self._next:
            return
        self._next = now + 0.1  # redraw at most ten times a second
        with _LOCK:
            if self._bar is None:
                self._show()
            if self._bar is not None:
                self._bar.update(self._task, completed=self.done)

    def set_phase(self, text: str) -> None:
        """The bar's text from now on (kept for when it appears, if it has not yet)."""
        with _LOCK:
            self.label = text
            if self._bar is not None:  # drawn now: a short phase is seen too, not only at the next refresh
                self._bar.update(self._task, description=text, refresh=True)

    def tick(self) -> None:
        """For a step without countable work (a solver): show the bar's elapsed time."""
        self.advance(0)

    def _show(self) -> None:
        with _LOCK:
            if self._closed or self._bar is not None or _shown:
                return
            from rich.console import Console  # deferred: rich loads only when a bar shows
            from rich.progress import (BarColumn, MofNCompleteColumn, SpinnerColumn, TextColumn,  # deferred: as Console
                                       TimeElapsedColumn)
            from rich.progress import Progress as Bar  # deferred: as Console

            columns = [SpinnerColumn(), TextColumn("{task.description}")]
            if self.total is not None:
                columns += [BarColumn(), MofNCompleteColumn()]
            columns.append(TimeElapsedColumn())
            # stdout stays the command's: never redirected through the bar's console
            self._bar = Bar(*columns, console=Console(file=self.stream), transient=True, redirect_stdout=False,
                            redirect_stderr=False)
            self._bar.start()
            self._task = self._bar.add_task(self.label, total=self.total, completed=self.done)
            _shown.append(self)

    def __exit__(self, *exc) -> bool:
        timer = self._timer
        if timer is not None:
            timer.cancel()
        with _LOCK:
            self._closed = True
            if self in _entered:
                _entered.remove(self)
            if self._bar is not None:
                self._bar.stop()
                self._bar = None
                _shown.remove(self)
        return False
