"""Classes the judge makes from the subject's descriptions — enums, named tuples, exceptions — so that `is`, `except`
and `pytest.raises` work on the judge's side. Built from names and data only; cached by the exact description."""

from __future__ import annotations

import builtins
from collections.abc import Callable

from witness_gate.sandbox.wire.forms import MAX_TEXT, is_name, is_where
from witness_gate.sandbox.wire.frames import dumps
from witness_gate.sandbox.wire.values import plain


MAX_MEMBERS = 1000


class Classes:
    """The judge's classes for one evaluation; `handle` names an object that stays in the subject."""

    def __init__(self, handle: Callable) -> None:
        self.built: dict[str, type] = {}
        self.handle = handle

    def enum_of(self, body, inner):
        key = "G" + dumps(body).decode()
        if key not in self.built:
            import enum

            desc = body
            if len(desc["v"]) > MAX_MEMBERS:  # Enum's own build is quadratic in unhashable values
                raise ValueError("an enum of too many members")
            members = [(name, inner(value)) for name, value in desc["v"]]
            # only a member's name and data go into the class: a name Enum would take as an attribute of the class
            # (`__lt__`, `_missing_`) or a value that is not plain data (a handle) would let the subject answer the
            # class's comparisons, so such an enum is not made here (its members stay in the subject)
            if not all(is_name(name) and not name.startswith("_") and plain(value) for name, value in members):
                raise ValueError("an enum whose members are not names and data")
            mixin = {"int": enum.IntEnum, "str": None, "flag": enum.Flag, "intflag": enum.IntFlag}.get(desc["k"], None)
            base = mixin or enum.Enum
            options = {"type": str} if desc["k"] == "str" else {}
            made = base(str(desc["n"])[:200], members or [], module=str(desc["m"])[:200],
                        qualname=str(desc["q"])[:200], **options)
            made.__witness_class__ = desc["i"]
            self.built[key] = made
        return self.built[key]

    def enum_member(self, body, inner):
        number, desc, name = body
        try:
            return self.enum_of(desc, inner)[name]
        except (KeyError, TypeError, ValueError, AttributeError):  # not an enum this judge can make: stays there
            return self.handle([number, str(desc.get("n", "enum"))], inner)

    def named(self, body, inner):
        desc, values = body
        values = [inner(item) for item in values]
        key = "U" + dumps(desc).decode()
        if key not in self.built:
            import collections

            fields = [str(f)[:200] for f in desc["f"]][:255]
            made = collections.namedtuple(str(desc["n"])[:200] if is_name(desc["n"]) else "record", fields,
                                          rename=True)
            made.__witness_class__ = desc["i"]
            self.built[key] = made
        made = self.built[key]
        return made(*values) if len(values) == len(made._fields) else tuple(values)

    def exception_of(self, body, inner, depth: int = 0) -> type:
        if type(body) is not dict:
            raise TypeError("an exception class")
        if "b" in body:
            found = getattr(builtins, str(body["b"]), None)
            if not (isinstance(found, type) and issubclass(found, BaseException)):
                raise ValueError("not a built-in exception")
            return found
        key = "Y" + dumps(body).decode()
        if key not in self.built:
            if depth > 8:
                raise ValueError("exception classes nested too deep")
            bases = tuple(self.exception_of(b, inner, depth + 1) for b in body.get("s", [])[:8]) or (Exception,)
            name = str(body["n"])[:200]
            namespace = {"__module__": str(body["m"])[:200], "__qualname__": str(body["q"])[:200],
                         "__str__": _message, "__witness_class__": body["i"]}
            try:
                made = type(name, bases, namespace)
            except TypeError:  # bases whose layouts cannot be combined here: the first one is kept
                made = type(name, bases[:1], namespace)
            self.built[key] = made
        return self.built[key]

    def exception(self, body, inner) -> BaseException:
        described, args, message, where, attributes = body
        cls = self.exception_of(described, inner)
        exc = cls.__new__(cls)
        exc.args = tuple(inner(a) for a in args)
        exc._witness_message = str(message)[:MAX_TEXT]
        exc.__witness_where__ = where if is_where(where) else None
        for pair in attributes[:50]:
            if is_name(pair[0]) and not pair[0].startswith("_"):
                try:
                    setattr(exc, pair[0], inner(pair[1]))
                except (AttributeError, TypeError):
                    pass
        return exc


def _message(self) -> str:
    said = self.__dict__.get("_witness_message")  # what the implementation's exception said, when it came from there
    return said if said is not None else BaseException.__str__(self)
