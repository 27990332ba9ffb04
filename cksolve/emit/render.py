"""Config -> C++ text. Pure: no file system access except loading the templates.

Every CK spelling the templates need (type names, enum values, which launch
path a config takes) is decided here, in small tables; the ``.j2`` files in
``templates/`` only lay the text out. What the compiler and the dispatcher see
follows CK's generator (``CKTileGroupedConvKernelGenerator``,
``CKTileDepthwiseConvKernelGenerator``, ``GroupedConvDispatcherWrapperGenerator``
in ``dispatcher/codegen/unified_grouped_conv_codegen.py``); the recorded facts
in ``shared/ck/instance-facts`` hold us to it.

Files of one kernel ``N`` (paths relative to the output directory)::

    N.hpp                                   kernel instance + launcher
    N.cpp                                   compilation unit
    dispatcher_wrappers/dispatcher_wrapper_N.hpp   registry factory make_N

and, once per output directory, the ``include_all_grouped_conv_*_kernels.hpp``
headers and ``dispatcher_wrappers/register_all_grouped_conv_kernels.hpp``.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Iterable, Sequence

from ..space import pipelines as pipelines_module
from ..space.config import DepthwiseConfig, KernelConfig
from ..space.kinds import DEPTHWISE, GEMM
from ..space.memos import MEMOS
from ..space.pipelines import PIPELINES
from ..space.values import value_facts
from ..space.variants import VARIANTS

__all__ = [
    "TEMPLATE_DIR",
    "WRAPPER_DIR",
    "WRAPPER_PREFIX",
    "REGISTER_HEADER",
    "INCLUDE_ALL",
    "DEFAULT_REGISTRY_ARCH",
    "kernel_files",
    "kernel_paths",
    "global_files",
    "render_kernel",
    "render_all",
    "global_paths",
    "warm_up",
    "templates_digest",
    "gemm_context",
    "depthwise_context",
]

TEMPLATE_DIR = Path(__file__).with_name("templates")
#: the per-pipeline and per-variant C++ spellings live there; templates_digest covers them
_DATA_FILES = tuple(Path(pipelines_module.__file__).with_name(f) for f in ("pipelines.toml", "variants.toml",
                                                                                  "values.toml"))
WRAPPER_DIR = "dispatcher_wrappers"
#: a kernel's dispatcher wrapper is WRAPPER_DIR/WRAPPER_PREFIX<name>.hpp
WRAPPER_PREFIX = "dispatcher_wrapper_"
REGISTER_HEADER = f"{WRAPPER_DIR}/register_all_grouped_conv_kernels.hpp"
#: include_all header per kernel-name prefix (one per GEMM variant; a depthwise name starts
#: with the forward prefix, so forward's header includes it): (file, label, launcher alias, prefix)
INCLUDE_ALL = tuple(
    (f"include_all_grouped_conv_{v.tag}_kernels.hpp", v.label, v.cpp["launcher_alias"], f"grouped_conv_{v.tag}_")
    for v in VARIANTS.values() if v.kind == GEMM.name
)
#: CK's factories and register functions default their ``gfx_arch`` argument to
#: this value whatever the target; the dispatcher passes the real arch at run time.
DEFAULT_REGISTRY_ARCH = "gfx942"

# ---------------------------------------------------------------- CK spellings
# Per-value spellings are values.toml's (one table per value); these are their views by fact.
_CK_DTYPE = value_facts("dtype", "cpp")
_DISPATCH_DTYPE = value_facts("dtype", "dispatch")

#: input / weight / output tensor layouts by spatial rank (CK: by ndim only)
_LAYOUTS = {n: tuple(layouts) for n, layouts in value_facts("ndim", "layouts").items()}


@MEMOS.cached("emit.render._pipeline_type")
def _pipeline_type(pipeline: str) -> str:
    """The pipeline's C++ type: its class over the problem, the LDS policy and any further arguments."""
    p = PIPELINES[pipeline]
    args = ("UniversalGemmProblem", *((p.policy,) if p.policy else ()), *p.extra_args)
    return f"{p.pipeline_class}<{', '.join(args)}>"


_SCHEDULER = value_facts("scheduler", "cpp")
_SPECIALIZATION = value_facts("specialization", "cpp")
_STREAMK_STRATEGY = value_facts("streamk_strategy", "cpp")
_CSHUFFLE = value_facts("epilogue", "cshuffle")
#: dispatcher key enums (kernel_key.hpp; pipelines: their ``key`` in pipelines.toml); other values: CK
#: capitalises the name
_KEY_SCHEDULER = value_facts("scheduler", "key")
_KEY_LAYOUT = value_facts("layout", "key")

_ELEMENTWISE_INCLUDE = "ck_tile/ops/elementwise.hpp"
_STREAMK_INCLUDE = "ck_tile/ops/gemm/kernel/streamk_gemm/streamk_gemm_tile_partitioner.hpp"


def _b(x: bool) -> str:
    return "true" if x else "false"


# ------------------------------------------------------------------ templates
@MEMOS.cached("emit.render._env")
def _env():
    import jinja2  # deferred: imported on first render, an unchanged re-emit never needs it

    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATE_DIR)),
        undefined=jinja2.StrictUndefined,
        autoescape=False,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        auto_reload=False,  # templates are fixed for the life of the process
    )


@MEMOS.cached("emit.render._template")
def _template(name: str):
    return _env().get_template(name)


def warm_up() -> None:
    """Compile every template now (e.g. once before forking workers)."""
    for p in sorted(TEMPLATE_DIR.glob("*.j2")):
        _template(p.name)


# Rendering 9,000 kernels through jinja2 one by one costs ~0.4 ms each. The
# per-kernel templates branch only on a few "structural" context values (which
# launch path, tail handling, zeroing, ...); every other value is only printed.
# So each template is rendered once per combination of structural values with
# placeholders for the printed values, and that skeleton becomes a str.format
# pattern filled per kernel. A placeholder refuses to take part in template
# logic (comparison, truth value), so a template that starts to branch on a
# value not declared structural fails loudly instead of rendering wrongly; the
# tests also compare skeleton and direct rendering byte for byte.
_STRUCTURAL = {
    "kernel_gemm.hpp.j2": ("path", "tail", "zeroing", "extra_includes"),
    "kernel_depthwise.hpp.j2": (),
    "unit.cpp.j2": (),
    "dispatcher_wrapper.hpp.j2": ("depthwise",),
}
_HOLE = re.compile("\x00([A-Za-z_][A-Za-z0-9_.]*)\x01")


class _Hole(str):
    """Stands for a printed value while a skeleton is rendered."""

    __slots__ = ()

    def _refuse(self, *_):
        raise TypeError(f"template logic uses {str.__str__(self)[1:-1]!r}; declare it structural in render.py")

    __bool__ = __eq__ = __ne__ = __lt__ = __le__ = __gt__ = __ge__ = __contains__ = _refuse
    __hash__ = str.__hash__


class _HoleObject:
    """Stands for an object whose attributes are printed (``c.tile_m``)."""

    def __init__(self, prefix: str):
        self._prefix = prefix

    def __getattr__(self, attr: str) -> _Hole:
        return _Hole(f"\x00{self._prefix}.{attr}\x01")


_SKELETONS: dict = MEMOS.memo("emit.render.skeletons")


def _compile_skeleton(text: str):
    """A function ctx -> text for a skeleton: its literal pieces joined with the values.

    Generated Python (one ``str.join`` over a tuple) is several times faster
    than ``str.format`` on these brace-heavy C++ texts.
    """
    parts = _HOLE.split(text)  # literal, field, literal, field, ..., literal
    fields = parts[1::2]
    var = {f: f"v{i}" for i, f in enumerate(dict.fromkeys(fields))}
    lines = ["def fill(ctx):"]
    for f, v in var.items():
        head, _, attr = f.partition(".")
        lines.append(f"    {v} = str(ctx[{head!r}]{'.' + attr if attr else ''})")
    pieces = []
    for i, lit in enumerate(parts[0::2]):
        if lit:
            pieces.append(repr(lit))
        if i < len(fields):
            pieces.append(var[fields[i]])
    lines.append(f"    return ''.join(({', '.join(pieces)},))")
    scope: dict = {}
    exec(compile("\n".join(lines), "<cksolve skeleton>", "exec"), scope)  # noqa: S102 - our own text
    return scope["fill"]


def _skeleton(tname: str, ctx: dict):
    sk = (tname, ctx["_shape"])  # every context precomputes its structural key (hot path)
    fill = _SKELETONS.get(sk)
    if fill is None:
        # a new skeleton (cold path): the precomputed key must be the structural values,
        # or a skeleton would later be reused for a kernel it does not fit
        keys = _STRUCTURAL[tname]
        values = tuple(tuple(v) if isinstance(v, list) else v for v in (ctx[k] for k in keys))
        if values != ctx["_shape"]:
            raise RuntimeError(f"{tname}: context _shape {ctx['_shape']!r} is not its structural values "
                               f"{dict(zip(keys, values))!r}")
        holes = {k: (v if k in keys or k == "_shape" else
                     _HoleObject(k) if not isinstance(v, (str, int)) else _Hole(f"\x00{k}\x01"))
                 for k, v in ctx.items()}
        fill = _SKELETONS[sk] = _compile_skeleton(_template(tname).render(holes))
    return fill


def _render(tname: str, ctx: dict, direct: bool = False) -> str:
    if direct:
        return _template(tname).render(ctx)
    return _skeleton(tname, ctx)(ctx)


@MEMOS.cached("emit.render.templates_digest")
def templates_digest() -> str:
    """Hash of every template, of this module and of the pipeline and variant tables: a change makes all
    output stale."""
    h = hashlib.sha256()
    for p in sorted(TEMPLATE_DIR.glob("*.j2")) + [Path(__file__), *_DATA_FILES]:
        h.update(p.name.encode())
        h.update(p.read_bytes())
    return h.hexdigest()[:16]


# ------------------------------------------------------------------- contexts
def gemm_context(c: KernelConfig, arch: str, name: str | None = None) -> dict:
    """Template context of an implicit-GEMM kernel (``name``: c.name(), if known)."""
    name = name or c.name()
    variant = VARIANTS[c.variant]
    d = variant.cpp  # GEMM operands, host arguments, kernel class, names (variants.toml)
    pipeline = PIPELINES[c.pipeline]
    # CK takes the two-stage and stream-K paths only for the variants that have them (stream-K first)
    if variant.streamk and c.streamk:
        path, path_note = "streamk", f"stream-K ({c.streamk_strategy} reduction)"
    elif variant.two_stage and c.two_stage:
        path, path_note = "two_stage", "two-stage (fp32 workspace + convert)"
    else:
        path, path_note = "plain", "single stage"
    includes = ([_ELEMENTWISE_INCLUDE] if c.two_stage else []) + ([_STREAMK_INCLUDE] if c.streamk else [])
    lay_in, lay_wei, lay_out = _LAYOUTS[c.ndim]
    ctx = dict(d)
    ctx.update(
        name=name, ns="ns_" + name.replace("-", "_"), arch=arch, variant=c.variant, c=c,
        path=path, path_note=path_note, extra_includes=includes,
        dt=_CK_DTYPE[c.dtype], lay_in=lay_in, lay_wei=lay_wei, lay_out=lay_out,
        pad_m=_b(c.pad_m), pad_n=_b(c.pad_n), pad_k=_b(c.pad_k),
        pipeline_enum=pipeline.ck_enum, scheduler_enum=_SCHEDULER[c.scheduler],
        dsb=_b(c.double_smem_buffer), cshuffle=_b(_CSHUFFLE[c.epilogue]),
        split_image=_b(c.split_image), explicit_gemm=_b(c.explicit_gemm),
        conv_spec=_SPECIALIZATION[c.specialization],
        pipeline_type=_pipeline_type(c.pipeline), base_pipeline=pipeline.base_class, tail=pipeline.tail,
        # the epilogue of the two-stage GEMM writes the fp32 workspace
        c_out="WorkspaceDataType" if path == "two_stage" else d["c_t"],
        sk_strategy=_STREAMK_STRATEGY[c.streamk_strategy], sk_persistent=_b(c.streamk_persistent),
        # stream-K spells the selected-kernel alias with one more underscore
        selected_kernel="SelectedConvBwd_Weight_Kernel" if path == "streamk" else d["selected_kernel"],
    )
    ctx["_shape"] = (path, ctx["tail"], d["zeroing"], tuple(includes))
    return ctx


def depthwise_context(c: DepthwiseConfig, arch: str, name: str | None = None) -> dict:
    name = name or c.name()
    return dict(name=name, ns="ns_" + name, arch=arch, c=c, dt=_CK_DTYPE[c.dtype], _shape=())


def _wrapper_context(c, arch: str, name: str) -> dict:
    depthwise = isinstance(c, DepthwiseConfig)
    d = VARIANTS[c.variant].dispatch.cpp  # a depthwise kernel registers as a forward one
    ctx = dict(name=name, arch=arch, c=c, default_arch=DEFAULT_REGISTRY_ARCH,
               dtype_enum=_DISPATCH_DTYPE[c.dtype], ndim=c.ndim, depthwise=depthwise, _shape=(depthwise,),
               conv_type=d["conv_type"], host_args=d["host_args"], launcher_alias=d["launcher_alias"])
    ctx.update(key_layout=_KEY_LAYOUT[c.layout])
    if depthwise:
        return ctx
    ctx.update(
        tile_shape=f"{{{c.tile_m}, {c.tile_n}, {c.tile_k}}}",
        wave_shape=f"{{{c.wave_m}, {c.wave_n}, 1}}",
        warp_tile_shape=f"{{{c.warp_tile_m}, {c.warp_tile_n}, {c.warp_tile_k}}}",
        key_pipeline=PIPELINES[c.pipeline].key,
        key_scheduler=_KEY_SCHEDULER.get(c.scheduler, c.scheduler.capitalize()),
    )
    return ctx


#: Each kernel kind's header: its template and the context the template reads.
_HEADER = {GEMM.name: ("kernel_gemm.hpp.j2", gemm_context), DEPTHWISE.name: ("kernel_depthwise.hpp.j2", depthwise_context)}


# ---------------------------------------------------------------------- files
def kernel_paths(name: str) -> tuple[str, str, str]:
    """Relative paths of a kernel's header, compilation unit and dispatcher wrapper."""
    return f"{name}.hpp", f"{name}.cpp", f"{WRAPPER_DIR}/{WRAPPER_PREFIX}{name}.hpp"


def render_kernel(arch: str, c: KernelConfig | DepthwiseConfig, direct: bool = False,
                  name: str | None = None) -> tuple[str, str, str]:
    """Texts of (header, compilation unit, dispatcher wrapper) of one kernel.

    ``direct=True`` renders every template through jinja2 instead of the
    memoised skeletons (same bytes, ~20x slower; for tests).
    """
    name = name or c.name()
    if not isinstance(c, (KernelConfig, DepthwiseConfig)):
        raise TypeError(f"not a kernel config: {c!r}")
    template, context = _HEADER[c.kind]
    header = _render(template, context(c, arch, name), direct)
    unit = _render("unit.cpp.j2", dict(name=name, ident=name.replace("-", "_"), _shape=()), direct)
    wrapper = _render("dispatcher_wrapper.hpp.j2", _wrapper_context(c, arch, name), direct)
    return header, unit, wrapper


def kernel_files(arch: str, c: KernelConfig | DepthwiseConfig, direct: bool = False) -> dict[str, str]:
    """Relative path -> text of one kernel's three files."""
    name = c.name()
    return dict(zip(kernel_paths(name), render_kernel(arch, c, direct, name)))


def global_paths() -> tuple[str, ...]:
    """Relative paths of the per-directory headers."""
    return tuple(f for f, *_ in INCLUDE_ALL) + (REGISTER_HEADER,)


def global_files(names: Iterable[str]) -> dict[str, str]:
    """Relative path -> text of the include_all headers and the registration header.

    ``names`` are all kernels of the output directory; the headers depend only
    on them, so they are rendered once per emit.
    """
    names = sorted(set(names))
    out: dict[str, str] = {}
    groups = []
    for fname, label, alias, prefix in INCLUDE_ALL:
        mine = [n for n in names if n.startswith(prefix)]
        headers = sorted(f"{n}.hpp" for n in mine)
        out[fname] = _template("include_all.hpp.j2").render(headers=headers, label=label, launcher_alias=alias)
        tag = prefix[len("grouped_conv_"):-1]
        groups.append(dict(tag=tag, label=label, kernels=mine))
    wrappers = sorted(kernel_paths(n)[2].split("/", 1)[1] for g in groups for n in g["kernels"])
    out[REGISTER_HEADER] = _template("register_all.hpp.j2").render(
        wrappers=wrappers, groups=groups, total=sum(len(g["kernels"]) for g in groups),
        default_arch=DEFAULT_REGISTRY_ARCH)
    return out


def render_all(items: Sequence[tuple[str, KernelConfig | DepthwiseConfig]], direct: bool = False) -> dict[str, str]:
    """Every file of an emit, in memory (for tests and small sets)."""
    out: dict[str, str] = {}
    for arch, c in items:
        out.update(kernel_files(arch, c, direct))
    out.update(global_files(c.name() for _, c in items))
    return out
