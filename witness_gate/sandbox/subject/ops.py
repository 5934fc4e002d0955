"""The requests the judge makes about the implementation's objects, each answered here by the implementation's own
code: one function an operation (`OBJECT_OPS`), given the server, the object and the request. Pickling and copying use
the `_pickle` and `copy` bound when this module loaded, before the implementation did (a test's imports are bound so)."""

from __future__ import annotations

import _pickle
import copy
import dataclasses
import operator
import sys

from witness_gate.sandbox.subject.received import subclass
from witness_gate.sandbox.wire.forms import MAX_TEXT

_COMPARE = {name: getattr(operator, name) for name in ("eq", "ne", "lt", "le", "gt", "ge")}


_ARITH = {name: getattr(operator, name if name not in ("and", "or") else name + "_")
          for name in ("add", "sub", "mul", "matmul", "truediv", "floordiv", "mod", "pow", "lshift", "rshift", "and",
                       "xor", "or")}
_UNARY = {"neg": operator.neg, "pos": operator.pos, "invert": operator.invert, "abs": abs, "int": int,
          "float": float, "index": operator.index}


def contents(target):
    """What an object holds, as collections.abc names it: [kind, items], or None."""
    from collections import abc

    if isinstance(target, abc.Mapping):
        return ["map", [[key, target[key]] for key in target]]
    if isinstance(target, abc.Set):
        return ["set", list(target)]
    if isinstance(target, abc.Sequence):
        return ["seq", list(target)]
    return None


def state(target):
    """What an object of a class with its own `==` holds, for its equality to be checked by: [its class's name,
    [[attribute, value], ...]] (a dataclass's compared fields; else its `__dict__` and slots), or None (a class, an
    object compared by identity, one that holds no attribute, and the standard library's, whose equality is its own: a
    `uuid.UUID`'s ignored its `is_safe` slot (found by a reviewer; UUIDs now cross as data))."""
    kind = type(target)
    if isinstance(target, type) or kind.__eq__ is object.__eq__ or \
            str(kind.__module__).partition(".")[0] in sys.stdlib_module_names:
        return None
    if dataclasses.is_dataclass(kind):
        held = [[field.name, getattr(target, field.name)] for field in dataclasses.fields(target) if field.compare]
    else:
        own = getattr(target, "__dict__", None)
        held = sorted([name, value] for name, value in own.items() if type(name) is str) if type(own) is dict else []
        slots = [name for cls in kind.__mro__ for name in _slots(cls)]
        held += [[name, getattr(target, name)] for name in sorted(set(slots)) if hasattr(target, name)]
    return [f"{kind.__module__}.{kind.__qualname__}", held] if held else None


def _slots(cls) -> list[str]:
    names = cls.__dict__.get("__slots__", ())
    names = [names] if isinstance(names, str) else list(names)
    return [name for name in names if isinstance(name, str) and name not in ("__dict__", "__weakref__")]




def _arith(server, target, message):
    """`v + w`, `2 * v`, `v += w` (in place when the object has it): as the implementation's own operators give it."""
    name, other = str(message.get("name")), server.decode(message.get("v"))
    if name.startswith("i:"):
        return getattr(operator, "i" + name[2:])(target, other)
    return _ARITH[name[2:]](other, target) if name.startswith("r:") else _ARITH[name](target, other)


def _deepcopy(server, target, message):
    """One memo for all the objects of one deepcopy in the judge: what they share stays shared."""
    memo = server.memos.get(str(message.get("name")))
    if memo is None:
        memo = server.memos[str(message.get("name"))] = {}
        if server.decode(message.get("v")) is True:  # the judge's memo held its structure: so does this one,
            memo[id(memo)] = []  # by the entry copy's own memo keeps (its keep-alive list)
    return copy.deepcopy(target, memo)


def _setattr(server, target, message):
    setattr(target, str(message.get("name")), server.decode(message.get("v")))


def _setitem(server, target, message):
    target[server.decode(message.get("key"))] = server.decode(message.get("v"))


def _delitem(server, target, message):
    del target[server.decode(message.get("key"))]


def _subclass(server, target, message):
    return subclass(str(message.get("name")), server.decode(message.get("v")))


OBJECT_OPS = {
    "getattr": lambda server, target, message: getattr(target, str(message.get("name"))),
    "setattr": _setattr,
    "delattr": lambda server, target, message: delattr(target, str(message.get("name"))),
    "iter": lambda server, target, message: iter(target),
    "next": lambda server, target, message: next(target),
    "len": lambda server, target, message: len(target),
    "getitem": lambda server, target, message: target[server.decode(message.get("key"))],
    "setitem": _setitem,
    "delitem": _delitem,
    "compare": lambda server, target, message: bool(
        _COMPARE[str(message.get("name"))](target, server.decode(message.get("v")))),
    "arith": _arith,
    "subclass": _subclass,
    "isinstance": lambda server, target, message: isinstance(server.decode(message.get("v")), target),
    "issubclass": lambda server, target, message: issubclass(server.decode(message.get("v")), target),
    # `isinstance(b, Mapping)` in the judge: against a standard class named there
    "instance_of": lambda server, target, message: isinstance(target, server.decode(message.get("v"))),
    "subclass_of": lambda server, target, message: issubclass(target, server.decode(message.get("v"))),
    # the judge pickles and copies the implementation's objects here, by these modules
    "pickle": lambda server, target, message: _pickle.dumps(target, server.decode(message.get("v"))),
    "copy": lambda server, target, message: copy.copy(target),
    "deepcopy": _deepcopy,
    "unary": lambda server, target, message: _UNARY[str(message.get("name"))](target),
    "contents": lambda server, target, message: contents(target),
    "state": lambda server, target, message: state(target),
    "bool": lambda server, target, message: bool(target),
    "hash": lambda server, target, message: hash(target),
    "contains": lambda server, target, message: server.decode(message.get("v")) in target,
    "repr": lambda server, target, message: repr(target)[:MAX_TEXT],
}


def as_text(server, target, message):
    """`str(v)`: every other operation's answer."""
    return str(target)[:MAX_TEXT]


def unpickle(server, message):
    """With the pickle module bound before the implementation loaded (as a test's import is)."""
    return _pickle.loads(server.decode(message.get("v")))
