"""SIGINT and SIGTERM during an emit: stop promptly, clean up, report once.

While files are being rendered a signal raises :class:`Interrupt` at once (the
work so far is only temporaries, which the writer removes). While files are
being published (renames, removal of stale kernels, the manifest) or cleaned
up, a signal is only recorded and raised when that short step is over, so the
tree is never left between two states by an interrupt, and a second Ctrl-C
cannot break the clean-up.

Handlers are installed only in the main thread (Python allows no other); a
library caller in another thread keeps its own signal handling.
"""

from __future__ import annotations

import signal
import threading
from contextlib import contextmanager

from ..errors import CksolveError

__all__ = ["Interrupt", "EmitInterrupted", "Guard"]

_SIGNALS = (signal.SIGINT, signal.SIGTERM)


class Interrupt(BaseException):
    """Raised inside the writer by a signal; never escapes it (see EmitInterrupted)."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum


class EmitInterrupted(CksolveError):
    """The emit was stopped by a signal; nothing half-written remains. ``exit_code`` is 128 + signal."""

    def __init__(self, signum: int, where: str):
        name = signal.Signals(signum).name
        super().__init__(f"interrupted by {name}: {where}")
        self.signum = signum
        self.exit_code = 128 + signum


class Guard:
    """Signal handlers for one emit: ``raising`` while rendering, ``deferred()`` around critical steps."""

    def __init__(self):
        self.pending: int | None = None
        self._defer = 0
        self._raised = False
        self._saved: dict = {}

    def _handler(self, signum, frame):
        if self.pending is not None:
            return  # already stopping: the clean-up is short, and a second Ctrl-C must not break it
        self.pending = signum
        if self._defer == 0:
            self._raised = True
            raise Interrupt(signum)

    def __enter__(self) -> "Guard":
        if threading.current_thread() is threading.main_thread():
            for s in _SIGNALS:
                self._saved[s] = signal.signal(s, self._handler)
        return self

    def __exit__(self, *exc) -> bool:
        for s, h in self._saved.items():
            signal.signal(s, h)
        self._saved.clear()
        return False

    @contextmanager
    def deferred(self):
        """Hold signals until the block is done, then raise the first one that came."""
        self._defer += 1
        try:
            yield
        finally:
            self._defer -= 1
        self.check()

    def check(self) -> None:
        if self._defer == 0 and self.pending is not None and not self._raised:
            self._raised = True
            raise Interrupt(self.pending)
