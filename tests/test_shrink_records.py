"""The shrinker's moves on records whose parts differ in kind, from issue 16's later rounds (the first
ones are in tests/test_shrink_moves.py): a part that is a node becomes a number."""

from hypothesis import given, settings
from hypothesis import strategies as st

from witness_gate.canonical import canonical_bytes
from witness_gate.shrink import shrink


def total(expression):
    """The sum of an expression of integers and ["+", left, right] nodes, or None for anything else."""
    if isinstance(expression, int) and not isinstance(expression, bool):
        return expression
    if not (isinstance(expression, list) and len(expression) == 3 and expression[0] == "+"):
        return None
    left, right = total(expression[1]), total(expression[2])
    return None if left is None or right is None else left + right


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=10**6), min_size=4, max_size=4), st.integers(1, 1000))
def test_a_part_of_a_record_becomes_a_number_as_in_other_records_of_its_kind(numbers, threshold):
    # the right operand must stay a node that carries the sum: only the left one can become a number
    a, b, c, d = numbers
    start = ["+", ["+", a, b], ["+", c, d + threshold]]

    def run(v):
        shaped = total(v) is not None and isinstance(v, list) and isinstance(v[2], list)
        return "big" if shaped and total(v[2]) >= threshold else None

    witness = shrink(start, run, target_reason="big").witness
    assert len(canonical_bytes(witness)) == len(canonical_bytes(["+", 0, ["+", 0, threshold]]))


def chain(v, value):
    """(nodes, what ends it) of a chain ["+", value, ["+", value, ... end]]."""
    depth = 0
    while isinstance(v, list) and len(v) == 3 and v[0] == "+" and v[1] == value:
        depth, v = depth + 1, v[2]
    return depth, v


@settings(max_examples=40, deadline=None)
@given(st.integers(min_value=3, max_value=12), st.integers(min_value=1, max_value=10**6))
def test_a_part_that_cannot_become_a_number_is_learnt_once(depth, value):
    # every node of the chain is needed, so a right operand made 0 is refuted: probed on one node only
    start = value
    for _ in range(depth):
        start = ["+", value, start]
    seen = []

    def run(v):
        seen.append(v)
        nodes, end = chain(v, value)
        return "deep" if nodes >= depth and end == value and not isinstance(end, bool) else None

    assert chain(shrink(start, run, target_reason="deep").witness, value) == (depth, value)
    # a chain cut short that ends in 0 is a node made 0 (the bottom value made 0 keeps every node)
    made_zero = [v for v in seen if chain(v, value)[0] < depth and chain(v, value)[1] == 0]
    assert len(made_zero) == 1
