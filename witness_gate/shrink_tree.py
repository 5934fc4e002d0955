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


def find_smallest(holds: Callable[[int], bool], limit: int) -> int:
    """Smallest k in [0, limit] with holds(k), taking holds(limit) as given (bisection presumes that
    holds is monotone; every probe is still checked by the caller's door).

    From both ends at once: small targets up from zero (0, 1, 2, 4, ...) and steps down from the
    limit (1, 2, 4, ... below it), each bracket closed by bisection. A number far from zero whose
    failure needs only a small value costs a few probes, and so does one that can barely move; a
    number that cannot move one step down is given up after the first step.
    """
    below, above = -1, limit  # holds(below) is false (or below is -1), holds(above) is true
    target, step = 0, 1
    while above - below > 1:
        if below < target < above:
            if holds(target):
                above = target
                break
            below, target = target, (1 if target == 0 else target * 2)
        down = limit - step
        if below < down < above:
            if not holds(down):
                below = down
                break
            above, step = down, step * 2
        elif target >= above:
            break
    return _split(below, above, lambda mid: not holds(mid))[1]


def _split(left: int, right: int, on_left: Callable[[int], bool]) -> tuple[int, int]:
    """Bisection of (left, right) down to neighbours, `left` on the side where on_left holds."""
    while right - left > 1:
        mid = (left + right) // 2
        if on_left(mid):
            left = mid
        else:
            right = mid
    return left, right
