"""The shrinker's moves on values: the simplest of the type, shorter strings, smaller numbers."""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

from witness_gate.model.canonical import shortlex_key
from witness_gate.shrink.memory import Slot, is_tuple, kind, signature, tried
from witness_gate.shrink.moves.numbers import absorb_neighbours, smaller_int
from witness_gate.shrink.moves.structure import Search, sweep
from witness_gate.shrink.tree import Path, find_largest, get_node, is_int, set_node, simpler_values


def simplify_values(search: Search) -> bool:
    """The simplest value of the type, then null; then shorter strings and smaller numbers.

    Containers also try an empty key, their children in canonical order, and moving one number's
    value into its neighbour (so that a sum survives while an element goes), as Hypothesis's
    shrinker does.
    """
    return sweep(search, _reduce_value)


def _reduce_value(search: Search, path: Path) -> bool:
    node = get_node(search.current, path)
    if node is None:
        return False
    simplest, *rest = simpler_values(node)
    # an empty container is the structural pass's first run: not tried twice in a round
    if not isinstance(node, (dict, list)) and tried(search.memory, _slot(search, path, simplest), lambda: search.consider(
            set_node(search.current, path, simplest))):
        return True
    # a one-character string has no shorter form but "", just refuted
    typed = not (isinstance(node, str) and len(node) <= 1) and _reduce_typed(search, path, node)
    if isinstance(node, (dict, list)) and _part_to_number(search, path):
        return True
    if isinstance(node, (dict, list)) and not _may_be_null(search, path):
        rest = []
    # null comes last: after a shorter string or a smaller number it is seldom smaller still
    return typed or any(tried(search.memory, _slot(search, path, simpler), lambda simpler=simpler: search.consider(
        set_node(search.current, path, simpler))) for simpler in rest)


def _part_to_number(search: Search, path: Path) -> bool:
    """A container that is a part of a record becomes 0 where another record of its kind holds a number
    in that place: `["/", ["/", 0, 1], x]` becomes `["/", 0, x]`, which no lift or deletion reaches (an
    operand is a number or a node). Learnt once per place of the record's kind, like a record's deletions
    (a chain of thirty `["/", n, node]` would probe `["/", n, 0]` thirty times a round)."""
    parent = get_node(search.current, path[:-1]) if path else None
    if not (isinstance(parent, (dict, list)) and is_tuple(parent)):
        return False
    kind_of, place = signature(parent), path[-1]
    if not any(signature(other) == kind_of and is_int(other[place]) for other in _containers(search.current)):
        return False  # nothing in the payload says a number may stand there
    return tried(search.memory, ("number", kind_of, place), lambda: search.consider(set_node(search.current, path, 0)))


def _containers(value: Any) -> Iterator[Any]:
    if isinstance(value, (dict, list)):
        yield value
        for child in value.values() if isinstance(value, dict) else value:
            yield from _containers(child)


def _may_be_null(search: Search, path: Path) -> bool:
    """A container is made null only as a part of a record (a dict's value, a heap node's subtree) in
    a payload that already holds a null: never the payload itself, nor one of a list's like items,
    nor a part of a format with no nulls in it (an expression tree, where every such probe is refuted)."""
    parent = get_node(search.current, path[:-1]) if path else None
    record = isinstance(parent, dict) or (isinstance(parent, list) and is_tuple(parent))
    return record and _holds_null(search.current)


def _holds_null(value: Any) -> bool:
    children = value.values() if isinstance(value, dict) else value if isinstance(value, list) else ()
    return value is None or any(_holds_null(child) for child in children)


def _slot(search: Search, path: Path, candidate: Any) -> Slot | None:
    """A leaf made null anywhere, or its simplest value inside a record, is remembered by the leaf's
    place in its parent's kind; not a number (whether 0 fails depends on the other values), not a
    container (whether a subtree can go null depends on what it holds)."""
    node = get_node(search.current, path)
    parent = get_node(search.current, path[:-1]) if path else None
    record = parent is not None and is_tuple(parent)
    if isinstance(node, (dict, list)) or kind(node) == "number" or (candidate is not None and not record):
        return None
    key = path[-1] if record else None
    return ("value", signature(parent), key, kind(node), kind(candidate))


def _reduce_typed(search: Search, path: Path, node: Any) -> bool:
    if isinstance(node, dict):
        return _empty_a_key(search, path, node) or absorb_neighbours(search, path, node)
    if isinstance(node, list):
        return _sort_children(search, path, node) | absorb_neighbours(search, path, get_node(search.current, path))
    if isinstance(node, str):
        return _shorten_string(search, path)
    if is_int(node):
        return smaller_int(search, path, node)
    if isinstance(node, float):
        return any(search.consider(set_node(search.current, path, candidate)) for candidate in _simpler_floats(node))
    return False


def sort_lists(search: Search) -> bool:
    """Sort lists again once the values have moved: the value pass sorts a list before its children
    shrink, and `[-4537353, 0, 8]` leaves it as `[1, 0, 2]`. Deletion in a payload of a few numbers,
    which comes next, then probes the sorted list, the one the round that confirms the stop sees."""
    return sweep(search, _sort_at)


def _sort_at(search: Search, path: Path) -> bool:
    node = get_node(search.current, path)
    return isinstance(node, list) and _sort_children(search, path, node)


def _sort_children(search: Search, path: Path, node: list) -> bool:
    """Children in canonical order: the same multiset, the smallest arrangement of it. Only where the
    children are all of one JSON kind: a list of mixed kinds is usually a tuple, whose order is its meaning."""
    if len({_kind(child) for child in node}) != 1:
        return False
    ordered = sorted(node, key=shortlex_key)
    return ordered != node and search.consider(set_node(search.current, path, ordered))


def _kind(value: Any) -> str:
    return "number" if isinstance(value, (int, float)) and not isinstance(value, bool) else type(value).__name__


def _empty_a_key(search: Search, path: Path, node: dict) -> bool:
    if "" in node:
        return False
    for key in sorted(node):
        renamed = {("" if k == key else k): v for k, v in node.items()}
        if search.consider(set_node(search.current, path, renamed)):
            return True
    return False


def _trim(search: Search, path: Path, *, keep_prefix: bool) -> bool:
    """Bisection for the shortest prefix (or suffix) that still fails: a culprit inside a long
    string costs two logarithms, not a probe per character. Bisection presumes that longer cuts
    keep failing; every cut is still checked, so a wrong presumption costs evaluations, never
    correctness, and the character pass that follows finds what it skipped."""
    text = get_node(search.current, path)

    def cut(length: int) -> Any:
        return set_node(search.current, path, text[:length] if keep_prefix else text[len(text) - length :])

    lo, hi = 0, len(text)  # cut(hi) is the text itself; cut(lo) is "", tried by the value pass
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if search.would_accept(cut(mid)):
            hi = mid
        else:
            lo = mid
    return hi < len(text) and search.consider(cut(hi))


def _shorten_string(search: Search, path: Path) -> bool:
    """Trim to the shortest failing prefix, then suffix (bisection); then delete runs of characters."""
    changed = _trim(search, path, keep_prefix=True) | _trim(search, path, keep_prefix=False)
    index = 0
    while True:
        text = get_node(search.current, path)
        if index >= len(text):
            return changed

        def cut(count: int, text: str = text, at: int = index) -> Any:
            return set_node(search.current, path, text[:at] + text[at + count :])

        count = find_largest(lambda k: search.would_accept(cut(k)), len(text) - index)
        if count > 0 and search.consider(cut(count)):
            changed = True
        else:
            index += 1


def _simpler_floats(number: float) -> Iterator[int | float]:
    if number < 0:
        yield -number
    if number.is_integer():
        yield int(number)
        return
    yield math.trunc(number)
    for digits in range(0, 6):
        yield round(number, digits)
