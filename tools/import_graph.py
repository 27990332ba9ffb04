"""The package's import graph between its layers, bottom to top, and any import against the order.

    python tools/import_graph.py [--modules]

Layers (lowest first) are the top-level parts of ``cksolve``; an import is
*upward* when a lower layer imports a higher one. Every import counts, a
function-level (deferred) one as much as a module-level one: deferring an import
hides a cycle from Python, not from the design. Only ``if TYPE_CHECKING:`` blocks
are left out (never run). A deferred import says why on its line (``deferred``
in its comment: ``deferred()`` lists those that do not). Exit 1 on an upward
import or an import cycle between modules; ``tests/test_layers.py`` runs the
same check.
"""

from __future__ import annotations

import ast
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1] / "cksolve"

#: bottom to top; a module may import its own layer and the ones before it
LAYERS = ("errors", "space", "formats", "outputs", "progress", "arch", "rulesets", "solver", "derived", "selection", "workload",
          "features", "ml", "scoring", "audit", "query", "explore", "docs", "emit", "report", "plan", "cli", "entry", "__main__")
#: layers at the same height (neither imports the other)
PEERS = {"formats": 2, "outputs": 2, "progress": 2, "arch": 3, "explore": 15, "docs": 15, "emit": 15, "report": 15, "plan": 15, "cli": 16,
         "entry": 17, "__main__": 18}


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


def module_imports(mods: dict[str, Path]) -> dict[str, set[str]]:
    """Module -> the package modules it imports, at module level or inside functions."""
    edges = {}
    for name, f in mods.items():
        package = name if f.name == "__init__.py" else name.rpartition(".")[0]
        deps = set()
        for node in _imports(ast.parse(f.read_text(encoding="utf-8"))):
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


def upward(edges) -> list[str]:
    return sorted(f"{m} -> {d}" for m, ds in edges.items() for d in ds
                  if layer_of(m) != "__init__" and layer_of(d) != "__init__" and rank(layer_of(d)) > rank(layer_of(m)))


def cycles(edges) -> list[list[str]]:
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
    for u in bad:
        print("upward import:", u)
    for c in loops:
        print("import cycle:", " <-> ".join(c))
    print(f"upward imports: {len(bad)}, import cycles: {len(loops)}")
    return 1 if bad or loops else 0


if __name__ == "__main__":
    sys.exit(main())
