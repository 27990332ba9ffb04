"""The package's import graph between its layers, bottom to top, and any import against the order.

    python tools/import_graph.py [--modules]

Layers (lowest first) are the top-level parts of ``cksolve``; an import is
*upward* when a lower layer imports a higher one, or, inside a layer ranked in
rooms (``ROOMS``: the solver's sub-packages), a lower room a higher one. Every import counts, a
function-level (deferred) one as much as a module-level one: deferring an import
hides a cycle from Python, not from the design. So does every registry entry
(``cksolve.registry``: a ``"package.module:attribute"`` string, imported when the
entry is asked for); ``ALLOWED`` lists the one entry that points up on purpose. Only ``if TYPE_CHECKING:`` blocks
are left out (never run). A deferred import says why on its line (``deferred``
in its comment: ``deferred()`` lists those that do not). Exit 1 on an upward
import or an import cycle between modules; ``tests/test_layers.py`` runs the
same check.
"""

from __future__ import annotations

import ast
import re
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1] / "cksolve"

#: bottom to top; a module may import its own layer and the ones before it
LAYERS = ("errors", "registry", "space", "formats", "outputs", "progress", "arch", "rulesets", "solver", "derived", "selection", "workload",
          "features", "ml", "scoring", "audit", "query", "explore", "docs", "emit", "report", "plan", "cli", "entry", "__main__")
#: layers at the same height (neither imports the other)
PEERS = {"formats": 3, "outputs": 3, "progress": 3, "arch": 4, "explore": 16, "docs": 16, "emit": 16, "report": 16, "plan": 16, "cli": 17,
         "entry": 18, "__main__": 19}
#: rooms inside a layer (its sub-packages and top modules), bottom to top: an import from a room up to a higher
#: room of the same layer is upward too. The solver: the model below its engine, listing and sampling above the
#: engine, the questions on a model above the listing, the backends (each module, then their registry) on top.
ROOMS = {"solver": {"model": 0, "backend_protocol": 0, "engine": 1, "listing": 2, "sampling": 2, "questions": 3,
                    "direct_backend": 3, "cpsat": 3, "pyconstraint": 3, "backends": 4}}
#: a registry entry (``cksolve.registry.is_target``): an absolute "package.module:attribute" string, imported on
#: first use
TARGET = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*:[A-Za-z_]\w*")
#: the registry entries that point up a layer on purpose, each resolved only when asked for: the derived rule
#: sets (selections the solver computes) listed with the built-in ones, so that naming a rule set loads none
ALLOWED = ("cksolve.rulesets.builtin -> cksolve.derived.subsets",)


def rank(layer: str) -> int:
    return PEERS[layer] if layer in PEERS else LAYERS.index(layer)


def modules() -> dict[str, Path]:
    out = {}
    for f in sorted(ROOT.rglob("*.py")):
        parts = f.relative_to(ROOT.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = f
    return out


def _imports(tree: ast.Module):
    """Every import statement of a module, at any depth, except under ``if TYPE_CHECKING:``."""
    todo = list(tree.body)
    while todo:
        node = todo.pop()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        elif isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            todo.extend(node.orelse)
        else:
            todo.extend(ast.iter_child_nodes(node))


def deferred(mods: dict[str, Path]) -> list[str]:
    """Function-level imports whose line gives no reason (``file:line``): a deferred import says why."""
    out = []
    for f in mods.values():
        text = f.read_text(encoding="utf-8")
        lines, tree = text.splitlines(), ast.parse(text)
        top = {id(n) for n in tree.body}
        for node in _imports(tree):
            if id(node) not in top and "deferred" not in lines[node.lineno - 1]:
                out.append(f"{f.relative_to(ROOT.parent).as_posix()}:{node.lineno}")
    return sorted(out)


def registry_entries(tree: ast.Module, mods) -> set[str]:
    """The package modules a module's registry entries name (every string constant that is a whole
    ``"package.module:attribute"`` of a package module): imports made when an entry is asked for."""
    return {node.value.partition(":")[0] for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and TARGET.fullmatch(node.value)
            and node.value.partition(":")[0] in mods}


def module_imports(mods: dict[str, Path]) -> dict[str, set[str]]:
    """Module -> the package modules it imports, at module level or inside functions, or names in a registry."""
    edges = {}
    for name, f in mods.items():
        package = name if f.name == "__init__.py" else name.rpartition(".")[0]
        tree = ast.parse(f.read_text(encoding="utf-8"))
        deps = registry_entries(tree, mods) - {name}
        for node in _imports(tree):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)] if node.level else []
                mod = ".".join(base + ([node.module] if node.module else [])) if node.level else node.module
                subs = [f"{mod}.{a.name}" for a in node.names if f"{mod}.{a.name}" in mods]
                targets = subs if len(subs) == len(node.names) else [mod, *subs]
            else:
                continue
            for t in targets:
                while t and t not in mods:
                    t = t.rpartition(".")[0]
                if t and t != name:
                    deps.add(t)
        edges[name] = deps
    return edges


def layer_of(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def allowed(edges) -> list[str]:
    """The edges of ``ALLOWED`` present: left out of both checks (the higher layer imports the lower one,
    so each would close a cycle), listed by ``main``."""
    return sorted(f"{m} -> {d}" for m, ds in edges.items() for d in ds if f"{m} -> {d}" in ALLOWED)


def room_up(m: str, d: str) -> bool:
    """Whether ``d`` sits in a higher room of ``m``'s layer (``ROOMS``; a layer's own face has no room)."""
    rooms = ROOMS.get(layer_of(m), {}) if layer_of(m) == layer_of(d) else {}
    rm, rd = (x.split(".")[2] if x.count(".") >= 2 else None for x in (m, d))
    return rm in rooms and rd in rooms and rooms[rd] > rooms[rm]


def upward(edges) -> list[str]:
    return sorted(f"{m} -> {d}" for m, ds in edges.items() for d in ds
                  if layer_of(m) != "__init__" and layer_of(d) != "__init__"
                  and (rank(layer_of(d)) > rank(layer_of(m)) or room_up(m, d))
                  and f"{m} -> {d}" not in ALLOWED)


def cycles(edges) -> list[list[str]]:
    edges = {m: {d for d in ds if f"{m} -> {d}" not in ALLOWED} for m, ds in edges.items()}
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def picture(edges) -> str:
    """Layer -> layers it imports (with the number of module imports), bottom to top."""
    by_layer: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for m, ds in edges.items():
        for d in ds:
            if layer_of(m) != layer_of(d) and "__init__" not in (layer_of(m), layer_of(d)):
                by_layer[layer_of(m)][layer_of(d)] += 1
    lines = []
    for layer in sorted({layer_of(m) for m in edges} - {"__init__"}, key=rank):
        below = by_layer.get(layer, {})
        deps = ", ".join(f"{d} ({n})" for d, n in sorted(below.items(), key=lambda kv: (-rank(kv[0]), kv[0])))
        lines.append(f"{rank(layer):2d} {layer:10s} <- imports: {deps or '-'}")
    return "\n".join(lines)


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    edges = module_imports(modules())
    print(picture(edges))
    if "--modules" in argv:
        for m in sorted(edges):
            print(f"{m}: {', '.join(sorted(edges[m])) or '-'}")
    bad, loops = upward(edges), cycles(edges)
    for a in allowed(edges):
        print("allowed upward registry entry:", a)
    for u in bad:
        print("upward import:", u)
    for c in loops:
        print("import cycle:", " <-> ".join(c))
    print(f"upward imports: {len(bad)}, import cycles: {len(loops)}")
    return 1 if bad or loops else 0


if __name__ == "__main__":
    sys.exit(main())
