"""The wire's forms: data round-trips exactly (a property-based test), and whatever a hostile subject sends is either a
value the judge rebuilt itself or a WireFault, never anything else and never code."""

from __future__ import annotations

import math
import os
import socket
from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import given, settings, strategies as st

from witness_gate.sandbox.judge.peer import Handle, Peer
from witness_gate.sandbox.wire.frames import Channel, WireFault, dumps, loads
from witness_gate.sandbox.wire.values import decode, encode

scalars = (st.none() | st.booleans() | st.integers() | st.integers(min_value=2**12_000, max_value=2**12_100)
           | st.floats(allow_nan=False) | st.text() | st.binary() | st.decimals(allow_nan=False)
           | st.fractions() | st.datetimes() | st.dates() | st.timedeltas() | st.complex_numbers(allow_nan=False))
hashable = st.recursive(scalars.filter(lambda v: not isinstance(v, complex) or True),
                        lambda inner: st.tuples(inner, inner) | st.frozensets(inner, max_size=3), max_leaves=8)
data = st.recursive(scalars, lambda inner: st.lists(inner, max_size=4) | st.tuples(inner, inner)
                    | st.dictionaries(hashable, inner, max_size=4) | st.sets(hashable, max_size=3)
                    | st.builds(bytearray, st.binary())
                    | st.builds(range, st.integers(), st.integers(), st.integers().filter(bool))
                    | st.builds(slice, inner, inner, inner), max_leaves=20)


def _refuse(value, inner):
    raise TypeError(type(value).__name__)


def same(a, b) -> bool:
    """Equal, with exactly the same types all the way down (and NaN equal to itself)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, float) and math.isnan(a):
        return math.isnan(b)
    return a == b


@settings(max_examples=300, deadline=None)
@given(data)
def test_data_crosses_exactly(value):
    tree = loads(dumps(encode(value, _refuse)))
    assert same(decode(tree, {}), value)


@settings(max_examples=100, deadline=None)
@given(st.floats())
def test_every_float_crosses_exactly_nan_and_infinities_too(value):  # (a NaN's sign is not kept)
    back = decode(loads(dumps(encode(value, _refuse))), {})
    assert same(back, value) and (math.isnan(value) or math.copysign(1, back) == math.copysign(1, value))


json_trees = st.recursive(st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
                          lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
                              st.sampled_from(["T", "D", "S", "Z", "B", "A", "I", "F", "C", "N", "Q", "W", "H", "K", "E",
                                               "G", "U", "X", "Y", "L", "V", "M", "x"]), inner, min_size=1, max_size=2), max_leaves=12)


@settings(max_examples=500, deadline=None)
@given(json_trees)
def test_whatever_the_subject_sends_is_rebuilt_here_or_refused(tree):
    peer = Peer(None)
    try:
        value = peer.decode(tree)
    except WireFault:
        return
    except (TypeError, ValueError, KeyError, IndexError, AttributeError) as exc:  # the forms' own checks said no
        pytest.fail(f"{type(exc).__name__} escaped the wire's checks for {tree!r}: {exc}")
    _only_data_or_the_judge_s_own(value)


def _only_data_or_the_judge_s_own(value, depth=0):
    assert depth < 300
    if isinstance(value, (list, tuple, set, frozenset)):
        for item in value:
            _only_data_or_the_judge_s_own(item, depth + 1)
    elif isinstance(value, dict):
        for k, v in value.items():
            _only_data_or_the_judge_s_own(k, depth + 1)
            _only_data_or_the_judge_s_own(v, depth + 1)
    elif isinstance(value, type):
        assert value.__module__ != "builtins" or issubclass(value, BaseException) or value.__name__ in ("int", "str")
    else:
        assert type(value).__module__ in ("builtins", "decimal", "fractions", "datetime") or isinstance(
            value, (Handle, BaseException)) or hasattr(type(value), "__witness_class__"), type(value)


@pytest.mark.parametrize("frame", [
    b"\x00\x00\x00\x05[NaN]", b"\x00\x00\x00\x09[1]", b"\xff\xff\xff\xff", b"\x00\x00\x00\x02\xff\xfe",
    b"\x00\x00", b"\x00\x00\x00\x06[1] x ", b"\x00\x00\x00\x04[1,]",
])
def test_a_malformed_frame_is_a_fault_of_the_wire(frame):
    mine, theirs = socket.socketpair()
    theirs.sendall(frame)
    theirs.close()
    channel = Channel(mine.fileno())
    with pytest.raises(WireFault):
        channel.receive()
    mine.close()


def test_a_message_over_the_cap_is_refused_both_ways():
    mine, theirs = socket.socketpair()
    channel = Channel(mine.fileno(), max_frame=64)
    with pytest.raises(WireFault, match="too_large"):
        channel.send(["x" * 100])
    os.write(theirs.fileno(), (1000).to_bytes(4, "big"))
    with pytest.raises(WireFault, match="too_large"):
        channel.receive()
    mine.close()
    theirs.close()


def test_exact_values_of_the_standard_library_cross_as_the_judge_s_own():
    for value in (Decimal("-0.000"), Fraction(-7, 3), Decimal("1E+5")):
        back = decode(loads(dumps(encode(value, _refuse))), {})
        assert type(back) is type(value) and str(back) == str(value)


# -- a call across a real pair of processes: JSON's own data goes as it is, everything else as tagged trees ---------

def _shape(value):
    """The exact types of a value, all the way down, as the subject's code sees them."""
    if isinstance(value, (list, tuple, set, frozenset)):
        items = sorted((_shape(item) for item in value), key=repr) if isinstance(value, (set, frozenset)) else \
            [_shape(item) for item in value]
        return [type(value).__name__, items]
    if isinstance(value, dict):
        return ["dict", [[_shape(k), _shape(v)] for k, v in value.items()]]
    return type(value).__name__


def _mutate(value):
    """What an implementation may do to the arguments it was handed, in place."""
    value["lines"].append({"qty": 9})
    value["lines"][0]["qty"] = -1
    value["tags"].sort()
    del value["note"]
    return len(value["lines"])


@pytest.fixture(scope="module")
def subject():
    from witness_gate.sandbox.subject.server import Server

    probe = type(os)("wire_probe")
    probe.shape, probe.echo, probe.mutate, probe.sort = _shape, lambda *values: list(values), _mutate, list.sort
    probe.append_to_first = lambda first, *others: first.append(99)
    mine, theirs = socket.socketpair()
    pid = os.fork()
    if pid == 0:  # the subject: a Server in a process of its own, as in the sandbox
        mine.close()
        import sys

        sys.modules["wire_probe"] = probe
        try:
            Server(Channel(theirs.fileno()), os.getcwd()).serve()
        finally:
            os._exit(0)
    theirs.close()
    peer = Peer(Channel(mine.fileno()))
    module = peer.import_module("wire_probe")[0]
    yield {name: peer.ask("getattr", module._w_number, name=name) for name in ("shape", "echo", "mutate", "sort", "append_to_first")}
    mine.close()
    os.waitpid(pid, 0)


class _Key(str):
    pass


class _Count(int):
    pass


class _Table(dict):
    pass


@pytest.mark.parametrize("value, crosses_as_it_is", [
    ({"a": [1, 2.5, None, True, "x"], "b": {"c": []}}, True),
    ([[[]], {}, -0.0, 2**62 - 1], True),
    ((1, 2), False), ([1, (2,)], False), ({1: "a"}, False), ({_Key("a"): 1}, False), ([_Count(3)], False),
    (_Table(a=1), False), ([True, 2**62], False), ([float("nan")], False), ({"a": {b"x"}}, False),
])
def test_only_json_s_own_data_is_sent_as_it_is(value, crosses_as_it_is):
    from witness_gate.sandbox.wire.values import json_data

    assert json_data(value) is crosses_as_it_is


@settings(max_examples=200, deadline=None)
@given(data)
def test_an_argument_reaches_the_implementation_with_its_exact_types_and_comes_back_so(subject, value):
    # the subject's code sees what the property handed it, JSON's own data (sent as it is) or not (tagged)
    assert subject["shape"](value) == _shape(value)
    back = subject["echo"](value, [value])
    assert same(back[0], value) and same(back[1][0], value)


def test_an_argument_changed_in_place_is_changed_for_the_property_too(subject):
    for order in ({"lines": [{"qty": 2}], "tags": ["b", "a"], "note": ""},  # JSON's own data: sent as it is
                  {"lines": [{"qty": 2}], "tags": ["b", "a"], "note": (1,)}):  # a tuple inside: tagged
        lines = order["lines"]
        assert subject["mutate"](order) == 2
        assert order == {"lines": [{"qty": -1}, {"qty": 9}], "tags": ["a", "b"]}
        assert order["lines"] is lines, "the property's own list, changed where it is"
    numbers = [3, 1, 2]  # a list whose tagged tree is itself
    subject["sort"](numbers)
    assert numbers == [1, 2, 3]


@pytest.mark.parametrize("tagged", [False, True])
def test_a_change_to_an_argument_another_argument_also_holds_reaches_the_property(subject, tagged):
    # found by a reviewer: every argument written back after a change put the unchanged copy a later argument held
    # over the changed one (in one process, `f(xs, xs)` appending to its first leaves xs == [1, 2, 99])
    for held in (lambda xs: xs, lambda xs: {"held": xs}):
        xs = [1, 2] + ([(3,)] if tagged else [])  # a tuple inside: tagged, else sent as it is
        subject["append_to_first"](xs, held(xs))
        assert xs[-1] == 99, xs
