"""What the oracle hands the implementation that is not data: an object of its own lent by reference (`Lent`,
answering only what a container asks of a member), a class the standard library has too (named, not lent), an
iterator read here into its items."""

from __future__ import annotations

import sys

from witness_gate.sandbox.judge.compare import OPS
from witness_gate.sandbox.wire.forms import MAX_TEXT

ASKED = frozenset(OPS) | {"hash", "bool", "repr", "str"}
MAX_DRAINED = 100_000
MAX_LENT = 100_000


def standard_class(cls) -> list | None:
    """[module, qualname] of a built-in class or one of the standard library's, which the subject has too."""
    if cls is type(None):
        return ["builtins", "NoneType"]
    module, qualname = getattr(cls, "__module__", None), getattr(cls, "__qualname__", None)
    if type(module) is not str or type(qualname) is not str or module.partition(".")[0] not in sys.stdlib_module_names \
            and module != "builtins":
        return None
    found = sys.modules.get(module)
    for part in qualname.split("."):
        found = getattr(found, part, None)
    return [module, qualname] if found is cls else None


def drained(iterator, inner) -> list:
    """An oracle's iterator (a generator, `iter([...])`) as the items it yields, read here: the implementation gets an
    iterator over them, and never a way to call back into the judge once its call has returned."""
    items = []
    for item in iterator:
        if len(items) == MAX_DRAINED:
            raise TypeError(f"an iterator of more than {MAX_DRAINED} items cannot be handed to the implementation, "
                            "which runs in another process: pass a list")
        items.append(inner(item))
    return items


class Lent:
    """An object of the oracle's, lent to the implementation by reference: called back with one of ASKED and its
    arguments, it answers what a list, a set or a dict would ask of a member, and nothing else."""

    __slots__ = ("value",)

    def __init__(self, value) -> None:
        self.value = value

    def __call__(self, question, *args):
        if question not in ASKED or len(args) != (1 if question in OPS else 0):
            raise TypeError(f"an object of the oracle's (a {type(self.value).__name__}) is held by reference: the "
                            "implementation may compare, hash, print or test it, and no more")
        if question in OPS:
            return bool(OPS[question](self.value, args[0]))
        if question == "hash":
            return hash(self.value)
        if question == "bool":
            return bool(self.value)
        return (repr if question == "repr" else str)(self.value)[:MAX_TEXT]
