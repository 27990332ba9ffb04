"""LightGBM's text model format, checked before any byte of it reaches LightGBM.

LightGBM's own parser (``GBDT::LoadModelFromString`` in src/boosting/gbdt_model_text.cpp,
``Tree::Tree(const char*, size_t*)`` in src/io/tree.cpp) trusts its input: it
reads ``tree_sizes`` as byte offsets into the text, reads most per-node arrays
without counting them (a short list is padded with zeros), scans a tree line
for ``=`` past the end of the text, follows child indices without a range
check and walks a tree until it meets a leaf. A truncated or edited file is a
segmentation fault or a prediction that never ends. :func:`check_model_text`
accepts what LightGBM writes and nothing it has not checked:

* the text: UTF-8, no NUL byte, no carriage return; header lines ``tree``,
  ``version=vN``, ``num_class``, ``num_tree_per_iteration``, ``label_index``,
  ``max_feature_idx``, ``objective``, ``average_output``, ``feature_names``,
  ``monotone_constraints``, ``feature_infos``, ``tree_sizes`` (each at most
  once, no other key); one output (``num_class`` = ``num_tree_per_iteration``
  = 1) and a regression or ranking objective (the models cksolve ranks with);
  ``feature_names`` / ``feature_infos`` / ``monotone_constraints`` hold
  ``max_feature_idx + 1`` entries;
* every ``Tree=i`` block, numbered 0, 1, ... in order: only LightGBM's keys,
  each once, ended by an empty line; ``num_leaves`` in 1..131072 (LightGBM's
  own bound) and every per-node array with exactly ``num_leaves - 1`` (per-leaf:
  ``num_leaves``) numbers of its type; child indices in range (an internal node
  ``0 <= c < num_leaves - 1``, a leaf ``~c`` with ``0 <= ~c < num_leaves``),
  the root nobody's child and every other node and leaf the child of exactly one
  node, all reached from the root (each tree is a tree: no cycle, no orphan);
  split features in ``0..max_feature_idx``; leaf values finite, thresholds numbers
  or ``inf``/``-inf`` (LightGBM writes them for splits that send every value one way), never NaN;
  every number a token LightGBM's readers read whole (its ``Atof`` aborts the process on one it
  cannot read: the trees are parsed in an OpenMP loop);
  ``decision_type`` one of LightGBM's (categorical, default-left, missing type
  none/zero/NaN); a categorical split's threshold an index below ``num_cat``,
  ``cat_boundaries`` starting at 0, non-decreasing, ending at the length of
  ``cat_threshold`` (unsigned 32-bit words); linear trees (``is_linear=1``) are
  refused (not checked here);
* ``tree_sizes``, when present, one per tree and each the tree's exact byte
  length (LightGBM jumps by them); at least one tree; ``end of trees`` after
  the last; after it only LightGBM's sections (``feature_importances:``,
  ``parameters:`` with ``[name: value]`` lines, ``end of parameters``,
  ``pandas_categorical:`` with ``null`` or a short JSON list).

A checked model cannot loop: every walk from the root ends at a leaf in at most
``num_leaves - 1`` steps. Faults are :class:`~cksolve.errors.CksolveError`
lines naming the file, the tree (or header line) and the fault, never the file's
text.
"""

from __future__ import annotations

import json
import re
import warnings
from dataclasses import dataclass

import numpy as np

from ..errors import CksolveError

__all__ = ["check_model_text", "TextModel", "MAX_LEAVES", "MAX_FEATURES"]

#: LightGBM's own bound on ``num_leaves`` (its config check, ``num_leaves <= 131072``)
MAX_LEAVES = 131072
#: most features a model may read (CK's read 83..97)
MAX_FEATURES = 100_000
#: header keys LightGBM writes (GBDT::SaveModelToString)
HEADER_KEYS = ("version", "num_class", "num_tree_per_iteration", "label_index", "max_feature_idx", "objective",
               "average_output", "feature_names", "monotone_constraints", "feature_infos", "tree_sizes")
#: LightGBM's regression and ranking objectives (ObjectiveFunction::CreateObjectiveFunction's names, as
#: written): one output per row (``train``'s default trainer may choose lambdarank)
OBJECTIVES = frozenset({"regression", "regression_l1", "huber", "fair", "poisson", "quantile", "mape", "gamma",
                        "tweedie", "lambdarank", "rank_xendcg"})
#: per-node (n - 1 values) and per-leaf (n values) arrays of a tree, by type
NODE_INT = ("split_feature", "decision_type", "left_child", "right_child", "internal_count")
NODE_FLOAT = ("split_gain", "threshold", "internal_value", "internal_weight")
LEAF_INT = ("leaf_count",)
LEAF_FLOAT = ("leaf_value", "leaf_weight")
TREE_KEYS = frozenset(("num_leaves", "num_cat", "is_linear", "shrinkage", "cat_boundaries", "cat_threshold")
                      + NODE_INT + NODE_FLOAT + LEAF_INT + LEAF_FLOAT)
#: decision_type bits (LightGBM's tree.h): categorical 1, default left 2, missing type (bits 2-3) 0, 1 or 2
DECISION_TYPES = frozenset(c | d | (m << 2) for c in (0, 1) for d in (0, 2) for m in (0, 1, 2))
INT32 = (-(1 << 31), (1 << 31) - 1)

_NUMBER = re.compile(r"-?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?", re.ASCII)

#: the characters of a list of integers, of finite numbers, of numbers or +-inf, of any of LightGBM's numbers
_INT_CHARS = str.maketrans("", "", "0123456789- ")
_FLOAT_CHARS = str.maketrans("", "", "0123456789-+.eE ")
_INF_CHARS = str.maketrans("", "", "0123456789-+.eEinf ")
_ANY_CHARS = str.maketrans("", "", "0123456789-+.eEinfa ")
_ANY_TOKEN = r"(?:[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?|-?nan|-?inf)"
_ANY_FLOATS = re.compile(rf"(?>{_ANY_TOKEN})(?: (?>{_ANY_TOKEN}))*+", re.ASCII)  # atomic: linear time
_INF_TOKEN = r"(?:-?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?|-?inf)"
_INF_FLOATS = re.compile(rf"(?>{_INF_TOKEN})(?: (?>{_INF_TOKEN}))*+", re.ASCII)
_PARAM = re.compile(r"\[[a-z0-9_]+: [^\"\\\x00-\x1f\x7f]*\]", re.ASCII)
_INFO = re.compile(r"none|\[[^:\[\] ]+:[^:\[\] ]+\]|-?\d+(?::-?\d+)*", re.ASCII)
_OBJECTIVE_ARG = re.compile(r"sqrt|[a-z_]+:" + _NUMBER.pattern, re.ASCII)


@dataclass
class TextModel:
    """What the check read: the tree count and the model's feature count."""

    trees: int
    features: int
    objective: str


class _Fault(Exception):
    """A fault inside the current tree or line (the caller adds where)."""


def _count(value: str, n: int, what: str, chars: dict, kind: str) -> bool:
    """``value`` holds exactly ``n`` tokens of ``chars`` separated by single spaces (none: an empty value); false
    when there are none. (A character check: a 2000-tree model is ~3 million numbers; the tokens' form is
    checked by the numbers' parse or a regular expression after it.)"""
    if n == 0:
        if value:
            raise _Fault(f"{what} has values, expected none")
        return False
    got = value.count(" ") + 1
    if got != n:
        raise _Fault(f"{what} has {got} values, expected {n}")
    if not value or value.translate(chars) or "  " in value or value[0] == " " or value[-1] == " ":
        raise _Fault(f"{what} is not a list of {kind}")
    return True


def _ints(value: str, n: int, what: str, low: int = INT32[0], high: int = INT32[1]) -> np.ndarray:
    if not _count(value, n, what, _INT_CHARS, "integers"):
        return np.zeros(0, dtype=np.int64)
    if value == "-" or value.startswith("- ") or value.endswith(" -") or " - " in value:
        raise _Fault(f"{what} is not a list of integers")
    with warnings.catch_warnings():  # numpy's text parse (4x np.array's): a token it cannot read is an error
        warnings.simplefilter("error", DeprecationWarning)
        try:
            a = np.fromstring(value, dtype=np.int64, sep=" ")
        except (ValueError, DeprecationWarning):
            raise _Fault(f"{what} is not a list of integers") from None
    if len(a) != n:
        raise _Fault(f"{what} is not a list of integers")
    if a.min() < low or a.max() > high:  # strtoll saturates: an overlong number is out of range here
        bad = a[(a < low) | (a > high)][0]
        raise _Fault(f"{what} value {bad} is outside {low}..{high}")
    return a


def _floats(value: str, n: int, what: str, infinite: bool = False) -> np.ndarray:
    """Finite numbers (``infinite``: or inf/-inf, as LightGBM writes a threshold that sends all values one way)."""
    if not _count(value, n, what, _INF_CHARS if infinite else _FLOAT_CHARS, "numbers"):
        return np.zeros(0)
    try:
        a = np.array(value.split(" "), dtype=np.float64)
    except ValueError:
        raise _Fault(f"{what} is not a list of numbers") from None
    if np.isnan(a).any() or (not infinite and np.isinf(a).any()):  # 1e999, or a lone 'inf'
        raise _Fault(f"{what} holds a value that is not finite")
    return a


def _described(value: str, n: int, what: str, integer: bool = False) -> None:
    """A field that only describes the tree (gains, weights, counts): LightGBM reads it with Atof/Atoi into an
    array of its count; the count and the characters are what matter (nan/inf allowed, as Atof reads them;
    empty, as a one-leaf tree's leaf_weight is written, reads as zeros)."""
    if value:
        _count(value, n, what, _INT_CHARS if integer else _ANY_CHARS, "integers" if integer else "numbers")
        if not integer and not _ANY_FLOATS.fullmatch(value):  # Atof aborts the process on a token it cannot read
            raise _Fault(f"{what} is not a list of numbers")


def _one(value: str, what: str, low: int, high: int) -> int:
    return int(_ints(value, 1, what, low, high)[0])


def _check_tree(block: dict, max_feature: int) -> int:
    """The checks of one tree's key=value lines (module doc); its number of leaves."""
    for key in ("num_leaves", "num_cat", "leaf_value"):
        if key not in block:
            raise _Fault(f"no {key}")
    n = _one(block["num_leaves"], "num_leaves", 1, MAX_LEAVES)
    if block.get("is_linear", "0") != "0":
        raise _Fault("a linear tree (is_linear); cksolve reads constant-leaf trees only")
    num_cat = _one(block["num_cat"], "num_cat", 0, n - 1)
    _floats(block["leaf_value"], n, "leaf_value")
    if "shrinkage" in block:
        _floats(block["shrinkage"], 1, "shrinkage")
    for key in LEAF_INT:
        if key in block:
            _described(block[key], n, key, True)
    for key in LEAF_FLOAT:
        if key in block and key != "leaf_value":
            _described(block[key], n, key)
    if n == 1:
        for key in NODE_INT + NODE_FLOAT:
            if block.get(key):
                raise _Fault(f"{key} has values, a one-leaf tree has no split")
        if num_cat or "cat_boundaries" in block or "cat_threshold" in block:
            raise _Fault("categorical splits in a one-leaf tree")
        return n
    m = n - 1
    for key in ("split_feature", "threshold", "left_child", "right_child"):
        if key not in block:
            raise _Fault(f"no {key}")
    _ints(block["split_feature"], m, "split_feature", 0, max_feature)
    left = _ints(block["left_child"], m, "left_child", -n, m - 1)
    right = _ints(block["right_child"], m, "right_child", -n, m - 1)
    decision = _ints(block["decision_type"], m, "decision_type", 0, 15) if "decision_type" in block \
        else np.zeros(m, dtype=np.int64)
    categorical = (decision & 1) == 1
    if categorical.any():  # a category-set index: parsed; else numbers or +-inf (never NaN) are all it needs
        threshold = _floats(block["threshold"], m, "threshold", True)
    elif _count(block["threshold"], m, "threshold", _INF_CHARS, "numbers") and \
            not _INF_FLOATS.fullmatch(block["threshold"]):  # each token one LightGBM's reader reads whole
        raise _Fault("threshold is not a list of numbers")
    bad = ~np.isin(decision, sorted(DECISION_TYPES))
    if bad.any():
        raise _Fault(f"decision_type {int(decision[bad][0])} is not one of LightGBM's")
    if "internal_count" in block:
        _described(block["internal_count"], m, "internal_count", True)
    for key in NODE_FLOAT:
        if key in block and key != "threshold":
            _described(block[key], m, key)
    _check_structure(left, right, n)
    if categorical.any() or num_cat:
        if not num_cat:
            raise _Fault("a categorical split, but num_cat is 0")
        for key in ("cat_boundaries", "cat_threshold"):
            if key not in block:
                raise _Fault(f"num_cat {num_cat} but no {key}")
        bounds = _ints(block["cat_boundaries"], num_cat + 1, "cat_boundaries", 0)
        if bounds[0] != 0 or (np.diff(bounds) < 0).any():
            raise _Fault("cat_boundaries do not start at 0 and rise")
        words = int(bounds[-1])
        if words > 1 << 24:
            raise _Fault(f"cat_boundaries end at {words} words")
        _ints(block["cat_threshold"], words, "cat_threshold", 0, (1 << 32) - 1)
        cats = threshold[categorical] if categorical.any() else np.zeros(0)
        if ((cats != np.floor(cats)) | (cats < 0) | (cats >= num_cat)).any():
            raise _Fault(f"a categorical split's threshold is not a category set index below num_cat {num_cat}")
    elif "cat_boundaries" in block or "cat_threshold" in block:
        raise _Fault("cat_boundaries/cat_threshold without num_cat")
    return n


def _check_structure(left: np.ndarray, right: np.ndarray, n: int) -> None:
    """Each tree a tree: every internal node but the root and every leaf the child of exactly one node, all
    reached from the root (``~leaf`` as LightGBM writes it)."""
    m = n - 1
    children = np.concatenate([left, right])
    slot = np.where(children >= 0, children, m + ~children)  # internal 0..m-1, leaves m..m+n-1
    seen = np.bincount(slot, minlength=m + n)
    if seen[0]:
        raise _Fault("the root is a child of another node (a cycle)")
    twice = np.flatnonzero(seen[1:] != 1)
    if len(twice):
        k = int(twice[0]) + 1
        what = f"node {k}" if k < m else f"leaf {k - m}"
        raise _Fault(f"{what} is the child of {int(seen[k])} nodes, expected 1")
    # parents: every slot but the root has exactly one; pointer doubling finds the nodes the root reaches
    parent = np.zeros(m + n, dtype=np.int64)
    parent[slot] = np.concatenate([np.arange(m), np.arange(m)])
    up = parent.copy()
    for _ in range(max(1, int(m).bit_length() + 1)):
        up = up[up]
    if (up != 0).any():
        k = int(np.flatnonzero(up != 0)[0])
        what = f"node {k}" if k < m else f"leaf {k - m}"
        raise _Fault(f"{what} is not reached from the root (a cycle)")


def _header(lines: list[str], where: str) -> tuple[dict, int]:
    """The header's key -> value and the index of the first ``Tree=`` line."""
    if not lines or lines[0] != "tree":
        raise CksolveError(f"{where}: not a LightGBM text model (its first line is not 'tree')")
    keys: dict = {}
    for i, line in enumerate(lines[1:], 1):
        if line.startswith("Tree="):
            return keys, i
        if not line:
            continue
        key, eq, value = line.partition("=")
        if key not in HEADER_KEYS or (not eq and key != "average_output"):
            raise CksolveError(f"{where}: line {i + 1}: not a header line of a LightGBM model")
        if key in keys:
            raise CksolveError(f"{where}: line {i + 1}: {key} given twice")
        if "=" in value and key not in ("feature_names", "monotone_constraints"):
            raise CksolveError(f"{where}: line {i + 1}: {key} holds '='")
        keys[key] = value
    raise CksolveError(f"{where}: no trees (no 'Tree=' line)")


def _check_header(h: dict, where: str) -> tuple[int, str]:
    """The header's checks (module doc): (max_feature_idx, objective)."""
    def fail(key: str, what: str):
        raise CksolveError(f"{where}: header {key}: {what}")

    for key in ("num_class", "label_index", "max_feature_idx", "feature_names", "feature_infos"):
        if key not in h:
            fail(key, "missing")
    if "version" in h and not re.fullmatch(r"v[1-9]", h["version"]):
        fail("version", "not LightGBM's v1..v9")
    try:
        _one(h["num_class"], "num_class", 1, 1)
        _one(h.get("num_tree_per_iteration", "1"), "num_tree_per_iteration", 1, 1)
        _one(h["label_index"], "label_index", 0, INT32[1])
        max_feature = _one(h["max_feature_idx"], "max_feature_idx", 0, MAX_FEATURES - 1)
    except _Fault as exc:
        if "num_class" in str(exc) or "num_tree" in str(exc):
            raise CksolveError(f"{where}: header {exc} (cksolve reads one-output regression models)") from None
        raise CksolveError(f"{where}: header {exc}") from None
    if h.get("average_output", "") != "":
        fail("average_output", "has a value")
    width = max_feature + 1
    for key in ("feature_names", "feature_infos", "monotone_constraints"):
        if key not in h:
            continue
        items = h[key].split(" ")
        if len(items) != width or not all(items):
            fail(key, f"{len(items)} entries separated by single spaces expected {width}")
        if key == "feature_infos" and not all(map(_INFO.fullmatch, items)):
            fail(key, "an entry is not 'none', [min:max] or categories a:b:...")
        if key == "monotone_constraints" and not set(items) <= {"-1", "0", "1"}:
            fail(key, "an entry is not -1, 0 or 1")
    objective = h.get("objective", "")
    if "objective" in h:
        words = objective.split(" ")
        if words[0] not in OBJECTIVES:
            fail("objective", f"not one of LightGBM's regression or ranking objectives ({', '.join(sorted(OBJECTIVES))})")
        if not all(map(_OBJECTIVE_ARG.fullmatch, words[1:])):
            fail("objective", "its arguments are not name:number")
    return max_feature, objective


def _check_tail(lines: list[str], start: int, where: str) -> None:
    """After ``end of trees``: LightGBM's sections only, with a bounded pandas_categorical."""
    section = None
    last = max((i for i in range(start, len(lines)) if lines[i]), default=start)
    for i in range(start, len(lines)):
        line = lines[i]
        if not line:
            continue
        here = f"{where}: line {i + 1}"
        if line in ("feature_importances:", "parameters:"):
            section = line
        elif line == "end of parameters" and section == "parameters:":
            section = None
        elif line.startswith("pandas_categorical:") and i == last:
            _check_pandas(line[len("pandas_categorical:"):], here)
        elif section == "feature_importances:" and "=" in line and _NUMBER.fullmatch(line.rsplit("=", 1)[1]):
            pass
        elif section == "parameters:" and _PARAM.fullmatch(line):
            pass
        else:
            raise CksolveError(f"{here}: not a line LightGBM writes after its trees")


def _check_pandas(text: str, here: str) -> None:
    if text == "null":
        return
    if len(text) > 1 << 20:
        raise CksolveError(f"{here}: pandas_categorical longer than 1 MiB")
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        raise CksolveError(f"{here}: pandas_categorical is not JSON") from None
    if not isinstance(value, list) or not all(
            isinstance(v, list) and all(isinstance(x, (str, int, float, bool)) or x is None for x in v) for v in value):
        raise CksolveError(f"{here}: pandas_categorical is not a list of category lists")


def check_model_text(data: bytes, where: str) -> TextModel:
    """Check LightGBM text-model bytes (module doc); ``where`` names the file in errors."""
    nul = data.find(0)
    if nul >= 0:
        raise CksolveError(f"{where}: a NUL byte at offset {nul}; not a LightGBM text model")
    if b"\r" in data:
        raise CksolveError(f"{where}: carriage returns (a copy with Windows line ends?); LightGBM's tree_sizes "
                           "are byte offsets of the file as written")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise CksolveError(f"{where}: not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start})") from None
    lines = text.split("\n")
    header, first = _header(lines, where)
    max_feature, objective = _check_header(header, where)
    i, trees, starts = first, 0, []
    while i < len(lines):
        line = lines[i]
        if not line:
            i += 1
            continue
        if not line.startswith("Tree="):
            break
        if line != f"Tree={trees}":
            raise CksolveError(f"{where}: line {i + 1}: expected 'Tree={trees}' (trees are numbered in order)")
        starts.append(i)
        block: dict = {}
        j = i + 1
        while j < len(lines) and lines[j]:
            key, eq, value = lines[j].partition("=")
            if not eq or key not in TREE_KEYS:
                raise CksolveError(f"{where}: tree {trees}: line {j + 1} is not one of LightGBM's tree lines")
            if key in block:
                raise CksolveError(f"{where}: tree {trees}: {key} given twice")
            block[key] = value
            j += 1
        if j >= len(lines) - 1:  # LightGBM reads a tree up to an empty line: one must follow, and more text
            raise CksolveError(f"{where}: tree {trees}: the file ends inside it (truncated)")
        try:
            _check_tree(block, max_feature)
        except _Fault as exc:
            raise CksolveError(f"{where}: tree {trees}: {exc}") from None
        trees += 1
        i = j
    if i >= len(lines) or lines[i] != "end of trees":
        what = "ends" if i >= len(lines) else f"line {i + 1} is neither a tree nor 'end of trees'"
        raise CksolveError(f"{where}: after tree {trees - 1}: the file {what} (truncated or edited)")
    if "tree_sizes" in header:
        _check_sizes(header["tree_sizes"], lines, starts, i, where)
    _check_tail(lines, i + 1, where)
    return TextModel(trees, max_feature + 1, objective)


def _check_sizes(value: str, lines: list[str], starts: list[int], end: int, where: str) -> None:
    """LightGBM jumps to tree k at the sum of the sizes before it: each size must be its tree's exact length."""
    try:
        sizes = _ints(value, len(starts), "tree_sizes", 1, 1 << 40)
    except _Fault as exc:
        raise CksolveError(f"{where}: header {exc} (one per tree)") from None
    bounds = starts + [end]
    for k, size in enumerate(sizes.tolist()):
        actual = sum(len(line) + 1 for line in lines[bounds[k]:bounds[k + 1]])
        if size != actual:
            raise CksolveError(f"{where}: tree {k}: tree_sizes says {size} bytes, the tree has {actual}")
