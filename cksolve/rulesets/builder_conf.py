"""Reading CK Builder ``.conf`` files: instance strings -> cksolve configs.

A ``.conf`` file lists one kernel instance per line, either as an old-CK device
op (``DeviceGroupedConvFwdMultipleABD_Xdl_CShuffle_V3<...>``, the backward-weight
XDL / V3 / two-stage / explicit-GEMM forms, backward data), as a native CK Tile
kernel string (``GroupedConvolution{Forward,BackwardWeight}Kernel<...>``) or, in
the depthwise file, as ``GroupedConvolutionForwardDepthwise<12 ints>``.

Reading happens in two steps, as in CK:

1. :func:`parse_conf` turns each line into an :class:`Instance` -- the template
   arguments the kind carries, typed and checked. Everything that does not
   depend on the target is decided here, so a malformed line fails at load
   time with ``FILE:LINE: what is wrong``.
2. :meth:`Instance.config` maps an instance to a config for one warp size and
   dtype, the way the Builder's ``generate_instances.py`` and CK's
   ``grouped_config_rules_builder.py`` do: waves derived from the block size and
   the warp size, the warp tile's K from K1 and the MFMA K, pipeline and
   specialization names mapped, and the Builder's own skip rules applied
   (``None`` = the Builder drops the instance on that target).

Field positions and name maps are data (``builder.toml``); this module only
knows the three forms (``xdl``, ``native``, ``explicit``) and the depthwise list.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping

from ..arch.constraints import vectors_ok, wmma_k_ok, wmma_shape_ok
from ..errors import CksolveError, shorten
from ..space.axes import AXES
from ..space.config import DepthwiseConfig, KernelConfig
from ..space.datafile import Any
from ..space.memos import MEMOS
from ..space.textfile import read_text
from ..space.values import value_facts
from .base import RuleSetError
from .data import load_toml

__all__ = ["Instance", "parse_conf", "parse_instance", "builder_data", "unusable", "ConfError"]


class ConfError(RuleSetError):
    """A ``.conf`` line that cannot be read; the message names file and line."""


#: Checked here: what the file-name layout needs; the field tables are checked as they are read.
_SCHEMA = {"dtypes": [str], "subsets": {"*": str}, "directories": {"*": str},
           "layouts": {"*": {"ndim": int, "layout": str}}, "*": Any}


@MEMOS.cached("rulesets.builder_conf.builder_data")
def builder_data() -> dict:
    data = load_toml(__package__, "builder.toml", _SCHEMA)
    if not set(data["dtypes"]) <= set(AXES["dtype"].domain):
        raise RuleSetError(f"builder.toml: dtypes {data['dtypes']} are not all values of the dtype axis")
    data["_by_match"] = {k["match"]: (name, k) for name, k in data["kinds"].items()}
    return data


# --- the Builder's skip rules (generate_instances.py / grouped_config_rules_default.py) ----


#: The Builder's dtype names (values.toml ``builder``: derived from its problem name, fp32 is "float").
_BUILDER_DTYPE = value_facts("dtype", "builder")


def _builder_dtype(dtype: str) -> str:
    return _BUILDER_DTYPE.get(dtype, dtype)


def _mfma_k(dtype: str, xdl: int) -> int:
    """Smallest K of one MFMA for the per-XDL size (get_k_mfma)."""
    if _builder_dtype(dtype) == "float":
        return 2 if xdl == 32 else 4
    return 16 if xdl == 32 else 32


def _wmma_keeps(warp_size: int, tile_k: int, wave_k: int, warp_tile_k: int, warp_tile_m: int, dtype: str) -> bool:
    # CK's WMMA rule as the Builder applies it: its fp32 is "float", which skips the K minimum.
    if _builder_dtype(dtype) != "float" and not wmma_k_ok(warp_tile_k, warp_size):
        return False
    return wmma_shape_ok(wave_k, tile_k, warp_tile_k, warp_tile_m, warp_size)


def _coverage_keeps(a_dim: int, tile_n: int, vec_a: int, vec_b: int, warp_size: int) -> bool:
    """One warp's vector loads must cover the contiguous A and B tile dims."""
    return a_dim <= warp_size * vec_a and tile_n <= warp_size * vec_b


def _bwd_data_vectors_keep(tile_m, tile_n, tile_k, wave_m, wave_n, wave_k, vec_a, vec_b, warp_size) -> bool:
    block = warp_size * wave_m * wave_n * wave_k
    if block == 0:
        return False
    return vec_a <= (tile_m * tile_k) // block and vec_b <= (tile_n * tile_k) // block


# --- instances ------------------------------------------------------------------------


@dataclass(frozen=True)
class Instance:
    """One instance line, read but not yet mapped to a target."""

    path: str
    line: int
    kind: str  # key of [kinds.*] in builder.toml
    variant: str
    form: str  # "xdl", "native", "explicit" or "depthwise"
    f: Mapping[str, object] = field(repr=False)

    def config(self, warp_size: int, dtype: str, ndim: int, layout: str):
        """The config this instance becomes on a target, or ``None`` if the Builder skips it."""
        if self.form == "depthwise":
            return DepthwiseConfig(dtype=dtype, ndim=ndim, layout=layout, **self.f)
        if self.form == "native":
            return self._native(warp_size, dtype, ndim, layout)
        return self._xdl(warp_size, dtype, ndim, layout)

    # Old-CK device ops (and the explicit-GEMM form, read into the same fields).
    def _xdl(self, ws: int, dtype: str, ndim: int, layout: str):
        f = self.f
        wave_m, wave_n = f["wave_m"], f["wave_n"]
        wave_k = f["block_size"] // (ws * wave_m * wave_n)
        warp_tile_k = min(max(f["k1"], _mfma_k(dtype, f["xdl"])), f["tile_k"])
        if not _wmma_keeps(ws, f["tile_k"], wave_k, warp_tile_k, f["xdl"], dtype):
            return None
        va, vb, vc = f["vector_a"], f["vector_b"], f["vector_c"]
        if self.variant in ("bwd_weight", "bwd_data"):
            if not vectors_ok(va, vb, vc):
                return None
            a_dim = f["tile_k"] if self.variant == "bwd_data" else f["tile_m"]
            if not _coverage_keeps(a_dim, f["tile_n"], va, vb, ws):
                return None
        if self.variant == "bwd_data" and not _bwd_data_vectors_keep(
            f["tile_m"], f["tile_n"], f["tile_k"], wave_m, wave_n, wave_k, va, vb, ws
        ):
            return None
        two_stage = f["two_stage"]
        if f["explicit_gemm"] and _builder_dtype(dtype) != "float" and vc % 2 != 0:
            two_stage = True
        return self._make(
            dtype, ndim, layout, wave_m=wave_m, wave_n=wave_n, wave_k=wave_k,
            warp_tile_m=f["xdl"], warp_tile_n=f["xdl"], warp_tile_k=warp_tile_k, two_stage=two_stage,
        )

    # Native CK Tile kernel strings: waves and warp tile are given.
    def _native(self, ws: int, dtype: str, ndim: int, layout: str):
        f = self.f
        streamk = f["streamk"]
        two_stage = False
        if self.variant == "bwd_weight":
            two_stage = _builder_dtype(dtype) != "float" and f["vector_c"] == 1 and not streamk
            if streamk and _builder_dtype(dtype) == "float" and "ASYNC" in f["version"]:
                return None
            if ws == 32 and streamk:
                return None
            if not _wmma_keeps(ws, f["tile_k"], f["wave_k"], f["warp_tile_k"], f["warp_tile_m"], dtype):
                return None
        return self._make(
            dtype, ndim, layout, wave_m=f["wave_m"], wave_n=f["wave_n"], wave_k=f["wave_k"],
            warp_tile_m=f["warp_tile_m"], warp_tile_n=f["warp_tile_n"], warp_tile_k=f["warp_tile_k"],
            two_stage=two_stage,
        )

    def _make(self, dtype, ndim, layout, **target) -> KernelConfig:
        f = self.f
        streamk = bool(f.get("streamk", False))
        return KernelConfig(
            variant=self.variant, dtype=dtype, ndim=ndim, layout=layout,
            tile_m=f["tile_m"], tile_n=f["tile_n"], tile_k=f["tile_k"],
            pipeline=f["pipeline"], epilogue="cshuffle", scheduler=f["scheduler"],
            vector_a=f["vector_a"], vector_b=f["vector_b"], vector_c=f["vector_c"],
            pad_m=True, pad_n=True, pad_k=True,
            double_smem_buffer=f["double_smem_buffer"], groups_to_merge=f["groups_to_merge"],
            wave_groups=f["wave_groups"], split_image=f["split_image"], explicit_gemm=f["explicit_gemm"],
            specialization=f["specialization"],
            streamk=streamk,
            streamk_strategy=f["streamk_strategy"] if streamk else "tree",
            streamk_persistent=bool(f["streamk_persistent"]) if streamk else False,
            **target,
        )


# --- reading lines ----------------------------------------------------------------------


# A bracketed group (Seq(...), an inner <...>): its commas do not separate arguments.
_GROUP = re.compile(r"\([^()]*\)|<[^<>]*>")


def _split_args(text: str) -> list[str]:
    """Template arguments split on top-level commas (``Seq(...)`` stays one argument)."""
    masked = _GROUP.sub(lambda m: m.group(0).replace(",", "\0"), text)
    return [a.strip().replace("\0", ",") for a in masked.split(",")]


_INTEGER = re.compile(r"-?(?:0|[1-9][0-9]*)", re.ASCII)


_ANGLE = re.compile(r"[<>]")


def _balanced(s: str) -> bool:
    """Whether the ``<`` opening at ``s``'s first ``<`` closes exactly at its last character.

    Only the brackets move the depth, so only they are visited (a loop over every character
    was a third of reading CK's .conf files).
    """
    depth, last = 0, len(s) - 1
    for m in _ANGLE.finditer(s, s.index("<")):
        depth += 1 if m.group() == "<" else -1
        if depth < 0 or (depth == 0 and m.start() != last):
            return False
    return depth == 0


class _Line:
    """Typed access to one line's arguments, with errors that name file, line and field."""

    def __init__(self, where: str, kind: str):
        self.where = where
        self.kind = kind

    def fail(self, what: str):
        raise ConfError(f"{self.where}: {what}")

    def int(self, name: str, text: str) -> int:
        # canonical spelling only: Python's int() would also read 1_28, +128, 0128 and Arabic-Indic digits
        if not _INTEGER.fullmatch(text):
            self.fail(f"{self.kind}: field {name} must be an integer in plain ASCII digits (no leading zero, "
                      f"'+' or '_'), got {shorten(text)}")
        return int(text)

    def flag(self, name: str, text: str) -> bool:
        t = text.strip().lower()
        if t in ("true", "1"):
            return True
        if t in ("false", "0"):
            return False
        self.fail(f"{self.kind}: field {name} must be true/false or 1/0, got {shorten(text)}")

    def lookup(self, table: str, name: str, key: str) -> str:
        values = builder_data()[table]
        if key not in values:
            self.fail(f"{self.kind}: unknown {name} {shorten(key)}; known: {', '.join(values)}")
        return values[key]


_STR_FIELDS = {"specialization", "scheduler", "version", "pipeline_name"}
_FLAG_FIELDS = {"direct_load", "split_image", "explicit_gemm", "double_smem_buffer", "two_stage"}


def _typed(ln: _Line, name: str, value):
    if not isinstance(value, str):
        return value
    if name in _STR_FIELDS:
        return value
    if name in _FLAG_FIELDS:
        return ln.flag(name, value)
    return ln.int(name, value)


def _read_positional(ln: _Line, spec: dict, args: list[str]) -> dict:
    counts = spec["params"]
    if len(args) not in counts:
        want = " or ".join(str(c) for c in counts)
        ln.fail(f"{ln.kind}: expected {want} template arguments, got {len(args)}")
    raw = {name: args[pos] for name, pos in spec["at"].items() if pos < len(args)}
    raw.update(spec.get("fixed", {}))
    return {name: _typed(ln, name, v) for name, v in raw.items()}


def _read_explicit(ln: _Line, spec: dict, body: str) -> dict:
    # "...Universal<Default, CRR> Key: value, Key: value, ...": the pairs follow the inner '>'.
    inner_end = body.find(">")
    if inner_end < 0:
        ln.fail(f"{ln.kind}: expected an inner <...> followed by 'Key: value' pairs")
    pairs = {}
    for item in _split_args(body[inner_end + 1:]):
        if not item:
            continue
        key, sep, value = item.partition(":")
        if not sep:
            ln.fail(f"{ln.kind}: expected 'Key: value', got {shorten(item)}")
        pairs[key.strip()] = value.strip()
    missing = [k for k in spec["keys"] if k not in pairs]
    if missing:
        ln.fail(f"{ln.kind}: missing {', '.join(missing)}")

    def dims(key: str, n: int) -> list[str]:
        parts = pairs[key].split("x", n - 1)
        if len(parts) != n:
            ln.fail(f"{ln.kind}: {key} must have {n} 'x'-separated parts, got {shorten(pairs[key])}")
        return parts

    tm, tn, tk = (ln.int("BlkTile", v) for v in dims("BlkTile", 3))
    xm, xn = (ln.int("WaveTile", v) for v in dims("WaveTile", 2))
    ak1, bk1 = (ln.int("K1", v) for v in dims("K1", 2))
    pm, pn = (ln.int("WaveMap", v) for v in dims("WaveMap", 2))
    va, vb, vc_text = dims("VmemReadVec", 3)
    m = re.fullmatch(r"Seq\(([^)]*)\)", vc_text.strip())
    if not m:
        ln.fail(f"{ln.kind}: VmemReadVec C part must be Seq(...), got {shorten(vc_text)}")
    vcs = {ln.int("VmemReadVec", v.strip()) for v in m.group(1).split(",")}
    if len(vcs) != 1:
        ln.fail(f"{ln.kind}: C vector size must be the same for every wave, got {sorted(vcs)}")
    out = {
        "block_size": ln.int("BlkSize", pairs["BlkSize"]),
        "tile_m": tm, "tile_n": tn, "tile_k": tk, "xdl_m": xm, "xdl_n": xn,
        "k1": min(ak1, bk1), "xdl_per_wave_m": pm, "xdl_per_wave_n": pn,
        "vector_a": ln.int("VmemReadVec", va), "vector_b": ln.int("VmemReadVec", vb), "vector_c": vcs.pop(),
        "scheduler": pairs["BlkGemmPipelineScheduler"], "version": pairs["BlkGemmPipelineVersion"],
    }
    out.update(spec.get("fixed", {}))
    return out


def _finish_xdl(ln: _Line, f: dict) -> dict:
    """Target-independent part of the old-CK mapping: tile K, waves M/N, names."""
    if "k0" in f:
        f["tile_k"] = f.pop("k0") * f["k1"]
    if "bk1" in f and f.pop("bk1") != f["k1"]:
        ln.fail(f"{ln.kind}: A K1 and B K1 differ; the Builder supports only equal K1")
    if f["xdl_m"] != f["xdl_n"]:
        ln.fail(f"{ln.kind}: per-XDL M ({f['xdl_m']}) and N ({f['xdl_n']}) differ; the Builder supports only square XDL")
    f["xdl"] = f.pop("xdl_m")
    del f["xdl_n"]
    for axis in ("m", "n"):
        per_wave = f["xdl"] * f.pop(f"xdl_per_wave_{axis}")
        waves = f[f"tile_{axis}"] // per_wave if per_wave else 0
        if waves == 0:
            ln.fail(f"{ln.kind}: tile_{axis} {f[f'tile_{axis}']} is smaller than one wave's share ({per_wave})")
        f[f"wave_{axis}"] = waves
    version = ln.lookup("legacy_version", "pipeline version", f["version"])
    f["double_smem_buffer"] = version == "V4"
    if f.pop("direct_load"):
        if version not in builder_data()["direct_load"]:
            ln.fail(f"{ln.kind}: pipeline version {f['version']} does not support direct load")
        version = builder_data()["direct_load"][version]
    f["version"] = version
    f["pipeline"] = ln.lookup("pipeline_version", "pipeline version", version)
    f["scheduler"] = ln.lookup("scheduler", "scheduler", f["scheduler"])
    f["specialization"] = ln.lookup("specialization", "specialization", f["specialization"])
    f.setdefault("two_stage", False)
    f.setdefault("explicit_gemm", False)
    f.setdefault("split_image", False)
    f.setdefault("wave_groups", 1)
    f["streamk"] = False
    f["streamk_strategy"] = "tree"
    f["streamk_persistent"] = False
    return f


def _finish_native(ln: _Line, f: dict) -> dict:
    version = ln.lookup("native_pipeline", "pipeline name", f.pop("pipeline_name"))
    f["version"] = version
    f["pipeline"] = ln.lookup("pipeline_version", "pipeline version", version)
    f["scheduler"] = ln.lookup("scheduler", "scheduler", f["scheduler"])
    f["specialization"] = ln.lookup("specialization", "specialization", f["specialization"])
    streamk = bool(f.get("streamk", 0))
    if streamk and "streamk_persistent" not in f:
        ln.fail(f"{ln.kind}: stream-K is enabled but the reduction strategy and persistent fields are missing")
    f["streamk"] = streamk
    if streamk:
        f["streamk_strategy"] = ln.lookup("streamk_strategy", "stream-K reduction strategy", str(f["streamk_strategy"]))
        f["streamk_persistent"] = bool(f["streamk_persistent"])
    else:
        f["streamk_strategy"] = "tree"
        f["streamk_persistent"] = False
    f["two_stage"] = False  # decided per dtype in Instance._native
    return f


def parse_instance(text: str, variant: str, where: str) -> Instance | None:
    """Read one line of a ``.conf`` file of ``variant``; ``None`` for lines CK skips."""
    path, _, line = where.rpartition(":")
    data = builder_data()
    s = text.strip()
    if variant == "forward_depthwise":
        if not s or s.startswith("#"):
            return None
    elif not s or "#" in s or ";" in s:
        # The Builder's GEMM parsers skip every line holding '#' or ';'.
        return None
    head, lt, _ = s.partition("<")
    head = head.strip()
    ln = _Line(where, head or "instance")
    if variant == "forward_depthwise" and not lt:
        body = s  # the Builder also accepts the 12 bare integers
        name, spec = data["_by_match"]["GroupedConvolutionForwardDepthwise"]
    else:
        if not lt or not s.endswith(">") or not _balanced(s):
            ln.fail(f"expected an instance string Kind<...> (with its '<' and '>' paired), got {shorten(s, 80)}")
        hit = data["_by_match"].get(head)
        if hit is None or hit[1]["variant"] != variant:
            known = sorted(k["match"] for k in data["kinds"].values() if k["variant"] == variant)
            what = "unknown instance kind" if hit is None else f"{hit[1]['variant']} instance kind"
            ln.fail(f"{what} {shorten(head, 80)} in a {variant} file; known kinds: {', '.join(known)}")
        name, spec = hit
        body = s[len(head) + 1:-1]
    form = spec["form"]
    if form == "depthwise":
        args = [a.strip() for a in body.split(",")]
        if len(args) != 12:
            ln.fail(f"{ln.kind}: expected 12 integers (TileH,TileW,Filter,StrH,StrW,PadH,PadW,NBatch,SubH,SubW,"
                    f"InVec,OutVec), got {len(args)}")
        f = {k: ln.int(k, v) for k, v in zip(data["depthwise"]["fields"], args)}
    elif form == "explicit":
        f = _finish_xdl(ln, _read_explicit(ln, spec, body))
    else:
        args = _split_args(body)
        f = _read_positional(ln, spec, args)
        f = _finish_native(ln, f) if form == "native" else _finish_xdl(ln, f)
    return Instance(path, int(line), name, spec["variant"], form, f)


def unusable(inst: Instance) -> str | None:
    """Why an instance can never become a kernel (a field outside its axis domain), or ``None``.

    The Builder would drop such a line on every target without a word; cksolve
    says so (a warning, an error with ``strict``), since it is almost always a typo.
    """
    f = inst.f
    if inst.form == "depthwise":
        if not any(f.values()):
            return "every field is 0"
        fields = builder_data()["depthwise"]["fields"]
    else:
        if f.get("block_size", 1) <= 0:
            return f"block size {f['block_size']} is not positive"
        for name in ("vector_a", "vector_b", "vector_c"):  # odd sizes are real CK data the Builder skips itself
            if f[name] <= 0:
                return f"{name} = {f[name]} is not positive"
        fields = ("tile_m", "tile_n", "tile_k")
    for name in fields:
        domain = AXES[name].domain
        if f[name] not in domain:
            return f"{name} = {f[name]} is outside its domain ({min(domain)}..{max(domain)})"
    return None


def parse_conf(path: Path, variant: str) -> list[Instance]:
    """Every instance of one ``.conf`` file, in file order (``variant`` is the file's)."""
    try:
        text = read_text(path, ".conf file")
    except CksolveError as exc:
        raise ConfError(str(exc)) from None
    out = []
    for number, line in enumerate(text.splitlines(), 1):
        inst = parse_instance(line, variant, f"{path}:{number}")
        if inst is not None:
            out.append(inst)
    return out
