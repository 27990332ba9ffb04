"""CK's model directories, train and evaluate.

Every measurement here is MADE UP (``cksolve.ml.madeup``: a documented formula
with noise); nothing here says anything about a real GPU. What the tests show
is that the machinery recovers a known ranking on problem groups it never saw,
and that the directories follow CK's Predictor semantics.
"""

from __future__ import annotations

import gzip
import json
import sys
from pathlib import Path

import numpy as np
import pytest

lgb = pytest.importorskip("lightgbm")

from cksolve.errors import CksolveError  # noqa: E402
from cksolve.features import FEATURE_NAMES, features  # noqa: E402
from cksolve.ml import read_measurements, read_model_dir, write_model_dir  # noqa: E402
from cksolve.ml.madeup import made_up_rows  # noqa: E402
from cksolve.ml.training_data import CK_COLUMNS  # noqa: E402
from cksolve.features import RowMaker, read_kernel_name  # noqa: E402
from cksolve.ml.training import train, train_data  # noqa: E402
from cksolve.rulesets import Combo, get_rule_set  # noqa: E402
from cksolve.workload import parse_problem  # noqa: E402
from test_cli import run  # noqa: E402

#: The 83 features of CK's older models: the 97 minus the 3D/dilation set and the six pipeline flags
#: (../shared/ck/ml/pipeline.md, section 2).
DROPPED = ("is_3d", "Di", "Z", "Do", "stride_d", "pad_d", "dilation_h", "dilation_w",
           "is_intrawave", "has_dsb", "has_si", "is_basic", "is_compv6", "is_mem")


def write_csv(path: Path, problems: int, seed: int, kernels: int = 30) -> Path:
    with open(path, "w") as f:
        f.write(",".join(CK_COLUMNS) + "\n")
        for row in made_up_rows(problems, seed, kernels):
            f.write(",".join(map(str, row)) + "\n")
    return path


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    d = tmp_path_factory.mktemp("ml")
    return write_csv(d / "train.csv", 50, 1), write_csv(d / "held_out.csv", 25, 2), d


@pytest.fixture(scope="module")
def model(data):
    train_csv, _, d = data
    out = d / "model"
    result = train([train_csv], "gfx950", "bf16", "forward", out, seed=7, folds=3, trees=60, like_ck=True)
    return out, result


def test_names_both_spellings_and_the_ones_ck_drops():
    k = read_kernel_name("grouped_conv_bwd_weight_bf16_3d_64x128x32_mem_interwave_gm2_dsb_2stage")
    s = k.short
    assert (s.variant, s.ndim, s.tile_m, s.tile_n, s.tile_k, s.pipeline, s.scheduler) == \
        ("bwd_weight", 3, 64, 128, 32, "mem", "interwave")
    assert (s.groups_to_merge, s.double_smem_buffer, s.two_stage) == (2, True, True)
    assert read_kernel_name("grouped_conv_forward_bf16_2d_64x64x64_wavelet_intrawave").short.pipeline == "wavelet"
    full = "grouped_conv_fwd_bf16_nhwgc_2d_compv3_cshuffle_intrawave_128x128x64_2x2x1_16x16x32_vec8_8_8"
    k = read_kernel_name(full)
    assert k.config is not None and k.short.tile_m == 128 and k.short.variant == "forward"
    with pytest.raises(CksolveError, match="neither a dispatcher short name"):
        read_kernel_name("gemm_128x128")


def test_rows_are_the_feature_engines(data):
    """RowMaker under ck semantics writes what ``cksolve features`` writes (the engine CK's models read)."""
    rs = get_rule_set("tiny")
    p = parse_problem("N=2,C=64,K=128,Hi=14,Wi=14,Y=3,X=3,pad_h=1,pad_w=1")
    t = features(rs, [Combo("gfx950", "forward", "bf16", 2)], [p])
    assert t.rows
    from cksolve.space.naming import parse_name

    for sem in ("ck", "exact"):
        t = features(rs, [Combo("gfx950", "forward", "bf16", 2)], [p], sem)
        maker = RowMaker("gfx950", "bf16", sem)
        for row in t.rows[:40]:
            got = maker.row(p, parse_name(row[-1]))
            assert got == tuple(row[:97]), (sem, row[-1])


def test_measurement_reader_ck_csv_and_cksolve_format(tmp_path):
    ck = tmp_path / "ck.csv"
    ck.write_text(",".join(CK_COLUMNS) + "\n"
                  "grouped_conv_forward_bf16_2d_64x64x64_compv3_intrawave,0,2,64,64,1,1,14,14,1,3,3,1,1,1,0,1,1,"
                  "1,1,1,0.01,10.5,1\n"
                  "grouped_conv_forward_bf16_2d_64x64x64_compv3_intrawave_gm2,0,2,64,64,1,1,14,14,1,3,3,1,1,1,0,1,1,"
                  "1,1,1,0.01,0,0\n")
    m = read_measurements([ck])
    assert m.skipped == 1 and len(m.by_problem) == 1
    own = tmp_path / "own.jsonl"
    own.write_text(json.dumps({"N": 2, "C": 64, "K": 64, "Hi": 14, "Wi": 14, "pad_h": 1, "pad_w": 1,
                               "kernel": "grouped_conv_forward_bf16_2d_64x64x64_compv3_intrawave",
                               "tflops": 12.0}) + "\n")
    m2 = read_measurements([own])
    assert list(m2.by_problem) == list(m.by_problem)  # keyed by dimensions, not problem_idx
    bad = tmp_path / "bad.csv"
    bad.write_text("kernel,N,speed\nx,1,2\n")
    with pytest.raises(CksolveError, match="column 3 of the header is not a column name"):
        read_measurements([bad])


def test_train_then_evaluate_recovers_the_made_up_ranking(data, model, capsys):
    """Held-out problems (another seed: other problem groups): the picks are near the best, far above chance."""
    _, held_out, _ = data
    out, result = model
    assert len(result["folds"]) == 3 and result["cv"]["mean_efficiency"] > 0.8
    code, text, _ = run(capsys, "evaluate", "--model", str(out), "--measurements", str(held_out), "--format", "json")
    assert code == 0
    got = json.loads(text)
    m = read_measurements([held_out])
    assert set(got) >= {"mean", "median", "p10", "top1", "top5", "problems"}
    assert got["problems"] == len(m.by_problem)  # 25 rows of problems; equal dimensions are one problem
    chance = np.mean([np.mean(list(v.values())) / max(v.values()) for v in m.by_problem.values()])
    assert got["mean"] > 0.8 and got["mean"] > chance + 0.2, (got["mean"], chance)
    cv = json.loads((out / "cv_metrics_tflops.json").read_text())
    assert {"fold", "rmse", "r2", "mean_efficiency", "p10_efficiency", "train_size", "val_size",
            "val_groups"} <= set(cv["folds"][0])


def test_evaluate_every_scorer_on_the_same_problems(data, model, capsys):
    """``evaluate --scorer``: a model, the analytic model and the measurements themselves (100%) on the same
    MADE-UP problems, with the same baselines; the JSON keys are exactly the documented ones."""
    _, held_out, _ = data
    out, _ = model
    got = {}
    for argv in (["--model", str(out)], ["--scorer", "analytic", "--arch", "gfx950"],
                 ["--scorer", "measured", "--arch", "gfx950"]):
        code, text, err = run(capsys, "evaluate", *argv, "--measurements", str(held_out), "--format", "json")
        assert code == 0 and err == "", err
        got[argv[1]] = json.loads(text)
    model_, analytic, measured = got.values()
    assert list(model_) == ["mean", "median", "p10", "min", "top1", "top5", "tau", "problems", "baselines", "invalid"]
    assert measured["mean"] == 1.0 and measured["tau"] == 1.0
    assert model_["problems"] == analytic["problems"] == measured["problems"]
    assert model_["baselines"] == analytic["baselines"] == measured["baselines"]
    assert model_["mean"] > model_["baselines"]["random"]["mean"]
    code, _, err = run(capsys, "evaluate", "--scorer", "model", "--measurements", str(held_out))
    assert code == 2 and "--scorer model needs --model DIR" in err


@pytest.mark.parametrize("jobs", [1, 3])
def test_train_is_deterministic(data, model, tmp_path, jobs):
    """Two runs write the same bytes, one fit at a time or three side by side (the fixture's: all cores)."""
    train_csv, _, _ = data
    out, _ = model
    again = tmp_path / "again"
    train([train_csv], "gfx950", "bf16", "forward", again, seed=7, folds=3, trees=60, jobs=jobs, like_ck=True)
    assert sorted(p.name for p in again.iterdir()) == sorted(p.name for p in out.iterdir())
    for f in sorted(p.name for p in out.iterdir()):
        assert (again / f).read_bytes() == (out / f).read_bytes(), f"{f} differs with jobs={jobs}"


def test_a_failing_fit_stops_the_others_at_their_next_tree():
    """run_fits: the first failure is raised at once, and a fit still running gets Stop from its callback."""
    import threading

    from cksolve.ml.fits import Stop, run_fits

    started, seen = threading.Event(), []

    def long(check):
        started.set()
        for _ in range(10_000):  # a fit's trees: the callback runs after each
            try:
                check(None)
            except Stop:
                seen.append("stopped")
                raise
            threading.Event().wait(0.01)
        return "finished"

    def failing(check):
        started.wait(5)
        raise ValueError("bad fit")

    with pytest.raises(ValueError, match="bad fit"):
        run_fits([long, failing], jobs=2)
    assert seen == ["stopped"]
    assert run_fits([lambda check: 1, lambda check: 2, lambda check: 3], jobs=2) == [1, 2, 3]
    with pytest.raises(CksolveError, match="jobs 0 must be at least 1"):
        run_fits([lambda check: 1], jobs=0)


class CkPredictor:
    """CK's Predictor (dispatcher/heuristics/predict.py @54f25023), re-implemented from its source's semantics:
    spec read ({} when absent), an index map when the spec's names differ from the engine's (ValueError on a
    missing one), model_tflops.lgbm loaded (a lone .gz decompressed beside it), expm1 for log targets."""

    def __init__(self, model_dir: Path, engine_names):
        self.dir = Path(model_dir)
        spec_path = self.dir / "feature_spec.json"
        self.spec = json.loads(spec_path.read_text()) if spec_path.exists() else {}
        self.log_targets = set(self.spec.get("log_targets", []))
        self.idx = None
        names = self.spec.get("feature_names")
        if names and list(names) != list(engine_names):
            index = {n: i for i, n in enumerate(engine_names)}
            missing = [n for n in names if n not in index]
            if missing:
                raise ValueError(missing)
            self.idx = np.array([index[n] for n in names], dtype=np.intp)

    def predict(self, x: np.ndarray) -> np.ndarray:
        path = self.dir / "model_tflops.lgbm"
        gz = self.dir / "model_tflops.lgbm.gz"
        if not path.exists() and gz.exists():
            path.write_bytes(gzip.decompress(gz.read_bytes()))
        booster = lgb.Booster(model_file=str(path))
        if self.idx is not None:
            x = x[:, self.idx]
        pred = booster.predict(x)
        return np.expm1(pred) if "tflops" in self.log_targets else pred


def test_ck_predictor_loads_what_train_writes(data, model):
    _, held_out, _ = data
    out, _ = model
    d = train_data(read_measurements([held_out]), "gfx950", "bf16", "ck-names")
    ours = read_model_dir(out).predict(d.x)
    theirs = CkPredictor(out, FEATURE_NAMES).predict(d.x)
    assert np.array_equal(ours, theirs)
    assert json.loads((out / "feature_spec.json").read_text())["log_targets"] == ["tflops"]


def test_subset_model_gz_and_log_targets_round_trip(data, tmp_path):
    """An 83-feature model (CK's older specs), gzipped, with and without log_targets, read by the index map."""
    train_csv, held_out, _ = data
    d = train_data(read_measurements([train_csv]), "gfx950", "bf16", "ck-names")
    names = [n for n in FEATURE_NAMES if n not in DROPPED]
    assert len(names) == 83
    cols = [FEATURE_NAMES.index(n) for n in names]
    ds = lgb.Dataset(d.x[:, cols], label=np.log1p(d.y), feature_name=names, params={"verbosity": -1})
    booster = lgb.train({"objective": "regression", "num_leaves": 15, "verbosity": -1, "deterministic": True,
                         "num_threads": 1, "seed": 1}, ds, num_boost_round=20)
    x = train_data(read_measurements([held_out]), "gfx950", "bf16", "ck-names").x
    raw = booster.predict(x[:, cols])
    for log in (True, False):
        out = tmp_path / f"m{log}"
        spec = {"op_type": "grouped_conv", "dtype": "bf16", "arch": "gfx950", "feature_names": names,
                "targets": ["tflops"], **({"log_targets": ["tflops"]} if log else {})}  # bwd_data's spec: no key
        write_model_dir(out, booster.model_to_string(), spec, {}, gz=True)
        assert not (out / "model_tflops.lgbm").exists() and (out / "model_tflops.lgbm.gz").exists()
        m = read_model_dir(out)
        want = np.expm1(raw) if log else raw
        assert np.allclose(m.predict(x), want, rtol=0, atol=1e-12)
        assert np.allclose(CkPredictor(out, FEATURE_NAMES).predict(x), want, rtol=0, atol=1e-12)


def test_missing_features_are_named(data, tmp_path, model):
    out, _ = model
    bad = tmp_path / "bad"
    spec = json.loads((out / "feature_spec.json").read_text())
    spec["feature_names"] = [*FEATURE_NAMES[:-2], "hw_tensor_cores", "hw_magic"]
    write_model_dir(bad, (out / "model_tflops.lgbm").read_text(), spec, {})
    with pytest.raises(CksolveError, match="does not compute: hw_tensor_cores, hw_magic"):
        read_model_dir(bad)


def test_without_lightgbm_one_line_exit_2(capsys, monkeypatch, model, data):
    out, _ = model
    monkeypatch.setitem(sys.modules, "lightgbm", None)
    code, text, err = run(capsys, "evaluate", "--model", str(out), "--measurements", str(data[1]))
    assert code == 2 and text == ""
    assert err.strip().count("\n") == 0 and "pip install 'cksolve[ml]'" in err


def test_cli_semantics_are_the_libraries():
    from cksolve.cli.select import MODEL_SEMANTICS as shown
    from cksolve.ml import MODEL_SEMANTICS

    assert shown == MODEL_SEMANTICS


@pytest.mark.ck_data
def test_cks_shipped_spec_loads_with_a_97_column_booster(data, tmp_path):
    """CK's forward_2d3d_suffix feature_spec.json (../shared/ck/ml), beside a booster over its 97 columns."""
    from conftest import require_ck

    spec = json.loads((require_ck() / "ml" / "feature_spec_forward_2d3d_suffix_bf16_gfx950.json").read_text())
    train_csv, held_out, _ = data
    d = train_data(read_measurements([train_csv]), "gfx950", "bf16", "ck")
    ds = lgb.Dataset(d.x, label=d.y, feature_name=list(FEATURE_NAMES), params={"verbosity": -1})
    booster = lgb.train({"objective": "regression", "num_leaves": 7, "verbosity": -1, "num_threads": 1}, ds, 5)
    write_model_dir(tmp_path / "ck", booster.model_to_string(), spec, {}, gz=True)
    m = read_model_dir(tmp_path / "ck")
    assert m.columns is None and m.semantics == "ck" and not m.log_target  # its spec names no log_targets
    assert np.array_equal(m.predict(d.x), booster.predict(d.x))


def test_exact_semantics_from_full_names_then_select(tmp_path, capsys):
    """cksolve's own format with full kernel names (MADE-UP TFLOPS: tile_m * tile_n / 100), trained exact."""
    from cksolve.workload import applicable

    rs = get_rule_set("tiny")
    rows = []
    for i, spec in enumerate(("N=8,C=256,K=256,Hi=28,Wi=28,Y=3,X=3,pad_h=1,pad_w=1", "N=2,C=64,K=128,Hi=14,Wi=14",
                              "N=16,C=128,K=64,Hi=56,Wi=56,Y=1,X=1", "N=4,C=512,K=512,Hi=7,Wi=7,Y=3,X=3,pad_h=1,pad_w=1")):
        p = parse_problem(spec)
        for name in applicable(p, rs, "gfx942", "fp16"):
            if name.startswith("grouped_conv_fwd_"):
                from cksolve.space.naming import parse_name

                c = parse_name(name)
                row = {k: v for k, v in p.as_dict().items() if k not in ("direction", "split_k")}
                rows.append({**row, "kernel": name, "tflops": c.tile_m * c.tile_n / 100 + i})
    path = tmp_path / "own.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = tmp_path / "exact"
    code, text, err = run(capsys, "train", "--measurements", str(path), "--arch", "gfx942", "--dtype", "fp16",
                          "--variant", "forward", "--out", str(out), "--trees", "20", "--folds", "2",
                          "--semantics", "exact")
    assert code == 0, err
    assert json.loads((out / "feature_spec.json").read_text())["cksolve_feature_semantics"] == "exact"
    code, text, err = run(capsys, "select", "-p", "N=8,C=256,K=256,Hi=28,Wi=28,Y=3,X=3,pad_h=1,pad_w=1",
                          "-r", "tiny", "-a", "gfx942", "--dtype", "fp16", "--model", str(out), "--format", "csv")
    assert code == 0, err and text.startswith("problem,rank,name,score,blocked_by\n")
    short = tmp_path / "short.csv"
    short.write_text("kernel,N,C,K,tflops\ngrouped_conv_forward_fp16_2d_64x64x64_compv3_intrawave,1,64,64,3.0\n")
    code, _, err = run(capsys, "train", "--measurements", str(short), "--arch", "gfx942", "--dtype", "fp16",
                       "--variant", "forward", "--out", str(tmp_path / "x"), "--semantics", "exact", "--folds", "0")
    # a short label stands for the default kernel CK's runner built for it (workload.labels): exact features of it
    assert code == 0, err
    assert json.loads((tmp_path / "x" / "train_manifest.json").read_text())["kernels"] == 1


def test_model_scorer_predicts_each_distinct_row_once(model):
    """Configs CK's reading aliases onto one row are predicted once, and get the same score."""
    from cksolve.scoring import get_scorer
    from cksolve.scoring import select
    from cksolve.workload import applicable
    from cksolve.space.naming import parse_name

    out, _ = model
    rs = get_rule_set("full")
    p = parse_problem("N=8,C=256,K=256,Hi=28,Wi=28,Y=3,X=3,pad_h=1,pad_w=1")
    names = [n for n in applicable(p, rs, "gfx950", "bf16") if n.startswith("grouped_conv_fwd_")]
    scorer = get_scorer("model", path=out)
    recs = list(select([p], rs, "gfx950", "bf16", scorer, top=len(names)))
    assert len(recs) == len(names)
    maker = RowMaker("gfx950", "bf16", "ck-names")
    distinct = {maker.row(p, parse_name(n)) for n in names}
    assert scorer.predicted == len(distinct) < len(names)
    by_row: dict = {}
    for r in recs:
        by_row.setdefault(maker.row(p, parse_name(r.name)), set()).add(r.score)
    assert all(len(v) == 1 for v in by_row.values())


def test_a_garbage_model_is_one_error_line_and_lightgbm_says_nothing(capfd, tmp_path, data):
    bad = tmp_path / "m"
    bad.mkdir()
    (bad / "model_tflops.lgbm").write_text("garbage\n")
    with pytest.raises(SystemExit) as exc:
        from cksolve.cli import main
        main(["evaluate", "--model", str(bad), "--measurements", str(data[1])])
    out, err = capfd.readouterr()
    assert exc.value.code == 2 and out == "", f"stdout: {out!r}"
    assert "[LightGBM]" not in err and err.strip().count("\n") == 0, f"stderr: {err!r}"
    assert "not a LightGBM text model" in err


def test_a_measurement_column_named_twice_is_refused(tmp_path):
    twice = tmp_path / "twice.csv"
    twice.write_text("kernel,N,C,K,Hi,Wi,tflops,tflops\n"
                     "grouped_conv_forward_bf16_2d_64x64x64_compv3_intrawave,2,64,64,14,14,10.5,1\n")
    with pytest.raises(CksolveError, match=r"twice.csv:1: column 'tflops' given twice$"):
        read_measurements([twice])


@pytest.mark.parametrize("folds", [1, -1])
def test_train_refuses_one_fold(capsys, data, tmp_path, folds):
    code, text, err = run(capsys, "train", "--measurements", str(data[0]), "--arch", "gfx950", "--dtype", "bf16",
                          "--variant", "forward", "--out", str(tmp_path / "x"), "--folds", str(folds))
    assert code == 2 and text == "" and not (tmp_path / "x").exists()
    assert err.strip() == f"cksolve: error: --folds {folds}: 0 (no cross-validation) or at least 2"


def test_a_folds_predictions_are_predicts_at_its_best_iteration(data, monkeypatch):
    """fits.fit hands back LightGBM's running scores of the held-out rows at the best iteration instead of
    predicting them again: they must be Booster.predict's bit for bit, after early stopping and for a
    pipeline the training rows never saw (a category the bins do not know)."""
    from cksolve.ml.fits import fit
    from cksolve.ml.training import lgb_params

    train_csv, held_csv, _ = data
    d = train_data(read_measurements([train_csv, held_csv], "forward", "bf16"), "gfx950", "bf16", "ck-names")
    pipeline = d.x[:, FEATURE_NAMES.index("pipeline")]
    unseen = pipeline == pipeline.max()
    va = unseen | (d.problems % 4 == 0)
    tr = ~va
    y = np.log1p(d.y) + np.random.default_rng(3).normal(0.0, 0.3, len(d.y))  # noisy: the folds stop early
    params = {**lgb_params(7, 600), "learning_rate": 0.3}
    booster, pred = fit(lgb, params, d.x[tr], y[tr], (d.x[va], y[va]))
    assert 0 < booster.best_iteration < 600 - 50, booster.best_iteration
    again = booster.predict(d.x[va], num_iteration=booster.best_iteration, num_threads=1)
    assert np.array_equal(pred, again), f"max difference {np.max(np.abs(pred - again))}"
    assert np.array_equal(pred[unseen[va]], again[unseen[va]])
    import cksolve.ml.fits as fits

    monkeypatch.setattr(fits, "_valid_scores", lambda booster: None)  # a LightGBM without the C call: predict
    booster2, pred2 = fit(lgb, params, d.x[tr], y[tr], (d.x[va], y[va]))
    assert booster2.best_iteration == booster.best_iteration and np.array_equal(pred2, pred)


@pytest.mark.filterwarnings("ignore")  # LGBMRegressor's eval_set is deprecated in newer LightGBM; CK passes it
def test_folds_stop_early_as_cks_trainer_does(data):
    """CK's train.py fits LGBMRegressor(metric [rmse, mae]) with eval_metric ["rmse"] and early_stopping(50):
    a fold stops when either held-out metric stalls. On this noisy (MADE-UP) data mae stalls first: our fold
    must stop where CK's call does, with the same predictions, and not where watching rmse alone would."""
    from cksolve.ml.fits import fit
    from cksolve.ml.training import CK_PARAMS, lgb_params

    train_csv, held_csv, _ = data
    d = train_data(read_measurements([train_csv, held_csv], "forward", "bf16"), "gfx950", "bf16", "ck-names")
    va = d.problems % 4 == 0
    tr = ~va
    y = np.log1p(d.y) + np.random.default_rng(3).standard_t(2, len(d.y)) * 0.2  # heavy tails: rmse and mae part
    cat = [FEATURE_NAMES.index("pipeline")]
    booster, pred = fit(lgb, {**lgb_params(7, 600), "learning_rate": 0.1}, d.x[tr], y[tr], (d.x[va], y[va]))
    ck = lgb.LGBMRegressor(**{**CK_PARAMS, "n_estimators": 600, "learning_rate": 0.1, "seed": 7, "n_jobs": 1,
                              "deterministic": True, "force_row_wise": True, "verbose": -1})
    ck.fit(d.x[tr], y[tr], eval_set=[(d.x[va], y[va])], eval_metric=["rmse"], categorical_feature=cat,
           callbacks=[lgb.early_stopping(50, verbose=False)])
    rmse_only = lgb.train({**lgb_params(7, 600), "learning_rate": 0.1},
                          lgb.Dataset(d.x[tr], label=y[tr], categorical_feature=cat),
                          valid_sets=[lgb.Dataset(d.x[va], label=y[va], categorical_feature=cat)],
                          callbacks=[lgb.early_stopping(50, first_metric_only=True, verbose=False)])
    assert rmse_only.best_iteration != ck.best_iteration_, "the data no longer tells the two rules apart"
    assert booster.best_iteration == ck.best_iteration_
    assert np.array_equal(pred, ck.predict(d.x[va]))
