"""Shell completion of the options whose values are a closed set (and of rule-set files).

Each completer takes what the user typed so far and returns the candidates
starting with it; a comma-separated option completes its last item (``--arch
gfx942,gfx9<TAB>``). The values come from the same registries the checks use.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Callable, Iterable

__all__ = ["values", "rule_set_names_and_files"]


def values(choices: Iterable, comma: bool = False) -> Callable[[str], list[str]]:
    """A completer over ``choices`` (``comma``: for an option taking a comma-separated list)."""
    candidates = [str(c) for c in choices]

    def complete(incomplete: str) -> list[str]:
        done, _, last = incomplete.rpartition(",") if comma else ("", "", incomplete)
        head = f"{done}," if done else ""
        given = set(done.split(",")) if done else set()
        return [head + c for c in candidates if c.startswith(last) and c not in given]

    return complete


def rule_set_names_and_files(names: Iterable[str]) -> Callable[[str], list[str]]:
    """Rule-set names, then the ``*.toml`` files and the directories under what is typed."""
    known = list(names)

    def complete(incomplete: str) -> list[str]:
        out = [n for n in known if n.startswith(incomplete)]
        folder, _, stem = incomplete.rpartition("/")
        where = Path(folder or ".") if not incomplete.startswith("/") or folder else Path("/")
        try:
            entries = sorted(os.scandir(where), key=lambda e: e.name)
        except OSError:
            return out
        prefix = f"{folder}/" if folder or incomplete.startswith("/") else ""
        for e in entries:
            if not e.name.startswith(stem) or (e.name.startswith(".") and not stem.startswith(".")):
                continue
            if e.is_dir():
                out.append(f"{prefix}{e.name}/")
            elif e.name.endswith(".toml"):
                out.append(f"{prefix}{e.name}")
        return out

    return complete
