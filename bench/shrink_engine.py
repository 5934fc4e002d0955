"""Hypothesis's own engine and shrinker, started from a given fixture (it drives internals).

The engine is handed the choice sequence that draws the fixture as its first interesting example
(what replaying a seeded example database does). Internals change between releases, so this is
pinned to the version it was checked against; `hypothesis_untested()` says what to do otherwise.
"""

from __future__ import annotations

import random
from typing import Any

import hypothesis
from hypothesis import HealthCheck, settings, strategies as st

from witness_gate.model.canonical import canonical_bytes

TESTED_HYPOTHESIS = "6.155.2"


def hypothesis_untested() -> str | None:
    """Why the engine comparison cannot run on the installed Hypothesis, or None."""
    if hypothesis.__version__ == TESTED_HYPOTHESIS:
        return None
    return (f"bench/shrink.py drives Hypothesis's internal engine (ConjectureRunner, ConjectureData, "
            f"InterestingOrigin), checked against Hypothesis {TESTED_HYPOTHESIS}; this is "
            f"{hypothesis.__version__}. Install hypothesis=={TESTED_HYPOTHESIS}, or check run_hypothesis "
            f"in bench/shrink_engine.py against this version and update TESTED_HYPOTHESIS.")


if hypothesis_untested() is None:
    from hypothesis.internal.conjecture.data import ConjectureData, Status
    from hypothesis.internal.conjecture.engine import ConjectureRunner
    from hypothesis.internal.escalation import InterestingOrigin

Predicate = Any


class Counted:
    """Counts distinct payloads a predicate was asked about."""

    def __init__(self, predicate: Predicate) -> None:
        self.predicate = predicate
        self.seen: set[bytes] = set()
        self.calls = 0

    def __call__(self, value: Any) -> str | None:
        self.calls += 1
        self.seen.add(canonical_bytes(value))
        return self.predicate(value)


KINDS = {"null-first": ["null", "bool", "int", "float", "str", "list", "dict"],
         "int-first": ["int", "str", "list", "dict", "bool", "null", "float"]}


def json_strategy(order: list[str]):
    @st.composite
    def value(draw):
        kind = order[draw(st.integers(0, len(order) - 1))]
        if kind == "null":
            return None
        if kind == "bool":
            return draw(st.booleans())
        if kind == "int":
            return draw(st.integers())
        if kind == "float":
            return draw(st.floats(allow_nan=False, allow_infinity=False))
        if kind == "str":
            return draw(st.text())
        if kind == "list":
            out = []
            while draw(st.booleans()):
                out.append(draw(value()))
            return out
        out = {}
        while draw(st.booleans()):
            key = draw(st.text())
            out[key] = draw(value())
        return out

    return value()


def choices_for(value: Any, order: list[str]) -> list[Any]:
    """The choice sequence with which json_strategy(order) draws exactly `value`."""
    if value is None:
        return [order.index("null")]
    if isinstance(value, bool):
        return [order.index("bool"), value]
    if isinstance(value, int):
        return [order.index("int"), value]
    if isinstance(value, float):
        return [order.index("float"), value]
    if isinstance(value, str):
        return [order.index("str"), value]
    if isinstance(value, list):
        out = [order.index("list")]
        for item in value:
            out += [True, *choices_for(item, order)]
        return out + [False]
    out = [order.index("dict")]
    for key, item in value.items():
        out += [True, key, *choices_for(item, order)]
    return out + [False]


def run_hypothesis(fixture: Any, predicate: Predicate, target: str, order: list[str]) -> tuple[Any, int]:
    """Hypothesis's own engine, handed the fixture's choice sequence as its first interesting example.

    That is what replaying a seeded example database does; calling the engine directly also lifts
    Hypothesis's size limit, which the larger fixtures exceed.
    """
    if hypothesis_untested():
        raise RuntimeError(hypothesis_untested())
    counted = Counted(predicate)
    strategy = json_strategy(order)
    origin = InterestingOrigin.from_exception(AssertionError(target))

    def test_function(data: ConjectureData) -> None:
        if counted(data.draw(strategy)) == target:
            data.mark_interesting(origin)

    config = settings(database=None, deadline=None, suppress_health_check=list(HealthCheck), max_examples=10**6)
    runner = ConjectureRunner(test_function, settings=config, random=random.Random(0), ignore_limits=True)
    start = runner.cached_test_function(tuple(choices_for(fixture, order)))
    if start.status != Status.INTERESTING:
        raise RuntimeError(f"the encoding does not reproduce the fixture: {start.status}")
    runner.shrink_interesting_examples()
    [best] = runner.interesting_examples.values()
    return ConjectureData.for_choices(best.choices).draw(strategy), len(counted.seen)
