"""The subject's side: imports the implementation and answers the judge's requests about its objects.

Everything here runs beside the code under test, which can change any of it: what this process says is the
implementation's answer and nothing more. The judge trusts none of it beyond the wire's forms.
"""

from __future__ import annotations

import _pickle
import builtins
import copy
import importlib
import operator
import os
import sys

from witness_gate.sandbox.wire.forms import MAX_TEXT, OPS, is_name, module_name
from witness_gate.sandbox.wire.frames import Channel, WireFault, fingerprint
from witness_gate.sandbox.wire.values import decode, encode

_MUTABLE = frozenset({list, dict, set, bytearray})
_MISSING = object()


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


def _standard_class(body, inner):
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


def _iterator(body, inner):
    """An iterator the oracle handed over, as the items it yielded (read in the judge)."""
    if type(body) is not list:
        raise TypeError("an iterator's items")
    return iter([inner(item) for item in body])


_COMPARE = {name: getattr(operator, name) for name in ("eq", "ne", "lt", "le", "gt", "ge")}


_ARITH = {name: getattr(operator, name if name not in ("and", "or") else name + "_")
          for name in ("add", "sub", "mul", "matmul", "truediv", "floordiv", "mod", "pow", "lshift", "rshift", "and",
                       "xor", "or")}
_UNARY = {"neg": operator.neg, "pos": operator.pos, "invert": operator.invert, "abs": abs, "int": int,
          "float": float, "index": operator.index}


def _subclass(name: str, spec: dict):
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


def _contents(target):
    """What an object holds, as collections.abc names it: [kind, items], or None."""
    from collections import abc

    if isinstance(target, abc.Mapping):
        return ["map", [[key, target[key]] for key in target]]
    if isinstance(target, abc.Set):
        return ["set", list(target)]
    if isinstance(target, abc.Sequence):
        return ["seq", list(target)]
    return None


PATHS = ("PosixPath", "PurePosixPath", "PureWindowsPath")


def _path(body, inner):
    """A path the oracle handed over: its kind and its text."""
    if type(body) is not list or len(body) != 2 or body[0] not in PATHS or type(body[1]) is not str:
        raise TypeError("a path")
    import pathlib

    return getattr(pathlib, body[0])(body[1])


class Server:
    def __init__(self, channel: Channel, root: str) -> None:
        self.channel = channel
        self.root = os.path.realpath(root) + os.sep
        self.objects: dict[int, object] = {}
        self.numbers: dict[int, int] = {}  # id(object) -> its handle
        self.last_callback = 0
        self.judge_objects: dict[int, JudgeObject] = {}
        self.memos: dict[str, dict] = {}  # a deepcopy's memo in the judge -> its memo here
        self._tags = {"H": self._object, "K": lambda body, inner: JudgeCallable(self, int(body)), "R": self._judge_object,
                      "O": _standard_class,
                      "E": self._enum_member, "U": self._named, "J": _iterator, "P": _path}

    # -- values -----------------------------------------------------------------------------------------------
    def handle(self, obj) -> int:
        number = self.numbers.get(id(obj))
        if number is None or self.objects.get(number) is not obj:
            number = len(self.objects) + 1
            self.objects[number] = obj
            self.numbers[id(obj)] = number
        return number

    def encode(self, value):
        return encode(value, self._other)

    def _other(self, value, inner):
        if isinstance(value, JudgeCallable):
            return {"K": value.number}
        if isinstance(value, JudgeObject):
            return {"R": [value.number, value.kind]}
        enum = sys.modules.get("enum")  # no enum exists before its module is imported
        if enum is not None and isinstance(value, enum.Enum):
            return {"E": [self.handle(value), self.enum_class(type(value)), value.name]}
        if enum is not None and isinstance(value, type) and issubclass(value, enum.Enum):
            return {"G": self.enum_class(value)}
        if isinstance(value, type) and issubclass(value, BaseException):
            return {"Y": self.exception_class(value)}
        if isinstance(value, BaseException):
            return {"X": self.exception(value)}
        if isinstance(value, tuple) and isinstance(getattr(type(value), "_fields", None), tuple):
            fields = list(type(value)._fields)
            return {"U": [{"i": self.handle(type(value)), "n": type(value).__name__, "f": fields},
                          [inner(item) for item in tuple.__iter__(value)]]}
        for base in (bool, int, float, str, bytes, tuple, list, dict, set, frozenset, bytearray):
            if isinstance(value, base):  # a subclass crosses as its base value
                return inner(base(value) if base is not tuple else tuple(tuple.__iter__(value)))
        return {"H": [self.handle(value), type(value).__qualname__[:200]]}

    def enum_class(self, cls) -> dict:
        import enum

        kind = next((k for k, b in (("intflag", enum.IntFlag), ("flag", enum.Flag), ("int", int), ("str", str))
                     if issubclass(cls, b)), "")
        # aliases too (natsort's `ns.I` is `ns.INT`): the judge's class makes a later name of the same value an alias
        members = [[name, self.encode(member.value)] for name, member in cls.__members__.items()][:1000]
        return {"i": self.handle(cls), "n": cls.__name__, "q": cls.__qualname__, "m": cls.__module__, "k": kind,
                "v": members}

    def exception_class(self, cls) -> dict:
        if cls.__module__ == "builtins" and getattr(builtins, cls.__name__, None) is cls:
            return {"b": cls.__name__}
        bases = [self.exception_class(b) for b in cls.__bases__ if issubclass(b, BaseException)][:8]
        return {"i": self.handle(cls), "n": cls.__name__, "q": cls.__qualname__, "m": str(cls.__module__), "s": bases}

    def exception(self, exc: BaseException) -> list:
        def data(value):
            try:
                return self.encode(value)
            except (WireFault, TypeError, ValueError, RecursionError):
                return self.encode(repr(value)[:MAX_TEXT])

        try:
            message = str(exc)[:MAX_TEXT]
        except Exception:  # noqa: BLE001 - a message that cannot be made is none
            message = ""
        attributes = [[k, data(v)] for k, v in list(getattr(exc, "__dict__", {}).items())[:50]
                      if is_name(k) and not k.startswith("__")]
        if isinstance(exc, ImportError) and isinstance(exc.name, str):  # the module it missed (not in __dict__)
            attributes.append(["name", data(exc.name[:MAX_TEXT])])
        return [self.exception_class(type(exc)), [data(arg) for arg in exc.args[:50]], message, self.where(exc),
                attributes]

    def where(self, exc: BaseException) -> str | None:
        """relpath:line of the innermost frame inside the repository (a file the error names, for a syntax error)."""
        import traceback

        found = None
        for frame in traceback.extract_tb(exc.__traceback__):
            relpath = self._inside(frame.filename)
            if relpath:
                found = f"{relpath}:{frame.lineno}"
        if found is None and isinstance(exc, SyntaxError) and exc.filename and self._inside(exc.filename):
            found = f"{self._inside(exc.filename)}:{exc.lineno}"
        return found

    def _inside(self, path: str) -> str | None:
        if not path or path.startswith("<"):
            return None
        full = os.path.realpath(path)
        return full[len(self.root):] if full.startswith(self.root) else None

    def decode(self, tree):
        return decode(tree, self._tags)

    def _object(self, body, inner):
        number = body if type(body) is int else body[0] if type(body) is list and body else None
        if number not in self.objects:
            raise WireFault("malformed", "a handle this subject never gave")
        return self.objects[number]

    def _judge_object(self, body, inner):
        number, kind = body
        if number not in self.judge_objects:
            self.judge_objects[number] = JudgeObject(self, int(number), str(kind)[:200])
        return self.judge_objects[number]

    def _enum_member(self, body, inner):
        return getattr(self.objects[body[0]], body[1])

    def _named(self, body, inner):
        return self.objects[body[0]](*[inner(item) for item in body[1]])

    # -- requests ---------------------------------------------------------------------------------------------
    def serve(self) -> None:
        """Answer requests until the judge ends the connection."""
        while True:
            try:
                message = self.channel.receive()
            except WireFault:
                return
            self.answer(message)

    def answer(self, message) -> None:
        if type(message) is not dict or message.get("op") not in OPS or type(message.get("id")) is not int:
            raise SystemExit(f"witness subject: not a request: {str(message)[:200]}")
        reply = {"re": message["id"]}
        try:
            result, extra = self.perform(message)
            reply["ok"] = self.encode(result)
            if extra:
                reply.update(extra)
        except WireFault:
            raise
        except BaseException as exc:  # noqa: BLE001 - whatever the implementation raised is its answer
            reply.pop("ok", None)
            reply["err"] = {"X": self.exception(exc)}
        self.channel.send(reply)

    def perform(self, message):
        op = message["op"]
        if op == "import":
            name = message.get("name")
            if not module_name(name):
                raise ImportError(f"not a module name: {str(name)[:100]}")
            module = importlib.import_module(name)
            return module, {"file": self._inside(getattr(module, "__file__", None) or "") or "",
                            "package": hasattr(module, "__path__")}
        if op == "unpickle":  # with the pickle module bound before the implementation loaded (as a test's import is)
            return _pickle.loads(self.decode(message.get("v"))), None
        target = self.objects.get(message.get("h"), _MISSING)
        if target is _MISSING:
            raise WireFault("malformed", "a request about an object this subject never gave")
        if op == "call":  # the commonest, first
            return self.call(target, message)
        if op == "getattr":
            return getattr(target, str(message.get("name"))), None
        if op == "setattr":
            setattr(target, str(message.get("name")), self.decode(message.get("v"))); return None, None
        if op == "delattr":
            delattr(target, str(message.get("name"))); return None, None
        if op == "iter":
            return iter(target), None
        if op == "next":
            return next(target), None
        if op == "len":
            return len(target), None
        if op == "getitem":
            return target[self.decode(message.get("key"))], None
        if op == "setitem":
            target[self.decode(message.get("key"))] = self.decode(message.get("v")); return None, None
        if op == "delitem":
            del target[self.decode(message.get("key"))]; return None, None
        if op == "compare":
            return bool(_COMPARE[str(message.get("name"))](target, self.decode(message.get("v")))), None
        if op == "arith":  # `v + w`, `2 * v`: as the implementation's own operators give it
            name, other = str(message.get("name")), self.decode(message.get("v"))
            if name.startswith("i:"):  # `v += w`: in place when the object has it
                return getattr(operator, "i" + name[2:])(target, other), None
            return (_ARITH[name[2:]](other, target) if name.startswith("r:") else _ARITH[name](target, other)), None
        if op == "subclass":
            return _subclass(str(message.get("name")), self.decode(message.get("v"))), None
        if op == "isinstance":
            return isinstance(self.decode(message.get("v")), target), None
        if op == "issubclass":
            return issubclass(self.decode(message.get("v")), target), None
        if op == "instance_of":  # `isinstance(b, Mapping)` in the judge: against a standard class named there
            return isinstance(target, self.decode(message.get("v"))), None
        if op == "subclass_of":
            return issubclass(target, self.decode(message.get("v"))), None
        if op == "pickle":  # the judge pickles and copies the implementation's objects here, by these modules
            return _pickle.dumps(target, self.decode(message.get("v"))), None
        if op == "copy":
            return copy.copy(target), None
        if op == "deepcopy":  # one memo for all the objects of one deepcopy in the judge: what they share stays shared
            memo = self.memos.get(str(message.get("name")))
            if memo is None:
                memo = self.memos[str(message.get("name"))] = {}
                if self.decode(message.get("v")) is True:  # the judge's memo held its structure: so does this one,
                    memo[id(memo)] = []  # by the entry copy's own memo keeps (its keep-alive list)
            return copy.deepcopy(target, memo), None
        if op == "unary":
            return _UNARY[str(message.get("name"))](target), None
        if op == "contents":
            return _contents(target), None
        if op == "bool":
            return bool(target), None
        if op == "hash":
            return hash(target), None
        if op == "contains":
            return self.decode(message.get("v")) in target, None
        if op == "repr":
            return repr(target)[:MAX_TEXT], None
        return str(target)[:MAX_TEXT], None

    def call(self, target, message):
        sent_args, sent_kwargs = message.get("a") or [], message.get("k") or []
        decode = self.decode
        args = [decode(tree) for tree in sent_args]
        kwargs = {str(pair[0]): decode(pair[1]) for pair in sent_kwargs} if sent_kwargs else {}
        # the judge's own containers (data decodes as exact types; the implementation's objects cross as handles)
        given = [(i, value, sent_args[i], fingerprint(value)) for i, value in enumerate(args)
                 if type(value) in _MUTABLE]
        if kwargs:
            given += [(str(pair[0]), kwargs[str(pair[0])], pair[1], fingerprint(kwargs[str(pair[0])]))
                      for pair in sent_kwargs if type(kwargs[str(pair[0])]) in _MUTABLE]
        result = target(*args, **kwargs)
        changed = []  # arguments the implementation changed in place go back to the judge's objects
        for where, value, tree, print_ in given:
            if print_ is not None and fingerprint(value) == print_:
                continue  # unchanged: no second encoding
            if (now := self.encode(value)) != tree:
                changed.append([where, now])
        return result, {"wb": changed} if changed else None

    def call_back(self, number: int, args: tuple, kwargs: dict):
        self.last_callback += 1
        request = self.last_callback
        self.channel.send({"cb": number, "id": request, "a": [self.encode(a) for a in args],
                           "k": [[k, self.encode(v)] for k, v in kwargs.items()]})
        while True:
            message = self.channel.receive()
            if type(message) is dict and message.get("re") == request:
                if "err" in message:
                    raise self.judge_exception(message["err"])
                return self.decode(message.get("ok"))
            self.answer(message)  # the callback itself asked something of the implementation

    def judge_exception(self, tree) -> BaseException:
        try:
            body = tree["X"]
            described, args = body[0], body[1]
            cls = getattr(builtins, described["b"]) if "b" in described else self.objects[described["i"]]
            exc = cls.__new__(cls)
            exc.args = tuple(self.decode(a) for a in args)
            return exc
        except Exception:  # noqa: BLE001 - the judge's exception, whatever its form, is an exception here
            return RuntimeError("the judge's callable raised")


def main(fd: int, root: str, seed: str) -> None:
    from witness_gate.sandbox.wire.importpath import seed_random

    seed_random(seed)
    channel = Channel(fd)
    Server(channel, root).serve()
