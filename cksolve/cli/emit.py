"""``emit`` and ``cmake-dir``: choose the kernels (rule set or names file), check them, hand them to the writer.

Every problem with the input -- an unknown or invalid name, a bad selection --
is reported before a single file is written. SIGINT / SIGTERM while the
writer runs end the command with its one line and exit 130 / 143 (at other
moments ``cksolve.entry`` does the same; there is nothing to clean up then).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Optional

import typer

from .. import query
from ..errors import CksolveError
from ..outputs import check_writable, write_stdout
from .app import app
from .errors import say
from .options import BuilderOpt, SelectionArgs, check_format, format_option, load_rule_set, rule_set_option, \
    selection_options

__all__ = ["run_emit", "select_for_emit", "inputs", "selection_label", "summary_json", "SUMMARY_FORMATS"]

#: what ``emit --format`` offers for the summary on stdout
SUMMARY_FORMATS = ("text", "json")


@app.command("emit")
@selection_options()
def emit_cmd(
    out: Path = typer.Option(..., "--out", "-o", metavar="DIR",
                             help="Output directory (one subdirectory per arch when several)."),
    rule_set: Optional[str] = rule_set_option(False),
    names: Optional[Path] = typer.Option(None, "--names", metavar="FILE", help="Emit exactly the kernels named in this file."),
    sel: SelectionArgs = None,
    jobs: Optional[int] = typer.Option(None, "--jobs", "-j", metavar="N", help="Parallel renderers (default: all cores)."),
    builder_configs: Optional[str] = BuilderOpt,
    arch_dirs: Optional[bool] = typer.Option(None, "--arch-dirs/--no-arch-dirs",
                                             help="One tree per arch, OUT/ARCH (default: when several archs)."),
    cmake_list: Optional[Path] = typer.Option(None, "--cmake-list", metavar="FILE",
                                              help="Also write the CMake list of trees, sources and inputs here."),
    replace: bool = typer.Option(False, "--replace",
                                 help="Remove the files another selection or layout wrote into OUT (else refused)."),
    unity_batch: Optional[int] = typer.Option(None, "--unity-batch", metavar="N",
                                              help="Also write translation units of up to N kernels each (OUT/unity)."),
    fmt: str = format_option("text", SUMMARY_FORMATS),
) -> None:
    """Write a CK Tile kernel instance (header, .cpp, dispatcher wrapper) for every config."""
    if str(out) == "-":  # -o - is stdout everywhere else (options.stdout_dash); a tree cannot go there
        raise CksolveError("--out -: emit writes a directory tree, not stdout; give a directory")
    code = run_emit(out=out, rule_set=rule_set, names=names, arch=sel.arch, variant=sel.variant, dtype=sel.dtype,
                    ndim=sel.ndim, jobs=jobs, builder_configs=builder_configs, arch_dirs=arch_dirs,
                    cmake_list=cmake_list, replace=replace, unity_batch=unity_batch, fmt=fmt)
    raise typer.Exit(code)


@app.command("cmake-dir")
def cmake_dir_cmd() -> None:
    """Print the directory holding cksolveConfig.cmake (for -Dcksolve_DIR=... or CMAKE_PREFIX_PATH)."""
    from ..emit import CMAKE_DIR  # deferred, as every emit import here: emit loads only for its commands

    write_stdout(f"{CMAKE_DIR}\n")


def select_for_emit(rule_set: Optional[str], names: Optional[Path], arch, variant, dtype, ndim,
                    builder_configs: Optional[str]) -> tuple[list[str], list[tuple[str, object]]]:
    """(selected archs, [(arch, config)]). A names file's names are emitted for the arch of their
    ``# arch: A`` section, the others for every selected arch; each name checked for its arch."""
    if (rule_set is None) == (names is None):
        raise CksolveError("emit needs exactly one of --rule-set or --names")
    selection = query.select(arch, variant, dtype, ndim)
    # the trees: one per arch or ROCm target ID given (gfx942:xnack-), which selects by its base arch
    targets = sorted(_targets(arch), key=lambda t: selection.archs.index(query.base_arch(t))) or list(selection.archs)
    if rule_set is not None:
        rs = load_rule_set(rule_set, builder_configs)
        by_base: dict[str, list] = {}
        for r in query.enumerate_records(rs, selection):
            by_base.setdefault(r.combo.arch, []).append(r.config)
        return targets, [(t, c) for t in targets for c in by_base.get(query.base_arch(t), ())]
    entries = query.read_sectioned_names(Path(names))  # [(section arch or None, config)]
    sections = list(dict.fromkeys(a for a, _ in entries if a is not None))
    if not arch:  # the file's sections say the archs
        loose = next((c for a, c in entries if a is None), None)
        if loose is not None or not sections:
            raise CksolveError("emit --names needs --arch" + (f" ({loose.name()} is in no '# arch: ARCH' section)"
                                                              if loose is not None and sections else ""))
        targets = [a for a in selection.archs if a in sections]
    else:
        for a in sections:
            if a not in {query.base_arch(t) for t in targets}:
                raise CksolveError(f"{names} has a section for {a}, not among --arch {','.join(targets)}")
    items = [(t, c) for t in targets for a, c in entries if a is None or a == query.base_arch(t)]
    for target, config in items:
        verdict = query.evaluate(config, query.base_arch(target))
        if not verdict.valid:
            first = verdict.violations[0]
            raise CksolveError(f"{names}: {config.name()} is not valid for {query.base_arch(target)}: "
                               f"{first.message} [{first.constraint}]")
    return targets, items


def _targets(arch) -> list[str]:
    """The --arch values (archs or ROCm target IDs, already checked by query.select), each once."""
    return list(dict.fromkeys(query.split_archs(arch)))



def inputs(rule_set: Optional[str], names: Optional[Path], builder_configs: Optional[str]) -> list[Path]:
    """The files an emit read besides its own package: what a build must watch."""
    from ..emit import installation_files  # deferred (see above)

    out = installation_files()
    if names is not None and Path(names).is_file():
        out.append(Path(names))
    if rule_set is not None:  # a rule-set file and every file it extends (a built-in set has none)
        out += load_rule_set(rule_set, builder_configs).files
    if builder_configs and Path(builder_configs).is_dir():
        out.append(Path(builder_configs))
        out += sorted(Path(builder_configs).rglob("*.conf"))
    return out


def selection_label(rule_set: Optional[str], names: Optional[Path]) -> str:
    """What chose the kernels, as the tree's manifest records it: another label is another selection."""
    if names is not None:
        return f"names file {Path(names).resolve()}"
    if Path(rule_set).is_file():
        return f"rule-set file {Path(rule_set).resolve()}"
    return f"rule set {rule_set}"


def summary_json(trees, selection: str) -> str:
    """``emit --format json``: one object; per tree its arch (or null), directory and counts."""
    rows = []
    for arch, s in trees:
        rows.append({"arch": arch, "out_dir": s.out_dir, "kernels": s.kernels, "files": s.files,
                     "written": s.written, "unchanged": s.unchanged, "removed": s.removed,
                     "replaced": s.replaced, "swept": s.swept, "bytes": s.bytes, "bytes_written": s.bytes_written,
                     "seconds": round(s.seconds, 3), "units": len(s.units), "foreign": list(s.foreign),
                     "notes": list(s.notes)})
    total = {k: sum(r[k] for r in rows) for k in ("kernels", "files", "written", "unchanged", "removed",
                                                  "replaced", "bytes", "bytes_written", "units")}
    return json.dumps({"selection": selection, "trees": rows, "total": total}, indent=2) + "\n"


def run_emit(*, out: Path, rule_set, names, arch, variant, dtype, ndim, jobs, builder_configs,
             arch_dirs: Optional[bool] = None, cmake_list: Optional[Path] = None, replace: bool = False,
             unity_batch: Optional[int] = None, fmt: str = "text") -> int:
    """Run the command; returns the exit code (0, or 128 + signal when the writer was interrupted)."""
    from ..emit import EmitInterrupted  # deferred (see above)

    check_format(fmt, SUMMARY_FORMATS)
    try:
        return _run(out, rule_set, names, arch, variant, dtype, ndim, jobs, builder_configs, arch_dirs, cmake_list,
                    replace, unity_batch, fmt)
    except EmitInterrupted as exc:
        say(str(exc))
        return exc.exit_code


def _refuse_split_paths(out, depends) -> None:
    """The paths the CMake list will hold (the trees, under --out; the inputs it watches), refused before any
    tree is written when CMake would split one at a ';'."""
    from ..emit import cmake_path_error  # deferred: the emit face loads jinja2 and the writer

    for option, path in (("--out", Path(out)), *(("an input", Path(p)) for p in depends)):
        error = cmake_path_error(path)
        if error is not None:
            raise CksolveError(f"{option} {error}")


def _run(out, rule_set, names, arch, variant, dtype, ndim, jobs, builder_configs, arch_dirs, cmake_list,
         replace, unity_batch, fmt) -> int:
    from ..emit import check_batch, emit_trees  # deferred (see above)

    check_batch(unity_batch)  # before the selection is solved
    archs, items = select_for_emit(rule_set, names, arch, variant, dtype, ndim, builder_configs)
    label = selection_label(rule_set, names)
    if cmake_list is not None:
        check_writable(Path(cmake_list))  # before the trees: a list that cannot be written fails the emit
        _refuse_split_paths(out, inputs(rule_set, names, builder_configs))
    if cmake_list is not None and arch_dirs is None:
        arch_dirs = True  # CMake gets one tree per arch, however many there are
    trees = emit_trees(items, Path(out), archs=archs, arch_dirs=arch_dirs, jobs=jobs,
                       progress=sys.stderr is not None and sys.stderr.isatty(), on_wait=say, selection=label,
                       replace=replace, unity_batch=unity_batch)
    for _, summary in trees:
        for note in summary.notes:
            say(f"warning: {note}")
        if summary.foreign:
            shown = ", ".join(summary.foreign[:3]) + (", ..." if len(summary.foreign) > 3 else "")
            say(f"note: {len(summary.foreign)} files in {summary.out_dir} were not written by emit "
                 f"and were left alone: {shown}")
        if fmt == "text":
            write_stdout(summary.line() + "\n")
    if fmt == "json":
        write_stdout(summary_json(trees, label))
    if cmake_list is not None:
        from ..emit import cmake_list_text, write_cmake_list  # deferred (see above)

        by_arch: dict[str, list[str]] = {a: [] for a in archs}
        for a, c in items:
            by_arch[a].append(c.name())
        dirs = {tree_arch: s for tree_arch, s in trees}
        listed = []
        for a in archs:
            s = dirs.get(a, dirs.get(None))
            listed.append((a, Path(s.out_dir), sorted(set(by_arch[a])), s.units or None))
        write_cmake_list(Path(cmake_list), cmake_list_text(listed, inputs(rule_set, names, builder_configs)))
    return 0
