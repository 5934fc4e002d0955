"""The shrinker's moves on records whose parts differ in kind, from issue 16's later rounds (the first
ones are in tests/shrink/test_shrink_moves.py): a part that is a node becomes a number."""

from hypothesis import given, settings
from hypothesis import strategies as st

from witness_gate.model.canonical import canonical_bytes
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
    # no longer than ["+", 0, ["+", 0, threshold]]; shorter where a digit is saved (["+", 1, 999] for 1,000)
    assert len(canonical_bytes(witness)) <= len(canonical_bytes(["+", 0, ["+", 0, threshold]]))


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


def int_lists(v, width):
    return isinstance(v, list) and len(v) == width and all(
        isinstance(part, list) and all(isinstance(x, int) and not isinstance(x, bool) for x in part) for part in v)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(min_value=1, max_value=10**9).map(lambda x: x * st_sign(x)), min_size=3, max_size=8)
       .filter(lambda xs: sum(xs) != 0))
def test_a_list_among_like_items_becomes_its_sum_in_one_probe(numbers):
    # the first list must keep its sum: shifting and transferring pair after pair costs 25 to 100 calls
    total = sum(numbers)
    run = lambda v: "sum" if int_lists(v, 3) and sum(v[0]) == total else None  # noqa: E731
    result = shrink([numbers, [], []], run, target_reason="sum")
    assert result.witness == [[total], [], []]
    assert result.evaluations <= 24


def st_sign(x):
    return -1 if x % 3 == 0 else 1  # a mix of signs, drawn with the number


@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=9), min_size=4, max_size=10, unique=True))
def test_a_sum_refuted_among_like_lists_is_probed_once(exponents):
    # powers of three, each needed where it is: no sum of two is one of them, so every sum is refuted
    # (3 ** 9 + 3 ** 8 is below 2 ** 15: no sum passes 16 bits, where its wrapped value is probed too)
    start = [[3**a, 3**b] for a, b in zip(exponents[::2], exponents[1::2])]
    allowed = {x for part in start for x in part}
    seen = []

    def run(v):
        seen.append(v)
        whole = int_lists(v, len(start)) and sorted(x for part in v for x in part) == sorted(allowed)
        return "all" if whole else None

    shrink(start, run, target_reason="all")  # nothing can go: its lists are only sorted
    sums = [v for v in seen if isinstance(v, list) and any(
        isinstance(part, list) and len(part) == 1 and part[0] not in allowed for part in v)]
    assert len(sums) == 1


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(min_value=10, max_value=10**12).map(lambda x: x * st_sign(x)), min_size=3, max_size=5,
                unique=True))
def test_two_digits_in_a_list_are_not_moved_as_a_pair(numbers):
    # once [0, 1, 2] holds the three distinct numbers, only a pair move could probe [0, 0, 1] or [0, 0, 3]:
    # neither can be shorter than two digits side by side
    seen = []

    def run(v):
        seen.append(v)
        return "three" if int_list(v) and len(set(v)) >= 3 else None

    assert shrink(numbers, run, target_reason="three").witness == [0, 1, 2]
    after = seen[seen.index([0, 1, 2]):]
    assert [0, 0, 1] not in after and [0, 0, 3] not in after


def int_list(v):
    return isinstance(v, list) and all(isinstance(x, int) and not isinstance(x, bool) for x in v)


@settings(max_examples=60, deadline=None)
@given(st.integers(min_value=1, max_value=15), st.integers(min_value=1, max_value=10**30))
def test_a_round_threshold_is_found_without_a_bisection(digits, extra):
    # `x >= 10 ** digits`: the power of ten fails and the number just below it does not, so no bisection
    # between the powers of two around it (doubling then bisecting took about 6.6 probes a digit)
    threshold = 10**digits
    result = shrink(threshold + extra, lambda v: "big" if int_list([v]) and v >= threshold else None, target_reason="big")
    assert result.witness == threshold
    assert result.evaluations <= digits + 9  # (one more from 1,000 on: the step down for a nearly stuck number)


@settings(max_examples=60, deadline=None)
@given(st.integers(min_value=1001, max_value=10**15).filter(lambda n: n % 10))
def test_a_number_one_step_from_stuck_costs_a_few_probes(threshold):
    # a sum left by a transfer is often one step from where it must stay: after the targets up to 1,000
    # one probe two steps down tells it, where a bisection up to the threshold took a probe a bit
    result = shrink(threshold + 1, lambda v: "big" if int_list([v]) and v >= threshold else None,
                    target_reason="big")
    assert result.witness == threshold
    assert result.evaluations <= 12


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(min_value=10, max_value=10**9), min_size=2, max_size=2, unique=True))
def test_a_repeated_zero_in_a_few_numbers_goes_before_the_values_move(numbers):
    # [x, 0, 0, y] that must hold three distinct numbers: the values are searched without the second 0,
    # so no probe but the start holds four numbers (no pair move applies: a 0 beside a number, two zeros)
    x, y = numbers
    start = [x, 0, 0, y]
    seen = []

    def run(v):
        seen.append(v)
        return "three" if int_list(v) and len(set(v)) >= 3 else None

    assert shrink(start, run, target_reason="three").witness == [0, 1, 2]
    assert [v for v in seen if isinstance(v, list) and len(v) == 4] == [start]


def wrap16(x):
    return (x + 32768) % 65536 - 32768


@settings(max_examples=60, deadline=None)
@given(st.integers(min_value=32768, max_value=65534), st.data())
def test_a_sum_past_sixteen_bits_is_tried_as_the_sixteen_bits_hold_it(total, data):
    # two 16-bit numbers whose sum overflows, and the overflowed sum must stay: no value or pair move
    # keeps it (one number alone would leave the range), but the wrapped sum does, in one number
    first = data.draw(st.integers(min_value=total - 32767, max_value=32767))
    start = [[first, total - first], []]

    def run(v):
        shaped = isinstance(v, list) and len(v) == 2 and all(
            int_list(part) and all(-32768 <= x <= 32767 for x in part) for part in v)
        return "overflow" if shaped and wrap16(sum(v[0])) == wrap16(total) else None

    assert shrink(start, run, target_reason="overflow").witness == [[wrap16(total)], []]


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(min_value=1, max_value=1000), min_size=8, max_size=14), st.data())
def test_a_records_list_of_numbers_becomes_its_sum_in_one_probe(numbers, data):
    # a total over a record's field that must stay over a limit (bench/attempt_costs.py's property): 7 to 28
    # calls; without the sum, deletions, pair shifts and transfers walk the numbers down in 53 to 126 (15 to
    # 42 with the sum tried only after deletion)
    limit = data.draw(st.integers(min_value=max(0, sum(numbers) - min(numbers)), max_value=sum(numbers) - 1))

    def run(v):
        return "over" if isinstance(v, dict) and int_lists([v.get("items")], 1) and sum(v["items"]) > limit else None

    result = shrink({"items": numbers}, run, target_reason="over")
    assert result.witness == {"items": [limit + 1]}
    assert result.evaluations <= 36
