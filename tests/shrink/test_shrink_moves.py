"""Each of the shrinker's moves finds what it exists for (issue 16), and a step is a round."""

import copy

from hypothesis import example, given, settings
from hypothesis import strategies as st

from witness_gate.model.canonical import canonical_bytes, shortlex_key
from witness_gate.shrink import shrink


def ints_only(value, length):
    return isinstance(value, list) and len(value) == length and all(
        isinstance(x, int) and not isinstance(x, bool) for x in value)


def probes(payload, run):
    """The witness `payload` shrinks to under `run`, and every value the shrinker called `run` on."""
    seen = []
    result = shrink(payload, lambda v: seen.append(v) or run(v), target_reason=run(payload))
    return result.witness, seen


@settings(max_examples=60, deadline=None)
@given(st.integers(min_value=1, max_value=1000), st.integers(min_value=2**40, max_value=10**30))
def test_a_number_far_from_zero_costs_probes_by_its_target_not_its_size(threshold, start):
    # a walk down from the start costs about log2(start) probes twice over; small targets first do not
    result = shrink(start, lambda v: "big" if isinstance(v, int) and v >= threshold else None, target_reason="big")
    assert result.witness == threshold
    assert result.evaluations <= 4 * (threshold.bit_length() + 2)


@settings(max_examples=60, deadline=None)
@given(st.integers(min_value=1, max_value=500), st.integers(min_value=0, max_value=10**15))
def test_equal_values_shrink_together(threshold, extra):
    # three copies: moving a pair in step would leave the third behind
    start = [threshold + extra] * 3
    run = lambda v: "equal" if ints_only(v, 3) and v[0] == v[1] == v[2] >= threshold else None  # noqa: E731
    assert shrink(start, run, target_reason="equal").witness == [threshold] * 3


@settings(max_examples=60, deadline=None)
@given(st.integers(min_value=10, max_value=1000), st.integers(min_value=1, max_value=9),
       st.integers(min_value=0, max_value=2**64))
def test_a_pair_shifts_together_keeping_its_difference(threshold, gap, extra):
    start = [threshold + extra + gap, threshold + extra]
    run = lambda v: "gap" if ints_only(v, 2) and v[0] >= threshold and v[0] - v[1] == gap else None  # noqa: E731
    result = shrink(start, run, target_reason="gap")
    assert result.witness == [threshold, threshold - gap]
    assert result.evaluations < 120  # a walk in steps of a few units would take thousands


@settings(max_examples=60, deadline=None)
@given(st.integers(min_value=3, max_value=10**9), st.data())
def test_value_moves_between_numbers_in_different_containers(total, data):
    # each list keeps one number and the sum must stay: only a transfer between them shrinks it
    first = data.draw(st.integers(min_value=1, max_value=total - 1))

    def run(v):
        shaped = isinstance(v, list) and len(v) == 2 and all(ints_only(part, 1) and part[0] for part in v)
        return "sum" if shaped and v[0][0] + v[1][0] == total else None

    result = shrink([[first], [total - first]], run, target_reason="sum")
    # no longer than [[1], [total - 1]]; shorter where a digit is saved ([[2], [9]] for 11)
    assert len(canonical_bytes(result.witness)) <= len(canonical_bytes([[1], [total - 1]]))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.integers(min_value=-5, max_value=5), min_size=1, max_size=6), min_size=2, max_size=8))
def test_sibling_lists_merge_into_one(lists):
    limit = sum(len(part) for part in lists) - 1

    def run(v):
        shaped = isinstance(v, list) and all(isinstance(part, list) for part in v)
        return "long" if shaped and sum(len(part) for part in v) > limit else None

    assert shrink(lists, run, target_reason="long").witness == [[0] * (limit + 1)]


def heap_like(floor_depth):
    leaf = st.none()
    return st.recursive(leaf, lambda inner: st.tuples(st.integers(0, 50), inner, inner).map(list), max_leaves=floor_depth)


def well_formed(node):
    return node is None or (isinstance(node, list) and len(node) == 3 and isinstance(node[0], int)
                            and well_formed(node[1]) and well_formed(node[2]))


def has_culprit(node):
    return node is not None and (node[0] >= 100 or has_culprit(node[1]) or has_culprit(node[2]))


@settings(max_examples=60, deadline=None)
@given(heap_like(12), st.lists(st.sampled_from([1, 2]), min_size=1, max_size=6))
def test_a_node_is_replaced_by_its_descendant(tree, way):
    # the culprit sits deep in a tree whose every node must keep its shape [key, left, right]
    culprit = [250, None, None]
    node = root = [1, copy.deepcopy(tree), None]
    for side in way:
        if node[side] is None:
            node[side] = [1, None, None]
        node = node[side]
    node[1] = culprit
    run = lambda v: "big" if well_formed(v) and has_culprit(v) else None  # noqa: E731
    assert shrink(root, run, target_reason="big").witness == [100, None, None]


def test_a_step_is_a_round_so_a_wide_deterministic_failure_ends_at_a_local_stop():
    order = {"id": "ord-0", "currency": "GBP", "customer": {"name": "c", "tier": "gold"},
             "lines": [{"sku": "a", "qty": 2, "price": 151, "note": "gift wrap"}]}
    orders = [dict(order, id=f"ord-{i}") for i in range(200)]
    run = lambda v: "many" if isinstance(v, dict) and isinstance(v.get("orders"), list) and len(v["orders"]) >= 150 else None  # noqa: E731
    result = shrink({"orders": orders, "rates": {"GBP": 1.0}}, run, target_reason="many")
    assert result.stopped and not result.budget_hit  # with the defaults: 32 steps, 2000 evaluations
    assert result.witness == {"orders": [{}] * 150}
    assert 1 <= result.steps <= 3  # hundreds of reductions (every order emptied), in a round or two


@settings(max_examples=40, deadline=None)
@given(st.integers(min_value=1, max_value=8), st.integers(min_value=100, max_value=10**6))
def test_a_node_is_replaced_by_a_descendant_of_another_shape(depth, value):
    # {"next": {"next": {"value": v}}}: deleting a "next" loses the culprit, so only a lift shrinks it
    start = {"value": value}
    for _ in range(depth):
        start = {"next": start}

    def found(v):
        return isinstance(v, dict) and ((isinstance(v.get("value"), int) and v["value"] >= 100) or found(v.get("next")))

    assert shrink(start, lambda v: "found" if found(v) else None, target_reason="found").witness == {"value": 100}


def expression_depth(e):
    if isinstance(e, int) and not isinstance(e, bool):
        return 0
    if isinstance(e, list) and len(e) == 3 and e[0] in ("+", "*"):
        left, right = expression_depth(e[1]), expression_depth(e[2])
        return None if left is None or right is None else 1 + max(left, right)
    return None


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.sampled_from("+*"), st.booleans(), st.integers(-10**6, 10**6)), min_size=3, max_size=12))
def test_a_record_shape_refuted_once_is_not_probed_on_every_node(layers):
    # every layer of ["op", left, right] is needed: deleting a part, or emptying the operator, is refuted
    # on the first node and then known for all of them (about 11 calls a layer when each node is probed)
    expression = 1
    for op, on_left, value in layers:
        expression = [op, expression, value] if on_left else [op, value, expression]
    deep = len(layers)
    run = lambda v: "deep" if (expression_depth(v) or 0) >= deep else None  # noqa: E731
    result = shrink(expression, run, target_reason="deep")
    assert expression_depth(result.witness) == deep
    assert result.evaluations <= 7 * deep + 10


def two_cycle(v):
    # a list of indices into itself in which some l[l[i]] == i with l[i] != i (the "coupling" problem)
    if not (isinstance(v, list) and all(isinstance(x, int) and not isinstance(x, bool) and 0 <= x < len(v) for x in v)):
        return None
    return "two-cycle" if any(x != i and v[x] == i for i, x in enumerate(v)) else None


@settings(max_examples=60, deadline=None)
@given(st.integers(min_value=2, max_value=12).flatmap(
    lambda n: st.tuples(st.lists(st.integers(0, n - 1), min_size=n, max_size=n), st.integers(0, n - 1), st.integers(0, n - 1))))
def test_indices_into_the_list_itself_are_renumbered_as_elements_go(case):
    values, i, j = case
    if i == j:
        j = (i + 1) % len(values)
    values[i], values[j] = j, i  # plant a two-cycle among indices that other elements may point at
    result = shrink(values, two_cycle, target_reason="two-cycle")
    assert result.witness == [1, 0]


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(min_value=1, max_value=10**6), min_size=3, max_size=10))
def test_a_record_leaf_that_cannot_be_emptied_is_learnt_once(values):
    # every record ["x", n] must keep its tag: emptying it or making it null is refuted on the first
    # record and then known for the others (two calls a record more when each is probed)
    count = len(values)

    def run(v):
        tagged = isinstance(v, list) and len(v) == count and all(
            isinstance(r, list) and len(r) == 2 and r[0] == "x" and isinstance(r[1], int) for r in v)
        return "all" if tagged else None

    result = shrink([["x", n] for n in values], run, target_reason="all")
    assert result.witness == [["x", 0]] * count
    assert result.evaluations <= 7 * count + 8


def node_count(tree):
    if tree is None:
        return 0
    if not (isinstance(tree, list) and len(tree) == 3 and isinstance(tree[0], int)):
        return None
    left, right = node_count(tree[1]), node_count(tree[2])
    return None if left is None or right is None else 1 + left + right


@settings(max_examples=30, deadline=None)
@given(st.integers(min_value=3, max_value=5), st.data())
def test_the_parts_of_a_record_that_must_stay_apart_are_learnt_once(depth, data):
    # every node of a full tree [key, left, right] is needed, so merging a node's two subtrees into one
    # list is refuted on the first node and then known for all (one call a node more when each is probed)
    def full(d):
        return None if d == 0 else [data.draw(st.integers(1, 10**6)), full(d - 1), full(d - 1)]

    nodes = 2 ** depth - 1
    run = lambda v: "all" if node_count(v) == nodes else None  # noqa: E731
    result = shrink(full(depth), run, target_reason="all")
    assert node_count(result.witness) == nodes and result.witness[0] == 0
    assert result.evaluations <= 59 * nodes // 10


def zero_division(e):
    # the "calculator" problem: an expression with no literal `x / 0` that still divides by zero
    def shaped(x):
        return is_number(x) or (isinstance(x, list) and len(x) == 3 and x[0] in ("+", "/") and shaped(x[1]) and shaped(x[2]))

    def literal_zero_divisor(x):
        return not is_number(x) and ((x[0] == "/" and x[2] == 0) or literal_zero_divisor(x[1]) or literal_zero_divisor(x[2]))

    def value(x):
        return x if is_number(x) else value(x[1]) + value(x[2]) if x[0] == "+" else value(x[1]) // value(x[2])

    if not shaped(e) or literal_zero_divisor(e):
        return None
    try:
        value(e)
    except ZeroDivisionError:
        return "zero-division"
    return None


def is_number(x):
    return isinstance(x, int) and not isinstance(x, bool)


def test_a_lift_of_the_same_shape_is_probed_once_a_round():
    # a chain ["op", n, rest] of 30 links (Hypothesis's start for one seed of the calculator problem): the
    # general lift used to probe again the same-shape descendants the same-shape lift had just refused
    numbers = {"a": -291804188639, "b": 32767, "c": -423193, "d": 965464}
    links = "/a /b +b +c /d /a /b +c /d /a /b +b +b +c /d /a /b +c /d /a /d /a /b +c /d /a /b +b +c /d".split()
    expression = 32767
    for link in reversed(links):
        expression = [link[0], numbers[link[1]], expression]
    result = shrink(expression, zero_division, target_reason="zero-division")
    assert len(canonical_bytes(result.witness)) == 17  # ["/", 0, ["/", 0, 1]] or ["/", 0, ["+", 0, 0]]
    assert result.evaluations <= 51  # 50, and one probe of the right operand made 0, refuted and learnt


def holds_null(value):
    children = value.values() if isinstance(value, dict) else value if isinstance(value, list) else ()
    return value is None or any(holds_null(child) for child in children)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.sampled_from("+*"), st.booleans(), st.integers(0, 999)), min_size=1, max_size=8),
       st.lists(st.lists(st.integers(0, 999), min_size=2, max_size=5), min_size=2, max_size=6))
def test_a_container_is_not_made_null_where_the_payload_has_no_null(layers, lists):
    # an expression tree (records with no null in them) and a list of like lists: every null in place of a
    # container is refuted there, so none is probed (numbers are below 1000, so null is never shorter)
    expression = 1
    for op, on_left, value in layers:
        expression = [op, expression, value] if on_left else [op, value, expression]
    deep = len(layers)
    width = sum(map(len, lists))
    for start, run in ((expression, lambda v: "deep" if (expression_depth(v) or 0) >= deep else None),
                       (lists, lambda v: "long" if isinstance(v, list) and all(isinstance(p, list) for p in v)
                        and sum(map(len, v)) >= width else None)):
        assert not any(holds_null(v) for v in probes(start, run)[1])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(min_value=1, max_value=10**9), min_size=3, max_size=3), st.data())
def test_neighbours_are_not_absorbed_where_the_transfer_was_refuted(values, data):
    # three positive numbers that must stay three and keep a sum: a transfer (a zero beside a + b) is
    # refuted, so that pair absorbed into one number (a list of two with the whole sum) is not probed after it
    total = data.draw(st.integers(min_value=3, max_value=sum(values)))
    witness, seen = probes(values, lambda v: "sum" if ints_only(v, 3) and min(v) > 0 and sum(v) >= total else None)
    assert sum(witness) >= total
    for x, y in (v for v in seen if ints_only(v, 2) and sum(v) >= total):
        assert not {(0, x, y), (x, 0, y), (x, y, 0)} & {tuple(v) for v in seen[:seen.index([x, y])]}


@settings(max_examples=60, deadline=None)
@given(st.integers(min_value=3, max_value=10**9), st.data())
def test_a_pair_of_numbers_is_not_absorbed_into_one(total, data):
    # a list of two numbers that must stay two: their sum alone, [total], is a list of one like both
    # deletions, and is not probed (even where the transfer [0, total] is longer, so never probed)
    first = data.draw(st.integers(min_value=1, max_value=total - 1))
    witness, seen = probes([first, total - first], lambda v: "sum" if ints_only(v, 2) and min(v) > 0 and sum(v) == total else None)
    assert sum(witness) == total and [total] not in seen


def drops_a_repeated_zero(v, seen):
    """Whether `v` is an earlier probe that held two zeros, with one of them gone."""
    return any(len(u) == len(v) + 1 and u.count(0) > 1 and u[:u.index(0)] + u[u.index(0) + 1:] == v for u in seen)


def deletions_probed(payload, seen, run):
    """The probes shorter than the witness of their time (the last smaller one that failed)."""
    current, shorter = payload, []
    for v in seen:
        if len(v) < len(current):
            shorter.append(v)
        if run(v) == run(payload) and shortlex_key(v) < shortlex_key(current):
            current = v
    return shorter


def deletions_seen(payload, run):
    """The candidates shorter than the start, and the witness."""
    witness, seen = probes(payload, run)
    return [v for v in seen if isinstance(v, list) and len(v) < len(payload)], witness


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(min_value=10**6, max_value=10**15), min_size=3, max_size=4, unique=True),
       st.integers(min_value=11, max_value=10**6))
def test_a_few_numbers_are_deleted_only_once_their_values_moved(values, start):
    # a payload of three distinct numbers, and of two equal ones: every deletion is refuted, and is
    # probed on the final values only, never on the numbers of the start (but a repeated 0, which goes
    # at once: tests/shrink/test_shrink_records.py)
    three = lambda v: "three" if ints_only(v, len(v)) and len(set(v)) >= 3 else None  # noqa: E731
    witness, seen = probes(values, three)
    shorter = [v for v in deletions_probed(values, seen, three) if not drops_a_repeated_zero(v, seen)]
    assert witness == [0, 1, 2] and shorter and not any(set(v) & set(values) for v in shorter)
    shorter, witness = deletions_seen([start] * 2, lambda v: "equal" if ints_only(v, 2) and v[0] == v[1] >= 10 else None)
    assert witness == [10, 10] and shorter == [[10]]


@settings(max_examples=80, deadline=None)
@given(st.lists(st.integers(min_value=-10**15, max_value=10**15), min_size=3, max_size=5, unique=True).filter(
    lambda v: any(not 0 <= x < len(v) for x in v)))  # not indices into the list itself (renumber_indices' case)
def test_a_list_is_sorted_again_once_its_values_moved(values):
    # three distinct numbers whose values move out of order ([1, 0, 2]): the list is sorted again in the
    # same round, before the deletions that come after the values, so no deletion is probed unsorted
    shorter, witness = deletions_seen(values, lambda v: "three" if ints_only(v, len(v)) and len(set(v)) >= 3 else None)
    assert len(canonical_bytes(witness)) <= len(canonical_bytes([0, 1, -1]))  # [0, 1, 2] but from [0, 1, -1]
    assert all(v == sorted(v) for v in shorter if len(v) == 2 and set(v) <= {0, 1, 2})


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(min_value=-10**9, max_value=10**9), min_size=3, max_size=3, unique=True), st.integers(0, 2))
def test_a_few_numbers_are_not_emptied_at_once(values, twin):
    # four numbers, three distinct: one copy can go, and the whole list, which their values need, is not
    # probed after it as it is in a wide container (where one culprit is the rule)
    start = values + [values[twin]]
    shorter, witness = deletions_seen(start, lambda v: "three" if ints_only(v, len(v)) and len(set(v)) >= 3 else None)
    assert len(witness) == 3 and [] not in shorter


@settings(max_examples=30, deadline=None)
@given(st.integers(min_value=2, max_value=4), st.data())
def test_a_node_is_replaced_by_a_child_not_a_grandchild(depth, data):
    # every node of a full tree is needed, so every lift is refuted: a node is probed as each of its
    # children, and a grandchild, reached by lifting again at the child, is not probed in its place
    def full(d):
        return None if d == 0 else [data.draw(st.integers(10**6, 10**9)), full(d - 1), full(d - 1)]

    tree = full(depth)
    nodes = 2 ** depth - 1
    witness, seen = probes(tree, lambda v: "all" if node_count(v) == nodes else None)
    assert node_count(witness) == nodes
    grandchildren = [grand for child in tree[1:] for grand in child[1:] if grand is not None]
    assert tree[1] in seen and not any(grand in seen for grand in grandchildren)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(min_value=10**6, max_value=10**15), min_size=5, max_size=6, unique=True))
def test_a_payload_cut_down_to_a_few_numbers_is_left_to_the_late_deletion(values):
    # five or six distinct numbers, three needed: the first deletion leaves three, whose single deletions
    # are not probed on the numbers of the start but after the values moved
    three = lambda v: "three" if ints_only(v, len(v)) and len(set(v)) >= 3 else None  # noqa: E731
    witness, seen = probes(values, three)
    assert witness == [0, 1, 2]
    few = next(v for v in seen if len(v) == 3 and three(v))
    assert not any(few[:i] + few[i + 1:] in seen for i in (1, 2))


@settings(max_examples=60, deadline=None)
@given(st.integers(min_value=10, max_value=10**6), st.integers(min_value=0, max_value=10**12))
def test_a_pair_is_mirrored_before_it_transfers(threshold, extra):
    # [x, x + 1] that must differ by one: shifted down to [t, t + 1], it is mirrored to [t, t - 1] before
    # any transfer is probed, so the transfer of [t, t + 1] ([0, 2t + 1]) never is
    witness, seen = probes([threshold + extra, threshold + extra + 1],
                           lambda v: "adjacent" if ints_only(v, 2) and v[0] >= threshold and abs(v[0] - v[1]) == 1 else None)
    assert witness == [threshold, threshold - 1] and [0, 2 * threshold + 1] not in seen


@settings(max_examples=60, deadline=None)
@given(st.integers(min_value=1, max_value=10**6), st.integers(min_value=4, max_value=10**9))
@example(threshold=250, times=4)  # found by Hypothesis in a full suite: -1000 turned 1000, itself a target, probed 999
def test_a_number_that_just_lost_its_sign_is_not_probed_one_step_down(threshold, times):
    # -x turned x has just moved, so the step down that tells a stuck number (x - 1) is not probed
    start = -threshold * times
    witness, seen = probes(start, lambda v: "big" if isinstance(v, int) and abs(v) >= threshold else None)
    assert witness == threshold and -start in seen and -start - 1 not in seen
