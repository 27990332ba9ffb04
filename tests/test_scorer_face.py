"""Callers of a scorer use its face alone (``scoring.protocol.Scorer``): ``evaluate`` validates through
``prepare``, the evaluation asks the face whether a scorer reads measured labels, ``plan`` imports the
public faces of the packages it uses, and the scorers' names are stated once, by the registry, which help
reads without loading a scorer.

The measurement file here is MADE-UP rows (``cksolve.ml.madeup``), not a GPU's."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from test_cli import run

from cksolve.ml.madeup import MADE_UP, MADE_UP_COLUMNS, made_up_rows
from cksolve.scoring import SCORERS, evaluate_scorer
from cksolve.scoring.scorer_base import ScorerBase

ROOT = Path(__file__).resolve().parents[1] / "cksolve"


@pytest.fixture
def bench(tmp_path) -> Path:
    f = tmp_path / "bench.csv"
    rows = [",".join(MADE_UP_COLUMNS)] + [",".join(map(str, (*r, MADE_UP))) for r in made_up_rows(3, 1, 6)]
    f.write_text("\n".join(rows) + "\n")
    return f


class FaceOnly(ScorerBase):
    """A scorer with the face and nothing else: what it was prepared for and the pairs it scored."""

    kind = "face-only"
    scores_labels = False

    def __init__(self, **options):
        self.options, self.prepared, self.pairs = options, [], []

    def describe(self) -> str:
        return "a face"

    def prepare(self, arch: str, dtype: str) -> None:
        self.prepared.append((arch, dtype))

    def score(self, pairs, arch, dtype):
        assert self.prepared == [(arch, dtype)], "scored before prepare"
        self.pairs.extend(pairs)
        return [float(i % 3) for i in range(len(pairs))]


def _as_face(kind: str, made_for=(None, None)):
    """``kind`` registered as ``FaceOnly`` (made for ``made_for``) while the test runs; the instances it built."""
    built = []

    class Made(FaceOnly):
        def __init__(self, **options):
            super().__init__(**options)
            built.append(self)

        def made_for(self):
            return made_for

    old, info = SCORERS.target(kind), SCORERS.info(kind)
    SCORERS.register(kind, Made, **info)
    try:
        yield built
    finally:
        SCORERS.register(kind, old, **info)


@pytest.fixture
def analytic_is_a_face():
    yield from _as_face("analytic")


@pytest.fixture
def model_is_a_face():
    yield from _as_face("model", ("gfx950", "bf16"))


def test_evaluate_validates_the_scorer_through_prepare_alone(capsys, bench, analytic_is_a_face):
    """No method beyond the face is called: the scorer is prepared once, for the arch and the kernels' dtype
    (known once the files are read), before it scores."""
    code, out, err = run(capsys, "evaluate", "--measurements", str(bench), "--arch", "gfx950")
    assert code == 0, err
    (scorer,) = analytic_is_a_face
    assert scorer.prepared == [("gfx950", "bf16")] and scorer.pairs and out.startswith(" ")


def test_evaluate_takes_the_arch_and_dtype_a_scorer_was_made_for_from_the_face(capsys, bench, model_is_a_face,
                                                                             tmp_path):
    """A model says its arch and dtype through ``made_for``; the command reads nothing else of it."""
    code, out, err = run(capsys, "evaluate", "--model", str(tmp_path), "--measurements", str(bench))
    assert code == 0, err
    (scorer,) = model_is_a_face
    assert scorer.prepared == [("gfx950", "bf16")] and scorer.options == {"path": tmp_path}


@pytest.mark.parametrize("labels", [False, True])
def test_the_evaluation_asks_the_face_whether_a_scorer_reads_labels(bench, labels):
    """``scores_labels``: the scorer is given each measured label as CK reads its name (a model of CK's
    semantics), else the kernel each label resolved to -- whatever the scorer's kind."""
    scorer = FaceOnly()
    scorer.scores_labels = labels
    evaluate_scorer(scorer, [str(bench)], "gfx950", None)
    configs = [c for _, c in scorer.pairs]
    assert configs and all(type(c).__name__ == ("KernelName" if labels else "KernelConfig") for c in configs), \
        {type(c).__name__ for c in configs}


def test_the_model_scorer_reads_labels_unless_its_features_are_exact():
    from cksolve.scoring.model_scorer import ModelScorer

    face = ModelScorer.__new__(ModelScorer)
    for semantics, labels in (("exact", False), ("ck", True), ("ck-names", True)):
        face.model = type("Model", (), {"semantics": semantics})()
        assert face.scores_labels is labels, semantics


def test_evaluation_reads_no_scorer_internals():
    """``evaluation.py`` uses the face: no ``.model``, no ``.kind`` test."""
    text = (ROOT / "scoring" / "evaluation.py").read_text()
    assert ".model" not in text and ".kind" not in text and "getattr(scorer" not in text


def _from_imports(path: Path) -> list[str]:
    tree = ast.parse(path.read_text())
    return [node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.level == 2]


@pytest.mark.parametrize("package", ["scoring", "features", "workload"])
def test_plan_candidates_import_the_faces(package):
    """``plan/candidates.py`` imports these packages through their ``__all__``, not their modules."""
    got = [m for m in _from_imports(ROOT / "plan" / "candidates.py") if m.split(".")[0] == package]
    assert got and all(m == package for m in got), got


def test_the_scorer_names_are_the_registry_and_each_command_takes_those_it_declares():
    """One statement: each command's ``--scorer`` names are the registry's, in its order, those declared with
    the entry as taken by the command; no list of them is written out again."""
    from cksolve.cli import minimize, select, space

    for command, names in (("evaluate", select.EVALUATE_SCORERS), ("select", select.SELECT_SCORERS),
                           ("search", space.SEARCH_SCORERS), ("minimize", minimize.MINIMIZE_SCORERS)):
        assert list(names) == [n for n in SCORERS.names() if command in SCORERS.info(n)["commands"]], command
    assert minimize.MINIMIZE_SCORERS == ("padding", "measured")
    for module in ("options", "select", "space", "minimize"):
        assert '"measured")' not in (ROOT / "cli" / f"{module}.py").read_text(), module


def test_help_loads_no_scorer():
    """The registry is light: naming the scorers (help does) imports neither a scorer nor numpy."""
    code = ("import sys; from cksolve.cli import load_families; load_families(); "
            "print(sorted(m for m in sys.modules if m.startswith(('numpy', 'cksolve.scoring.', 'lightgbm'))))")
    got = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert set(eval(got)) <= {"cksolve.scoring.protocol"}, got


def test_every_scorer_answers_the_whole_face():
    """Each registered scorer class carries every member of the ``Scorer`` face (``hygiene`` and
    ``unmeasured_note`` included), so commands call them without ``getattr`` or asking which kind it is."""
    from cksolve.scoring.protocol import Scorer

    members = [m for m in vars(Scorer) if not m.startswith("_")] + list(Scorer.__annotations__)
    for kind in SCORERS.names():
        cls = SCORERS.get(kind)
        missing = [m for m in members if not hasattr(cls, m) and m != "kind"]
        assert not missing, (kind, missing)


def test_the_commands_ask_a_scorer_through_its_face_alone():
    """No command module reads a scorer's members with ``getattr`` (a member it may lack)."""
    for name in ("select.py", "space.py", "minimize.py"):
        text = (ROOT / "cli" / name).read_text()
        assert "getattr(scorer" not in text and "getattr(rescorer" not in text, name
