"""Equality, order and `in` of the implementation's objects, which stay in the subject: the implementation answers,
and its answer stands only when what the object holds agrees.

An object whose `==` is always true (the commonest way to forge a passing `assert result == expected`) would answer
any comparison it is asked. So a comparison is asked twice: of the object, and of its contents — a sequence, a set or
a mapping of items, as `collections.abc` says it is — compared here as lists, sets and dicts are. The contents are
taken before the object is shown the other side (an object told what it is compared with could take that value on:
found by a reviewer), and the implementation's own answer is asked too, so a regression in `__eq__`, `__lt__` or
`__contains__` itself is not hidden (found by a second reviewer). When the two disagree the comparison raises
ImplementationDisagrees, a failure of the test. An object of a class with its own `==` that is none of the three is
equal by its attributes (`subject/ops.py::state`: a dataclass's compared fields, else its `__dict__` and slots, with
its class), asked the same way. Anything else has no equality, order or `in` here (NoContents), and neither has an
order the contents cannot decide (between mappings, kinds, or objects by their attributes).
"""

from __future__ import annotations

import operator

OPS = {"eq": operator.eq, "ne": operator.ne, "lt": operator.lt, "le": operator.le, "gt": operator.gt,
       "ge": operator.ge}
SYMBOLS = {"eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">="}
KINDS = ("seq", "set", "map")


class ImplementationDisagrees(Exception):
    """The implementation's object answered a comparison its own contents contradict."""


class NoContents(Exception):  # no TypeError: `pytest.raises(TypeError)` must not pass on what was never answered
    """An object of the implementation that is no sequence, set or mapping: nothing here can check its answer."""


def form(value, contents):
    """(kind, items) of `value` for a comparison by contents, or None: the judge's lists, tuples, sets and dicts, and
    a handle's contents as `contents(handle)` reports them (a mapping's items as [key, value] pairs)."""
    if type(value) in (list, tuple):
        return "seq", list(value)
    if type(value) in (set, frozenset):
        return "set", list(value)
    if type(value) is dict:
        return "map", [[k, v] for k, v in value.items()]
    return contents(value)


def by_contents(op: str, mine, theirs):
    """What `op` gives on two forms (`mine` a handle's, `theirs` anything's or None); None when the contents decide
    nothing (an order between kinds that have none)."""
    kind, items = mine
    if kind == "obj":  # by its attributes: equal to an object of the same class holding equal ones, and to nothing else
        if op not in ("eq", "ne"):
            return None
        same = theirs is not None and theirs[0] == "obj" and theirs[1][0] == items[0] and \
            _same("map", items[1], theirs[1][1])
        return same if op == "eq" else not same
    if op in ("eq", "ne"):
        same = theirs is not None and theirs[0] == kind and _same(kind, items, theirs[1])
        return same if op == "eq" else not same
    if theirs is None or theirs[0] != kind or kind == "map":
        return None
    if kind == "seq":
        return OPS[op](items, theirs[1])
    try:
        return OPS[op](set(items), set(theirs[1]))
    except TypeError:  # unhashable members: no order by contents
        return None


def _same(kind: str, mine: list, theirs: list) -> bool:
    if kind == "seq":
        return mine == theirs
    if len(mine) != len(theirs):
        return False
    if kind == "map":
        mine, theirs = [tuple(pair) for pair in mine], [tuple(pair) for pair in theirs]
    try:
        return (set if kind == "set" else dict)(mine) == (set if kind == "set" else dict)(theirs)
    except TypeError:  # unhashable members: each one matched by ==
        return all(any(item == other for other in theirs) for item in mine) and \
            all(any(item == other for other in mine) for item in theirs)


def checked(op: str, said, expected: bool, show) -> bool:
    """The implementation's answer `said` to `op`, when it is what the contents give (`expected`); `show()` names the
    two sides."""
    if type(said) is not bool:
        raise ImplementationDisagrees(f"the implementation's {SYMBOLS[op]} gave no truth value")
    if said is not expected:
        raise ImplementationDisagrees(
            f"{show()}: the implementation's {SYMBOLS[op]} says {said}, its contents say {expected}; an object's "
            "comparisons must agree with what it holds")
    return said
