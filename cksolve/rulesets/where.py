"""``where`` expressions of rule-set files: a small, safe expression language compiled to named checks.

    where = ["tile_m * tile_n <= 16384", "tile_k % (warp_tile_k * wave_k) == 0",
             "pipeline != 'mem' or tile_m >= 64", "vector_a in (4, 8)"]

An expression is parsed with :mod:`ast` and only these nodes are accepted:
integer, string and boolean constants, axis names, ``+ - * // %``, unary
``-``/``+``, comparisons (``== != < <= > >=``, chained too), ``in``/``not in``
a tuple or list of constants, ``and``/``or``/``not`` and parentheses. Nothing
is ever passed to ``eval``: the tree is turned into a nested tuple (a
*program*) that :func:`where_test` interprets, so the constraint is a value
like every other (hashable, shown by ``rule-sets --show``, tabulated by the
solvers). Types are checked when the file is loaded (arithmetic and ordering
on integer axes only, each side of ``==`` of one type), so a loaded
expression never fails on a config; a division or remainder by zero makes the
expression false.

An expression is input, so what it may cost is bounded (docs/cli.md, "Input
rules"), each breach a :class:`WhereError` when it is loaded: at most
``MAX_TEXT`` characters, ``MAX_NODES`` syntax nodes nested at most
``MAX_DEPTH`` deep, integer constants of at most ``MAX_INT_DIGITS`` digits,
``in`` lists of at most ``MAX_ITEMS`` constants, and axes whose domains
together take at most ``MAX_COMBINATIONS`` value combinations: the solvers
tabulate an expression over its axes (a condition on 14 axes of the whole
space tabulates billions), so that product is what one expression costs.
A rule-set file (and ``search``) holds at most ``MAX_EXPRESSIONS`` of them.
"""

from __future__ import annotations

import ast
import operator

from ..errors import shorten, valid_list
from ..space.axes import AXES
from ..space.constraints import Check
from .rule_set import RuleSetError

__all__ = ["compile_where", "where_test", "where_check", "file_where", "WhereError", "MAX_TEXT", "MAX_NODES",
           "MAX_DEPTH", "MAX_INT_DIGITS", "MAX_ITEMS", "MAX_COMBINATIONS", "MAX_EXPRESSIONS"]

#: Characters of one expression.
MAX_TEXT = 2000
#: Syntax nodes of one expression (names, constants, operators), and how deep they nest.
MAX_NODES = 512
MAX_DEPTH = 64
#: Decimal digits of an integer constant (hexadecimal and other spellings: of its value).
MAX_INT_DIGITS = 18
#: Constants of one ``in`` tuple or list.
MAX_ITEMS = 256
#: Value combinations of the axes one expression reads (the product of their domain sizes).
MAX_COMBINATIONS = 1_000_000
#: Expressions in one rule-set file's ``where`` (and ``--where`` options of one command).
MAX_EXPRESSIONS = 64


class WhereError(ValueError):
    """A bad expression: ``column`` (1-based) and what is wrong."""

    def __init__(self, column: int, what: str):
        super().__init__(what)
        self.column = column
        self.what = what


_ARITH = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.FloorDiv: "//", ast.Mod: "%"}
_COMPARE = {ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=",
            ast.In: "in", ast.NotIn: "not in"}
_OPS = {"+": operator.add, "-": operator.sub, "*": operator.mul, "==": operator.eq, "!=": operator.ne,
        "<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge}


def _axis_type(axis: str) -> type:
    return type(AXES[axis].domain[0])


def compile_where(text: str) -> tuple[tuple[str, ...], tuple]:
    """(scope, program) of one expression; :class:`WhereError` naming the column of what is not allowed."""
    if not isinstance(text, str):
        raise WhereError(1, "must be a string")
    if len(text) > MAX_TEXT:
        raise WhereError(MAX_TEXT + 1, f"longer than {MAX_TEXT} characters")
    lead = len(text) - len(text.lstrip())
    body = text.strip()
    try:
        tree = ast.parse(body, mode="eval")
    except SyntaxError as exc:  # offset 0: at the end of the text
        raise WhereError(lead + (exc.offset or len(body) + 1), f"syntax error: {exc.msg}") from None
    except (RecursionError, MemoryError):  # the parser's own nesting limit
        raise WhereError(1, f"nests deeper than {MAX_DEPTH} levels") from None
    try:
        _bound(tree.body)
    except WhereError as exc:
        exc.column += lead
        raise
    scope: list[str] = []
    try:
        program, kind = _compile(tree.body, scope)
    except WhereError as exc:
        exc.column += lead
        raise
    if kind is not bool:
        raise WhereError(1, "must be a condition (a comparison, 'in', 'and', 'or' or 'not'), not a value")
    if not scope:
        raise WhereError(1, "reads no axis")
    combinations = 1
    for axis in scope:
        combinations *= len(AXES[axis].domain)
    if combinations > MAX_COMBINATIONS:
        raise WhereError(1, f"reads {len(scope)} axes ({valid_list(scope, width=60)}) whose values take {combinations:,} "
                            f"combinations together, more than {MAX_COMBINATIONS:,}; split it into expressions "
                            f"over fewer axes")
    return tuple(scope), program


def _bound(root) -> None:
    """WhereError for a tree past the size, depth or literal bounds, found without recursion (a deep tree
    must not exhaust the stack here either)."""
    nodes = 0
    stack = [(root, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, (ast.expr_context, ast.operator, ast.unaryop, ast.boolop, ast.cmpop)):
            continue  # the tokens of a node, not nodes of the expression
        nodes += 1
        if nodes > MAX_NODES:
            _fail(node, f"has more than {MAX_NODES} terms")
        if depth > MAX_DEPTH:
            _fail(node, f"nests deeper than {MAX_DEPTH} levels")
        if isinstance(node, ast.Constant) and type(node.value) is int and abs(node.value) >= 10 ** MAX_INT_DIGITS:
            _fail(node, f"integer constant longer than {MAX_INT_DIGITS} digits")
        if isinstance(node, (ast.Tuple, ast.List)) and len(node.elts) > MAX_ITEMS:
            _fail(node, f"lists more than {MAX_ITEMS} values")
        stack.extend((child, depth + 1) for child in ast.iter_child_nodes(node))


def _fail(node, what: str):
    raise WhereError(getattr(node, "col_offset", 0) + 1, what)


def _compile(node, scope: list) -> tuple[tuple, type]:
    """(program, type of its value) of one node."""
    if isinstance(node, ast.Constant) and type(node.value) in (int, str, bool):
        return ("const", node.value), type(node.value)
    if isinstance(node, ast.Name):
        if node.id not in AXES:
            _fail(node, f"unknown axis {node.id!r}")
        if node.id not in scope:
            scope.append(node.id)
        return ("axis", scope.index(node.id)), _axis_type(node.id)
    if isinstance(node, ast.BinOp) and type(node.op) in _ARITH:
        left, lt = _compile(node.left, scope)
        right, rt = _compile(node.right, scope)
        if lt is not int or rt is not int:
            _fail(node, f"'{_ARITH[type(node.op)]}' needs integers")
        return ("arith", _ARITH[type(node.op)], left, right), int
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        operand, t = _compile(node.operand, scope)
        if t is not int:
            _fail(node, "a sign needs an integer")
        return ("neg", operand) if isinstance(node.op, ast.USub) else operand, int
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        operand, t = _compile(node.operand, scope)
        if t is not bool:
            _fail(node, "'not' needs a condition")
        return ("not", operand), bool
    if isinstance(node, ast.BoolOp):
        parts = []
        for value in node.values:
            p, t = _compile(value, scope)
            if t is not bool:
                _fail(value, "'and'/'or' need conditions on both sides")
            parts.append(p)
        return ("and" if isinstance(node.op, ast.And) else "or", tuple(parts)), bool
    if isinstance(node, ast.Compare):
        first, lt = _compile(node.left, scope)
        left = first
        steps = []
        for op, right_node in zip(node.ops, node.comparators):
            name = _COMPARE.get(type(op))
            if name is None:
                _fail(node, f"operator {type(op).__name__} is not allowed")
            if name in ("in", "not in"):
                if not isinstance(right_node, (ast.Tuple, ast.List)) or not all(
                        isinstance(e, ast.Constant) and type(e.value) is lt for e in right_node.elts):
                    _fail(right_node, f"'{name}' needs a tuple or list of {lt.__name__} constants")
                steps.append((name, ("const", frozenset(e.value for e in right_node.elts))))
                continue
            right, rt = _compile(right_node, scope)
            if rt is not lt:
                _fail(right_node, f"compares {lt.__name__} with {rt.__name__}")
            if name not in ("==", "!=") and lt is not int:
                _fail(right_node, f"'{name}' needs integers")
            steps.append((name, right))
            left, lt = right, rt
        return ("compare", first, tuple(steps)), bool
    if isinstance(node, (ast.BinOp, ast.UnaryOp, ast.BoolOp)):
        _fail(node, f"operator {type(node.op).__name__} is not allowed (+ - * // % only)")
    _fail(node, f"{type(node).__name__} is not allowed (integers, axis names, + - * // %, comparisons, "
                f"and/or/not, in)")


def where_test(*args) -> bool:
    """The check's test: the scope's values, then the program (``Check.params``)."""
    *values, program = args
    try:
        return bool(_run(program, values))
    except ZeroDivisionError:
        return False


def _run(p: tuple, values):
    op = p[0]
    if op == "const":
        return p[1]
    if op == "axis":
        return values[p[1]]
    if op == "arith":
        a, b = _run(p[2], values), _run(p[3], values)
        if p[1] == "//":
            return a // b
        if p[1] == "%":
            return a % b
        return _OPS[p[1]](a, b)
    if op == "neg":
        return -_run(p[1], values)
    if op == "not":
        return not _run(p[1], values)
    if op == "and":
        return all(_run(q, values) for q in p[1])
    if op == "or":
        return any(_run(q, values) for q in p[1])
    if op == "compare":
        left = _run(p[1], values)
        for name, right_p in p[2]:
            right = _run(right_p, values)
            if name == "in":
                ok = left in right
            elif name == "not in":
                ok = left not in right
            else:
                ok = _OPS[name](left, right)
            if not ok:
                return False
            left = right
        return True
    raise ValueError(f"unknown program node {op!r}")  # pragma: no cover - compile_where makes only these


def where_check(name: str, text: str, source: str, label: str) -> Check:
    """The named check of one compiled expression (``WhereError`` if it is bad)."""
    scope, program = compile_where(text)
    shown = text.strip().replace("{", "{{").replace("}", "}}")
    values = ", ".join(f"{a}={{{a}}}" for a in scope)
    return Check(name, scope, where_test, f"{label}: {shown} does not hold ({values})", source,
                 params=(program,), doc=f"where: {shown}")


def file_where(value, stem: str, source: str, label: str, name: str) -> list[Check]:
    """The checks of a rule-set file's ``where`` (a string or an array of strings), named
    ``file.<stem>.where[i]``; a bad expression is one ``RuleSetError`` line naming the file, the
    expression and the column."""
    items = value if isinstance(value, list) else [value]
    if len(items) > MAX_EXPRESSIONS:
        raise RuleSetError(f"{label}: where has {len(items)} expressions, more than {MAX_EXPRESSIONS}")
    out = []
    for i, text in enumerate(items):
        try:
            out.append(where_check(f"file.{stem}.where[{i}]", text, source, f"{name}: where[{i}]"))
        except WhereError as exc:
            shown = shorten(text) if isinstance(text, str) else repr(text)
            raise RuleSetError(f"{label}: where[{i}]: {shown} at column {exc.column}: {exc.what}") from None
    return out
