"""Shared fixtures: where CK's reference material lives, and loaders for it."""

from __future__ import annotations

import gzip
import json
import os
from functools import lru_cache
from pathlib import Path

import pytest

SHARED = Path(os.environ.get("CKSOLVE_SHARED", Path(__file__).resolve().parents[1].parent / "shared"))
CK = SHARED / "ck"


@lru_cache(maxsize=None)
def oracle(rule_set: str) -> dict:
    path = CK / "oracle" / f"{rule_set}.json.gz"
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
