"""Device facts have one place (``arch/devices.toml``); an arch's facts hold what CK fixed per arch.

gfx942 is an instruction set; MI300X (304 CUs), MI300A (228) and MI325X are parts built on it. The
padding score of ``minimize`` and the performance model read the arch's default device; the ``hw_*``
features keep CK's hardware profile (gfx942: CK's MI300A profile, 228 CUs), which is an input of CK's
models and not a device's fact.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

from cksolve.arch.devices import DEFAULT_DEVICE, device
from cksolve.arch.facts import BUNDLED_ARCHS, arch_facts
from cksolve.features.engine import hardware_block
from cksolve.workload.score import cu_count

ARCH_DIR = Path(__file__).resolve().parents[1] / "cksolve" / "arch"


def test_minimize_scores_on_the_default_device():
    assert DEFAULT_DEVICE["gfx942"] == "MI300X"
    got = {a: cu_count(a) for a in BUNDLED_ARCHS if a in DEFAULT_DEVICE}
    want = {a: device(a).cus for a in got}
    assert got == want and got["gfx942"] == 304, got


def test_features_keep_cks_hardware_profile():
    assert hardware_block("gfx942")[0] == 228  # hw_num_cus: CK's MI300A profile
    assert hardware_block("gfx950")[0] == 256


def test_no_cu_count_outside_the_devices_and_cks_profiles():
    facts = tomllib.loads((ARCH_DIR / "facts.toml").read_text(encoding="utf-8"))
    stray = [a for a, t in facts.items() if any("cu" in k.split("_") or k == "cus" for k in t)]
    assert not stray, f"CU counts in facts.toml outside hw_profile: {stray}"
    assert not hasattr(arch_facts("gfx942"), "cu_count")
    assert not (ARCH_DIR.parent / "scoring" / "devices.toml").exists()


def test_the_default_device_table_of_the_docs_is_the_datas():
    """docs/selection.md lists each arch's default device and its other parts with their CUs: the data's."""
    import re

    from cksolve.arch.devices import DEVICES

    text = (ARCH_DIR.parents[1] / "docs" / "selection.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| (gfx\w+) \| ([^|]*?) \| ?([^|]*?) ?\|$", text, re.M)
    assert {a for a, _, _ in rows} == set(BUNDLED_ARCHS), rows
    for arch, default, others in rows:
        if arch not in DEFAULT_DEVICE:
            assert default.startswith("none"), (arch, default)
            continue
        d = device(arch)
        assert default.startswith(f"{d.name} (") and f"{d.cus} CUs)" in default, (arch, default, d.cus)
        for name, cus in re.findall(r"(\w+)(?: \((\d+)\))?", others):
            assert name in DEVICES and device(arch, name).arch == arch, (arch, name)
            assert not cus or int(cus) == device(arch, name).cus, (arch, name, cus)
        listed = {n for n, _ in re.findall(r"(\w+)(?: \((\d+)\))?", others)} | {d.name}
        assert listed == {n for n in DEVICES if device_arch(n) == arch}, (arch, listed)


def device_arch(name: str) -> str:
    from cksolve.arch.devices import _raw

    return _raw()["device"][name]["arch"]
