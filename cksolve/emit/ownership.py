"""Emit tells before it deletes: which selection owns a tree, and what another one would remove.

An output directory's manifest records what chose its kernels (``rule set
tiny``, ``names file /abs/kernels.txt``). Re-emitting the same selection
removes the kernels it no longer selects, silently: that is what keeps a build
tree exact. But an emit of a *different* selection into the same ``--out``
would remove another selection's files; that, and switching the layout
(a flat tree where arch trees are wanted, or the reverse), is refused unless
``replace`` is given, with one line saying what would be removed (a count and
an example). The checks run over every tree before any is written, so a
refusal leaves the directory as it was.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterable

from . import files, manifest as manifest_, render
from .lock import locked
from .names import ARCH, all_plain
from .unity import UNITY_DIR, is_unit
from ..arch.target_id import is_target_id
from ..errors import CksolveError

__all__ = ["owned_files", "would_remove", "check_replace", "refuse_stale", "drop_tree", "other_layout"]


def _load(root: Path) -> manifest_.Manifest:
    return manifest_.load(root, all_plain, ARCH.fullmatch)


def owned_files(root: Path, kernels: Iterable[str], with_globals: bool = False) -> list[str]:
    """The files of ``kernels`` in ``root`` that exist (and the shared headers and manifest, if asked)."""
    rels = [r for n in sorted(kernels) for r in render.kernel_paths(n)]
    if with_globals:
        rels += sorted(render.global_paths()) + [manifest_.MANIFEST]
    return [str(Path(root) / r) for r in rels if os.path.lexists(Path(root) / r)]


def would_remove(root: Path, selected: set[str], selection: str | None) -> tuple[str | None, list[str]]:
    """(owner, files) that emitting ``selected`` for ``selection`` into ``root`` would remove from another
    selection's tree; (None, []) when nothing of another selection would go."""
    old = _load(root)
    if not old.kernels or old.selection is None or selection is None or old.selection == selection:
        return None, []
    return old.selection, owned_files(root, set(old.kernels) - selected)


def other_layout(out_dir: Path, arch_dirs: bool, trees: Iterable[str]) -> list[Path]:
    """Trees of the other layout in ``out_dir``: its flat tree (when writing arch trees) or its arch trees
    (when writing a flat one) -- each a directory holding an emit manifest. ``trees`` are the arch trees
    about to be written (they are no obstacle)."""
    out_dir = Path(out_dir)
    if arch_dirs:
        return [out_dir] if os.path.isfile(out_dir / manifest_.MANIFEST) else []
    try:
        subdirs = sorted(os.listdir(out_dir))
    except OSError:
        return []
    keep = set(trees)
    return [out_dir / d for d in subdirs if is_target_id(d) and d not in keep
            and not os.path.islink(out_dir / d) and os.path.isfile(out_dir / d / manifest_.MANIFEST)]


def _example(paths: list[str]) -> str:
    return f"e.g. {paths[0]}" if paths else "none of its files are on disk"


def check_replace(out_dir: Path, arch_dirs: bool, trees: dict[str, set[str]], selection: str | None,
                  replace: bool) -> list[Path]:
    """Refuse (CksolveError, one line) what would remove files of another selection or layout, unless
    ``replace``. ``trees`` maps each tree directory about to be written to its kernel names.
    Returns the trees of the other layout, for the caller to drop (with ``replace``)."""
    others = other_layout(out_dir, arch_dirs, [Path(t).name for t in trees])
    if replace:
        return others
    for other in others:
        old = _load(other)
        doomed = owned_files(other, old.kernels, with_globals=True)
        what = "a flat tree" if arch_dirs else "an arch tree"
        layout = "one tree per arch" if arch_dirs else "a flat tree"
        raise CksolveError(f"{out_dir} holds {what} ({other}, {len(old.kernels)} kernels, {len(doomed)} files, "
                           f"{_example(doomed)}); writing {layout} would leave it beside the new trees: "
                           f"give {{opt:replace}} to remove it, or another {{opt:out_dir}}")
    doomed: list[str] = []
    owner = None
    for tree, selected in trees.items():
        who, paths = would_remove(Path(tree), selected, selection)
        if paths:
            owner = owner or who
            doomed += paths
    if doomed:
        raise CksolveError(f"refusing to remove {len(doomed)} files that another selection ({owner}) wrote into "
                           f"{out_dir} ({_example(doomed)}); give {{opt:replace}} to replace them, or another {{opt:out_dir}}")
    return []


def refuse_stale(root: Path, owner: str | None, selection: str | None, stale: list[str]) -> None:
    """Under the tree's lock: refuse removing ``stale`` kernels when another selection wrote them (the check
    :func:`check_replace` made before may have raced with another emit)."""
    if owner is None or selection is None or owner == selection:
        return
    doomed = owned_files(root, stale)
    raise CksolveError(f"refusing to remove {len(doomed)} files that another selection ({owner}) wrote into "
                       f"{root} (e.g. {doomed[0] if doomed else stale[0]}); give {{opt:replace}} to replace them")


def drop_tree(root: Path) -> int:
    """Remove what emit owns in ``root`` (its kernels, shared headers, unity units, manifest) and the
    directories left empty; files emit did not write stay. The number of files removed."""
    root = Path(root)
    with locked(root, None):
        old = _load(root)
        unity = root / UNITY_DIR
        units = [str(unity / n) for n in (os.listdir(unity) if os.path.isdir(unity) and not os.path.islink(unity) else ())
                 if is_unit(n)]
        n = files.remove(owned_files(root, old.kernels, with_globals=True) + units)
        for d in (unity, root / render.WRAPPER_DIR):
            try:
                os.rmdir(d)
            except OSError:
                pass
    try:
        os.rmdir(root)
    except OSError:
        pass
    return n
