"""The shrinker's structural moves: delete children, lift a descendant, merge sibling lists."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import Any, Protocol

from witness_gate.model.canonical import shortlex_key
from witness_gate.shrink.memory import Slot, is_tuple, signature, tried
from witness_gate.shrink.tree import Path, child_keys, descendants, drop_run, find_largest, get_node, is_int, set_node

LIFT_DEPTH = 1  # children; a grandchild is reached by lifting again, at the child (depth 2 probed
# every leaf of a heap in the place of each node above it, in vain)
LIFT_LIMIT = 8  # the smallest few distinct candidates per node; a wide node is not tried whole


class Search(Protocol):
    """What a move needs of the shrinker: the witness and the one door for candidates."""

    current: Any
    memory: dict[Slot, bool]

    def fails(self, candidate: Any) -> bool: ...

    def refuted(self, candidate: Any) -> bool: ...

    def smaller(self, candidate: Any) -> bool: ...

    def would_accept(self, candidate: Any) -> bool: ...

    def consider(self, candidate: Any) -> bool: ...


def sweep(search: Search, reduce_node: Callable[[Search, Path], bool]) -> bool:
    """Visit every node breadth first, from the tree as it is after earlier commits.

    A node's reduction only touches its own subtree, and its children are queued after
    it, so every queued path stays valid.
    """
    changed = False
    queue: deque[Path] = deque([()])
    while queue:
        path = queue.popleft()
        changed |= reduce_node(search, path)
        node = get_node(search.current, path)
        queue.extend(path + (key,) for key in child_keys(node))
    return changed


FEW = 4  # the payload itself as a list of at most this many numbers: its deletions wait for the values


def delete_structure(search: Search) -> bool:
    """Delete the longest runs of each container's children (all of them first, so emptying it),
    except in the lists whose deletions wait for the values (`delete_after_values`)."""
    return sweep(search, lambda s, path: _reduce_structure(s, path, late=False))


def delete_after_values(search: Search) -> bool:
    """`delete_structure` for a payload of a few numbers (`FEW`), after the values have moved.

    Whether one of a few numbers can go is decided by their values (three distinct, a difference, a
    palindrome): every deletion is refuted until the values are final, so deleting first costs each
    one twice, before the values move and again in the round that confirms the stop. (A pair of
    numbers anywhere was tried too: bound5's lists of two then move their sums first, and cost more.)
    """
    return _reduce_structure(search, (), late=True)


def delete_repeated_zeros(search: Search) -> bool:
    """In a payload of a few numbers, a 0 beside another 0 goes at once, not after the values: its value
    is final and the other 0 keeps what a zero says there. The values are then searched in the list the
    late deletion would leave, so the round that confirms the stop finds their probes cached
    (`[115, 0, 0, x]` that must hold three distinct numbers: `[0, 1, 2]` found in `[0, 0, 1, 2]` had
    its next values probed again without the second zero)."""
    changed = False
    while deletes_late(node := search.current, ()) and node.count(0) > 1:
        index = node.index(0)
        if not search.consider(node[:index] + node[index + 1 :]):
            return changed
        changed = True
    return changed


def deletes_late(node: Any, path: Path) -> bool:
    return not path and isinstance(node, list) and len(node) <= FEW and all(is_int(x) for x in node)


def lift_descendants(search: Search) -> bool:
    """Replace a container by one of its own descendants of the same kind and another shape, smallest first.

    An expression `["/", 0, ["/", 0, x]]` becomes `["/", 0, x]`, a heap loses a layer: what
    deleting children or simplifying values can never do, since the subtree must keep its shape.
    """
    return sweep(search, _lift)


def lift_similar(search: Search) -> bool:
    """`lift_descendants` for descendants of the very same shape (as many children, the same keys).

    It runs before deletion: a recursive tree (expressions, heaps) loses whole layers first, so
    deletion is not probed, child by child, in layers that are about to go.
    """
    return sweep(search, lambda s, path: _lift(s, path, similar=True))


def merge_sibling_lists(search: Search) -> bool:
    """Concatenate list children of one list: all into the first, else neighbouring pairs.

    `[[0, 0, 0], [0, 0]]` becomes `[[0, 0, 0, 0, 0]]`, one pair of brackets fewer per merge.
    """
    return sweep(search, _merge)


def _reduce_structure(search: Search, path: Path, *, late: bool) -> bool:
    node = get_node(search.current, path)
    if not isinstance(node, (dict, list)) or not node or deletes_late(node, path) != late:
        return False
    changed = False  # from index 0 the tail is the whole container: emptying it is the first run
    index = 0
    while True:
        node = get_node(search.current, path)
        if index >= len(node) or deletes_late(node, path) != late:
            return changed  # a payload cut down to a few numbers is left to the late pass
        changed |= _delete_longest_run(search, path, index, node, whole_tail=not late)
        index += 1


def _delete_longest_run(search: Search, path: Path, index: int, node: dict | list, *, whole_tail: bool) -> bool:
    """Delete the longest run of children from `index` that keeps the failure.

    The child at `index` alone first; then everything from it on, in one probe (a wide fixture
    usually has one culprit, and one probe for the whole tail saves a search; a few numbers, whose
    values decide, have none, so there the search alone); then the search.
    """
    room = len(node) - index

    def without(count: int) -> Any:
        return set_node(search.current, path, drop_run(node, index, count))

    slot = ("delete", signature(node), index) if is_tuple(node) else None
    if not tried(search.memory, slot, lambda: search.would_accept(without(1))):
        return False  # the child is needed, so (as bisection presumes) is every run that holds it
    if whole_tail and room > 1 and search.consider(without(room)):
        return True
    return search.consider(without(find_largest(lambda k: search.would_accept(without(k)), room)))


def _lift(search: Search, path: Path, *, similar: bool = False) -> bool:
    changed = False
    while True:
        node = get_node(search.current, path)
        if not isinstance(node, (dict, list)):
            return changed
        candidates = {}
        for inner in descendants(node, LIFT_DEPTH):
            # each lift probes only its own shapes: the same shape is lift_similar's, tried this round
            if type(inner) is type(node) and inner and similar == _same_shape(inner, node):
                candidates.setdefault(shortlex_key(inner), inner)  # an empty one is deletion's
        lifted = next((inner for _, inner in sorted(candidates.items(), key=lambda kv: kv[0])[:LIFT_LIMIT]
                       if search.consider(set_node(search.current, path, inner))), None)
        if lifted is None:
            return changed
        changed = True


def _same_shape(a: dict | list, b: dict | list) -> bool:
    return len(a) == len(b) if isinstance(a, list) else a.keys() == b.keys()


def _merge(search: Search, path: Path) -> bool:
    changed = False
    while _merge_once(search, path):
        changed = True
    return changed


def _merge_once(search: Search, path: Path) -> bool:
    node = get_node(search.current, path)
    if not isinstance(node, list):
        return False
    lists = [i for i, child in enumerate(node) if isinstance(child, list)]
    if len(lists) < 2:
        return False
    # a record's list children are its parts (a heap node's subtrees): learnt once that they stay apart
    slot = ("merge", signature(node)) if is_tuple(node) else None
    return tried(search.memory, slot, lambda: _merge_lists(search, path, node, lists))


def _merge_lists(search: Search, path: Path, node: list, lists: list[int]) -> bool:
    first, rest = lists[0], set(lists[1:])
    everything = [x for i in lists for x in node[i]]
    together = [everything if i == first else child for i, child in enumerate(node) if i not in rest]
    if search.consider(set_node(search.current, path, together)):
        return True
    for left, right in zip(lists, lists[1:]):  # with two lists the pair is the whole merge: cached
        pair = node[:left] + [node[left] + node[right]] + node[left + 1 : right] + node[right + 1 :]
        if search.consider(set_node(search.current, path, pair)):
            return True
    return False



def renumber_indices(search: Search) -> bool:
    """In a list of integers that index into the list itself, delete an element no other one points
    at and renumber those that pointed past it.

    `[0, 0, 4, 0, 2]` (a two-cycle between 2 and 4) becomes `[1, 0]`, which deletion alone never
    reaches, as every deletion there breaks an index. It runs before deletion, which would probe
    every element in vain; a list among other items of a list is left until deletion has had those.
    """
    return sweep(search, _renumber_all)


def _renumber_all(search: Search, path: Path) -> bool:
    parent = get_node(search.current, path[:-1]) if path else None
    if isinstance(parent, list) and len(parent) > 1:
        return False  # one of several like items: deleting its siblings comes first
    changed = False
    index = 0
    while _self_indexing(node := get_node(search.current, path)) and index < len(node):
        free = all(x != index for i, x in enumerate(node) if i != index)
        if free and search.consider(set_node(search.current, path, [x - (x > index) for i, x in enumerate(node) if i != index])):
            changed, index = True, 0  # an element another one pointed at may be free now
        else:
            index += 1
    return changed


def _self_indexing(node: Any) -> bool:
    """Integers in [0, len) that are not all the identity (that list is sorted, not a map)."""
    return (isinstance(node, list) and len(node) > 1 and all(is_int(x) and 0 <= x < len(node) for x in node)
            and any(x != i for i, x in enumerate(node)))
