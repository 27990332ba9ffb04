"""The README's test counts are what pytest collects (within a tolerance), not a number that goes stale."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: how far a stated "about N" may be from the collected count (tests come and go between README edits)
TOLERANCE = 0.15


def _stated() -> tuple[int, int]:
    """(the fast tier's "about N tests", everything's "about M tests") as the README states them."""
    text = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
    fast = re.search(r"fast tier \(about ([\d,]+) tests", text)
    every = re.search(r"runs everything \(about ([\d,]+) tests", text)
    assert fast and every, "README.md no longer states the fast tier's and the whole suite's test counts"
    return int(fast.group(1).replace(",", "")), int(every.group(1).replace(",", ""))


@pytest.mark.slow
def test_the_readme_counts_are_what_pytest_collects():
    """One collection of the suite with the fast tier's marker expression: 'F/T tests collected (D deselected)'."""
    out = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-m", "not slow", "-p",
                          "no:cacheprovider"], capture_output=True, text=True, cwd=ROOT,
                         env={**os.environ, "PYTHONHASHSEED": "0"})
    m = re.search(r"(\d+)/(\d+) tests collected", out.stdout)
    assert m, out.stdout[-500:] + out.stderr[-500:]
    fast, every = int(m.group(1)), int(m.group(2))
    stated_fast, stated_every = _stated()
    for what, stated, collected in (("fast tier", stated_fast, fast), ("whole suite", stated_every, every)):
        assert abs(stated - collected) <= TOLERANCE * collected, (
            f"README.md says the {what} has about {stated:,} tests; pytest collects {collected:,}: update README.md")


def test_the_readme_states_the_counts_as_estimates():
    """The check above reads these sentences; exact counts were stated and went stale (1,100 said, 1,186 had)."""
    fast, every = _stated()
    assert fast < every and fast % 100 == 0 and every % 100 == 0, (fast, every)
