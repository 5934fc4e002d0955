"""The subject's side: imports the implementation and answers the judge's requests about its objects.

Everything here runs beside the code under test, which can change any of it: what this process says is the
implementation's answer and nothing more. The judge trusts none of it beyond the wire's forms.
"""

from __future__ import annotations

import builtins
import importlib
import os
import sys

from witness_gate.sandbox.subject.ops import OBJECT_OPS, as_text, unpickle
from witness_gate.sandbox.subject.received import JudgeCallable, JudgeObject, iterator, path, standard_class
from witness_gate.sandbox.wire.forms import MAX_TEXT, OPS, is_name, module_name
from witness_gate.sandbox.wire.frames import Channel, WireFault, fingerprint, items_text
from witness_gate.sandbox.wire.values import decode, encode

_MUTABLE = frozenset({list, dict, set, bytearray})
_MISSING = object()


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
                      "O": standard_class,
                      "E": self._enum_member, "U": self._named, "J": iterator, "P": path}

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
        if op == "unpickle":
            return unpickle(self, message), None
        target = self.objects.get(message.get("h"), _MISSING)
        if target is _MISSING:
            raise WireFault("malformed", "a request about an object this subject never gave")
        if op == "call":  # the commonest, first
            return self.call(target, message)
        return OBJECT_OPS.get(op, as_text)(self, target, message), None

    def call(self, target, message):
        if "j" in message:
            return self._call_as_sent(target, message["j"] if type(message["j"]) is list else [])
        decode = self.decode
        sent_args, sent_kwargs = message.get("a") or [], message.get("k") or []
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

    def _call_as_sent(self, target, args: list):
        """A call whose arguments are JSON's own data, as the frame's decoder rebuilt them (the judge's "j", last in
        its message): their text as it came is what they printed before the call, so one print after it tells
        whether the implementation changed any of them in place, and each one's own text which (only those go
        back: an unchanged argument holding a changed one, `f(xs, {"held": xs})`, would put the old back)."""
        body = self.channel.body
        at = body.find(b',"j":')
        before = body[at + 5:-1].decode("ascii") if at > 0 and body.endswith(b"}") else None
        result = target(*args)
        if not any(type(value) in _MUTABLE for value in args) or fingerprint(args) == before:
            return result, None
        each = items_text(before) if before is not None else None
        if each is None or len(each) != len(args):
            each = [None] * len(args)
        return result, {"wb": [[where, self.encode(value)] for where, value in enumerate(args)
                               if type(value) in _MUTABLE and fingerprint(value) != each[where]]}

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
