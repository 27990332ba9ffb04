"""Rendering one output tree: the job, and the forked processes that share it.

A :class:`Job` holds everything the renderers need (kernels, directory,
what the manifest vouches for, the emit's token). It is built in the parent
and read by forked children as it was at the fork: nothing is pickled on the
way in, and no module state is shared. Each child takes every n-th chunk of
kernels, writes the changed files as temporaries (never a final name) and
sends back, per chunk, a small result over its own pipe.

Stopping is therefore always safe: on an error, an interrupt or the parent's
death the children are killed (or exit), and whatever temporaries they left
carry the emit's token, so the writer sweeps them. Children ignore SIGINT: a
Ctrl-C reaches the whole process group, and it is the parent's to handle.

A child dies with its parent, even one killed by SIGKILL mid-chunk: on Linux
the kernel sends it SIGKILL (``PR_SET_PDEATHSIG``), elsewhere a thread watches
for the parent's end. Otherwise it would render on for the rest of its chunk
holding the parent's stderr open, and ``$(cksolve emit ...)`` would hang.
"""

from __future__ import annotations

import os
import pickle
import selectors
import signal
import stat
import sys
import threading
import time
from typing import NamedTuple, Sequence

from ..space.memos import MEMOS
from . import files, render

__all__ = ["Job", "Result", "run"]

class Result(NamedTuple):
    """What rendering one chunk did (pickled from a child to the parent)."""

    entries: dict  # kernel name -> manifest entry
    temps: list  # [(temporary, final)] written and not yet renamed
    written: int  # files
    unchanged: int  # files
    bytes: int  # of every file of the chunk
    bytes_written: int
    kernels: int  # of the chunk
    error: str | None  # the first write error, described


class Job:
    """The rendering of one tree's kernels; see the module docstring."""

    def __init__(self, items: Sequence[tuple], root: str, manifest: dict, token: str, in_place: bool = False):
        self.items, self.root, self.manifest, self.token = items, root, manifest, token
        self.in_place = in_place  # an empty tree: write final names directly, nothing to compare
        self._fds: tuple | None = None  # (pid, top, wrappers): descriptors are per process

    def needs_render(self, item) -> bool:
        prev = self.manifest.get(item[2])
        return prev is None or prev[0] != item[0]

    def _dir_fds(self) -> tuple[int, int]:
        if self._fds is None or self._fds[0] != os.getpid():
            flags = os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC | os.O_NOFOLLOW
            self._fds = (os.getpid(), os.open(self.root, flags),
                         os.open(os.path.join(self.root, render.WRAPPER_DIR), flags))
        return self._fds[1:]

    def close(self) -> None:
        if self._fds is not None and self._fds[0] == os.getpid():
            for fd in self._fds[1:]:
                os.close(fd)
        self._fds = None

    def run(self, lo: int, hi: int) -> Result:
        entries, temps = {}, []
        written = unchanged = nbytes = nwritten = 0
        error = None
        try:
            fds = self._dir_fds() if self.manifest else None
            for arch, c, name in self.items[lo:hi]:
                prev = self.manifest.get(name)
                if prev is not None and prev[0] == arch and _unchanged(name, prev, *fds):
                    unchanged += 3
                    nbytes += prev[1] + prev[3] + prev[5]
                    entries[name] = prev
                    continue
                entry = [arch]
                for rel, text in zip(render.kernel_paths(name), render.render_kernel(arch, c, name=name)):
                    data = text.encode()
                    nbytes += len(data)
                    final = self.root + "/" + rel
                    if self.in_place:
                        entry += files.write_new(final, data)
                        written += 1
                        nwritten += len(data)
                        continue
                    st = files.same_on_disk(final, data)
                    if st is not None:
                        entry += st
                        unchanged += 1
                        continue
                    d, b = os.path.split(final)
                    tmp = os.path.join(d, files.temp_name(b, self.token))
                    temps.append((tmp, final))  # before the write: a failure must find it
                    entry += files.write_new(tmp, data)
                    written += 1
                    nwritten += len(data)
                entries[name] = tuple(entry)
        except OSError as e:
            error = files.describe(e)
            files.remove(t for t, _ in temps)
            temps = []
        return Result(entries, temps, written, unchanged, nbytes, nwritten, hi - lo, error)


def _unchanged(name: str, prev, top: int, wrap: int) -> bool:
    """Do the kernel's three files still have the size and mtime the manifest recorded (links never do)?"""
    try:
        a = os.stat(name + ".hpp", dir_fd=top, follow_symlinks=False)
        b = os.stat(name + ".cpp", dir_fd=top, follow_symlinks=False)
        w = os.stat(render.WRAPPER_PREFIX + name + ".hpp", dir_fd=wrap, follow_symlinks=False)
    except OSError:
        return False
    return (stat.S_ISREG(a.st_mode) and stat.S_ISREG(b.st_mode) and stat.S_ISREG(w.st_mode)
            and (a.st_size, a.st_mtime_ns, b.st_size, b.st_mtime_ns, w.st_size, w.st_mtime_ns) == prev[1:])


# ------------------------------------------------------------------ running
def run(job: Job, chunks: list[tuple[int, int]], workers: int, progress) -> list[Result]:
    """Results of every chunk (up to the first error); forks ``workers`` processes if more than one.

    ``progress`` is a ``cksolve.progress.Progress`` over the kernels; it is
    entered after the fork (a progress bar runs a thread, and threads do not
    survive a fork).
    """
    if workers <= 1 or len(chunks) <= 1:
        out = []
        with progress as bar:
            for lo, hi in chunks:
                out.append(job.run(lo, hi))
                bar.advance(hi - lo)
                if out[-1].error is not None:
                    break
        return out
    return _forked(job, chunks, min(workers, len(chunks)), progress)


@MEMOS.cached("emit.jobs._prctl", maxsize=1)
def _prctl():
    """libc's ``prctl`` (Linux), looked up once in the parent so that a child need not import ctypes."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        import ctypes  # deferred: only the Linux death signal needs it, looked up once in the parent

        return ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None


_PR_SET_PDEATHSIG = 1


def _die_with(parent: int, prctl) -> None:  # pragma: no cover - runs in the child
    """End this child when ``parent`` ends (see the module docstring)."""
    if prctl is None or prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0) != 0:
        def watch():
            while os.getppid() == parent:
                time.sleep(0.1)
            os._exit(1)

        threading.Thread(target=watch, daemon=True).start()
    if os.getppid() != parent:  # the parent died before the death signal was armed
        os._exit(1)


def _forked(job: Job, chunks, n: int, progress) -> list[Result]:
    children: dict[int, int] = {}  # pipe read end -> pid
    results: list[Result] = []
    parent = os.getpid()
    prctl = _prctl()
    sel = selectors.DefaultSelector()
    try:
        for w in range(n):
            r, wfd = os.pipe()
            pid = os.fork()
            if pid == 0:  # pragma: no cover - runs in the child, which never returns
                _child(job, chunks[w::n], wfd, list(children), parent, prctl)
            os.close(wfd)
            children[r] = pid
            sel.register(r, selectors.EVENT_READ, bytearray())
        with progress as bar:
            _collect(sel, children, results, bar.advance)
    finally:
        for fd, pid in children.items():
            _kill(pid)
            sel.unregister(fd)
            os.close(fd)
        sel.close()
    return results


def _collect(sel, children: dict, results: list, advance) -> None:
    """Read the children's results until all are done or one failed."""
    failed = None
    while children and failed is None:
        for key, _ in sel.select():
            fd, buf = key.fd, key.data
            data = os.read(fd, 1 << 20)
            if data:
                buf += data
                for res in _messages(buf):
                    results.append(res)
                    advance(res.kernels)
                    failed = failed or res.error
                continue
            sel.unregister(fd)
            os.close(fd)
            _, status = os.waitpid(children.pop(fd), 0)
            if status != 0 and failed is None:
                failed = "a renderer process failed"
                results.append(Result({}, [], 0, 0, 0, 0, 0, failed))


def _messages(buf: bytearray):
    while len(buf) >= 8:
        size = int.from_bytes(buf[:8], "little")
        if len(buf) < 8 + size:
            return
        res = pickle.loads(bytes(buf[8:8 + size]))
        del buf[:8 + size]
        yield res


def _kill(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)  # it only ever wrote temporaries, which the writer sweeps
    except ProcessLookupError:
        pass
    os.waitpid(pid, 0)


def _child(job: Job, chunks, wfd: int, inherited: list[int], parent: int, prctl) -> None:  # pragma: no cover
    code = 1
    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        _die_with(parent, prctl)
        for fd in inherited:
            os.close(fd)
        for lo, hi in chunks:
            if os.getppid() != parent:  # the parent died: nobody will publish this
                break
            res = job.run(lo, hi)
            blob = pickle.dumps(res, pickle.HIGHEST_PROTOCOL)
            files.write_all(wfd, len(blob).to_bytes(8, "little") + blob)
            if res.error is not None:
                break
        else:
            code = 0
    except BaseException:
        pass
    finally:
        os._exit(code)
