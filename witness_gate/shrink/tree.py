"""Paths into JSON trees and the small searches the shrinker's moves share; pure, no I/O."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

Path = tuple[Any, ...]


def get_node(value: Any, path: Path) -> Any:
    for part in path:
        try:
            value = value[part]
        except (KeyError, IndexError, TypeError):
            raise LookupError(f"no node at {path!r}") from None
    return value


def set_node(value: Any, path: Path, new: Any) -> Any:
    """A copy of `value` with the node at `path` replaced; untouched branches are shared."""
    if not path:
        return new
    head, rest = path[0], path[1:]
    copy = dict(value) if isinstance(value, dict) else list(value)
    copy[head] = set_node(value[head], rest, new)
    return copy


def set_nodes(value: Any, changes: dict[Path, Any]) -> Any:
    for path, new in changes.items():
        value = set_node(value, path, new)
    return value


def child_keys(node: Any) -> list[Any]:
    """The children's keys in canonical order (sorted dict keys, list indices)."""
    if isinstance(node, dict):
        return sorted(node)
    if isinstance(node, list):
        return list(range(len(node)))
    return []


def is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def int_leaves(value: Any, path: Path = ()) -> Iterator[tuple[Path, int]]:
    """Every integer in the tree with its path, in canonical document order."""
    if is_int(value):
        yield path, value
    for key in child_keys(value):
        yield from int_leaves(value[key], path + (key,))


def descendants(value: Any, depth: int) -> Iterator[Any]:
    """The nodes below `value` down to `depth` levels, nearest first."""
    level = [value]
    for _ in range(depth):
        level = [node[key] for node in level for key in child_keys(node)]
        yield from level


def drop_run(node: dict | list, index: int, count: int) -> dict | list:
    if isinstance(node, dict):
        gone = set(sorted(node)[index : index + count])
        return {k: v for k, v in node.items() if k not in gone}
    return node[:index] + node[index + count :]


def simpler_values(node: Any) -> list[Any]:
    """The simplest value of the node's type, then null."""
    if node is None:
        return []
    if isinstance(node, bool):
        return [False, None]
    if isinstance(node, (int, float)):
        return [0, None]
    if isinstance(node, str):
        return ["", None]
    if isinstance(node, list):
        return [[], None]
    return [{}, None]


def find_largest(holds: Callable[[int], bool], limit: int) -> int:
    """Largest k in [0, limit] with holds(k), assuming holds(0); exponential probe, then bisect."""
    if limit <= 0 or not holds(1):
        return 0
    lo = 1
    hi = 2
    while hi <= limit and holds(hi):
        lo = hi
        hi *= 2
    return _split(lo, min(hi, limit + 1), holds)[0]


NEARLY_STUCK = 1000  # past this target, one more step down: is the number one step from stuck?


def find_smallest(holds: Callable[[int], bool], limit: int, *, step: bool = True) -> int:
    """Smallest k in [0, limit] with holds(k), taking holds(limit) as given (bisection presumes that
    holds is monotone; every probe is still checked by the caller's door).

    Zero first, then one step down from the limit: a number that cannot move at all is given up
    after two probes. Then small targets up from zero (`_targets`: 1, 2, 4, then powers of ten) and
    bisection between the last that did not hold and the first that did: a number far from zero
    whose failure needs only a small value costs a few probes, not a walk down from where it
    started. A target that holds is first checked against the number just below it: a threshold
    such as `x >= 10` or `len >= 100` is a round number, found then in two probes, not a bisection.
    A number that held one step down but none of the targets up to `NEARLY_STUCK` is probed two steps
    down once: `-32768` beside `-2`, whose sum must stay below -32768, holds at -32767 and not at
    -32766, which is one probe, not a climb through the powers of ten and a bisection. Without `step` (a number that has just moved, such as
    a negative one turned positive) neither step down is probed.
    """
    if limit == 0 or holds(0):
        return 0
    if step and limit > 1 and not holds(limit - 1):
        return limit
    top = limit - 1 if step and limit > 1 else limit  # the smallest known to hold
    below = 0
    for target in _targets():
        if target > top or (not step and target == top):
            break  # past the smallest known to hold (top itself is known: probing it is free); a number that has
            # just moved and is itself a target is not probed one step down either (-1000 turned 1000: 999)
        if holds(target):
            if target - 1 > below and not holds(target - 1):
                return target
            known = target - 1 if target - 1 > below else target  # the smallest known to hold now
            return _split(below, known, lambda mid: not holds(mid))[1]
        below = target
        if step and target == NEARLY_STUCK and top - 1 > below:
            if not holds(top - 1):
                return top
            top -= 1
    return _split(below, top, lambda mid: not holds(mid))[1]


def _targets() -> Iterator[int]:
    """1, 2, 4, then 10, 100, 1000, ...: the shortest numbers of each length in decimal, which is
    what canonical bytes count (doubling all the way probed 8 and 16 on the way to 10)."""
    yield from (1, 2, 4)
    power = 10
    while True:
        yield power
        power *= 10


def _split(left: int, right: int, on_left: Callable[[int], bool]) -> tuple[int, int]:
    """Bisection of (left, right) down to neighbours, `left` on the side where on_left holds."""
    while right - left > 1:
        mid = (left + right) // 2
        if on_left(mid):
            left = mid
        else:
            right = mid
    return left, right
