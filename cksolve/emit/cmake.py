"""The CMake side of emit: where the CMake package lives, and the list file it reads.

``cksolve_add_conv_instances`` (``cmake/cksolveConfig.cmake``) runs ``cksolve
emit --cmake-list FILE`` at configure time and includes FILE: per arch, the
tree, the exact ``.cpp`` files and the kernel names (never a glob), and the
inputs whose change must re-run the configure. The file is rewritten only when
its text changes.
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterable, Sequence

from . import files, render
from ..errors import shorten
from .names import EmitError

__all__ = ["CMAKE_DIR", "installation_files", "cmake_list_text", "cmake_path_error", "write_cmake_list"]

#: the directory holding cksolveConfig.cmake (``cksolve cmake-dir``)
CMAKE_DIR = Path(__file__).with_name("cmake")
_PACKAGE = Path(__file__).resolve().parents[1]


def installation_files() -> list[Path]:
    """Every file of the installed cksolve package: a reinstall or an edit of any of them re-runs the configure."""
    return sorted(p for p in _PACKAGE.rglob("*")
                  if p.is_file() and p.suffix in (".py", ".toml", ".j2", ".cmake") and "__pycache__" not in p.parts)


def _q(value: str) -> str:
    """``value`` as one CMake bracket argument (no escapes are interpreted inside one)."""
    if ";" in value:
        raise EmitError(f"cannot hand {value!r} to CMake: a ';' would split it")
    eq = "="
    while f"]{eq}]" in value:
        eq += "="
    return f"[{eq}[{value}]{eq}]"


def cmake_path_error(path: Path) -> str | None:
    """Why ``path`` (resolved, as the list holds it) cannot go into a CMake list, or None."""
    resolved = str(Path(path).resolve())
    if ";" in resolved:
        return f"{shorten(resolved)}: cannot hand it to CMake with --cmake-list: a ';' would split it"
    return None


def _set(var: str, values: Iterable[str]) -> str:
    return f"set({var}" + "".join(f"\n  {_q(v)}" for v in values) + ")\n"


def cmake_list_text(trees: Sequence[tuple], depends: Iterable[Path]) -> str:
    """The list file for (arch, tree directory, kernel names[, unity units]) per arch and the inputs to watch.

    The arch may be a ROCm target ID (``gfx942:xnack-``): CMake variable names
    may hold ``:``, ``+`` and ``-``. With unity units (paths relative to the
    tree) the sources are the units; otherwise each kernel's ``.cpp``.
    """
    out = ["# Written by `cksolve emit --cmake-list`; read by cksolve_add_conv_instances. Do not edit.\n",
           _set("CKSOLVE_ARCHS", [t[0] for t in trees])]
    for arch, tree, names, *rest in trees:
        units = rest[0] if rest else None
        tree = Path(tree).resolve()
        out.append(_set(f"CKSOLVE_TREE_{arch}", [str(tree)]))
        sources = ([str(tree / u) for u in units] if units else
                   [str(tree / render.kernel_paths(n)[1]) for n in sorted(names)])
        out.append(_set(f"CKSOLVE_SOURCES_{arch}", sources))
        out.append(_set(f"CKSOLVE_KERNELS_{arch}", sorted(names)))
    out.append(_set("CKSOLVE_DEPENDS", sorted({str(Path(p).resolve()) for p in depends})))
    return "".join(out)


def write_cmake_list(path: Path, text: str) -> None:
    """Write the list file unless it already holds ``text`` (CksolveError, one line, if it cannot).

    The old list is read only if it is a regular file of exactly the new text's size: a device or FIFO
    standing there (``/dev/zero``, a pipe) is written into, never read without end.
    """
    path = Path(path)
    data = text.encode("utf-8")
    if files.read_regular(path, len(data)) == data:
        return
    files.write_text_atomic(path, text)
