"""Thirteen classic shrinking problems, written from their published descriptions (the "shrinking
challenge" collection and the SmartCheck benchmarks), as JSON predicates with a Hypothesis strategy.

Each predicate takes a JSON value and returns a reason code, or None for a pass; a value outside
the problem's domain (wrong shape, out of range, an unmet premise) passes, as an unmet `assume`
would. `minimum` is the published smallest counterexample, as JSON.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

from witness_gate.shrink.tree import is_int


@dataclass(frozen=True)
class Problem:
    name: str
    what: str
    strategy: st.SearchStrategy
    predicate: Callable[[Any], "str | None"]
    minimum: Any


def _ints(value: Any, lo: float = float("-inf"), hi: float = float("inf")) -> bool:
    return isinstance(value, list) and all(is_int(x) and lo <= x <= hi for x in value)


def _wrap16(x: int) -> int:
    return (x + 32768) % 65536 - 32768


def bound5(v):
    """Five lists of 16-bit integers: if each list sums below 256, the whole sums below 5 * 256."""
    if not (isinstance(v, list) and len(v) == 5 and all(_ints(part, -32768, 32767) for part in v)):
        return None
    if any(_wrap16(sum(part)) >= 256 for part in v):
        return None
    return "overflow" if _wrap16(sum(sum(part) for part in v)) >= 5 * 256 else None


def large_union(v):
    """A list of lists of integers holds at most four distinct integers in all."""
    if not (isinstance(v, list) and all(_ints(part) for part in v)):
        return None
    return "five-distinct" if len({x for part in v for x in part}) >= 5 else None


def reverse(v):
    """Reversing a list gives the same list."""
    return "not-a-palindrome" if _ints(v) and v != v[::-1] else None


def _expression(e: Any) -> bool:
    if is_int(e):
        return True
    return (isinstance(e, list) and len(e) == 3 and e[0] in ("+", "/")
            and _expression(e[1]) and _expression(e[2]))


def _no_literal_zero_divisor(e: Any) -> bool:
    if is_int(e):
        return True
    if e[0] == "/" and is_int(e[2]) and e[2] == 0:
        return False
    return _no_literal_zero_divisor(e[1]) and _no_literal_zero_divisor(e[2])


def _evaluate(e: Any) -> int:
    if is_int(e):
        return e
    left, right = _evaluate(e[1]), _evaluate(e[2])
    return left + right if e[0] == "+" else left // right


def calculator(v):
    """An expression of integers, + and / with no subterm `x / 0` evaluates without dividing by zero."""
    if not (_expression(v) and _no_literal_zero_divisor(v)):
        return None
    try:
        _evaluate(v)
    except ZeroDivisionError:
        return "zero-division"
    return None


def length_list(v):
    """A list of 1 to 100 integers in [0, 1000], its length drawn first: its maximum is below 900."""
    if not (_ints(v, 0, 1000) and 1 <= len(v) <= 100):
        return None
    return "max-too-big" if max(v) >= 900 else None


def difference(broken: Callable[[int], bool], reason: str):
    def predicate(v):
        if not (_ints(v, 1) and len(v) == 2):
            return None
        x, y = v
        return reason if x >= 10 and broken(abs(x - y)) else None

    return predicate


def distinct(v):
    """A list of integers has fewer than three distinct elements."""
    return "three-distinct" if _ints(v) and len(set(v)) >= 3 else None


def nested_lists(v):
    """The lengths of a list of lists sum to at most 10."""
    if not (isinstance(v, list) and all(isinstance(part, list) for part in v)):
        return None
    return "too-long" if sum(len(part) for part in v) > 10 else None


def deletion(v):
    """Removing the element at index i (the remove that takes the first copy) leaves no copy of it."""
    if not (isinstance(v, list) and len(v) == 2 and _ints(v[0]) and is_int(v[1]) and 0 <= v[1] < len(v[0])):
        return None
    items, index = v
    rest = list(items)
    rest.remove(items[index])
    return "still-present" if items[index] in rest else None


def coupling(v):
    """A list of indices into itself has no two-cycle: l[l[i]] != i wherever l[i] != i."""
    if not (_ints(v, 0) and all(x < len(v) for x in v)):
        return None
    return "two-cycle" if any(x != i and v[x] == i for i, x in enumerate(v)) else None


def _heap(h: Any, floor: float = float("-inf")) -> bool:
    if h is None:
        return True
    return (isinstance(h, list) and len(h) == 3 and is_int(h[0]) and h[0] >= floor
            and _heap(h[1], h[0]) and _heap(h[2], h[0]))


def _merge(a: Any, b: Any) -> Any:
    if a is None or b is None:
        return b if a is None else a
    if a[0] > b[0]:
        a, b = b, a
    return [a[0], _merge(a[2], b), a[1]]


def _listing(h: Any) -> list[int]:
    """Root first, then the right subtree, then the left (a walk with a stack)."""
    return [] if h is None else [h[0]] + _listing(h[2]) + _listing(h[1])


def binheap(v):
    """A binary heap (null or [key, heap, heap], children no smaller) converted to a sorted list by a
    wrong function (the root, then its merged children listed unsorted) comes out sorted."""
    if not _heap(v):
        return None
    wrong = [] if v is None else [v[0]] + _listing(_merge(v[1], v[2]))
    return "unsorted" if wrong != sorted(wrong) or sorted(_listing(v)) != wrong else None


@st.composite
def _heaps(draw, floor=None, room=None):
    room = draw(st.integers(0, 20)) if room is None else room
    if room <= 0 or draw(st.integers(0, 7)) == 0:
        return None
    key = draw(st.integers() if floor is None else st.integers(min_value=floor))
    return [key, draw(_heaps(key, room // 2)), draw(_heaps(key, room // 2))]


_expressions = st.deferred(lambda: st.integers() | st.tuples(st.just("+"), _expressions, _expressions)
                           | st.tuples(st.just("/"), _expressions, _expressions))
_positive_pairs = st.tuples(st.integers(min_value=1), st.integers(min_value=1))

PROBLEMS = [
    Problem("bound5", "16-bit sums that overflow", st.tuples(*[st.lists(st.integers(-32768, 32767))] * 5),
            bound5, [[-32768], [-1], [], [], []]),
    Problem("large-union", "five distinct across lists", st.lists(st.lists(st.integers())), large_union,
            [[0, 1, -1, 2, -2]]),
    Problem("reverse", "reverse(l) == l", st.lists(st.integers()), reverse, [0, 1]),
    Problem("calculator", "division by a zero sum", _expressions, calculator, ["/", 0, ["+", 0, 0]]),
    Problem("length-list", "max < 900, length drawn first",
            st.integers(1, 100).flatmap(lambda n: st.lists(st.integers(0, 1000), min_size=n, max_size=n)),
            length_list, [900]),
    Problem("difference-zero", "x < 10 or x != y", _positive_pairs,
            difference(lambda d: d == 0, "equal"), [10, 10]),
    Problem("difference-small", "x < 10 or |x - y| not in 1..4", _positive_pairs,
            difference(lambda d: 1 <= d <= 4, "close"), [10, 6]),
    Problem("difference-one", "x < 10 or |x - y| != 1", _positive_pairs,
            difference(lambda d: d == 1, "adjacent"), [10, 9]),
    Problem("distinct", "fewer than three distinct", st.lists(st.integers()), distinct, [0, 1, -1]),
    Problem("nested-lists", "lengths sum to at most 10", st.lists(st.lists(st.just(0))), nested_lists,
            [[0] * 11]),
    Problem("deletion", "remove takes every copy", st.tuples(st.lists(st.integers()), st.integers(0, 10)),
            deletion, [[0, 0], 0]),
    Problem("coupling", "no two-cycle of indices", st.lists(st.integers(0, 10)), coupling, [1, 0]),
    Problem("binheap", "a wrong heap-to-sorted-list", _heaps(), binheap,
            [0, None, [0, [0, None, None], [1, None, None]]]),
]
