"""The LightGBM fits of one ``train`` run (the folds' and the final model's), side by side on threads.

The fits are independent: each has its own Dataset (binned on its own
training rows, as CK's ``train.py`` bins each fold) and its own Booster, on
one LightGBM thread with ``deterministic``, so each gives the same trees
whether it runs alone or beside another. Running them on ``jobs`` Python
threads uses the cores without changing a byte: LightGBM's C++ runs with the
GIL released (ctypes), and one OpenMP thread per fit spins at no barrier (two
OpenMP threads in one fit took 5-6 times the CPU of one on the shared
two-core machine, at 2,400 and at 90,000 rows; see ``THREADS``).

Boosting is where ``train``'s time goes (at 10^5 rows, 5 folds and 2000 trees:
about 96% of the CPU; imports, reading and feature rows about 3%, each Dataset's
binning well under 1%), so this is the lever; binning once for all folds
would save under 1% and change every fold's bin boundaries.

The first fit to fail stops the others at their next tree (``Stop``), so an
error or Ctrl-C does not wait for minutes of boosting.
"""

from __future__ import annotations

import os
import threading
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from typing import Callable, Sequence, TypeVar

import numpy as np

from ..errors import CksolveError
from ..features import FEATURE_NAMES
from ..progress import phase

__all__ = ["THREADS", "EARLY_STOPPING", "fit", "run_fits", "default_jobs"]

#: LightGBM threads per fit: fixed, so that with ``deterministic`` a model depends on the data and seed only; one,
#: because two OpenMP threads spin at every tree's synchronisation while the other core is busy (module docstring)
#: The phase a command's progress bar shows while the fits run (``fitting LightGBM models: fit 3 of 6``).
FITS = "fitting LightGBM models: fit"
THREADS = 1
#: CK's fold early stopping: a fold stops when one of its held-out metrics (rmse, mae: CK's ``metric``) has not
#: improved for 50 rounds, and its best iteration is that metric's. CK's ``train.py`` passes its parameters and
#: ``eval_metric=["rmse"]`` to LGBMRegressor.fit with ``lgb.early_stopping(50)``: the wrapper evaluates every
#: metric of the list ["rmse", "mae"], and early_stopping (first_metric_only False) watches each.
EARLY_STOPPING = 50

T = TypeVar("T")


class Stop(Exception):
    """Raised inside a fit (from its LightGBM callback) when another fit failed or the run was interrupted."""


def default_jobs() -> int:
    """The cores this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def fit(lgb, params: dict, x, y, valid=None, callbacks: Sequence = ()):
    """One Booster of ``params`` on rows ``x`` (``pipeline`` categorical). With ``valid`` = (x, y): early
    stopping as CK's fold models do, and (booster, the validation rows' predictions at its best iteration).

    The booster is the training one (``keep_training_booster``): LightGBM otherwise writes every fit's model
    to text and parses it back (1.7 s of CPU per fit at 2000 trees and 10^5 rows)."""
    cat = [FEATURE_NAMES.index("pipeline")]
    train_set = lgb.Dataset(x, label=y, feature_name=list(FEATURE_NAMES), categorical_feature=cat,
                            free_raw_data=True, params={"verbosity": -1})
    if valid is None:
        return lgb.train(params, train_set, callbacks=list(callbacks), keep_training_booster=True)
    vx, vy = valid
    best = _BestScores()
    booster = lgb.train(params, train_set, valid_sets=[lgb.Dataset(vx, label=vy, reference=train_set)],
                        keep_training_booster=True,
                        callbacks=[*callbacks, best,
                                   lgb.early_stopping(EARLY_STOPPING, first_metric_only=False, verbose=False)])
    pred = best.at(booster.best_iteration)
    if pred is None:  # this LightGBM does not hand out its scores: the same numbers, by predicting again
        pred = booster.predict(vx, num_iteration=booster.best_iteration or None, num_threads=1)
    return booster, pred


class _BestScores:
    """A LightGBM callback keeping the validation rows' scores at each metric's best iteration so far, so that
    a fold's predictions at its best iteration need no second pass over its trees (predicting 18,000 rows
    through 1,500 trees took 6 s of CPU per fold at 10^5 rows). The scores are LightGBM's own running sums
    of the validation rows, which ``Booster.predict`` at that iteration gives bit for bit (tests/test_ml.py)."""

    def __init__(self):
        self.best: dict = {}  # metric -> (value, iteration)
        self.scores: dict = {}  # iteration -> scores
        self.missing = False

    def __call__(self, env) -> None:
        improved = False
        for _data, metric, value, higher in env.evaluation_result_list:
            old = self.best.get(metric)
            if old is None or (value > old[0] if higher else value < old[0]):  # early_stopping's strict test
                self.best[metric] = (value, env.iteration)
                improved = True
        if improved and not self.missing:
            scores = _valid_scores(env.model)
            if scores is None:
                self.missing = True
                self.scores.clear()
                return
            self.scores[env.iteration] = scores
            keep = {it for _v, it in self.best.values()}
            for it in [it for it in self.scores if it not in keep]:
                del self.scores[it]

    def at(self, best_iteration: int):
        """The scores after ``best_iteration`` trees (LightGBM counts from 1), or None."""
        return self.scores.get(best_iteration - 1) if best_iteration else None


def _valid_scores(booster):
    """A copy of LightGBM's current scores of the booster's first validation set (its C API's
    ``LGBM_BoosterGetPredict``), or None where the Python package does not expose the call."""
    import ctypes  # deferred: only a fold's training gets here

    try:
        from lightgbm.basic import _LIB  # deferred: optional (the ml extra); the C library the package loaded

        handle = booster._handle
        n = ctypes.c_int64(0)
        if _LIB.LGBM_BoosterGetNumPredict(handle, ctypes.c_int(1), ctypes.byref(n)) != 0:
            return None
        out = np.empty(n.value, dtype=np.float64)
        if _LIB.LGBM_BoosterGetPredict(handle, ctypes.c_int(1), ctypes.byref(n),
                                       out.ctypes.data_as(ctypes.POINTER(ctypes.c_double))) != 0:
            return None
    except (ImportError, AttributeError):
        return None
    return out if n.value == len(out) else None


def run_fits(tasks: Sequence[Callable[[Callable], T]], jobs: int) -> list[T]:
    """Each task's result, in task order, the tasks run on up to ``jobs`` threads in the order given (put the
    longest first). A task gets a LightGBM callback to pass to ``fit``: it raises ``Stop`` once another task
    has failed, so that the run ends at the next tree instead of when every running fit is done."""
    if jobs < 1:
        raise CksolveError(f"{{opt:jobs}} {jobs} must be at least 1")
    stop = threading.Event()

    def check(_env) -> None:
        if stop.is_set():
            raise Stop()

    phase(FITS, 0, len(tasks))
    if jobs == 1 or len(tasks) <= 1:
        out = []
        for task in tasks:
            out.append(task(check))
            phase(FITS, len(out), len(tasks))
        return out
    with ThreadPoolExecutor(min(jobs, len(tasks)), thread_name_prefix="cksolve-fit") as pool:
        futures = [pool.submit(task, check) for task in tasks]
        try:
            pending = set(futures)
            while pending:  # a failure ends the wait at once, not after the others
                done, pending = wait(pending, return_when=FIRST_COMPLETED)
                failed = next((f for f in done if not f.cancelled() and f.exception() is not None), None)
                if failed is not None:
                    raise failed.exception()
                phase(FITS, len(futures) - len(pending), len(tasks))
            return [f.result() for f in futures]
        except BaseException:
            stop.set()  # the running fits stop at their next tree; the waiting ones do not start
            for f in futures:
                f.cancel()
            raise
