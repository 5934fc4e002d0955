"""Data across the boundary, as a JSON tree: exact builtin values are copied, everything else goes to a side's own
`other` (a handle, a callback, an enum, a named tuple, an exception). Decoding rebuilds exact builtin types only and
hands every other tag to the receiving side's `tags`, at most MAX_DEPTH deep.

The tree: null, booleans, strings, finite floats and ints of fewer than INT_BITS bits are JSON's own; a list is an array; any
other value is an object with one key:
  T tuple, D dict (list of [key, value]), S set, Z frozenset, B bytes (base64), A bytearray (base64),
  I int (hex, when it is too long for decimal), F float that JSON has not (nan, inf, -inf), C complex [re, im],
  N Decimal (its str), Q Fraction [numerator, denominator], W date/time [kind, fields], M UUID (its hex),
  L slice [start, stop, step],
  V range [start, stop, step];
  and the sides' own: H handle, K callback, E enum member, G enum class, U named tuple, X exception,
  Y exception class, R an object lent by reference; from the judge only, J an iterator (its items, read in the
  judge), P a path [kind, text] and O a standard class by name.
"""

from __future__ import annotations

import binascii  # not base64, which imports re: 7 ms a start
import math
import sys

from witness_gate.sandbox.wire.frames import WireFault

_AS_IS = frozenset({str, bool, type(None)})
_WORD = 1 << 62
_LEAVES = frozenset({str, int, float, bool, type(None)})  # JSON's own: decoded as they are

MAX_DEPTH = 200  # nesting; the size of a message is capped by its frame (frames.MAX_FRAME) and the side's memory
INT_BITS = 12_000  # an int past this (about 3,600 digits) is sent in hex, which has no conversion limit


def encode(value, other, depth: int = 0):
    """The tree of `value`; `other(value, encode_inner)` encodes what is not exact builtin data."""
    kind = type(value)
    if kind is str or value is None or kind is bool:
        return value
    if kind is int:
        return value if value.bit_length() < INT_BITS else {"I": hex(value)}
    if kind is float:
        return value if math.isfinite(value) else {"F": repr(value)}
    if depth > MAX_DEPTH:
        raise WireFault("too_large", f"a value nested more than {MAX_DEPTH} deep")
    depth += 1
    # a leaf that is its own tree (a str, a bool, None, an int of one machine word) is not encoded by a call: most are
    if kind is list:
        return [item if type(item) in _AS_IS or (type(item) is int and -_WORD < item < _WORD)
                else encode(item, other, depth) for item in value]
    if kind is dict:
        return {"D": [[k if type(k) is str else encode(k, other, depth),
                       v if type(v) in _AS_IS or (type(v) is int and -_WORD < v < _WORD) else encode(v, other, depth)]
                      for k, v in value.items()]}
    if kind is tuple:
        return {"T": [encode(item, other, depth) for item in value]}

    def inner(item):
        return encode(item, other, depth)

    if kind is set:
        return {"S": [inner(item) for item in value]}
    if kind is frozenset:
        return {"Z": [inner(item) for item in value]}
    if kind is bytes:
        return {"B": binascii.b2a_base64(value, newline=False).decode("ascii")}
    if kind is bytearray:
        return {"A": binascii.b2a_base64(bytes(value), newline=False).decode("ascii")}
    if kind is complex:
        return {"C": [inner(value.real), inner(value.imag)]}
    if kind is slice:  # `pv[1:3]`: a test's slice is data
        return {"L": [inner(value.start), inner(value.stop), inner(value.step)]}
    if kind is range:
        return {"V": [inner(value.start), inner(value.stop), inner(value.step)]}
    # no such value exists before its module was imported: the standard library's own classes, by identity
    module = sys.modules.get(kind.__module__ if kind.__module__ in _STANDARD else "")
    if module is not None and kind is getattr(module, kind.__name__, None):
        if kind.__name__ == "Decimal":
            return {"N": str(value)}
        if kind.__name__ == "Fraction":
            return {"Q": [inner(value.numerator), inner(value.denominator)]}
        if kind.__name__ == "UUID":  # `assert item.id == UUID(...)`: equal by its number, as data
            return {"M": value.hex}
        if kind.__name__ in ("datetime", "date", "time", "timedelta"):
            try:
                return {"W": _time_fields(value)}
            except TypeError:  # a time zone that is code, not data
                pass
    return other(value, inner)


_STANDARD = {"decimal", "fractions", "datetime", "uuid"}


def _time_fields(value) -> list:
    import datetime

    if type(value) is datetime.timedelta:
        return ["timedelta", value.days, value.seconds, value.microseconds]
    if type(value) is datetime.date:
        return ["date", value.isoformat(), None, 0]
    offset = value.utcoffset()
    if value.tzinfo is not None and (type(value.tzinfo) is not datetime.timezone or offset is None):
        raise TypeError(f"a {type(value).__name__} with a time zone other than a fixed offset")
    naive = value.replace(tzinfo=None) if value.tzinfo is not None else value
    seconds = None if offset is None else offset.total_seconds()
    return [type(value).__name__, naive.isoformat(), seconds, getattr(value, "fold", 0)]


def _time_value(fields):
    import datetime

    try:
        kind = fields[0]
        if kind == "timedelta":
            return datetime.timedelta(days=_int(fields[1]), seconds=_int(fields[2]), microseconds=_int(fields[3]))
        text, offset, fold = fields[1], fields[2], fields[3]
        if not isinstance(text, str) or len(text) > 64 or fold not in (0, 1):
            raise ValueError(text)
        tz = None if offset is None else datetime.timezone(datetime.timedelta(seconds=float(offset)))
        if kind == "date":
            return datetime.date.fromisoformat(text)
        made = {"datetime": datetime.datetime, "time": datetime.time}[kind].fromisoformat(text)
        return made.replace(tzinfo=tz, fold=fold)
    except (ValueError, TypeError, KeyError, IndexError, OverflowError):
        raise WireFault("malformed", "a date or time that is not one") from None


def _int(value) -> int:
    if type(value) is not int:
        raise ValueError(value)
    return value


def decode(tree, tags, depth: int = 0):
    """The value of `tree`, rebuilt as exact builtin types; `tags[key](body, decode_inner)` rebuilds a side's own."""
    kind = type(tree)
    if kind is str or kind is int or tree is None or kind is bool or kind is float:
        return tree
    if depth > MAX_DEPTH:
        raise WireFault("too_large", f"a value nested more than {MAX_DEPTH} deep")
    depth += 1
    if kind is list:
        return [item if type(item) in _LEAVES else decode(item, tags, depth) for item in tree]
    if kind is not dict or len(tree) != 1:
        raise WireFault("malformed", "a value that is not one of the boundary's forms")
    (key, body), = tree.items()
    try:
        if key == "D":
            return _pairs(body, tags, depth)
        if key in _PLAIN:
            return _PLAIN[key](body, lambda item: decode(item, tags, depth))
        if key in tags:
            return tags[key](body, lambda item: decode(item, tags, depth))
    # a body not of its form (decimal's errors are ArithmeticErrors; a missing field a KeyError or an IndexError)
    except (TypeError, ValueError, ArithmeticError, LookupError, AttributeError, binascii.Error) as exc:
        raise WireFault("malformed", f"a {key} value that is not one ({type(exc).__name__})") from None
    raise WireFault("malformed", f"a value of the unknown form {str(key)[:20]!r}")


def _items(body) -> list:
    if type(body) is not list:
        raise TypeError("not a list")
    return body


def _pairs(body, tags, depth: int) -> dict:
    out = {}
    for pair in _items(body):
        if type(pair) is not list or len(pair) != 2:
            raise TypeError("not a pair")
        key, value = pair
        # an unhashable key is a TypeError: malformed
        out[key if type(key) is str else decode(key, tags, depth)] = \
            value if type(value) in _LEAVES else decode(value, tags, depth)
    return out


def _special_float(body, inner) -> float:
    if body not in ("nan", "inf", "-inf"):
        raise ValueError(body)
    return float(body)


def _hex_int(body, inner) -> int:
    if type(body) is not str or len(body) > MAX_DEPTH * 100_000:
        raise ValueError("not hex")
    return int(body, 16)


def _complex(body, inner) -> complex:
    real, imag = (inner(part) for part in _items(body))
    if type(real) is not float or type(imag) is not float:
        raise TypeError("complex parts are floats")
    return complex(real, imag)


def _decimal(body, inner):
    import decimal

    if type(body) is not str or len(body) > 10_000:
        raise ValueError("not a decimal")
    return decimal.Decimal(body)


def _fraction(body, inner):
    import fractions

    numerator, denominator = (inner(part) for part in _items(body))
    if type(numerator) is not int or type(denominator) is not int:
        raise TypeError("fraction parts are ints")
    return fractions.Fraction(numerator, denominator)


def _uuid(body, inner):
    import uuid

    if type(body) is not str or len(body) != 32:
        raise ValueError("not a UUID")
    return uuid.UUID(hex=body)


def _range(body, inner) -> range:
    start, stop, step = (inner(part) for part in _items(body))
    if not all(type(part) is int for part in (start, stop, step)):
        raise TypeError("range parts are ints")
    return range(start, stop, step)


def _slice(body, inner) -> slice:
    start, stop, step = (inner(part) for part in _items(body))
    return slice(start, stop, step)


def _bytes(body) -> bytes:
    if type(body) is not str:
        raise TypeError("not base64")
    return binascii.a2b_base64(body.encode("ascii"), strict_mode=True)


_PLAIN = {
    "T": lambda body, inner: tuple(inner(item) for item in _items(body)),
    "S": lambda body, inner: {inner(item) for item in _items(body)},
    "Z": lambda body, inner: frozenset(inner(item) for item in _items(body)),
    "B": lambda body, inner: _bytes(body),
    "A": lambda body, inner: bytearray(_bytes(body)),
    "I": _hex_int,
    "F": _special_float,
    "C": _complex,
    "N": _decimal,
    "Q": _fraction,
    "M": _uuid,
    "W": lambda body, inner: _time_value(_items(body)),
    "L": _slice,
    "V": _range,
}


def json_data(value, depth: int = 0) -> bool:
    """Whether `value` is JSON's own data exactly: dicts with str keys, lists, str, bool, None, ints of one machine
    word and finite floats, at most MAX_DEPTH deep. Such a value crosses as it is (a call's "j"): the receiving side's
    JSON decoder rebuilds it with the same exact types, and no tagged tree is made or walked on either side."""
    kind = type(value)
    if kind is dict:
        items = value.items()
    elif kind is list:
        items = enumerate(value)
    else:
        return kind in _AS_IS or (kind is int and -_WORD < value < _WORD) or (kind is float and math.isfinite(value))
    if depth > MAX_DEPTH:
        return False
    for key, item in items:
        if kind is dict and type(key) is not str:
            return False
        inner = type(item)
        if not (inner in _AS_IS or (inner is int and -_WORD < item < _WORD) or (inner is float and math.isfinite(item))
                or ((inner is dict or inner is list) and json_data(item, depth + 1))):
            return False
    return True


def plain(value) -> bool:
    """Whether `value` is exact builtin data all the way down (what crosses with no side's own forms)."""
    try:
        encode(value, _not_plain)
        return True
    except (_NotPlain, WireFault, TypeError):
        return False


class _NotPlain(Exception):
    pass


def _not_plain(value, inner):
    raise _NotPlain
