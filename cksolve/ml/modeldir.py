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
adds ``cksolve_feature_semantics`` (``features.MODEL_SEMANTICS``) to the specs it
writes; CK's Predictor ignores keys it does not read. A model of cksolve's own
trainer also says what its scores are (``cksolve_score``: ``SCORES``; without
the key, TFLOPS) and whether CK's Predictor can use it (``ck_predictor``).
"""

from __future__ import annotations

import gzip
import io
import json
import os
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..errors import CksolveError, shorten
from ..features import FEATURE_NAMES, MODEL_SEMANTICS
from .dirfiles import MAX_JSON, MAX_MODEL, SHA256_KEY, gunzip_bounded, read_bounded, read_json, sha256, verify_hashes
from .dirswap import exchange
from .leafsum import LeafSum, leaf_sum
from .lgbm import lightgbm, native_quiet
from .textmodel import MAX_FEATURES, check_model_text

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


def _spec_types(spec: dict, where: str) -> None:
    """The spec's fields cksolve reads, each of its type (CK's Predictor would fail on others later)."""
    for key in ("arch", "dtype", "variant", "cksolve_feature_semantics", "op_type"):
        if key in spec and not isinstance(spec[key], str):
            raise CksolveError(f"{where}: {key} must be a string, got {type(spec[key]).__name__}")
    for key in ("feature_names", "log_targets", "targets", "categorical_features"):
        value = spec.get(key)
        if value is not None and (not isinstance(value, list) or not all(isinstance(v, str) for v in value)):
            raise CksolveError(f"{where}: {key} must be a list of strings")
    if len(spec.get("feature_names") or ()) > MAX_FEATURES:
        raise CksolveError(f"{where}: feature_names lists more than {MAX_FEATURES} features")


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


def _read(path: Path, limit: int, what: str) -> bytes | None:
    return read_bounded(path, limit, what) if os.path.lexists(path) else None


def read_model_dir(path: str | Path) -> ModelDir:
    """The model directory at ``path`` (module docstring); one error line for anything unusable.

    Every file is untrusted input (``dirfiles``, ``textmodel``): bounded reads, the hashes ``train`` recorded
    verified, the text model checked before LightGBM reads a byte of it."""
    d = Path(path)
    if not d.is_dir():
        raise CksolveError(f"model directory {shorten(str(path))}: not a directory")
    raw_manifest = _read(d / MANIFEST_FILE, MAX_JSON, "JSON file")
    manifest = read_json(d / MANIFEST_FILE, raw_manifest) if raw_manifest is not None else {}
    raw_spec = _read(d / SPEC_FILE, MAX_JSON, "JSON file")
    plain, packed = d / MODEL_FILE, d / (MODEL_FILE + ".gz")
    model_path = plain if os.path.lexists(plain) else packed
    raw = _read(model_path, MAX_MODEL, "model file")
    if raw is None:
        raise CksolveError(f"{shorten(str(d), quote=False)}: no {MODEL_FILE} or {MODEL_FILE}.gz")
    verify_hashes(d, manifest, {model_path.name: raw, **({SPEC_FILE: raw_spec} if raw_spec is not None else {})})
    spec = read_json(d / SPEC_FILE, raw_spec) if raw_spec is not None else {}
    _spec_types(spec, shorten(str(d / SPEC_FILE), quote=False))
    where = shorten(str(model_path), quote=False)
    data = gunzip_bounded(raw, MAX_MODEL, where) if model_path is packed else raw
    del raw
    info = check_model_text(data, where)
    text = data.decode("utf-8")
    del data
    lgb = lightgbm(passive=True)
    try:
        with native_quiet():
            booster = lgb.Booster(model_str=text)
    except Exception as exc:  # noqa: BLE001 -- LightGBM's error, or its Python side's; the check makes it rare
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise CksolveError(f"{where}: not a LightGBM text model ({shorten(first, 120, quote=False)})") from None
    if booster.num_trees() != info.trees or booster.num_feature() != info.features:
        raise CksolveError(f"{where}: LightGBM read {booster.num_trees()} trees of {booster.num_feature()} features, "
                           f"the check {info.trees} of {info.features}")
    names = spec.get("feature_names")
    columns = column_map(names, str(d / SPEC_FILE))
    width = len(names) if names else len(FEATURE_NAMES)
    if booster.num_feature() != width:
        raise CksolveError(f"{d}: the model reads {booster.num_feature()} features, its spec names {width}")
    semantics = spec.get("cksolve_feature_semantics", MODEL_SEMANTICS[0])
    if semantics not in MODEL_SEMANTICS:
        raise CksolveError(f"{d / SPEC_FILE}: cksolve_feature_semantics {shorten(semantics, 40)} is not one of "
                           f"{', '.join(MODEL_SEMANTICS)}")
    score = spec.get("cksolve_score", SCORES[0])
    if score not in SCORES:
        raise CksolveError(f"{d / SPEC_FILE}: cksolve_score {shorten(str(score), 40)} is not one of {', '.join(SCORES)}")
    return ModelDir(d, booster, spec, manifest, columns, "tflops" in set(spec.get("log_targets") or ()), semantics,
                    booster.num_trees(), leaf_sum(booster, text), score)


#: the files a model directory may hold (CK's and what ``train`` adds); a directory holding others is not replaced
KNOWN_FILES = frozenset({MODEL_FILE, MODEL_FILE + ".gz", SPEC_FILE, MANIFEST_FILE, "cv_metrics.json", "cv_metrics_tflops.json",
                         "feature_importances_tflops.json"})


def write_model_dir(path: str | Path, model_text: str, spec: dict, manifest: dict, extra: dict | None = None,
                    gz: bool = False) -> None:
    """Write a model directory CK's Predictor loads unchanged; ``extra``: more JSON files (name -> object).

    Atomic: the files are written into a temporary sibling directory, which replaces an old directory in one
    step (``dirswap.exchange``; where the system cannot, the old one is first renamed aside) and the old one is
    removed: a reader sees the old model or the new one, never a mix.
    ``train_manifest.json`` records each file's sha256 (``dirfiles.SHA256_KEY``), which a reader verifies."""
    d = Path(path)
    where = shorten(str(d), quote=False)
    if os.path.lexists(d) and not d.is_dir():
        raise CksolveError(f"{where}: exists and is not a directory")
    files = {SPEC_FILE: _json_bytes(spec), **{name: _json_bytes(obj) for name, obj in (extra or {}).items()}}
    text = model_text.encode("utf-8")
    if gz:
        buf = io.BytesIO()
        with gzip.GzipFile(fileobj=buf, mode="wb", mtime=0, filename="") as f:
            f.write(text)
        files[MODEL_FILE + ".gz"] = buf.getvalue()
    else:
        files[MODEL_FILE] = text
    hashes = {name: sha256(data) for name, data in sorted(files.items())}
    files[MANIFEST_FILE] = _json_bytes({**manifest, SHA256_KEY: hashes})
    tmp = old = None
    try:
        if d.is_dir():
            foreign = sorted(set(os.listdir(d)) - KNOWN_FILES - set(files))
            if foreign:
                raise CksolveError(f"{where}: holds {shorten(foreign[0])}, not a model directory's file; give a new "
                                   "directory or a model directory to replace")
        d.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(dir=d.parent, prefix=f".{d.name}."))
        mask = os.umask(0)
        os.umask(mask)
        os.chmod(tmp, 0o777 & ~mask)  # as mkdir would make it (mkdtemp's is private)
        for name, data in files.items():
            with open(tmp / name, "xb") as f:
                f.write(data)
                f.flush()
                os.fsync(f.fileno())
        if os.path.lexists(d) and exchange(tmp, d):  # one step: the path names the old model, then the new
            old, tmp = tmp, None
        elif os.path.lexists(d):  # no renameat2 here: two renames, a moment with no directory at the path
            old = Path(tempfile.mkdtemp(dir=d.parent, prefix=f".{d.name}.old."))
            os.rename(d, old)  # onto the empty directory mkdtemp made
            try:
                os.rename(tmp, d)
            except OSError:
                os.rename(old, d)  # the old model back in place
                old = None
                raise
        else:
            os.rename(tmp, d)
        tmp = None
    except OSError as exc:
        raise CksolveError(f"{where}: cannot write the model directory ({exc.strerror or exc})") from None
    finally:
        for leftover in (tmp, old):
            if leftover is not None:
                if leftover.is_symlink():
                    leftover.unlink()
                else:
                    shutil.rmtree(leftover, ignore_errors=True)


def _json_bytes(obj) -> bytes:
    return (json.dumps(obj, indent=2) + "\n").encode("utf-8")
