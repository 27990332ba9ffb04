"""Packaged data files: one loader with a schema each, and one table per value.

The loader must name the file, the table and the key of a mistake; the value tables must
cover exactly their axis domains, and the config classes must match ``axes.toml``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from cksolve.space.axes import AXES, kind_defaults
from cksolve.space.config import DepthwiseConfig, KernelConfig
from cksolve.space.datafile import Any, validate
from cksolve.space.spelling import DEFAULT_VECTORS
from cksolve.space.values import VALUES, value_facts

ROOT = Path(__file__).resolve().parents[1]

SCHEMA = {"*": {"cpp": str, "size": int, "flag?": bool, "tiles?": [[int]], "extra?": Any}}


@pytest.mark.parametrize("data, problem", [
    ({"fp16": {"cpp": "half_t", "size": 2}}, ""),
    ({"fp16": {"cpp": "half_t", "size": 2, "flag": True, "tiles": [[1, 2]], "extra": {"x": 1}}}, ""),
    ({"fp16": {"cpp": "half_t"}}, "[fp16]: missing key 'size'"),
    ({"fp16": {"cpp": "half_t", "size": 2, "colour": "red"}}, "[fp16]: unknown key 'colour'"),
    ({"fp16": {"cpp": "half_t", "size": "2"}}, "[fp16].size: expected int, got '2'"),
    ({"fp16": {"cpp": "half_t", "size": True}}, "[fp16].size: expected int, got True"),  # a TOML bool is no int
    ({"fp16": {"cpp": "half_t", "size": 2, "tiles": [[1, "a"]]}}, "[fp16].tiles[0][1]: expected int, got 'a'"),
    ({"fp16": 3}, "[fp16]: expected a table, got int"),
])
def test_validate_names_the_table_and_key(data, problem):
    got = validate(data, SCHEMA)
    assert got.startswith(problem) if problem else got == "", got


def test_every_value_table_is_its_axis_domain():
    for kind, values in VALUES.items():
        assert tuple(values) == AXES[kind].domain, kind
    assert value_facts("dtype", "cpp") == {"fp16": "half_t", "bf16": "bf16_t", "fp32": "float"}


def test_config_classes_are_the_axes_schema():
    assert set(KernelConfig._fields) == {n for n, a in AXES.items() if a.kind in ("common", "gemm")}
    assert KernelConfig._field_defaults == kind_defaults("gemm")
    assert DepthwiseConfig._field_defaults == kind_defaults("depthwise")
    assert DEFAULT_VECTORS == (KernelConfig._field_defaults["vector_a"], KernelConfig._field_defaults["vector_b"],
                               KernelConfig._field_defaults["vector_c"])


def _import_in_copy(tmp_path, edit, module="cksolve.space.config") -> subprocess.CompletedProcess:
    shutil.copytree(ROOT / "cksolve", tmp_path / "cksolve", ignore=shutil.ignore_patterns("__pycache__"))
    edit(tmp_path / "cksolve")
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    return subprocess.run([sys.executable, "-c", f"import {module}"], capture_output=True, text=True,
                          env=env, cwd=tmp_path)


def test_a_new_value_without_its_table_fails_at_import(tmp_path):
    def edit(pkg):
        axes = pkg / "space" / "axes.toml"
        axes.write_text(axes.read_text().replace('domain = ["fp16", "bf16", "fp32"]',
                                                 'domain = ["fp16", "bf16", "fp32", "fp8"]'))
    proc = _import_in_copy(tmp_path, edit)
    assert proc.returncode != 0 and "values.toml [dtype]" in proc.stderr and "fp8" in proc.stderr, proc.stderr


def test_the_config_classes_are_built_from_the_data_files(tmp_path):
    """One schema: a default changed in axes.toml is the config class's default, nothing else to edit."""
    def edit(pkg):
        axes = pkg / "space" / "axes.toml"
        text = axes.read_text()
        assert "default = 4\n" in text
        axes.write_text(text.replace("default = 4\n", "default = 2\n", 1))  # vector_a
    shutil.copytree(ROOT / "cksolve", tmp_path / "cksolve", ignore=shutil.ignore_patterns("__pycache__"))
    edit(tmp_path / "cksolve")
    code = "from cksolve.space.config import KernelConfig; print(KernelConfig._field_defaults['vector_a'])"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(tmp_path)}, cwd=tmp_path)
    assert proc.returncode == 0 and proc.stdout.strip() == "2", proc.stderr


def test_a_kinds_file_that_names_other_axes_fails_at_import(tmp_path):
    def edit(pkg):
        kinds = pkg / "space" / "kinds.toml"
        kinds.write_text(kinds.read_text().replace('"in_vec", "out_vec"', '"in_vec", "out_vector"'))
    proc = _import_in_copy(tmp_path, edit)
    assert proc.returncode != 0 and "kinds.toml [depthwise]" in proc.stderr, proc.stderr


def test_a_gemm_field_order_that_the_name_spelling_does_not_follow_fails_at_import(tmp_path):
    def edit(pkg):
        kinds = pkg / "space" / "kinds.toml"
        text = kinds.read_text()
        assert '"tile_m", "tile_n", "tile_k", "wave_m"' in text
        kinds.write_text(text.replace('"tile_m", "tile_n", "tile_k", "wave_m"', '"tile_n", "tile_m", "tile_k", "wave_m"'))
    proc = _import_in_copy(tmp_path, edit)
    assert proc.returncode != 0 and "_spell_gemm" in proc.stderr, proc.stderr


def test_a_layout_of_an_unknown_kernel_kind_fails_at_import(tmp_path):
    def edit(pkg):
        values = pkg / "space" / "values.toml"
        text = values.read_text()
        assert 'kinds = ["depthwise"]' in text
        values.write_text(text.replace('kinds = ["depthwise"]', 'kinds = ["dw"]'))

    proc = _import_in_copy(tmp_path, edit, "cksolve.space.canonical")
    assert proc.returncode != 0 and "values.toml [layout.ngchw]" in proc.stderr and "'dw'" in proc.stderr, \
        proc.stderr
