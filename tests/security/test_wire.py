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
