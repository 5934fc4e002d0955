"""What the judge hands the subject, as the subject holds it: the judge's callables and objects by reference (asking
the judge when they are used), the standard library's classes it names, its iterators and paths as values, and the
oracle's classes over the implementation's, made here with methods that call the judge back."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from witness_gate.sandbox.subject.server import Server


class JudgeCallable:
    """A callable the judge passed: calling it asks the judge, which answers only while it waits on our call."""

    __slots__ = ("server", "number")

    def __init__(self, server: "Server", number: int) -> None:
        self.server, self.number = server, number

    def __call__(self, *args, **kwargs):
        return self.server.call_back(self.number, args, kwargs)

    def __repr__(self) -> str:
        return f"<the judge's callable {self.number}>"


class JudgeObject:
    """An object of the oracle's, held by reference: what a container asks of a member goes to the judge."""

    __slots__ = ("server", "number", "kind", "__weakref__")

    def __init__(self, server: "Server", number: int, kind: str) -> None:
        self.server, self.number, self.kind = server, number, kind

    def _ask(self, question, *args):
        return self.server.call_back(self.number, (question,) + args, {})

    def __hash__(self):
        return self._ask("hash")

    def __bool__(self):
        return self._ask("bool")

    def __repr__(self):
        return self._ask("repr")

    def __str__(self):
        return self._ask("str")


def _asking(question: str):
    def ask(self, other):
        return self._ask(question, other)
    return ask


for _question in ("eq", "ne", "lt", "le", "gt", "ge"):
    setattr(JudgeObject, f"__{_question}__", _asking(_question))


def standard_class(body, inner):
    """A built-in class or one of the standard library's, named by the judge."""
    module, qualname = body
    if module == "builtins" and qualname == "NoneType":
        return type(None)
    found = importlib.import_module(module)
    for part in str(qualname).split("."):
        found = getattr(found, part)
    if not isinstance(found, type):
        raise TypeError("not a class")
    return found


def iterator(body, inner):
    """An iterator the oracle handed over, as the items it yielded (read in the judge)."""
    if type(body) is not list:
        raise TypeError("an iterator's items")
    return iter([inner(item) for item in body])


PATHS = ("PosixPath", "PurePosixPath", "PureWindowsPath")


def path(body, inner):
    """A path the oracle handed over: its kind and its text."""
    if type(body) is not list or len(body) != 2 or body[0] not in PATHS or type(body[1]) is not str:
        raise TypeError("a path")
    import pathlib

    return getattr(pathlib, body[0])(body[1])


def subclass(name: str, spec: dict):
    """A class of the oracle's over the implementation's classes, made here: its methods call the judge back."""
    import types

    members = {str(key): _member(how, value) for key, how, value in spec["members"]}
    members["__module__"] = spec.get("module") or "oracle"
    return types.new_class(name, tuple(spec["bases"]), spec.get("keywords") or {},
                           lambda namespace: namespace.update(members))


def _member(how: str, value):
    if how == "static":
        return staticmethod(value)
    if how == "class":
        return classmethod(_function(value))
    if how == "property":
        return property(*[_function(part) if part is not None else None for part in value])
    return _function(value) if isinstance(value, JudgeCallable) else value


def _function(judge_callable):
    """A function, so that it binds as a method does (a JudgeCallable is no descriptor)."""
    def method(*args, **kwargs):
        return judge_callable(*args, **kwargs)
    return method
