"""What the shrinker learns from refuted candidates: shapes the failure needs whole; pure, no I/O.

A slot names a kind of local move on a kind of node (delete the child at index 1 of a list of
three whose first child is a string; make the child at key "a" of such a dict null). A slot that
has been refuted and never accepted is skipped everywhere after: the failure has shown it needs
that shape (an expression node's three parts, a heap node's key), so probing the move again on
another node of the same kind, or on the same node once its values have shrunk, is a call that
Hypothesis's shrinker, which only proposes what its generator can draw, never makes.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any

Slot = tuple[Hashable, ...]


def kind(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, float)):
        return "number"
    return "null" if value is None else type(value).__name__


def signature(node: Any) -> Hashable:
    """The kind of a container: a dict's keys; a list's width and its first child's kind (a tag
    such as an operator or a key, whose parts after it vary in kind from node to node)."""
    if isinstance(node, dict):
        return ("dict", tuple(sorted(node)))
    if isinstance(node, list):
        return ("list", len(node), kind(node[0]) if node else None)
    return kind(node)


def is_tuple(node: Any) -> bool:
    """Children of more than one kind: a record whose shape is its meaning, not a collection of
    like items (whether one of those can go depends on the values, which shrink meanwhile)."""
    children = node.values() if isinstance(node, dict) else node
    return len({kind(child) for child in children}) > 1


def tried(memory: dict[Slot, bool], slot: Slot | None, probe: Callable[[], bool]) -> bool:
    """Run `probe` unless `slot` was refuted and never accepted; remember what it said.

    A slot of None is never remembered."""
    if slot is None:
        return probe()
    if memory.get(slot) is False:
        return False
    accepted = probe()
    memory[slot] = memory.get(slot, False) or accepted
    return accepted
