"""Measurement labels -> kernels (``workload.labels``): full names, short names through ``default``, label maps."""

from __future__ import annotations

import csv

import pytest

from cksolve.errors import CksolveError
from cksolve.workload.labels import LabelResolver, read_kernel_map

from conftest import CK

#: CK's gfx950 bf16 forward sweep (the real measurement file, shared/ck/measurements)
REAL = CK / "measurements" / "training_data_forward_bf16_20.csv"
C3 = "grouped_conv_fwd_bf16_nhwgc_2d_compv3_cshuffle_intrawave_"
C4 = "grouped_conv_fwd_bf16_nhwgc_2d_compv4_cshuffle_intrawave_"


@pytest.mark.ck_data
def test_real_file_labels_are_13_kernels():
    """The 20 labels of the real file: 10 compv3 kernels as named, 10 compv4 labels on three compv4 kernels."""
    with open(REAL, newline="") as fh:
        labels = sorted({row["kernel"] for row in csv.DictReader(fh)})
    assert len(labels) == 20
    r = LabelResolver("gfx950")
    got = {label: r.resolve(label) for label in labels}
    assert all(x.config is not None for x in got.values()), [x for x in got.values() if x.config is None]
    assert len({x.kernel for x in got.values()}) == 13
    compv4 = {x.kernel for label, x in got.items() if label.endswith("_compv4")}
    assert compv4 == {C4 + "16x64x128_1x4x1_16x16x16_dsb", C4 + "32x64x128_2x2x1_16x16x16_dsb",
                      C4 + "64x64x128_4x1x1_16x16x16_dsb"}
    assert all(x.how == "exact" for label, x in got.items() if label.endswith("_compv3"))
    assert got["grouped_conv_forward_bf16_2d_128x128x64_compv4"].kernel == C4 + "64x64x128_4x1x1_16x16x16_dsb"
    assert got["grouped_conv_forward_bf16_2d_32x128x64_compv4"].kernel == C4 + "32x64x128_2x2x1_16x16x16_dsb"
    c = got["grouped_conv_forward_bf16_2d_64x64x64_compv3"].config
    assert (c.wave_m, c.wave_n, c.wave_k, c.warp_tile_m, c.warp_tile_n, c.warp_tile_k) == (4, 1, 1, 16, 16, 16)
    assert (c.vector_a, c.vector_b, c.vector_c) == (4, 8, 8)


def test_scheduler_token_and_full_names():
    r = LabelResolver("gfx950")
    a = r.resolve("grouped_conv_forward_bf16_2d_128x128x64_compv3")
    b = r.resolve("grouped_conv_forward_bf16_2d_128x128x64_compv3_intrawave")
    assert a.config == b.config and a.kernel == C3 + "128x128x64_4x4x1_32x32x16"
    full = r.resolve(C3 + "64x64x64_4x1x1_16x16x16")
    assert full.how == "name" and full.kernel == C3 + "64x64x64_4x1x1_16x16x16"
    # a pipeline default lacks goes to the same tile's kernel of another pipeline (CK's compv5 labels)
    assert r.resolve("grouped_conv_forward_bf16_2d_16x64x64_compv5").kernel == C3 + "16x64x64_1x4x1_16x16x16"


def test_unknown_label():
    r = LabelResolver("gfx950")
    x = r.resolve("my_kernel")
    assert x.config is None and x.how == "unknown" and "neither" in x.why
    with pytest.raises(CksolveError, match="my_kernel"):
        r.config("my_kernel")


def test_kernel_map_overrides(tmp_path):
    m = tmp_path / "map.csv"
    m.write_text(f"label,kernel\nmy_kernel,{C3}64x64x64_4x1x1_16x16x16\n"
                 f"grouped_conv_forward_bf16_2d_16x64x64_compv4,{C3}16x64x64_1x4x1_16x16x16\n")
    r = LabelResolver("gfx950", read_kernel_map(m))
    assert r.resolve("my_kernel").how == "map"
    assert r.resolve("grouped_conv_forward_bf16_2d_16x64x64_compv4").kernel == C3 + "16x64x64_1x4x1_16x16x16"
    t = tmp_path / "map.toml"
    t.write_text(f'"my_kernel" = "{C3}64x64x64_4x1x1_16x16x16"\n')
    assert read_kernel_map(t) == {"my_kernel": C3 + "64x64x64_4x1x1_16x16x16"}


@pytest.mark.parametrize("text, message", [
    ("a,b\n", "header must be 'label,kernel'"),
    ("label,kernel\nx,not_a_kernel\n", "not_a_kernel' is not a full kernel name"),
    (f"label,kernel\nx,{C3}64x64x64_4x1x1_16x16x16\nx,{C3}64x64x64_4x1x1_16x16x16\n", "mapped twice"),
    ("label,kernel\nx\n", "1 fields, expected 2"),
])
def test_bad_kernel_map(tmp_path, text, message):
    m = tmp_path / "map.csv"
    m.write_text(text)
    with pytest.raises(CksolveError, match=message):
        read_kernel_map(m)
