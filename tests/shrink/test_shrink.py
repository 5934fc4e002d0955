"""The structural shrinker (SPEC §3): properties that hold for any payload and predicate."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from witness_gate.model.canonical import canonical_bytes, shortlex_key
from witness_gate.shrink import shrink, single_deletions
from strategies import json_values


def leaves(value):
    if isinstance(value, dict):
        for v in value.values():
            yield from leaves(v)
    elif isinstance(value, list):
        for v in value:
            yield from leaves(v)
    else:
        yield value


def containers(value):
    if isinstance(value, (dict, list)):
        yield value
        for v in value.values() if isinstance(value, dict) else value:
            yield from containers(v)


def make_predicate(threshold: int):
    """Several reasons, so that a reduction can change the reason and must be refused."""

    def run(value):
        ints = [x for x in leaves(value) if isinstance(x, int) and not isinstance(x, bool)]
        if any(x >= threshold for x in ints):
            return "big-int"
        if any(isinstance(c, list) and len(c) >= 2 for c in containers(value)):
            return "long-list"
        if any(isinstance(x, str) and "a" in x for x in leaves(value)):
            return "has-a"
        return None

    return run


class Counting:
    def __init__(self, run):
        self.run = run
        self.seen = set()
        self.calls = 0

    def __call__(self, value):
        self.calls += 1
        self.seen.add(canonical_bytes(value))
        return self.run(value)


failing_cases = st.tuples(json_values, st.integers(min_value=-5, max_value=50)).filter(
    lambda case: make_predicate(case[1])(case[0]) is not None
)


@settings(max_examples=150, deadline=None)
@given(failing_cases, st.integers(min_value=0, max_value=40))
def test_witness_fails_with_the_target_reason_and_is_never_larger(case, max_steps):
    start, threshold = case
    run = make_predicate(threshold)
    target = run(start)
    result = shrink(start, run, target_reason=target, max_steps=max_steps)
    assert run(result.witness) == target
    assert result.reason == target
    assert shortlex_key(result.witness) <= shortlex_key(start)
    assert result.steps <= max_steps
    assert not (result.stopped and result.budget_hit)
    assert result.stopped or result.budget_hit
    if result.steps == 0:
        assert result.witness == start


@settings(max_examples=100, deadline=None)
@given(failing_cases)
def test_same_input_same_witness_same_evaluations(case):
    start, threshold = case
    target = make_predicate(threshold)(start)
    first = Counting(make_predicate(threshold))
    second = Counting(make_predicate(threshold))
    a = shrink(start, first, target_reason=target)
    b = shrink(start, second, target_reason=target)
    assert canonical_bytes(a.witness) == canonical_bytes(b.witness)
    assert (a.steps, a.evaluations, a.stopped) == (b.steps, b.evaluations, b.stopped)
    # results are cached by canonical digest: every predicate call is a distinct payload
    assert first.calls == len(first.seen) == a.evaluations


@settings(max_examples=100, deadline=None)
@given(failing_cases)
def test_a_local_stop_is_one_minimal_under_deletion(case):
    start, threshold = case
    run = make_predicate(threshold)
    target = run(start)
    result = shrink(start, run, target_reason=target, max_steps=1000, max_evals=100000)
    assert result.stopped
    for smaller in single_deletions(result.witness):
        assert run(smaller) != target


def test_a_candidate_failing_with_another_reason_is_refused():
    # emptying the list would fail too, but with another reason: it must not be taken
    def run(value):
        if not isinstance(value, dict) or not isinstance(value.get("items"), list):
            return "shape"
        if not value["items"]:
            return "empty"
        return "has-seven" if 7 in value["items"] else None

    start = {"items": [1, 2, 7, 3, 4], "note": "wide"}
    result = shrink(start, run, target_reason="has-seven")
    assert result.witness == {"items": [7]}
    assert result.stopped and not result.budget_hit


def test_budget_hit_when_steps_run_out():
    start = {"items": list(range(50)), "x": "long string here"}
    run = lambda v: "fails" if isinstance(v, dict) else None  # noqa: E731 - any dict fails
    cut = shrink(start, run, target_reason="fails", max_steps=0)
    assert cut.budget_hit and not cut.stopped and cut.witness == start and cut.steps == 0
    done = shrink(start, run, target_reason="fails")
    assert done.stopped and not done.budget_hit and done.witness == {}


def test_budget_hit_when_evaluations_run_out():
    start = {"k%d" % i: i for i in range(40)}
    run = lambda v: "x" if len(v) >= 20 else None  # noqa: E731
    result = shrink(start, run, target_reason="x", max_evals=3)
    assert result.budget_hit and not result.stopped
    assert result.evaluations == 3
    assert run(result.witness) == "x"


def test_a_wide_fixture_shrinks_to_the_culprit_in_few_evaluations():
    lines = [{"sku": f"s{i}", "qty": i % 7 + 1, "price": 100 + i} for i in range(300)]
    lines[173] = {"sku": "bad", "qty": 12, "price": 0}
    start = {"orders": [{"id": "o1", "lines": lines}], "meta": {"source": "export", "rows": 300}}

    def run(value):
        try:
            bad = any(l["qty"] >= 10 and l["qty"] * l["price"] - 5 < 0 for o in value["orders"] for l in o["lines"])
        except (KeyError, TypeError):
            return "raise:KeyError"
        return "negative-total" if bad else None

    result = shrink(start, run, target_reason="negative-total")
    assert result.witness == {"orders": [{"lines": [{"price": 0, "qty": 10}]}]}
    assert result.stopped
    assert result.evaluations < 120


def test_strings_shorten_and_numbers_move_toward_zero():
    def run(v):
        ok = isinstance(v, dict) and isinstance(v.get("s"), str) and isinstance(v.get("n"), int)
        return "long" if ok and len(v["s"]) >= 3 and v["n"] <= -40 else None
    result = shrink({"s": "abcdefgh", "n": -1000}, run, target_reason="long")
    assert result.witness["n"] == -40
    assert len(result.witness["s"]) == 3 and result.witness["s"] in "abcdefgh"


def test_floats_move_toward_simpler_values():
    run = lambda v: "hot" if isinstance(v, dict) and isinstance(v.get("t"), (int, float)) and v["t"] > 2.5 else None  # noqa: E731
    result = shrink({"t": 98.123456}, run, target_reason="hot")
    assert result.witness["t"] in (3, 3.0)


def test_the_start_must_fail_with_the_target():
    with pytest.raises(ValueError, match="does not fail with 'x'"):
        shrink({"a": 1}, lambda v: None, target_reason="x")
    with pytest.raises(ValueError, match="does not fail with 'x'"):
        shrink({"a": 1}, lambda v: "y", target_reason="x")


def test_a_renamed_key_and_neighbouring_numbers_in_one_dict():
    # the key pass renames "a" to "", then the number pass must read the dict as it is now
    def run(v):
        return "big" if isinstance(v, dict) and sum(x for x in v.values() if isinstance(x, int)) > 10 else None

    result = shrink({"a": 7, "b": 8, "note": "x"}, run, target_reason="big")
    assert run(result.witness) == "big" and result.witness == {"": 11}  # one key carries the whole sum


def test_single_deletions_lists_every_one_step_smaller_value():
    assert list(single_deletions({"a": [1, 2], "b": 3})) == [
        {"b": 3}, {"a": [2], "b": 3}, {"a": [1], "b": 3}, {"a": [1, 2]}]
    assert list(single_deletions([])) == [] and list(single_deletions("text")) == []
