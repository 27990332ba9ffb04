"""CK's model directories, read with its Predictor's semantics and written so that its Predictor loads them.

A directory (CK ships them under ``dispatcher/heuristics/models/<name>/``) holds:

* ``model_tflops.lgbm``: LightGBM's text model (``Booster.save_model``), or
  ``model_tflops.lgbm.gz``, its gzip (CK's Predictor decompresses a lone ``.gz``
  beside it; this reader reads it in memory and writes nothing);
* ``feature_spec.json``: ``feature_names`` (the booster's columns, in order),
  ``categorical_features``, ``targets``, ``log_targets`` (targets trained on
  log1p: predictions go through expm1), ``params``, op_type/dtype/arch;
* ``train_manifest.json``: rows, shapes, trees, timestamp (informative).

Reading follows ``Predictor.__init__`` / ``_select_features`` / ``rank_kernels``
(``dispatcher/heuristics/predict.py`` @54f25023e8af49decbd174c8a6154356e8f815d0):
when the spec's ``feature_names`` differ from the engine's 97, each is mapped to
its engine column (so 83- and 91-feature models run on the 97-column rows) and
a name the engine lacks is an error naming it; a spec without ``feature_names``
takes the rows as they are; ``tflops`` in ``log_targets`` means expm1. cksolve
adds ``cksolve_feature_semantics`` (``rows.MODEL_SEMANTICS``) to the specs it
writes; CK's Predictor ignores keys it does not read. A model of cksolve's own
trainer also says what its scores are (``cksolve_score``: ``SCORES``; without
the key, TFLOPS) and whether CK's Predictor can use it (``ck_predictor``).
"""

from __future__ import annotations

import gzip
import json
import os
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..errors import CksolveError
from ..features import FEATURE_NAMES
from .leafsum import LeafSum, leaf_sum
from .lgbm import lightgbm, native_quiet
from .rows import MODEL_SEMANTICS

__all__ = ["ModelDir", "read_model_dir", "write_model_dir", "MODEL_FILE", "SPEC_FILE", "MANIFEST_FILE", "SCORES"]

MODEL_FILE = "model_tflops.lgbm"
#: threads a prediction uses: rows are predicted independently, so the answer is the same with any number
#: (two: the targets are for two cores, and more spin idle on a shared machine)
PREDICT_THREADS = max(1, min(2, os.cpu_count() or 1))
SPEC_FILE = "feature_spec.json"
MANIFEST_FILE = "train_manifest.json"
#: What a model's scores can be (``cksolve_score``; the first is what a spec without the key means): predicted
#: TFLOPS, the predicted share of the problem's best kernel, a ranking score (higher is better in each)
SCORES = ("tflops", "efficiency", "rank")


@dataclass
class ModelDir:
    """A loaded model: the booster, the spec, the engine-column map and the back-transform."""

    path: Path
    booster: object
    spec: dict
    manifest: dict
    columns: np.ndarray | None  # engine column of each model feature; None: the engine's 97, in order
    log_target: bool
    semantics: str
    trees: int = field(default=0)
    fast: LeafSum | None = None  # Booster.predict's answers with less CPU (``leafsum``); None: Booster.predict
    score: str = SCORES[0]  # what ``predict`` returns (``SCORES``)

    def predict(self, rows: np.ndarray) -> np.ndarray:
        """Predicted scores of 97-column rows, TFLOPS unless ``score`` says otherwise (CK's Predictor.rank_kernels:
        select, predict, expm1)."""
        x = rows if self.columns is None else rows[:, self.columns]
        raw = (self.fast.predict(x, PREDICT_THREADS) if self.fast is not None
               else self.booster.predict(x, num_threads=PREDICT_THREADS))
        return np.expm1(raw) if self.log_target else raw


def _json(path: Path, required: bool) -> dict:
    if not path.exists():
        if required:
            raise CksolveError(f"{path}: no such file")
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise CksolveError(f"{path}: not readable JSON ({exc})") from None
    if not isinstance(data, dict):
        raise CksolveError(f"{path}: expected a JSON object")
    return data


def column_map(names: list | None, where: str) -> np.ndarray | None:
    """Engine columns of the model's feature names (Predictor's index map); None when they are the engine's."""
    if not names or list(names) == list(FEATURE_NAMES):
        return None
    index = {n: i for i, n in enumerate(FEATURE_NAMES)}
    missing = [n for n in names if n not in index]
    if missing:
        shown = ", ".join(map(str, missing[:8])) + (f" and {len(missing) - 8} more" if len(missing) > 8 else "")
        raise CksolveError(f"{where}: the model needs features cksolve's engine does not compute: {shown}")
    return np.array([index[n] for n in names], dtype=np.intp)


def read_model_dir(path: str | Path) -> ModelDir:
    """The model directory at ``path`` (module docstring); one error line for anything unusable."""
    d = Path(path)
    if not d.is_dir():
        raise CksolveError(f"model directory {str(path)!r}: not a directory")
    spec = _json(d / SPEC_FILE, False)
    manifest = _json(d / MANIFEST_FILE, False)
    plain, packed = d / MODEL_FILE, d / (MODEL_FILE + ".gz")
    try:
        if plain.exists():
            text = plain.read_text(encoding="utf-8")
        elif packed.exists():
            with gzip.open(packed, "rt", encoding="utf-8") as f:
                text = f.read()
        else:
            raise CksolveError(f"{d}: no {MODEL_FILE} or {MODEL_FILE}.gz")
    except (OSError, UnicodeDecodeError, EOFError) as exc:
        raise CksolveError(f"{d}: cannot read the model file ({exc})") from None
    lgb = lightgbm(passive=True)
    try:
        with native_quiet():
            booster = lgb.Booster(model_str=text)
    except lgb.basic.LightGBMError as exc:
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise CksolveError(f"{d}: not a LightGBM text model ({first})") from None
    names = spec.get("feature_names")
    columns = column_map(names, str(d / SPEC_FILE))
    width = len(names) if names else len(FEATURE_NAMES)
    if booster.num_feature() != width:
        raise CksolveError(f"{d}: the model reads {booster.num_feature()} features, its spec names {width}")
    semantics = spec.get("cksolve_feature_semantics", MODEL_SEMANTICS[0])
    if semantics not in MODEL_SEMANTICS:
        raise CksolveError(f"{d / SPEC_FILE}: cksolve_feature_semantics {semantics!r} is not one of "
                           f"{', '.join(MODEL_SEMANTICS)}")
    score = spec.get("cksolve_score", SCORES[0])
    if score not in SCORES:
        raise CksolveError(f"{d / SPEC_FILE}: cksolve_score {str(score)[:40]!r} is not one of {', '.join(SCORES)}")
    return ModelDir(d, booster, spec, manifest, columns, "tflops" in set(spec.get("log_targets", [])), semantics,
                    booster.num_trees(), leaf_sum(booster, text), score)


def write_model_dir(path: str | Path, model_text: str, spec: dict, manifest: dict, extra: dict | None = None,
                    gz: bool = False) -> None:
    """Write a model directory CK's Predictor loads unchanged; ``extra``: more JSON files (name -> object)."""
    d = Path(path)
    if d.exists() and not d.is_dir():
        raise CksolveError(f"{d}: exists and is not a directory")
    d.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(dir=d.parent, prefix=f".{d.name}."))  # every file whole, or none moved in
    try:
        files = {SPEC_FILE: spec, MANIFEST_FILE: manifest, **(extra or {})}
        for name, obj in files.items():
            (tmp / name).write_text(json.dumps(obj, indent=2) + "\n", encoding="utf-8")
        model = MODEL_FILE + ".gz" if gz else MODEL_FILE
        if gz:
            with open(tmp / model, "wb") as raw:
                with gzip.GzipFile(fileobj=raw, mode="wb", mtime=0, filename="") as f:
                    f.write(model_text.encode("utf-8"))
        else:
            (tmp / model).write_text(model_text, encoding="utf-8")
        d.mkdir(exist_ok=True)
        stale = MODEL_FILE if gz else MODEL_FILE + ".gz"  # a reader prefers .lgbm: an old one must not shadow
        if (d / stale).exists():
            (d / stale).unlink()
        for f in sorted(tmp.iterdir()):
            os.replace(f, d / f.name)
    except OSError as exc:
        raise CksolveError(f"{d}: cannot write the model directory ({exc.strerror or exc})") from None
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
