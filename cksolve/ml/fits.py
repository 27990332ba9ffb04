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
about 97% of the CPU; reading and feature rows about 3%, each Dataset's
binning well under 1%), so this is the lever; binning once for all folds
would save under 1% and change every fold's bin boundaries.

The first fit to fail stops the others at their next tree (``Stop``), so an
error or Ctrl-C does not wait for minutes of boosting.
"""

from __future__ import annotations

import os
import threading
from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait
from typing import Callable, Sequence, TypeVar

from ..errors import CksolveError
from ..features import FEATURE_NAMES

__all__ = ["THREADS", "EARLY_STOPPING", "fit", "run_fits", "default_jobs"]

#: LightGBM threads per fit: fixed, so that with ``deterministic`` a model depends on the data and seed only; one,
#: because two OpenMP threads spin at every tree's synchronisation while the other core is busy (module docstring)
THREADS = 1
#: CK's fold early stopping: 50 rounds without improvement of a held-out metric
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
    """One Booster of ``params`` on rows ``x`` (``pipeline`` categorical); with ``valid`` = (x, y), early
    stopping as CK's fold models do."""
    cat = [FEATURE_NAMES.index("pipeline")]
    train_set = lgb.Dataset(x, label=y, feature_name=list(FEATURE_NAMES), categorical_feature=cat,
                            free_raw_data=True, params={"verbosity": -1})
    kwargs = {"callbacks": list(callbacks)}
    if valid is not None:
        vx, vy = valid
        kwargs["valid_sets"] = [lgb.Dataset(vx, label=vy, reference=train_set)]
        kwargs["callbacks"].append(lgb.early_stopping(EARLY_STOPPING, first_metric_only=True, verbose=False))
    return lgb.train(params, train_set, **kwargs)


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

    if jobs == 1 or len(tasks) <= 1:
        return [task(check) for task in tasks]
    with ThreadPoolExecutor(min(jobs, len(tasks)), thread_name_prefix="cksolve-fit") as pool:
        futures = [pool.submit(task, check) for task in tasks]
        try:
            wait(futures, return_when=FIRST_EXCEPTION)  # a failure ends the wait at once, not after the others
            failed = next((f for f in futures if f.done() and not f.cancelled() and f.exception() is not None),
                          None)
            if failed is not None:
                raise failed.exception()
            return [f.result() for f in futures]
        except BaseException:
            stop.set()  # the running fits stop at their next tree; the waiting ones do not start
            for f in futures:
                f.cancel()
            raise
