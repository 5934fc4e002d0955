"""The shrinker's moves on integers: one toward zero, equal ones together, pairs in step."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from witness_gate.shrink.memory import is_tuple, signature, tried
from witness_gate.shrink.moves.structure import Search, sweep
from witness_gate.shrink.tree import Path, find_smallest, get_node, int_leaves, is_int, set_node, set_nodes


def smaller_int(search: Search, path: Path, number: int) -> bool:
    """The positive twin of a negative number, then the smallest magnitude that still fails (once the
    twin is taken, without the step down that tells a number stuck where it is: it has just moved)."""
    changed = False
    if number < 0 and search.consider(set_node(search.current, path, -number)):
        number, changed = -number, True
    sign = 1 if number > 0 else -1
    return _toward_zero(search, abs(number), lambda m: {path: sign * m}, step=not changed) or changed


def shrink_equal_values(search: Search) -> bool:
    """Move every copy of a repeated integer at once: `[383, 383]` to `[10, 10]` when they must agree."""
    changed = False
    repeated: dict[int, int] = {}
    for _, value in int_leaves(search.current):
        repeated[value] = repeated.get(value, 0) + 1
    for value in [v for v, count in repeated.items() if count > 1 and v != 0]:
        paths = [path for path, v in int_leaves(search.current) if v == value]
        if len(paths) < 2:
            continue  # an earlier commit of this pass moved them
        if value < 0 and search.consider(set_nodes(search.current, {p: -value for p in paths})):
            value, changed = -value, True
        sign = 1 if value > 0 else -1
        changed |= _toward_zero(search, abs(value), lambda m, paths=paths: {p: sign * m for p in paths})
    return changed


def sum_lists(search: Search) -> bool:
    """A list of integers among like items (one of a list's lists) becomes the list of their sum, in one
    probe: `[-4718, 712, 2338, -31193, 249]` whose sum must stay becomes `[-32612]`, where shifting pairs
    costs a search a pair; a sum past a machine width is tried wrapped too (`_sums`). Once refuted and
    never accepted among such lists, it is not probed again."""
    return sweep(search, lambda s, path: _sum_list(s, path, list))


def sum_fields(search: Search) -> bool:
    """A record's field that is a list of integers (`{"items": [7, 8, 9, ...]}`, a total that must stay over
    a limit) becomes the list of their sum, in one probe and before any deletion: deleting its numbers one
    at a time, each needed for the total, costs a probe each, and pairs walk them down after that. A record's
    such fields go together, then by halves (a 200-key record of lists would cost a probe a key before deletion
    took 198 of them in a few); a field once refuted alone for that key of such records is not probed again."""
    return sweep(search, _sum_record)


def _sum_record(search: Search, path: Path) -> bool:
    node = get_node(search.current, path)
    if not isinstance(node, dict):
        return False
    keys = sorted(key for key, value in node.items() if _summable(value)
                  and search.memory.get(("sum", signature(node), key)) is not False)
    return _sum_keys(search, path, keys)


def _sum_keys(search: Search, path: Path, keys: list) -> bool:
    if len(keys) < 2:
        return bool(keys) and _sum_list(search, path + (keys[0],), dict)
    node = get_node(search.current, path)
    if search.consider(set_nodes(search.current, {path + (key,): [sum(node[key])] for key in keys})):
        return True
    half = len(keys) // 2
    return _sum_keys(search, path, keys[:half]) | _sum_keys(search, path, keys[half:])


def _summable(node: Any) -> bool:
    return isinstance(node, list) and all(is_int(x) for x in node) and sum(x != 0 for x in node) >= 2


def _sum_list(search: Search, path: Path, among: type) -> bool:
    node = get_node(search.current, path)
    if not (path and isinstance(node, list) and all(is_int(x) for x in node)):
        return False
    if sum(x != 0 for x in node) < 2:
        return False  # the sum of one number and zeros is one of deletion's candidates
    parent = get_node(search.current, path[:-1])
    if not isinstance(parent, among) or (among is list and is_tuple(parent)):
        return False  # a record's part (an index beside a list, say) is no like item
    slot = ("sum", signature(parent), path[-1] if among is dict else None)
    return tried(search.memory, slot, lambda: any(
        search.consider(set_node(search.current, path, [total])) for total in _sums(sum(node))))


def _sums(total: int) -> Iterator[int]:
    """The sum, then, past a signed 16, 32 or 64-bit range, the sum those machine integers hold: an
    overflow is what such a sum does (`[1, 32767]` adds up to `[-32768]` in 16 bits)."""
    yield total
    for width in (16, 32, 64):
        if 2 ** (width - 1) <= total < 2**width:
            yield total - 2**width
        elif -(2**width) <= total < -(2 ** (width - 1)):
            yield total + 2**width


def shift_pairs(search: Search) -> bool:
    """For neighbouring integers (in document order, across containers), drive the one nearer zero
    toward zero while the other keeps their difference (shift); then try the farther one mirrored
    across the nearer (the distance kept, its sign flipped); then the one nearer zero toward zero while
    the other keeps their sum (transfer). The mirror comes before the transfer: `[10, 11]` that must
    differ by one becomes `[10, 9]` before the transfer has probed `[0, 21]` and `[9, 12]` in vain.

    `[2147483647, 2147483646]` that must differ by one becomes `[10, 9]` in one search; a sum split over
    two lists (`[[-18664], [-14105]]`) becomes `[[-32768], [-1]]`, also between two copies of one value
    (leaving them out saved difference-zero two calls but cost a bound5 seed its minimum). Not between
    two digits in a list of three or more (`_digits_in_a_list`).
    """
    changed = False
    index = 0
    while True:
        leaves = list(int_leaves(search.current))
        if index + 1 >= len(leaves):
            return changed
        (p, a), (q, b) = sorted(leaves[index : index + 2], key=lambda leaf: abs(leaf[1]))
        if _digits_in_a_list(search, p, a, q, b):
            index += 1
            continue
        if a != 0:
            changed |= _in_step(search, p, a, q, b, keep="difference")
            a, b = get_node(search.current, p), get_node(search.current, q)
        changed |= abs(2 * a - b) < abs(b) and search.consider(set_node(search.current, q, 2 * a - b))
        (p, a), (q, b) = sorted(((p, get_node(search.current, p)), (q, get_node(search.current, q))),
                                key=lambda leaf: abs(leaf[1]))
        if a != 0:
            changed |= _in_step(search, p, a, q, b, keep="sum")
        index += 1


def _digits_in_a_list(search: Search, p: Path, a: int, q: Path, b: int) -> bool:
    """Two digits (0 to 9) side by side in a list of three or more: no pair move shortens them (each
    stays a digit or grows), and the sum one of them could carry is absorb_neighbours' move there.
    `[0, 1, 2]` that must hold three distinct numbers is not probed as `[0, 0, 1]` and `[0, 0, 3]`."""
    return p[:-1] == q[:-1] and 0 <= a <= 9 and 0 <= b <= 9 and len(get_node(search.current, p[:-1])) >= 3


def absorb_neighbours(search: Search, path: Path, node: dict | list) -> bool:
    """For neighbouring integers a, b of one sign in one container: drop a and let b carry a + b.

    Not where the transfer that keeps both (a zero beside a + b) is known refuted: in a list whose
    length matters (`[10, 10]` of two equal numbers) that probe is a call for nothing."""
    if isinstance(node, list) and len(node) < 3:
        return False  # a pair: its sum alone is a list of one, like either deletion
    keys = sorted(node) if isinstance(node, dict) else list(range(len(node)))
    for left, right in zip(keys, keys[1:]):
        a, b = node[left], node[right]
        if not (is_int(a) and is_int(b)) or a == 0 or b == 0 or (a > 0) != (b > 0):
            continue
        transfers = ({path + (left,): 0, path + (right,): a + b}, {path + (left,): a + b, path + (right,): 0})
        if any(search.refuted(set_nodes(search.current, moved)) for moved in transfers):
            continue  # shift_pairs' transfer, which keeps both, was refuted: dropping one as well seldom fails
        if isinstance(node, dict):
            merged: Any = {k: (a + b if k == right else v) for k, v in node.items() if k != left}
        else:
            merged = node[:left] + [a + b] + node[right + 1 :]
        if search.consider(set_node(search.current, path, merged)):
            return True
    return False


def _in_step(search: Search, p: Path, a: int, q: Path, b: int, *, keep: str) -> bool:
    sign = 1 if a > 0 else -1

    def moved(m: int) -> dict[Path, int]:
        delta = a - sign * m
        return {p: sign * m, q: b - delta if keep == "difference" else b + delta}

    # the other number may grow: when even the nearest-zero end is no smaller, nothing between is
    nearest = min(1, abs(a) - 1)
    return search.smaller(set_nodes(search.current, moved(nearest))) and _toward_zero(search, abs(a), moved)


def _toward_zero(search: Search, magnitude: int, changes: Callable[[int], dict[Path, int]], *,
                 step: bool = True) -> bool:
    """Commit the smallest magnitude m < `magnitude` whose changes still fail, if any.

    The search steers by the failure alone: when one number grows as the other shrinks, the
    canonical bytes need not shrink at every step on the way, only at the end, which commits
    through the door like every other candidate.
    """
    def fails(m: int) -> bool:
        return search.fails(set_nodes(search.current, changes(m)))

    best = find_smallest(fails, magnitude, step=step)
    return best < magnitude and search.consider(set_nodes(search.current, changes(best)))

