"""``cksolve-standin-cxx``: a stand-in for HIP's compiler, to test a kernel build where there is no ROCm.

Give it to CMake as the C++ compiler (``-DCMAKE_CXX_COMPILER=$(command -v
cksolve-standin-cxx)``) and configure and build as usual: the build graph is
real (which files are compiled, for which ``--offload-arch``, with which
include directories, and when ninja recompiles them), only the compiling is
not. CMake's own compiler checks (no ``--offload-arch``) are handed to the
machine's C++ compiler ($CKSOLVE_STANDIN_CXX, else ``c++``). A kernel
compilation (``--offload-arch=``) is recorded instead -- one JSON line
(source, arch, include directories) appended to $CKSOLVE_STANDIN_LOG when
set -- and produces what the build expects: the object file (-o) and a
make-style dependency file (-MF) naming the source and the headers it
includes with quotes (followed through quoted includes, as a real compiler's
-MD output would be).

It imports nothing of cksolve: it runs once per compilation.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sys

__all__ = ["main"]

_INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def _value(args: list[str], flag: str) -> str | None:
    return args[args.index(flag) + 1] if flag in args and args.index(flag) + 1 < len(args) else None


def _headers(src: str, incs: list[str]) -> list[str]:
    """Every file reached through quoted includes from ``src`` (relative to the includer, then -I)."""
    seen: list[str] = []
    todo = [src]
    while todo:
        path = todo.pop()
        try:
            with open(path, encoding="utf-8") as fh:
                text = fh.read()
        except (OSError, UnicodeDecodeError):
            continue
        for rel in _INCLUDE.findall(text):
            for base in [os.path.dirname(path), *incs]:
                cand = os.path.normpath(os.path.join(base, rel))
                if os.path.isfile(cand):
                    if cand not in seen:
                        seen.append(cand)
                        todo.append(cand)
                    break
    return seen


def _escape(path: str) -> str:
    return path.replace(" ", "\\ ")  # a ':' inside a path is read as part of it (as clang writes it)


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    archs = [a.split("=", 1)[1] for a in args if a.startswith("--offload-arch=")]
    if not archs:
        real = os.environ.get("CKSOLVE_STANDIN_CXX") or shutil.which("c++") or shutil.which("g++")
        if not real:
            sys.stderr.write("cksolve-standin-cxx: no C++ compiler for CMake's checks; set CKSOLVE_STANDIN_CXX\n")
            return 1
        os.execvp(real, [real, *args])
    src, obj = _value(args, "-c"), _value(args, "-o")
    if src is None or obj is None:
        sys.stderr.write("cksolve-standin-cxx: a kernel compilation needs -c SOURCE and -o OBJECT\n")
        return 1
    incs = [a[2:] for a in args if a.startswith("-I") and len(a) > 2]
    incs += [args[i + 1] for i, a in enumerate(args[:-1]) if a in ("-I", "-isystem")]
    headers = _headers(src, incs)
    log = os.environ.get("CKSOLVE_STANDIN_LOG")
    if log:
        with open(log, "a", encoding="utf-8") as fh:
            fh.write(json.dumps({"source": src, "arch": archs, "includes": incs}) + "\n")
    with open(obj, "wb") as fh:
        fh.write(b"stand-in object for " + src.encode() + b"\n")
    dep = _value(args, "-MF")
    if dep:
        with open(dep, "w", encoding="utf-8") as fh:
            fh.write(f"{_escape(_value(args, '-MT') or obj)}: {' '.join(_escape(p) for p in [src] + headers)}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
