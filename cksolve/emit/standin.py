#!/usr/bin/env python3
"""Stand-in for a HIP compiler (hipcc / amdclang++) in the CMake tests; there is none on this machine.

CMake's own compiler checks (no ``--offload-arch``) are handed to the real C++
compiler named by $CKSOLVE_STANDIN_CXX. A kernel compilation (``--offload-arch=``)
is recorded instead -- one JSON line (source, arch, include directories) in
$CKSOLVE_STANDIN_LOG -- and produces what the build expects: the object file
(-o) and a make-style dependency file (-MF) naming the source and the headers
it includes with quotes, as a real compiler's -MD output would.
"""

import json
import os
import re
import sys

args = sys.argv[1:]
archs = [a.split("=", 1)[1] for a in args if a.startswith("--offload-arch=")]
if not archs:
    os.execvp(os.environ["CKSOLVE_STANDIN_CXX"], [os.environ["CKSOLVE_STANDIN_CXX"], *args])


def value(flag):
    return args[args.index(flag) + 1] if flag in args else None


src = value("-c")
obj = value("-o")
incs = [a[2:] for a in args if a.startswith("-I")] + [args[i + 1] for i, a in enumerate(args) if a == "-isystem"]
with open(src, encoding="utf-8") as fh:
    headers = [os.path.join(os.path.dirname(src), h) for h in re.findall(r'^#include "([^"]+)"', fh.read(), re.M)]
with open(os.environ["CKSOLVE_STANDIN_LOG"], "a", encoding="utf-8") as log:
    log.write(json.dumps({"source": src, "arch": archs, "includes": incs}) + "\n")
with open(obj, "wb") as fh:
    fh.write(b"stand-in object for " + src.encode() + b"\n")
dep = value("-MF")
if dep:
    with open(dep, "w", encoding="utf-8") as fh:
        fh.write(f"{value('-MT') or obj}: {' '.join([src] + [h for h in headers if os.path.exists(h)])}\n")
