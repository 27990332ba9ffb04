"""Lazy registries: a name -> where its thing is defined, resolved the first time it is asked for.

An entry is an absolute ``"package.module:attribute"`` string, imported on first use (naming the
entries loads none of them, so a registry is complete in a fresh interpreter whatever was imported
before), or the object itself (registered by code that already holds it: a scorer of another package,
a test's). ``tools/import_graph.py`` reads every such string as an import edge of the module that
writes it. The package's registries: its public names (``cksolve._HOME``), the commands
(``cli.commands.COMMANDS``), the rule sets (``rulesets.builtin.RULE_SETS``), the solver backends
(``solver.backends.BACKENDS``) and the scorers (``scoring.protocol.SCORERS``).
"""

from __future__ import annotations

import importlib

from .errors import CksolveError, did_you_mean, shorten, valid_list

__all__ = ["LazyRegistry", "is_target", "lazy_names"]


def is_target(text: str) -> bool:
    """Whether ``text`` is an entry's import string: an absolute module path, a colon, an attribute."""
    module, colon, attribute = text.partition(":")
    return bool(colon) and attribute.isidentifier() and all(part.isidentifier() for part in module.split("."))


class LazyRegistry:
    """Names in registration order (the order help and error lines list them), each an import string
    or an object, with optional facts of its own (``info``) readable before anything is imported."""

    def __init__(self, kind: str, entries: dict[str, object] | None = None):
        self.kind = kind  # "backend", "scorer", ...: the word of the unknown-name line
        self._targets: dict[str, object] = {}
        self._info: dict[str, dict[str, object]] = {}
        self._resolved: dict[str, object] = {}
        for name, target in (entries or {}).items():
            self.register(name, target)

    def register(self, name: str, target: object, **info: object) -> None:
        """Add (or replace) ``name``: ``target`` is ``"module:attribute"`` or the object itself."""
        if not isinstance(name, str) or not name:
            raise ValueError(f"a {self.kind} registry name must be a non-empty string, got {name!r}")
        if isinstance(target, str) and not is_target(target):
            raise ValueError(f"{self.kind} {name!r}: {target!r} is not an absolute 'package.module:attribute'")
        self._targets[name] = target
        self._info[name] = info
        self._resolved.pop(name, None)

    def unregister(self, name: str) -> None:
        """Remove ``name`` (a registered plug-in or a test's entry leaving)."""
        self.check(name)
        del self._targets[name], self._info[name]
        self._resolved.pop(name, None)

    def names(self) -> list[str]:
        """The names, in registration order."""
        return list(self._targets)

    def __iter__(self):  # the names, in registration order
        return iter(self._targets)

    def __len__(self) -> int:
        return len(self._targets)

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name in self._targets

    def __repr__(self) -> str:
        return f"LazyRegistry({self.kind!r}, {self.names()})"

    def target(self, name: str) -> object:
        """Where ``name`` is defined: its import string, or the registered object."""
        self.check(name)
        return self._targets[name]

    def info(self, name: str) -> dict[str, object]:
        """The facts registered with ``name`` (e.g. a rule set's one line), nothing imported."""
        self.check(name)
        return self._info[name]

    def unknown(self, name: object, alternative: str = "") -> str:
        """The one line for a name not registered: the valid names and the closest one, if any."""
        also = f" {alternative}" if alternative else ""
        return (f"unknown {self.kind} {shorten(name)}; valid: {valid_list(self._targets)}{also}"
                f"{did_you_mean(name, self._targets)}")

    def check(self, name: object) -> str:
        """``name`` when registered, else a :class:`CksolveError` with the :meth:`unknown` line."""
        if name not in self:
            raise CksolveError(self.unknown(name))
        return name

    def get(self, name: str) -> object:
        """What ``name`` stands for, its module imported the first time it is asked for."""
        if name in self._resolved:
            return self._resolved[name]
        target = self.target(name)
        if isinstance(target, str):
            module, _, attribute = target.partition(":")
            target = getattr(importlib.import_module(module), attribute)
        self._resolved[name] = target
        return target


def lazy_names(namespace: dict, registry: LazyRegistry) -> tuple:
    """A package's ``__getattr__`` and ``__dir__`` (PEP 562) for public names ``registry`` holds, each imported
    the first time it is asked for and kept in the package's ``namespace`` (its ``globals()``) from then on."""

    def __getattr__(name: str):
        if name not in registry:
            raise AttributeError(f"module {namespace['__name__']!r} has no attribute {name!r}")
        value = namespace[name] = registry.get(name)
        return value

    def __dir__() -> list[str]:
        return sorted({*namespace, *namespace["__all__"]})

    return __getattr__, __dir__
