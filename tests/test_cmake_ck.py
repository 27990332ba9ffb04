"""``cksolve_add_conv_instances(... CK <ref>)`` and the ``CKSOLVE_CK`` cache variable choose the CK version
the configure-time emit answers at (configure only: nothing is compiled).

The checkout's own cksolve runs (a wrapper script on this interpreter), so the test exercises this
package's CMake file, not an installed copy's.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from cksolve.emit.cmake import CMAKE_DIR

ROOT = Path(__file__).resolve().parents[1]
CMAKE = shutil.which("cmake")
NINJA = shutil.which("ninja", path=str(Path(sys.executable).parent)) or shutil.which("ninja")
CXX = shutil.which("g++") or shutil.which("clang++") or shutil.which("c++")

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(not (CMAKE and NINJA and CXX), reason="needs cmake, ninja and a C++ compiler")]

LISTS = """cmake_minimum_required(VERSION 3.20)
project(sample LANGUAGES CXX)
find_package(cksolve CONFIG REQUIRED)
cksolve_add_conv_instances(conv RULE_SET default ARCHS gfx950 VARIANTS forward DTYPES fp16 NDIMS 2 {ck})
string(REPLACE ";" "\\n" kernels "${{conv_KERNELS}}")
file(WRITE "${{CMAKE_BINARY_DIR}}/kernels.txt" "${{kernels}}\\n")
"""


def _kernels(tmp_path: Path, ck: str, *defines: str) -> set[str]:
    src, build = tmp_path / "src", tmp_path / "build"
    src.mkdir(parents=True, exist_ok=True)
    (src / "CMakeLists.txt").write_text(LISTS.format(ck=ck))
    exe = tmp_path / "cksolve"
    exe.write_text(f"#!/bin/sh\nPYTHONPATH={ROOT} exec {sys.executable} -m cksolve \"$@\"\n")
    exe.chmod(0o755)
    env = {k: v for k, v in os.environ.items() if k != "CKSOLVE_CK"}
    proc = subprocess.run([CMAKE, "-S", str(src), "-B", str(build), "-G", "Ninja", f"-DCMAKE_MAKE_PROGRAM={NINJA}",
                           f"-DCMAKE_CXX_COMPILER={CXX}", f"-Dcksolve_DIR={CMAKE_DIR}", f"-Dcksolve_EXECUTABLE={exe}",
                           "-DCKSOLVE_SKIP_COMPILER_CHECK=ON", *defines], capture_output=True, text=True, env=env)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return {k.split(":", 1)[1] for k in (build / "kernels.txt").read_text().split()}


def _enumerate(ref: str) -> set[str]:
    proc = subprocess.run([sys.executable, "-m", "cksolve", "enumerate", "-r", "default", "--arch", "gfx950",
                           "--variant", "forward", "--dtype", "fp16", "--ndim", "2", "--ck", ref],
                          capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    return set(proc.stdout.split())


def test_the_ck_argument_and_the_cache_variable_choose_the_version(tmp_path):
    june, develop = _enumerate("60b27664"), _enumerate("05fcb0f1")
    assert june != develop
    assert _kernels(tmp_path / "arg", "CK 60b27664") == june
    assert _kernels(tmp_path / "default", "") == develop  # cksolve's default: the newest bundled
    assert _kernels(tmp_path / "cache", "", "-DCKSOLVE_CK=2026-06") == june
    assert _kernels(tmp_path / "both", "CK develop", "-DCKSOLVE_CK=2026-06") == develop  # the argument wins
