"""Reading CK Builder ``.conf`` files: each line into an :class:`~.builder_conf.Instance`.

A line is an old-CK device op (``DeviceGroupedConvFwdMultipleABD_Xdl_CShuffle_V3<...>``,
the backward-weight XDL / V3 / two-stage / explicit-GEMM forms, backward data), a
native CK Tile kernel string (``GroupedConvolution{Forward,BackwardWeight}Kernel<...>``)
or, in the depthwise file, ``GroupedConvolutionForwardDepthwise<12 ints>``. Everything
that does not depend on the target is decided while reading, so a malformed line
fails at load time with ``FILE:LINE: what is wrong``; mapping an instance to a
target is :meth:`.builder_conf.Instance.config`'s.

Field positions and name maps are data (``builder.toml``); this module only knows
the three forms (``xdl``, ``native``, ``explicit``) and the depthwise list.
"""

from __future__ import annotations

import re
from pathlib import Path

from ..errors import CksolveError, shorten
from ..space.axes import AXES
from ..space.textfile import read_text
from .rule_set import RuleSetError
from .builder_conf import Instance, builder_data

__all__ = ["ConfError", "parse_conf", "parse_instance", "unusable"]


class ConfError(RuleSetError):
    """A ``.conf`` line that cannot be read; the message names file and line."""


# A bracketed group (Seq(...), an inner <...>): its commas do not separate arguments.
_GROUP = re.compile(r"\([^()]*\)|<[^<>]*>")


def _split_args(text: str) -> list[str]:
    """Template arguments split on top-level commas (``Seq(...)`` stays one argument)."""
    masked = _GROUP.sub(lambda m: m.group(0).replace(",", "\0"), text)
    return [a.strip().replace("\0", ",") for a in masked.split(",")]


#: the longest integer a field may spell (with its sign)
_DIGITS = 12
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
        if len(text) > _DIGITS:  # no field comes near it, and int() refuses past 4300 digits
            self.fail(f"{self.kind}: field {name} is out of range, got {shorten(text)}")
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
