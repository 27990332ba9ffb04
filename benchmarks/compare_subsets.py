"""Compare cksolve's ``tiny`` and ``full-tests`` with CK's, per combination.

For every combination of CK's oracle (``../shared/ck/oracle/{tiny,full-tests}.json.gz``,
the *accepted* names) print, for CK and for cksolve: the size, the feature
categories covered and the (pipeline, scheduler) pairs covered. CK's names are
categorised with cksolve's categorisation (``parse_name`` then
:func:`cksolve.derived.subsets.category`), so both sides are measured
the same way. The last lines summarise:

* combos where cksolve's coverage contains CK's (it must be all of them);
* among combos where the coverages are equal, how the sizes compare;
* for tiny, the same size comparison for the minimum-cover part alone.

    PYTHONPATH=. python benchmarks/compare_subsets.py [--rule-set tiny|full-tests|both] [--all] [--markdown]

``--all`` prints every combination (default: only non-empty ones);
``--markdown`` prints each comparison as a table (CK's categories and pairs,
then what cksolve covers beyond them as ``+x`` or misses as ``-x``).
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import sys
import time
from collections import Counter
from pathlib import Path

from cksolve.space.naming import parse_name
from cksolve.rulesets import Combo
from cksolve.derived.subsets import (category, full_tests_selection, pair, tiny_selection)

SHARED = Path(os.environ.get("CKSOLVE_SHARED", Path(__file__).resolve().parents[2] / "shared"))

_ABBR = {"depthwise": "dw", "streamk": "sk", "split_image": "si", "merged_groups": "gm",
         "two_stage": "2s", "explicit_gemm": "eg", "regular": "reg"}
_SCHED = {"intrawave": "intra", "interwave": "inter"}


def _oracle(rule_set: str) -> dict:
    with gzip.open(SHARED / "ck" / "oracle" / f"{rule_set}.json.gz", "rt", encoding="utf-8") as fh:
        return json.load(fh)["combos"]


def _combo(key: str) -> Combo:
    arch, variant, dtype, nd = key.split("/")
    return Combo(arch, variant, dtype, int(nd[:-1]))


def _cov(configs):
    cats = frozenset(category(c) for c in configs)
    pairs = frozenset(p for p in map(pair, configs) if p is not None)
    return cats, pairs


def _cat_label(category: str) -> str:
    return _ABBR[category]


def _pair_label(p: tuple[str, str]) -> str:
    return f"{p[0]}/{_SCHED[p[1]]}"


def _labels(values, label) -> str:
    return ",".join(sorted(map(label, values))) or "-"


def _fmt(n, cats, pairs) -> str:
    return f"{n:>3} | {_labels(cats, _cat_label):<14} | {_labels(pairs, _pair_label)}"


def _delta(theirs: frozenset, ours: frozenset, label) -> str:
    """CK's values, then cksolve's extra (+) and missing (-) ones."""
    extra = ([f"+{v}" for v in sorted(map(label, ours - theirs))]
             + [f"-{v}" for v in sorted(map(label, theirs - ours))])
    return _labels(theirs, label) + (" " + " ".join(extra) if extra else "")


def _md_row(key: str, ck_cfgs, ours, cover, ck_cov, our_cov) -> str:
    size = f"{len(ours)}" + (f" ({len(cover)})" if cover is not None else "")
    cats = _delta(ck_cov[0], our_cov[0], _cat_label)
    pairs = _delta(ck_cov[1], our_cov[1], _pair_label)
    return f"| {key} | {len(ck_cfgs)} | {size} | {cats} | {pairs} |"


def compare(rule_set: str, show_all: bool, markdown: bool = False) -> dict:
    ck = _oracle(rule_set)
    stats = Counter()
    rows = []
    for key in ck:  # oracle order
        combo = _combo(key)
        ck_cfgs = [parse_name(n) for n in ck[key]["accepted"]]
        if rule_set == "tiny":
            sel = tiny_selection(combo)
            ours, cover = sel.configs, sel.cover
        else:
            ours, cover = full_tests_selection(combo), None
        if not ck_cfgs and not ours and not show_all:
            continue
        ck_cov, our_cov = _cov(ck_cfgs), _cov(ours)
        superset = ck_cov[0] <= our_cov[0] and ck_cov[1] <= our_cov[1]
        equal = ck_cov == our_cov
        stats["combos"] += 1
        stats["superset"] += superset
        stats["strictly_more"] += superset and not equal
        if equal:
            stats["equal"] += 1
            size_cmp = "<" if len(ours) < len(ck_cfgs) else "=" if len(ours) == len(ck_cfgs) else ">"
            stats[f"equal_size{size_cmp}"] += 1
            if cover is not None:
                cov_cmp = "<" if len(cover) < len(ck_cfgs) else "=" if len(cover) == len(ck_cfgs) else ">"
                stats[f"equal_cover{cov_cmp}"] += 1
        stats["ck_size"] += len(ck_cfgs)
        stats["our_size"] += len(ours)
        flag = "" if superset else "  !! misses CK coverage"
        extra = f" (cover {len(cover)})" if cover is not None else ""
        if markdown:
            rows.append(_md_row(key, ck_cfgs, ours, cover, ck_cov, our_cov))
        else:
            rows.append(f"{key:<34} CK      {_fmt(len(ck_cfgs), *ck_cov)}\n"
                        f"{'':<34} cksolve {_fmt(len(ours), *our_cov)}{extra}{flag}")
    print(f"== {rule_set}: CK (accepted names of ../shared/ck/oracle/{rule_set}.json.gz) vs cksolve ==")
    print("   categories: " + ", ".join(f"{v}={k}" for k, v in _ABBR.items()))
    if markdown:
        print()
        print("| combination | CK | cksolve" + (" (cover)" if rule_set == "tiny" else "")
              + " | categories: CK, +/- cksolve | (pipeline, scheduler): CK, +/- cksolve |")
        print("|---|---|---|---|---|")
    print("\n".join(rows))
    if markdown:
        print()
    print(f"-- {rule_set} summary: {stats['superset']}/{stats['combos']} combos where cksolve covers ⊇ CK "
          f"({stats['strictly_more']} strictly more, {stats['equal']} equal); total configs CK {stats['ck_size']}, "
          f"cksolve {stats['our_size']}")
    if stats["equal"]:
        line = (f"-- {rule_set} where coverage is equal ({stats['equal']} combos): cksolve size < CK in "
                f"{stats['equal_size<']}, = in {stats['equal_size=']}, > in {stats['equal_size>']}")
        if rule_set == "tiny":
            line += (f"; cover part alone: < in {stats['equal_cover<']}, = in {stats['equal_cover=']}, "
                     f"> in {stats['equal_cover>']}")
        print(line)
    print()
    return stats


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rule-set", choices=("tiny", "full-tests", "both"), default="both")
    ap.add_argument("--all", action="store_true", help="also print combinations empty on both sides")
    ap.add_argument("--markdown", action="store_true", help="print tables (CK's coverage, then cksolve's +/-)")
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    names = ("tiny", "full-tests") if args.rule_set == "both" else (args.rule_set,)
    for name in names:
        compare(name, args.all, args.markdown)
    print(f"({time.perf_counter() - t0:.1f} s)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
