"""Each face's ``__all__`` is exactly the public names it shows (Hypothesis's contract), it offers all the
command line and the docs' Python examples use of it, and docs/api.md names all of it.

A face (``cksolve.query``, ``.workload``, ``.features``, ``.audit``, ``.explore``, ``.solver`` and its
sub-packages, ``.derived``, ``.space``, ``.emit``) re-exports: a name without a leading underscore that it
shows is in ``__all__``, and the other way round; its submodules are its internals. A name the CLI or a
documented example needs and the face does not list fails here.
"""

from __future__ import annotations

import ast
import importlib
import pkgutil
import re
import types
from pathlib import Path

import pytest

from doc_examples import all_docs

ROOT = Path(__file__).resolve().parents[1]
FACES = ("query", "workload", "features", "audit", "explore", "solver", "space", "ml", "scoring", "plan", "derived")
#: the solver's sub-packages: faces of its concerns, each re-exporting what ``cksolve.solver`` takes from it
SOLVER_ROOMS = ("solver.engine", "solver.listing", "solver.sampling", "solver.questions")


def _cli_uses(face: str) -> set[str]:
    """``face.NAME`` in the CLI's modules (which import each face as ``from .. import face``)."""
    used = set()
    for f in (ROOT / "cksolve" / "cli").glob("*.py"):
        tree = ast.parse(f.read_text(encoding="utf-8"))
        imported = any(isinstance(n, ast.ImportFrom) and n.level == 2 and n.module is None
                       and any(a.name == face for a in n.names) for n in ast.walk(tree))
        if imported:
            used |= {n.attr for n in ast.walk(tree)
                     if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == face}
    return used


def _doc_snippets() -> list[str]:
    return [b.body for d in all_docs() for b in d.examples if b.lang == "python"]


def _docs_use(face: str) -> set[str]:
    """``from cksolve.face import NAME`` and ``face.NAME`` (after ``from cksolve import face``) in the docs."""
    used = set()
    for code in _doc_snippets():
        tree = ast.parse(code)
        for n in ast.walk(tree):
            if isinstance(n, ast.ImportFrom) and n.module == f"cksolve.{face}":
                used |= {a.name for a in n.names}
        if any(isinstance(n, ast.ImportFrom) and n.module == "cksolve" and any(a.name == face for a in n.names)
               for n in ast.walk(tree)):
            used |= {n.attr for n in ast.walk(tree)
                     if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == face}
    return used


def _shown(module) -> set[str]:
    """The names a face shows: its attributes without a leading underscore, except its own submodules (a face
    that imports names on first use, ``cksolve.registry.lazy_names``, shows those asked for: all it lists)."""
    for name in module.__all__:
        hasattr(module, name)
    subs = {m.name for m in pkgutil.iter_modules(module.__path__)}
    return {n for n, v in vars(module).items() if not n.startswith("_") and n != "annotations"
            and not (isinstance(v, types.ModuleType) and n in subs)}


@pytest.mark.parametrize("face", (*FACES, *SOLVER_ROOMS, "emit", "report"))
def test_all_is_exactly_what_the_face_shows(face):
    module = importlib.import_module(f"cksolve.{face}")
    listed = set(module.__all__)
    assert len(module.__all__) == len(listed), f"{face}.__all__ repeats a name"
    shown = _shown(module)
    assert not shown - listed, f"cksolve.{face} shows {sorted(shown - listed)} without listing them (public by accident)"
    assert not listed - shown, f"cksolve.{face} lists {sorted(listed - shown)}, which it does not have"


@pytest.mark.parametrize("face", FACES)
def test_the_face_offers_what_the_cli_and_the_docs_use(face):
    module = importlib.import_module(f"cksolve.{face}")
    used = _cli_uses(face) | _docs_use(face)
    missing = used - set(module.__all__)
    assert not missing, f"cksolve.{face} is used for {sorted(missing)} but does not list them"


@pytest.mark.parametrize("face", (*FACES, *SOLVER_ROOMS, "emit"))
def test_a_face_defines_nothing(face):
    """Re-export only: no function or class is defined in a face's module."""
    path = ROOT / "cksolve" / face.replace(".", "/") / "__init__.py"
    tree = ast.parse(path.read_text(encoding="utf-8"))
    defined = [n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))]
    assert defined == [], f"{path.name} of {face} defines {defined}"
    comments = [line for line in path.read_text(encoding="utf-8").splitlines() if "also importable" in line]
    assert not comments, f"{face}: a name is public (in __all__) or internal (in its module), not 'also importable'"


@pytest.mark.parametrize("face", (*FACES, "emit"))
def test_the_api_reference_names_every_export(face):
    """docs/api.md is the reference: its section on a face names each entry of the face's ``__all__``."""
    text = (ROOT / "docs" / "api.md").read_text(encoding="utf-8")
    section = re.search(rf"^## .*`cksolve\.{face}`.*?(?=^## |\Z)", text, re.M | re.S)
    assert section, f"docs/api.md has no section on cksolve.{face}"
    missing = [n for n in importlib.import_module(f"cksolve.{face}").__all__
               if not re.search(rf"`{n}\b", section[0])]
    assert not missing, f"docs/api.md's section on cksolve.{face} does not name {missing}"


def test_the_docs_snippets_parse():
    for code in _doc_snippets():
        ast.parse(code)


def test_the_library_names_parameters_and_the_cli_names_flags(capsys):
    from cksolve import query
    from cksolve.cli import main

    rs = query.load_rule_set("default")
    with pytest.raises(query.CksolveError) as exc:
        query.enumerate_names(rs, query.select(), -1)
    assert str(exc.value) == "limit -1 must not be negative"
    with pytest.raises(query.CksolveError) as exc:
        query.select(["gfx942,"])
    assert str(exc.value) == "empty arch in 'gfx942,'"
    for argv, line in ((["enumerate", "-r", "default", "--limit", "-1"], "--limit -1 must not be negative"),
                       (["count", "-r", "default", "-a", "gfx942,"], "empty --arch in 'gfx942,'")):
        with pytest.raises(SystemExit):
            main(argv)
        assert capsys.readouterr().err == f"cksolve: error: {line}\n"


def test_the_library_writes_nothing_to_stderr():
    """Warnings travel as data (``RuleSet.warnings``); only the command line (and the progress bars of emit and
    the workload steps, shown only on a terminal) writes to stderr -- and the stand-in compiler, a program of
    its own."""
    allowed = {ROOT / "cksolve" / "entry.py", ROOT / "cksolve" / "emit" / "progress.py",
               ROOT / "cksolve" / "progress.py", ROOT / "cksolve" / "emit" / "standin.py"}
    for f in sorted((ROOT / "cksolve").rglob("*.py")):
        if f in allowed or (ROOT / "cksolve" / "cli") in f.parents:
            continue
        tree = ast.parse(f.read_text(encoding="utf-8"))
        uses = [n.lineno for n in ast.walk(tree) if isinstance(n, ast.Attribute) and n.attr == "stderr"
                and isinstance(n.value, ast.Name) and n.value.id == "sys"]
        assert not uses, f"{f.relative_to(ROOT)}:{uses[0]} writes to stderr"


def test_library_errors_name_parameters_not_flags():
    """An error made by the library names a parameter (``{opt:NAME}``, rendered as a flag by the command
    line), never a flag spelled out: the library does not know its command line."""
    flag = re.compile(r"(?:^|[\s(])--[a-z]")
    found = []
    for f in sorted((ROOT / "cksolve").rglob("*.py")):
        rel = f.relative_to(ROOT / "cksolve").as_posix()
        if rel.startswith("cli/"):
            continue
        tree = ast.parse(f.read_text(encoding="utf-8"))
        for node in ast.walk(tree):  # SomethingError(...): raised, or returned to be raised
            func = node.func if isinstance(node, ast.Call) else None
            name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
            if name.endswith("Error"):
                texts = [c.value for c in ast.walk(node) if isinstance(c, ast.Constant) and isinstance(c.value, str)]
                found += [f"{rel}:{node.lineno}" for t in texts if flag.search(t)]
    assert not found, f"library errors spelling a flag: {found}"
