"""How a config kind's names split into head and tail texts, rendered by the kind's own name function.

A head is the name of the head values with every other field at its default (an
empty tail); a tail is what a name adds to its head, and (a kind's
``tail_parts``) each leading part of it is rendered once per value and joined.
What ``stream`` lists by; one :class:`Spelling` per kind and process.
"""

from __future__ import annotations

from operator import itemgetter

from ...space.config import config_fields
from ...space.kinds import kernel_kind
from ...space.memos import MEMOS
from ..model import config_class

__all__ = ["Spelling", "spelling", "PARTS_FROM", "Texts"]

#: Tail sets of at least this many tails are rendered by parts (fewer: whole tails, memoised; ``stream``).
PARTS_FROM = 4096


class Spelling:
    """Head and tail texts of one config kind, rendered by the kind's own name function (one place for the
    format): a head is the name of the head values with every other field at its default (an empty tail);
    a tail is what a name adds to its head."""

    def __init__(self, kind: str):
        cls = config_class(kind)
        self.cls = cls
        self.fields = config_fields(cls)
        self.index = {f: i for i, f in enumerate(self.fields)}
        self.defaults = [cls._field_defaults.get(f) for f in self.fields]
        value = kernel_kind(kind)
        self.head = frozenset(value.head_axes)
        self.tail_axes = tuple(f for f in self.fields if f not in self.head)
        self.group_axes = value.group_axes
        # the head axes after every group axis, in name order: a prefix of the name, so a value of them is a
        # contiguous run of names (a depthwise name has no groups, and is not split)
        after = max((value.head_axes.index(a) for a in value.group_axes), default=len(value.head_axes))
        self.more_axes = value.head_axes[after + 1:]
        name = value.spell
        raw = getattr(name, "__wrapped__", name)  # not the name memo: these configs are made for one text
        self._render = lambda values: raw(tuple.__new__(cls, values))
        #: tail values -> text, cut from a name under the first reference head given (any head serves: a tail's
        #: text does not depend on it); a plain dict lookup from C once :meth:`reference` is set
        self.tails = Texts(self._cut_tail)
        self._ref = None
        at = {a: i for i, a in enumerate(self.tail_axes)}
        parts = [tuple(at[a] for a in p) for p in value.tail_parts]
        rest = tuple(i for i in range(len(self.tail_axes)) if all(i not in p for p in parts))
        self.parts = tuple(p for p in parts + [rest] if p) if parts else ()
        self.part_texts = None  # (values of a part, its texts), made on first use
        #: the head fields in field order; :meth:`head_of` takes their values in this order
        self.head_fields = tuple(f for f in self.fields if f in self.head)
        #: head values (``head_fields`` order) -> the head's text: the kind's head of them, put in its order from C
        #: (no config made, no name memo filled)
        in_order = itemgetter(*map(self.head_fields.index, value.head_axes))
        spell_head = value.spell_head
        self.head_of = lambda values: spell_head(*in_order(values))

    def _values(self, assign, tail: tuple = ()) -> list:
        """The config's field values: the defaults, then the head's assignment, then the tail's values."""
        values = list(self.defaults)
        index = self.index
        for a, v in assign:
            values[index[a]] = v
        for a, v in zip(self.tail_axes, tail):
            values[index[a]] = v
        return values

    def head_text(self, assign) -> str:
        return self._render(self._values(assign))

    def config(self, assign, tail: tuple):
        return tuple.__new__(self.cls, self._values(assign, tail))

    def reference(self, ref_assign, ref_text: str) -> None:
        """The head (its assignment and text) whose names tails are cut from; the first given serves."""
        if self._ref is None:
            self._ref = (tuple(ref_assign), ref_text)

    def _cut_tail(self, tail: tuple) -> str:
        assign, text = self._ref
        return self._render(self._values(assign, tail))[len(text):]

    def tail_text(self, ref_assign, ref_text: str, tail: tuple) -> str:
        self.reference(ref_assign, ref_text)
        return self.tails[tail]

    def tail_texts(self, ref_assign, ref_text: str, tails: list, by_parts: bool = True) -> list[str]:
        """The texts of many tails (tuples over ``tail_axes``): ``by_parts`` (a large tail set), by the kind's
        tail parts, each part's text rendered once per value and joined (``spelling.GEMM_TAIL_PARTS``); else
        whole tails one by one, memoised across heads."""
        self.reference(ref_assign, ref_text)
        if not self.parts or not by_parts:  # few: whole tails, memoised across heads
            return list(map(self.tails.__getitem__, tails))
        if self.part_texts is None:
            default = tuple(self.defaults[self.index[a]] for a in self.tail_axes)

            def text_of(at):
                def render(values):
                    tail = list(default)
                    for i, v in zip(at, values if len(at) > 1 else (values,)):
                        tail[i] = v
                    return self.tails[tuple(tail)]
                return render
            self.part_texts = [(itemgetter(*at), Texts(text_of(at))) for at in self.parts]
        return list(map("".join, zip(*(map(texts.__getitem__, map(get, tails)) for get, texts in self.part_texts))))


class Texts(dict):
    """Values -> their text, rendered on a miss (a part's, or a whole tail's: one lookup per row, from C)."""

    def __init__(self, render):
        super().__init__()
        self.render = render

    def __missing__(self, key):
        text = self[key] = self.render(key)
        return text


_SPELLINGS = MEMOS.memo("stream.spellings")  # per kind: head/tail rendering and its tail texts


def spelling(kind: str) -> Spelling:
    hit = _SPELLINGS.get(kind)
    if hit is None:
        hit = _SPELLINGS[kind] = Spelling(kind)
    return hit
