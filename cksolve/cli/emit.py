"""``emit`` and ``cmake-dir``: choose the kernels (rule set or names file), check them, hand them to the writer.

Every problem with the input -- an unknown or invalid name, a bad selection --
is reported before a single file is written. SIGINT / SIGTERM while the
writer runs end the command with its one line and exit 130 / 143 (at other
moments ``cksolve.entry`` does the same; there is nothing to clean up then).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Optional

import typer

from .. import query
from ..errors import CksolveError
from ..outputs import check_writable
from .app import app
from .options import BuilderOpt, SelectionArgs, load_rule_set, rule_set_option, selection_options

__all__ = ["run_emit", "select_for_emit", "inputs"]


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
) -> None:
    """Write a CK Tile kernel instance (header, .cpp, dispatcher wrapper) for every config."""
    code = run_emit(out=out, rule_set=rule_set, names=names, arch=sel.arch, variant=sel.variant, dtype=sel.dtype,
                    ndim=sel.ndim, jobs=jobs, builder_configs=builder_configs, arch_dirs=arch_dirs,
                    cmake_list=cmake_list)
    raise typer.Exit(code)


@app.command("cmake-dir")
def cmake_dir_cmd() -> None:
    """Print the directory holding cksolveConfig.cmake (for -Dcksolve_DIR=... or CMAKE_PREFIX_PATH)."""
    from ..emit.cmake import CMAKE_DIR  # deferred, as every emit import here: the writer loads only when emitting

    sys.stdout.write(f"{CMAKE_DIR}\n")


def select_for_emit(rule_set: Optional[str], names: Optional[Path], arch, variant, dtype, ndim,
                    builder_configs: Optional[str]) -> tuple[list[str], list[tuple[str, object]]]:
    """(selected archs, [(arch, config)]). A names file's names are emitted for the arch of their
    ``# arch: A`` section, the others for every selected arch; each name checked for its arch."""
    if (rule_set is None) == (names is None):
        raise CksolveError("emit needs exactly one of --rule-set or --names")
    selection = query.select(arch, variant, dtype, ndim)
    archs = list(selection.archs)
    if rule_set is not None:
        rs = load_rule_set(rule_set, builder_configs)
        return archs, [(r.combo.arch, r.config) for r in query.enumerate_records(rs, selection)]
    entries = query.read_sectioned_names(Path(names))  # [(section arch or None, config)]
    sections = list(dict.fromkeys(a for a, _ in entries if a is not None))
    if not arch:  # the file's sections say the archs
        loose = next((c for a, c in entries if a is None), None)
        if loose is not None or not sections:
            raise CksolveError("emit --names needs --arch" + (f" ({loose.name()} is in no '# arch: ARCH' section)"
                                                              if loose is not None and sections else ""))
        archs = [a for a in query.ARCHS if a in sections]
    else:
        for a in sections:
            if a not in archs:
                raise CksolveError(f"{names} has a section for {a}, not among --arch {','.join(archs)}")
    items = [(target, c) for target in archs for a, c in entries if a is None or a == target]
    for target, config in items:
        verdict = query.evaluate(config, target)
        if not verdict.valid:
            first = verdict.violations[0]
            raise CksolveError(f"{names}: {config.name()} is not valid for {target}: "
                               f"{first.message} [{first.constraint}]")
    return archs, items


def inputs(rule_set: Optional[str], names: Optional[Path], builder_configs: Optional[str]) -> list[Path]:
    """The files an emit read besides its own package: what a build must watch."""
    from ..emit.cmake import installation_files

    out = installation_files()
    if names is not None and Path(names).is_file():
        out.append(Path(names))
    if rule_set is not None:  # a rule-set file and every file it extends (a built-in set has none)
        out += load_rule_set(rule_set, builder_configs).files
    if builder_configs and Path(builder_configs).is_dir():
        out.append(Path(builder_configs))
        out += sorted(Path(builder_configs).rglob("*.conf"))
    return out


def run_emit(*, out: Path, rule_set, names, arch, variant, dtype, ndim, jobs, builder_configs,
             arch_dirs: Optional[bool] = None, cmake_list: Optional[Path] = None) -> int:
    """Run the command; returns the exit code (0, or 128 + signal when the writer was interrupted)."""
    from ..emit import EmitInterrupted

    try:
        return _run(out, rule_set, names, arch, variant, dtype, ndim, jobs, builder_configs, arch_dirs, cmake_list)
    except EmitInterrupted as exc:
        sys.stderr.write(f"cksolve: {exc}\n")
        return exc.exit_code


def _say(line: str) -> None:
    sys.stderr.write(f"cksolve: {line}\n")
    sys.stderr.flush()


def _run(out, rule_set, names, arch, variant, dtype, ndim, jobs, builder_configs, arch_dirs, cmake_list) -> int:
    from ..emit import emit_trees

    archs, items = select_for_emit(rule_set, names, arch, variant, dtype, ndim, builder_configs)
    if cmake_list is not None:
        check_writable(Path(cmake_list))  # before the trees: a list that cannot be written fails the emit
    if cmake_list is not None and arch_dirs is None:
        arch_dirs = True  # CMake gets one tree per arch, however many there are
    trees = emit_trees(items, Path(out), archs=archs, arch_dirs=arch_dirs, jobs=jobs,
                       progress=sys.stderr.isatty(), on_wait=_say)
    for _, summary in trees:
        for note in summary.notes:
            _say(f"warning: {note}")
        if summary.foreign:
            shown = ", ".join(summary.foreign[:3]) + (", ..." if len(summary.foreign) > 3 else "")
            _say(f"note: {len(summary.foreign)} files in {summary.out_dir} were not written by emit "
                 f"and were left alone: {shown}")
        sys.stdout.write(summary.line() + "\n")
    if cmake_list is not None:
        from ..emit.cmake import cmake_list_text, write_cmake_list

        by_arch: dict[str, list[str]] = {a: [] for a in archs}
        for a, c in items:
            by_arch[a].append(c.name())
        dirs = {tree_arch: Path(s.out_dir) for tree_arch, s in trees}
        listed = [(a, dirs.get(a, dirs.get(None)), sorted(set(by_arch[a]))) for a in archs]
        write_cmake_list(Path(cmake_list), cmake_list_text(listed, inputs(rule_set, names, builder_configs)))
    return 0
