"""The options commands share, each defined once: selection, rule set, builder configs, output, format.

A command declares the selection with :func:`selection_options` (one
parameter ``sel`` standing for --arch/--variant/--dtype/--ndim, in that place
of its help); the rest are option values used as defaults. Help texts and
choices come from the registries (rule sets, axes, archs, formats).
"""

from __future__ import annotations

import functools
import inspect
import os
import sys
from pathlib import Path
from typing import List, NamedTuple, Optional, Sequence

import typer

from .. import query
from ..errors import CksolveError, did_you_mean, shorten
from ..formats import check_format
from ..outputs import check_writable, write_stdout, write_text_atomic
from .completion import rule_set_names_and_files, values
from .errors import say

__all__ = ["FactorsOpt", "choices", "backend_option", "rule_set_option", "RuleSetOpt", "OneArchOpt", "BuilderOpt", "OutputOpt", "format_option",
           "selection_options", "stdout_dash", "SelectionArgs", "NameTarget", "name_target_options", "SectionArchOpt", "option_group", "workload_options", "WorkloadArgs", "one_arch", "write", "refuse_unwritable", "load_rule_set",
           "ProblemsOpt", "ProblemDtypeOpt", "STRICT_ENV", "KernelMapOpt", "MinWrittenOpt", "KeepInvalidOpt",
           "hygiene_options", "say_hygiene", "arch_spellings", "arch_option", "arch_help"]


def choices(values) -> str:
    return ", ".join(map(str, values))


def rule_set_option(required: bool = True, help: Optional[str] = None):
    """``--rule-set``/``-r``: a built-in rule set or a rule-set file."""
    return typer.Option(... if required else None, "--rule-set", "-r", metavar="RULE_SET",
                        help=help or f"{choices(query.RULE_SETS)}, or a rule-set file.",
                        autocompletion=complete_rule_set)


#: completes rule-set names and files (``--rule-set``, ``rule-sets --show``, ``audit --against``)
complete_rule_set = rule_set_names_and_files(query.RULE_SETS)


RuleSetOpt = rule_set_option()


def arch_spellings(value):
    """``--arch``'s callback: lists as CK writes them (``gfx942;gfx950``, ``"gfx942 gfx950"``) split, product
    names (``MI300X``) replaced by their arch -- with a note on stderr when a person reads stdout (a terminal),
    quiet when stdout goes to a program. A one-arch option given a list keeps it as given (``one_arch`` refuses
    it in the user's words). Which archs exist is the selection's to say, once the CK version is known."""
    if value is None:
        return None
    many = isinstance(value, (list, tuple))
    names, products = query.arch_spellings(value if many else [value])
    if products and sys.stdout is not None and sys.stdout.isatty():
        for product, arch in products:
            say(f"note: --arch {product} is {arch}")
    return names if many else (names[0] if len(names) == 1 else value)


def arch_help(note: str = "", many: bool = False) -> str:
    """Every ``--arch``'s help, in the same words: what ``arch_spellings`` accepts, and the command's ``note``."""
    what = ("Architecture(s), repeatable or comma-, semicolon- or space-separated: " if many else "Architecture: ")
    return f"{what}{choices(query.BUNDLED_ARCHS)}, a ROCm target ID (gfx942:xnack-) or a product (MI300X){note}."


def arch_option(default=None, note: str = ""):
    """A one-arch ``--arch`` (``-a``): CK's and ROCm's spellings read by ``arch_spellings``, the help ``arch_help``."""
    return typer.Option(default, "--arch", "-a", metavar="ARCH", callback=arch_spellings, help=arch_help(note),
                        autocompletion=values(query.BUNDLED_ARCHS))


OneArchOpt = arch_option(...)
KernelMapOpt = typer.Option(None, "--kernel-map", metavar="FILE",
                            help="Which kernel each measurement label measured: CSV 'label,kernel' or TOML "
                                 "'\"label\" = \"kernel\"' of full kernel names (overrides label resolution).")
MinWrittenOpt = typer.Option(0.9, "--min-written", metavar="SHARE",
                             help="A row whose run wrote less than this share of its output (non_zero) is invalid.")
KeepInvalidOpt = typer.Option(False, "--keep-invalid", help="Keep invalid measurement rows (they are counted).")
BuilderOpt = typer.Option(None, "--builder-configs", envvar="CKSOLVE_BUILDER_CONFIGS", metavar="DIR",
                          help="Directory of CK Builder .conf files (for tests, profiler).")


def stdout_dash(value: Optional[Path]) -> Optional[Path]:
    """``-o -`` is stdout (as ``-`` is stdin for an input), never a file named ``-``: every ``-o FILE`` takes this callback."""
    return None if value is not None and str(value) == "-" else value


#: ``--factors``: the analytic model's factors file (search, select, evaluate)
FactorsOpt = typer.Option(None, "--factors", metavar="FILE",
                          help="The analytic model's factors (a `calibrate` output; default: the arch's shipped "
                               "calibration, else first principles; `calibrate --show`).")
OutputOpt = typer.Option(None, "--output", "-o", metavar="FILE", callback=stdout_dash,
                         help="Write here instead of stdout (-: stdout).")
ProblemDtypeOpt = typer.Option(None, "--dtype", metavar="DTYPE", help=f"{choices(query.DTYPES)} (default: all).",
                               autocompletion=values(query.DTYPES, comma=True))
ProblemsOpt = typer.Option(..., "--problems", metavar="FILE", help="CSV with CK's header, or JSONL with the same keys.")


def backend_option(what: str = "", offered=None):
    """``--backend``: the solver that answers (``offered``, else ``query.BACKENDS``; the first is the default).

    Read from ``query``, not ``explore`` (the same registry): importing ``explore`` (search, sampling) cost
    every listing command 11 M instructions, measured on ``enumerate -r full``."""
    names = list(offered or query.BACKENDS)
    return typer.Option(None, "--backend", metavar="BACKEND", autocompletion=values(names),
                        help=f"Solver{what}: {names[0]} (default), {', '.join(names[1:])}.")


def format_option(default: str, offered):
    """``--format``: one of the shared formats (``cksolve.formats``) or a command's own report."""
    return typer.Option(default, "--format", "-f", metavar="FORMAT", help=f"{choices(offered)}.",
                        autocompletion=values(offered))


def option_group(param: str, options: list[tuple[str, object, object]], make):
    """A decorator giving a command the ``options`` ([(name, annotation, typer option)]) where its
    parameter ``param`` stands (so in that place of its help); the command receives ``make(**values)``
    there. One definition of a block of options that several commands take together."""
    added = [inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=annotation)
             for name, annotation, default in options]
    names = [p.name for p in added]

    def decorate(command):
        signature = inspect.signature(command)
        params = [p.replace(kind=inspect.Parameter.KEYWORD_ONLY) for p in signature.parameters.values()]
        at = [p.name for p in params].index(param)

        @functools.wraps(command)
        def wrapper(**kwargs):
            group = make(**{n: kwargs.pop(n) for n in names})
            return command(**{param: group}, **kwargs)

        wrapper.__signature__ = signature.replace(parameters=params[:at] + added + params[at + 1:])
        return wrapper

    return decorate


class SelectionArgs(NamedTuple):
    """The selection options as given (``None``: left out); ``select`` checks them when the command says."""

    arch: Optional[List[str]]
    variant: Optional[List[str]]
    dtype: Optional[List[str]]
    ndim: Optional[List[str]]

    def select(self, default_variants=None) -> query.Selection:
        return query.select(self.arch, self.variant or default_variants, self.dtype, self.ndim)


def selection_options(arch: bool = True, variant_help: Optional[str] = None, variant_first: bool = False):
    """--arch/--variant/--dtype/--ndim where the command's ``sel`` parameter stands, received as one
    :class:`SelectionArgs` (``arch=False``: the command takes one ``--arch`` of its own, ``OneArchOpt``)."""
    many = Optional[List[str]]
    options = [("variant", many, typer.Option(None, "--variant", metavar="VARIANT",
                                              help=variant_help or f"{choices(query.VARIANTS)}.",
                                              autocompletion=values(query.VARIANTS, comma=True))),
               ("dtype", many, typer.Option(None, "--dtype", metavar="DTYPE", help=f"{choices(query.DTYPES)}.",
                                            autocompletion=values(query.DTYPES, comma=True))),
               ("ndim", many, typer.Option(None, "--ndim", metavar="NDIM", help=f"{choices(query.NDIMS)}.",
                                           autocompletion=values(query.NDIMS, comma=True)))]
    if arch:
        options.insert(1 if variant_first else 0, ("arch", many, typer.Option(
            None, "--arch", "-a", metavar="ARCH", callback=arch_spellings, help=arch_help(many=True),
            autocompletion=values(query.BUNDLED_ARCHS, comma=True))))
    return option_group("sel", options, lambda arch=None, **rest: SelectionArgs(arch, **rest))


class WorkloadArgs(NamedTuple):
    """What a command over a workload file takes: the problems, the rule set, one arch, the dtypes."""

    problems: Path
    rule_set: str
    arch: str
    dtype: Optional[List[str]]

    def one_arch(self) -> str:
        return one_arch(self.arch)

    def dtypes(self) -> tuple[str, ...]:
        return query.select(dtypes=self.dtype).dtypes


def workload_options():
    """--problems, --rule-set, --arch (one), --dtype where the command's ``wl`` parameter stands."""
    return option_group("wl", [("problems", Path, ProblemsOpt), ("rule_set", str, RuleSetOpt),
                               ("arch", str, OneArchOpt), ("dtype", Optional[List[str]], ProblemDtypeOpt)],
                        WorkloadArgs)


class NameTarget(NamedTuple):
    """What a verdict on kernel names is about: one arch, and a rule set to check membership in (or None)."""

    arch: Optional[str]
    rule_set: Optional[str]

    def load(self, builder_configs: Optional[str]):
        """(the arch, checked, or None when left out; the rule set loaded, or None)."""
        arch = None if self.arch is None else one_arch(self.arch)
        return arch, load_rule_set(self.rule_set, builder_configs) if self.rule_set else None


#: ``check``'s --arch: optional, a names file's sections can say it
SectionArchOpt = arch_option(None, " (default: each name's '# arch: ARCH' section of the names file)")


def name_target_options(rule_set_help: str, sections: bool = False):
    """--arch (one; optional with ``sections``) and --rule-set (membership) where the command's ``target``
    parameter stands."""
    arch = ("arch", Optional[str], SectionArchOpt) if sections else ("arch", str, OneArchOpt)
    return option_group("target", [arch, ("rule_set", Optional[str], rule_set_option(
        False, f"{rule_set_help} {choices(query.RULE_SETS)}, or a rule-set file."))], NameTarget)


def hygiene_options(arch: str, kernel_map: Optional[Path], min_written: float, keep_invalid: bool):
    """The measurement hygiene the options ask for (``workload.hygiene.HygieneOptions``)."""
    from .. import workload  # deferred: the workload layer loads for its commands only

    if not 0.0 <= min_written <= 1.0:
        raise CksolveError(f"--min-written {min_written}: a share between 0 and 1")
    return workload.HygieneOptions(arch, workload.read_kernel_map(kernel_map) if kernel_map is not None else None,
                                   min_written, keep_invalid)


def say_hygiene(hygiene) -> None:
    """The hygiene summary line on stderr, when some row is invalid."""
    line = None if hygiene is None else hygiene.line()
    if line is not None:
        say(line)


def one_arch(arch: str) -> str:
    """The one architecture an option names (``--arch`` of the commands that take one)."""
    if len(query.split_archs([arch])) > 1:
        raise CksolveError(f"--arch takes one architecture here, got {shorten(arch)}")
    return query.select(archs=[arch]).archs[0]


def write(text: str, output: Optional[Path]) -> None:
    """``text`` to stdout, or to ``output`` whole or not at all."""
    
    if output is None:
        write_stdout(text)
        return
    write_text_atomic(Path(output), text)


def refuse_unwritable(*paths: Optional[Path]) -> None:
    """Refuse an output that cannot be written before the work (and before another output is written)."""
    for path in paths:
        if path is not None:
            check_writable(Path(path))


#: what ``--strict`` sets for a whole run, read here at the edge and passed down as a parameter
STRICT_ENV = "CKSOLVE_STRICT"
_strict = [False]
_warned: set[str] = set()


def set_strict(flag: bool) -> None:
    _strict[0] = flag or os.environ.get(STRICT_ENV, "") not in ("", "0")


def strict() -> bool:
    return _strict[0]


def warn_once(rule_set) -> None:
    """A rule set's load warnings on stderr, each once per process."""
    for w in rule_set.warnings:
        if w not in _warned:
            _warned.add(w)
            say(f"warning: {' '.join(w.split())}")


def load_rule_set(name: str, builder_configs: Optional[str]):
    """The rule set, loaded as ``--strict`` says, its warnings shown."""
    rs = query.load_rule_set(name, builder_configs, strict())
    warn_once(rs)
    return rs


#: the environment variable ``--ck`` falls back to
CK_ENV = "CKSOLVE_CK"


def _ck_params() -> list[inspect.Parameter]:
    kw = inspect.Parameter.KEYWORD_ONLY
    return [
        inspect.Parameter("ck", kw, annotation=Optional[str], default=typer.Option(
            None, "--ck", envvar=CK_ENV, metavar="REF",
            help="CK version whose arch facts and rules answer: a bundled version's commit prefix or alias: "
                 f"{query.bundled_listing()}; develop = the newest bundled (the default). Same as {CK_ENV}=REF.")),
        inspect.Parameter("arch_specs", kw, annotation=Optional[str], default=typer.Option(
            None, "--arch-specs", metavar="FILE",
            help="A CK checkout's dispatcher/codegen/arch_specs.json, in place of the bundled facts (wins over "
                 "--ck).")),
    ]


def with_ck_options(command):
    """``command`` (one of ``cli.commands.CK_COMMANDS``) with ``--ck`` and ``--arch-specs`` at the end of its options: the version is resolved
    (one error line for a bad REF or FILE) and made the active one before the command runs."""
    if getattr(command, "ck_options", False):
        return command
    signature = inspect.signature(command)

    @functools.wraps(command)
    def wrapper(*args, ck=None, arch_specs=None, **kwargs):
        query.use_ck(ck, arch_specs)
        return command(*args, **kwargs)

    wrapper.__signature__ = signature.replace(parameters=[*signature.parameters.values(), *_ck_params()])
    wrapper.ck_options = True
    return wrapper


__all__ += ["set_strict", "strict", "warn_once", "check_format", "CK_ENV", "with_ck_options"]


#: ``select``'s and ``search``'s: go on past problems a measurement file has no measurement for
AllowUnmeasuredOpt = typer.Option(False, "--allow-unmeasured",
                                  help="With --measurements: rank problems the file has no measurement for "
                                       "(their kernels all score 0, name order) instead of refusing.")
__all__ += ["AllowUnmeasuredOpt"]


# ``--scorer NAME``: which scorer a command ranks by, said once for ``minimize``, ``select`` and ``search``. A
# command names the scorers it can rank by; ``--model DIR`` implies ``model`` and a measurement file
# (``--measurements``, ``--perf``) ``measured``, so ``--scorer`` is needed only to pick ``padding`` or to say it
# again. A name no scorer has is refused with the valid ones and the nearest (exit 2).

# The names are the registry's (``scoring.SCORERS``, light: naming them loads no scorer), and so are the
# commands that rank by each (``scoring.scorers_for``).


def scorer_option(valid: Sequence[str], default: str,
                  implied: str = "--model implies model, --measurements measured"):
    """``--scorer NAME`` for a command that ranks by one of ``valid`` (``implied``: what its files imply)."""
    return typer.Option(None, "--scorer", metavar="SCORER", help=f"{choices(valid)} (default: {default}; {implied}).")


def scorer_kind(given: Optional[str], valid: Sequence[str], default: str, model=None, measured=None,
                command: str = "", measured_option: str = "--measurements") -> str:
    """The scorer's name: ``given`` (checked against ``valid``), else the one ``model``/``measured`` imply, else
    ``default``. One error line for a name no scorer has, a scorer this command does not rank by, a scorer
    without its file, and a file for another scorer."""
    from ..scoring import SCORERS  # deferred: loaded by the ranking commands' families, not by every command's start

    implied = "model" if model is not None else "measured" if measured is not None else None
    if given is None:
        return implied or default
    if given not in SCORERS:
        raise CksolveError(f"unknown --scorer {given!r}; valid: {choices(valid)}{did_you_mean(given, valid)}")
    if given not in valid:
        raise CksolveError(f"--scorer {given}: {command} ranks by {' or '.join(valid)}")
    if given == "model" and model is None:
        raise CksolveError("--scorer model needs --model DIR")
    if given == "measured" and measured is None:
        raise CksolveError(f"--scorer measured needs {measured_option} FILE")
    if implied is not None and implied != given:
        raise CksolveError(f"{'--model' if implied == 'model' else measured_option} is for --scorer {implied}, "
                           f"not {given}")
    return given


__all__ += ["scorer_option", "scorer_kind"]
