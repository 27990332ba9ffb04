"""Shared fixtures: where CK's reference material lives, and loaders for it.

CK's reference data (``shared/ck``: oracle outputs, builder configs, workloads, instance facts)
sits beside the checkout (``../shared``) or where ``CKSOLVE_SHARED`` points. A test that reads it
says so with ``@pytest.mark.ck_data`` (or calls :func:`require_ck`, or takes the ``ck`` fixture);
without the data such tests skip with the reason, so the suite passes on any checkout and runs
everything beside ``shared/``.
"""

from __future__ import annotations

import gzip
import json
import os
from functools import lru_cache
from pathlib import Path

import pytest

SHARED = Path(os.environ.get("CKSOLVE_SHARED", Path(__file__).resolve().parents[1].parent / "shared"))
CK = SHARED / "ck"
#: Why a test that needs the reference data did not run.
CK_MISSING = (f"CK reference data not found at {CK} (put shared/ beside the checkout or set CKSOLVE_SHARED)")


#: The CK version the suite's tests mean unless they say otherwise: the June reference (``oracle/``), whose
#: numbers the tests pin. The library and the command line default to the newest bundled version; a test of
#: another version says so (``versions.using``, ``--ck``), and the docs run at the default (test_docs_run).
JUNE = "60b27664"
os.environ["CKSOLVE_CK"] = JUNE  # subprocesses, in-process CLI runs and module fixtures alike


def _june():
    from cksolve.arch import versions

    versions.activate(versions.resolve(JUNE))


_june()


@pytest.fixture(autouse=True)
def june_unless_said(request, monkeypatch):
    """Every test starts and ends at the June version (library and ``CKSOLVE_CK``); the docs' examples run
    at the default."""
    from cksolve.arch import versions

    if request.module.__name__ == "test_docs_run":
        monkeypatch.delenv("CKSOLVE_CK", raising=False)
        versions.activate(None)
    else:
        monkeypatch.setenv("CKSOLVE_CK", JUNE)
        _june()
    yield
    _june()


def oracle_develop(rule_set: str) -> dict:
    """CK's accepted sets at develop (05fcb0f1; ``oracle-develop/``, same format as ``oracle/``)."""
    return oracle(rule_set, "oracle-develop")


def ck_available() -> bool:
    return CK.is_dir()


def require_ck() -> Path:
    """CK's reference directory; skips the calling test (with the reason) when it is not there."""
    if not ck_available():
        pytest.skip(CK_MISSING)
    return CK


def pytest_runtest_setup(item):
    if item.get_closest_marker("ck_data") is not None:
        require_ck()


@pytest.fixture
def ck() -> Path:
    """CK's reference directory (``shared/ck``), or a skip."""
    return require_ck()


@lru_cache(maxsize=None)
def oracle(rule_set: str, folder: str = "oracle") -> dict:
    """CK's accepted sets per combination, from ``folder`` (``oracle/``: June; ``oracle-develop/``)."""
    path = require_ck() / folder / f"{rule_set}.json.gz"
    if not path.exists():
        pytest.skip(f"reference data {path} is not available")
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        return json.load(fh)["combos"]


def split_key(key: str):
    arch, variant, dtype, nd = key.split("/")
    return arch, variant, dtype, int(nd[:-1])


def first_differences(got, want, n=5):
    got, want = set(got), set(want)
    return sorted(got - want)[:n], sorted(want - got)[:n]


def fresh_solves(monkeypatch):
    """Empty the solver's memos for one test (restored after it): the next question solves afresh.

    A test that forces a path (a small row bound) must not be answered from a memo
    filled before it set the bound.
    """
    from cksolve.solver.engine import direct
    from cksolve.solver.listing import combos

    monkeypatch.setattr(combos, "_COMBOS", {})
    monkeypatch.setattr(combos, "_LAST", {})
    for cache in ("_SOLVED", "_COMPONENTS"):
        monkeypatch.setattr(direct, cache, {})
