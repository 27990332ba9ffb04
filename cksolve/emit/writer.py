"""Writing an emitted kernel tree: whole files, interruptible, owned, skip-unchanged, parallel.

Guarantees, per output directory (``--out``):

* every file in it is whole, old or new: files are rendered to temporaries in
  their own directory (so a mount point or a bind mount is no obstacle) and
  renamed into place only once all of them are ready; a symlink inside the
  directory is replaced, never written through (see :mod:`.files`).
* one emit at a time: the directory is locked (``flock``); a second emit waits,
  so two selections are never merged into one tree.
* emit owns the kernels its manifest lists: kernels of an earlier emit that
  are no longer selected are removed, so the include and registration headers
  list exactly the kernels on disk; files emit did not write are left alone
  and reported in one line (``EmitSummary.foreign``).
* SIGINT / SIGTERM: the temporaries are removed and :class:`EmitInterrupted`
  (exit 130 / 143) raised within moments; publishing (renames, removals, the
  manifest) is short and finishes before the signal takes effect.
* SIGKILL: the next emit sweeps the temporaries the killed one left and
  completes the tree; a *pending* manifest written before publishing keeps
  ownership of every file the killed emit may have placed.
* unchanged files are not touched (same bytes -> no write, mtime kept): the
  manifest records each kernel's arch and the size and mtime of its files, so a
  kernel whose files still match is not even rendered. A missing, outdated or
  damaged manifest (the latter with one warning) only costs time.
* rendering runs in forked processes over chunks of kernels (:mod:`.jobs`).
* emit tells before it deletes another selection's files (:mod:`.ownership`).

Which names a tree accepts is :mod:`.names`; the directory's lock :mod:`.lock`; the bar is every
command's (``cksolve.progress``).
"""

from __future__ import annotations

import hashlib
import os
import stat
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Sequence

from . import files, jobs as jobs_, manifest as manifest_, ownership, render, unity
from .interrupt import EmitInterrupted, Guard, Interrupt
from .lock import locked
from .names import ARCH, EmitError, all_plain, check_arch, check_file_name, names_to_configs
from ..arch.target_id import base_arch
from ..errors import CksolveError
from ..progress import Progress
from ..space.config import DepthwiseConfig, KernelConfig

__all__ = ["EmitError", "EmitInterrupted", "EmitSummary", "emit", "emit_trees", "names_to_configs", "MANIFEST",
           "check_file_name"]

MANIFEST = manifest_.MANIFEST
@dataclass
class EmitSummary:
    kernels: int = 0
    written: int = 0        # files written (created or replaced)
    unchanged: int = 0      # files left untouched
    bytes: int = 0          # total size of the emitted files
    bytes_written: int = 0
    seconds: float = 0.0
    out_dir: str = ""
    removed: int = 0        # files of kernels an earlier emit wrote and this one no longer selects
    swept: int = 0          # temporaries a killed emit had left
    published: bool = False
    foreign: list = field(default_factory=list)  # files in the tree that emit did not write (left alone)
    notes: list = field(default_factory=list)    # warnings, one line each (e.g. a damaged manifest)
    units: list = field(default_factory=list)    # unity translation units (relative paths), if batched
    replaced: int = 0       # files of another selection or layout removed (``replace``)

    @property
    def files(self) -> int:
        return self.written + self.unchanged

    def line(self) -> str:
        removed = f", {self.removed} removed" if self.removed else ""
        removed += f", {self.replaced} of another selection removed" if self.replaced else ""
        return (f"{self.kernels} kernels, {self.files} files: {self.written} written, "
                f"{self.unchanged} unchanged{removed}, {self.bytes / 1e6:.1f} MB total "
                f"({self.bytes_written / 1e6:.1f} MB written) in {self.seconds:.2f} s -> {self.out_dir}")


# ------------------------------------------------------------------------ emit
def _prepare(configs) -> list[tuple[str, object, str]]:
    """(arch, config, name) per distinct kernel, sorted by name; EmitError on bad input.

    The name checks run in bulk (one byte translation over all names, one dict
    for duplicates): an unchanged re-emit of 9k kernels is mostly this and a
    stat per file.
    """
    pairs = _base([p for group in _split_by_arch(configs).values() for p in group])
    for _, c in pairs:
        if not isinstance(c, (KernelConfig, DepthwiseConfig)):
            raise EmitError(f"not a kernel config: {c!r}")
    names = [c.name() for _, c in pairs]
    if names and not all_plain(names):
        for name in names:
            check_file_name(name)
    seen = dict(zip(reversed(names), reversed(pairs)))  # the first of equal names wins
    if len(seen) != len(names):
        for name, pair in zip(names, pairs):
            if seen[name] != pair:
                raise EmitError(f"kernel {name} is asked for twice with different targets "
                                f"({seen[name][0]} and {pair[0]}); emit one arch per directory")
    return [(arch, c, name) for name, (arch, c) in sorted(seen.items())]


def _split_by_arch(configs) -> dict[str, list]:
    """Pairs grouped by arch (first-seen order kept); EmitError on a malformed pair or arch."""
    groups: dict[str, list] = {}
    for pair in configs:
        try:
            arch, c = pair
        except (TypeError, ValueError):
            raise EmitError(f"expected (arch, config) pairs, got {pair!r}") from None
        if type(arch) is not str or arch not in groups:
            check_arch(arch)
            groups[arch] = []
        groups[arch].append((arch, c))
    return groups


def _base(pairs: list) -> list:
    """(target, config) pairs as (base arch, config): what a kernel's files are rendered for."""
    return [(base_arch(t), c) for t, c in pairs]


def emit_trees(configs: Iterable[tuple[str, KernelConfig | DepthwiseConfig]], out_dir: Path,
               archs: Sequence[str] = (), arch_dirs: bool | None = None, **kw) -> list[tuple[str | None, EmitSummary]]:
    """Emit one tree per arch, ``out_dir/<arch>``, or, with ``arch_dirs`` false, everything into ``out_dir``.

    ``archs`` (gfx archs or ROCm target IDs) also get a tree when no kernel is
    selected for them (headers listing nothing). ``arch_dirs`` defaults to
    "more than one arch". Returns (arch or None, summary) per tree; keyword
    arguments go to :func:`emit`. Before any tree is written, removing another
    selection's files or a tree of the other layout is refused unless
    ``replace`` (see :mod:`.ownership`); with it, the other layout's trees go.
    """
    groups = _split_by_arch(configs)
    for arch in archs:
        check_arch(arch)
        groups.setdefault(arch, [])
    if arch_dirs is None:
        arch_dirs = len(groups) > 1
    plan = ({str(out_dir): {c.name() for g in groups.values() for _, c in g}} if not arch_dirs else
            {str(Path(out_dir) / a): {c.name() for _, c in g} for a, g in groups.items()})
    others = ownership.check_replace(Path(out_dir), arch_dirs, plan, kw.get("selection"), kw.get("replace", False))
    dropped = sum(ownership.drop_tree(t) for t in others)
    if not arch_dirs:
        out = [(None, emit([p for g in groups.values() for p in g], out_dir, **kw))]
        out[0][1].replaced += dropped
        return out
    out = []
    for arch in sorted(groups):
        tree = Path(out_dir) / arch
        if os.path.islink(tree):  # inside --out: replaced, never followed
            try:
                os.unlink(tree)
            except OSError as e:
                raise EmitError(f"cannot write to {tree}: {files.describe(e)}") from None
        out.append((arch, emit(groups[arch], tree, **kw)))
    if out:
        out[0][1].replaced += dropped
    return out


def emit(configs: Sequence[tuple[str, KernelConfig | DepthwiseConfig]], out_dir: Path,
         jobs: int | None = None, progress: bool = True, on_wait: Callable[[str], None] | None = None,
         selection: str | None = None, replace: bool = False, unity_batch: int | None = None) -> EmitSummary:
    """Write every kernel of ``configs`` (pairs of arch and config) and the shared headers to ``out_dir``.

    Returns the summary. Raises EmitError (one line; nothing published, no
    temporary left) if a name is not a plain file name or the directory cannot
    take the files, and EmitInterrupted on SIGINT / SIGTERM. ``on_wait`` is
    told once if another emit holds the directory. ``selection`` says what
    chose the kernels (recorded in the manifest); removing kernels another
    selection wrote is refused unless ``replace``. ``unity_batch`` N also
    writes translation units of up to N kernels each (:mod:`.unity`).
    """
    t0 = time.perf_counter()
    if jobs is not None and (isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1):
        raise EmitError(f"{{opt:jobs}} {jobs} must be at least 1 (leave it out for one renderer per core)")
    items = _prepare(configs)
    root = Path(out_dir)
    if root.exists() and not root.is_dir():
        raise EmitError(f"cannot write to {root}: not a directory")
    summary = EmitSummary(kernels=len(items), out_dir=str(root))
    unity.check_batch(unity_batch)
    run = _Run(root, f"{os.getpid()}-{os.urandom(4).hex()}")
    run.selection, run.replace, run.unity_batch = selection, replace, unity_batch
    with Guard() as guard:
        try:
            _make_dirs(root, run.created)
            with locked(root, on_wait):
                _emit_locked(items, run, jobs, progress, guard, summary)
        except Interrupt as exc:
            with guard.deferred():
                _clean(run, summary.published)
            state = "after the tree was complete" if summary.published else "no file was changed"
            raise EmitInterrupted(exc.signum, f"{state} in {root}") from None
        except (OSError, CksolveError) as exc:  # EmitError, or ownership's refusal
            with guard.deferred():
                _clean(run, summary.published)
            if isinstance(exc, CksolveError):
                raise
            raise EmitError(f"cannot write to {root}: {files.describe(exc)}") from None
    summary.seconds = time.perf_counter() - t0
    return summary


def _make_dirs(root: Path, created: list[Path]) -> None:
    """Create ``root`` and its missing parents, recording each (an emit that fails removes them again)."""
    missing = []
    p = root
    while not os.path.lexists(p) and p != p.parent:
        missing.append(p)
        p = p.parent
    for d in reversed(missing):
        os.mkdir(d)
        created.append(d)


class _Run:
    """One emit's state for cleaning up after it: its token, what it created, what it wrote in place."""

    def __init__(self, root: Path, token: str):
        self.root, self.token = root, token
        self.created: list[Path] = []
        self.in_place: list[str] = []  # kernels written straight to their names (into an empty tree)
        self.selection: str | None = None
        self.replace = False
        self.unity_batch: int | None = None


def _clean(run: _Run, published: bool) -> None:
    """After a failure: remove this emit's temporaries, what it wrote into an empty tree, and the
    directories it created (if empty): the tree is as it was."""
    root = run.root
    for d in (root, root / render.WRAPPER_DIR):
        try:
            names = os.listdir(d)
        except OSError:
            continue
        files.remove([os.path.join(d, n) for n in names if files.is_temp(n) and run.token in n])
    if published:
        return
    if run.in_place:
        _remove_kernels(root, run.in_place)
        files.remove([str(root / p) for p in render.global_paths()] + [str(root / MANIFEST)])
    for d in reversed(run.created):
            try:
                os.rmdir(d)
            except OSError:
                pass


def _emit_locked(items, run: _Run, jobs: int | None, progress: bool, guard: Guard, summary: "EmitSummary") -> None:
    root, token = run.root, run.token
    wrap = root / render.WRAPPER_DIR
    if files.real_dir(wrap):
        run.created.append(wrap)
    top, wrapped = os.listdir(root), os.listdir(wrap)
    # what a killed emit left (we hold the lock: no live emit owns a temporary here)
    tag = files.TMP_TAG
    summary.swept = (files.remove([os.path.join(root, n) for n in top if n.endswith(tag)])
                     + files.remove([os.path.join(wrap, n) for n in wrapped if n.endswith(tag)]))
    old = manifest_.load(root, all_plain, ARCH.fullmatch)
    if old.warning:
        summary.notes.append(old.warning)
    selected = {name for _, _, name in items}
    stale = sorted(set(old.kernels) - selected)
    label = run.selection
    if stale and not run.replace:
        ownership.refuse_stale(root, old.selection, label, stale)
    summary.foreign = _foreign(top, wrapped, selected | set(old.kernels))
    # an empty tree: files go straight to their names (no rename each); owned from the start
    # by a pending manifest, and removed again if the emit fails or is interrupted
    in_place = (not old.kernels and all(n in (render.WRAPPER_DIR, MANIFEST) or n.endswith(tag) for n in top)
                and all(n.endswith(tag) for n in wrapped))
    if in_place:
        with guard.deferred():
            run.in_place = sorted(selected)
            manifest_.save(root, {name: (arch,) + manifest_.PENDING for arch, _, name in items}, None, token, label)

    temps, kernels = _render(jobs_.Job(items, str(root), old.kernels, token, in_place), jobs, progress, summary)
    g_entry, g_temps = _write_globals(root, items, old.globals, token, summary)

    with guard.deferred():
        new = selected.difference(old.kernels)
        if new and not in_place:  # own them before they appear: a kill from here on must not orphan them
            pending = dict(old.kernels)
            pending.update((name, (arch,) + manifest_.PENDING) for arch, _, name in items if name in new)
            manifest_.save(root, pending, old.globals, token, label)
        _publish(temps + g_temps)
        summary.published = True
        removed = _remove_kernels(root, stale)
        if old.selection is not None and label is not None and old.selection != label:
            summary.replaced += removed
        else:
            summary.removed += removed
        if (in_place or new or stale or summary.written or old.globals != g_entry or kernels != old.kernels
                or old.selection != label):
            try:
                manifest_.save(root, kernels, g_entry, token, label)
            except OSError:
                pass  # the pending manifest stays: it owns a superset, and only costs a check next time
        if run.unity_batch is not None or os.path.isdir(root / unity.UNITY_DIR):
            summary.units, w, u, r, b = unity.write_units(root, sorted(selected), run.unity_batch)
            summary.written += w
            summary.unchanged += u
            summary.removed += r
            summary.bytes += b


def _render(job: jobs_.Job, jobs: int | None, progress: bool, summary: "EmitSummary") -> tuple[list, dict]:
    """Render what changed (to temporaries, or in place): ([(temporary, final)], manifest entries)."""
    items, n = job.items, len(job.items)
    workers = jobs or os.cpu_count() or 1
    try:
        # kernels the manifest cannot vouch for must be rendered; the others only
        # need a stat each, which is cheaper in this process than in forked ones
        to_render = sum(1 for it in items if job.needs_render(it))
        if workers > 1 and to_render >= 64:
            render.warm_up()  # compile the templates once, before the fork
            size = max(16, -(-n // (workers * 8)))
        else:
            workers, size = 1, max(n, 1)
        chunks = [(i, min(i + size, n)) for i in range(0, n, size)]
        # a bar only when there is rendering to watch (a stat-only check takes well under a second)
        bar = Progress("emitting kernels", n, show=progress and to_render > 0)
        results = jobs_.run(job, chunks, workers, bar)
    finally:
        job.close()
    temps, kernels = [], {}
    for res in results:
        if res.error is not None:
            raise EmitError(f"cannot write to {summary.out_dir}: {res.error}")
        temps += res.temps
        kernels.update(res.entries)
        summary.written += res.written
        summary.unchanged += res.unchanged
        summary.bytes += res.bytes
        summary.bytes_written += res.bytes_written
    return temps, kernels


def _foreign(top: list[str], wrapped: list[str], owned: set[str]) -> list[str]:
    """Files in the tree that no emit of this directory wrote (set differences: 27k names per re-emit)."""
    ours = {manifest_.MANIFEST, render.WRAPPER_DIR, unity.UNITY_DIR}
    ours.update(p for p in render.global_paths() if "/" not in p)
    ours.update([n + ".hpp" for n in owned])
    ours.update([n + ".cpp" for n in owned])
    out = set(top).difference(ours)
    mine = {p.split("/", 1)[1] for p in render.global_paths() if "/" in p}
    mine.update([render.WRAPPER_PREFIX + n + ".hpp" for n in owned])
    out.update(f"{render.WRAPPER_DIR}/{n}" for n in set(wrapped).difference(mine))
    return sorted(n for n in out if not n.endswith(files.TMP_TAG))


def _publish(temps: list[tuple[str, str]]) -> None:
    """Rename every temporary into place (in threads when there are many: a rename waits on the disk)."""
    if len(temps) <= 512:
        for tmp, final in temps:
            os.replace(tmp, final)
        return
    def part(pairs):
        for tmp, final in pairs:
            os.replace(tmp, final)

    with ThreadPoolExecutor(4) as pool:
        for f in [pool.submit(part, temps[i::4]) for i in range(4)]:
            f.result()


def _remove_kernels(root: Path, names: list[str]) -> int:
    """Remove the files of kernels emit owned and no longer selects; the number of files removed."""
    n = 0
    for name in names:
        n += files.remove(str(root / rel) for rel in render.kernel_paths(name))
    return n


def _write_globals(root: Path, items, old: list | None, token: str, summary: "EmitSummary"):
    """The include_all and registration headers: (manifest entry, temporaries)."""
    h = hashlib.sha256()
    for _, _, name in items:
        h.update(name.encode() + b"\n")
    key = h.hexdigest()[:24]
    rels = sorted(render.global_paths())
    if old and old[0] == key and len(old) == 1 + 2 * len(rels) and all(
            _stat_ok(root / r, old[1 + 2 * i], old[2 + 2 * i]) for i, r in enumerate(rels)):
        summary.unchanged += len(rels)
        summary.bytes += sum(old[1::2])
        return old, []
    texts = render.global_files(n for _, _, n in items)
    entry, temps = [key], []
    for rel in rels:
        data = texts[rel].encode()
        summary.bytes += len(data)
        final = root / rel
        st = files.same_on_disk(str(final), data)
        if st is not None:
            entry += st
            summary.unchanged += 1
            continue
        tmp = str(final.with_name(files.temp_name(final.name, token)))
        temps.append((tmp, str(final)))
        entry += files.write_new(tmp, data)
        summary.written += 1
        summary.bytes_written += len(data)
    return entry, temps


def _stat_ok(path: Path, size: int, mtime: int) -> bool:
    try:
        st = os.lstat(path)
    except OSError:
        return False
    return stat.S_ISREG(st.st_mode) and st.st_size == size and st.st_mtime_ns == mtime
