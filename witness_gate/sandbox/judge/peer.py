"""The judge's end of the boundary: requests to the subject, its answers rebuilt as data, handles for the rest.

Nothing the subject sends is run: data is rebuilt as exact builtin types, classes are made here from names, and an
object that is not data stays in the subject behind a `Handle`. The first fault of the wire sticks: once the
boundary failed, the evaluation is a transport fault whatever the property makes of it.
"""

from __future__ import annotations

import builtins
import itertools
import sys

from witness_gate.sandbox.judge.classes import Classes
from witness_gate.sandbox.judge.compare import KINDS
from witness_gate.sandbox.judge.handles import Handle
from witness_gate.sandbox.judge.inplace import InPlace
from witness_gate.sandbox.judge.lending import MAX_LENT, Lent, drained, standard_class
from witness_gate.sandbox.wire.forms import MAX_TEXT, is_name
from witness_gate.sandbox.wire.frames import Channel, WireFault
from witness_gate.sandbox.wire.values import decode, encode, json_data

_REPLY_KEYS = frozenset({"re", "ok", "err", "wb", "file", "package"})
_CALLBACK_KEYS = frozenset({"cb", "id", "a", "k"})
MAX_HANDLES = 1_000_000
_MISSING = object()


class Peer:
    """Requests to the subject; while one waits, the subject may call back the judge's callables it was given."""

    def __init__(self, channel: Channel) -> None:
        self.channel = channel
        self.fault: WireFault | None = None
        self.numbers = itertools.count(1)
        self.handles: dict[int, Handle] = {}
        self.callbacks: dict[int, object] = {}  # what the judge lent, for the rest of the evaluation (MAX_LENT)
        self.lent: dict[int, int] = {}  # id(callable) -> its number, so one lent again and again is one entry
        self.referenced: dict[int, int] = {}  # id(object) -> its number, for an oracle's object lent by reference
        self.fresh: list[int] = []  # numbers lent while a message is encoded: taken back if it is never sent
        self.callback_numbers = itertools.count(1)
        self.last_call_back = 0
        self.classes = Classes(self._handle)
        self.in_place = InPlace(self.decode)  # its payload_changed: the implementation changed the pinned payload
        self.imported: list[str] = []
        self._tags = {"H": self._handle, "K": self._callable, "E": self.classes.enum_member,
                      "G": self.classes.enum_of, "U": self.classes.named, "X": self.classes.exception,
                      "Y": self.classes.exception_of, "R": self._reference}

        global _CURRENT
        _CURRENT = self  # a judge asks one subject: a handle's pickle is loaded by it (handles._unpickled)

    def unpickle(self, pickled: bytes):
        """The implementation's objects a pickle of its made (`handles._unpickled`), loaded by the subject."""
        return self._result(self._exchange(self._encoded(lambda: {"op": "unpickle", "h": 0,
                                                                   "v": self.encode(pickled)})), "unpickle")

    # -- requests ---------------------------------------------------------------------------------------------
    def import_module(self, name: str) -> tuple[Handle, str, bool]:
        reply = self._exchange({"op": "import", "name": name})  # lends no callable: no scope to end
        module = self._result(reply)
        if not isinstance(module, Handle):
            raise WireFault("unexpected", f"the import of {name} did not give a module")
        self.imported.append(name)
        file, package = reply.get("file", ""), reply.get("package") is True
        return module, file if type(file) is str and len(file) < 500 else "", package

    def ask(self, op: str, number: int, *, name=_MISSING, key=_MISSING, v=_MISSING):
        message = {"op": op, "h": number}
        if name is not _MISSING:
            if type(name) is not str:
                raise TypeError("an attribute name is a str")
            message["name"] = name
        def build() -> dict:
            if key is not _MISSING:
                message["key"] = self.encode(key)
            if v is not _MISSING:
                message["v"] = self.encode(v)
            return message
        return self._result(self._exchange(self._encoded(build)), op)

    def contents(self, value):
        """(kind, items) a handle's object reports of itself (a sequence, a set or a mapping's [key, value] pairs),
        or None: anything else, and any value that is no handle."""
        said = self._reported("contents", value, lambda said: said[0] in KINDS and type(said[1]) is list and (
            said[0] != "map" or all(type(pair) is list and len(pair) == 2 for pair in said[1])),
            "contents that are not a kind and its items")
        return None if said is None else (said[0], said[1])

    def state(self, value):
        """("obj", [class name, [[attribute, value], ...]]) an object of a class with its own `==` reports of itself,
        or None: anything else, and any value that is no handle."""
        said = self._reported("state", value, lambda said: type(said[0]) is str and type(said[1]) is list and all(
            type(pair) is list and len(pair) == 2 and type(pair[0]) is str for pair in said[1]),
            "a state that is not a class name and its attributes")
        return None if said is None else ("obj", said)

    def _reported(self, op: str, value, fits, malformed: str):
        """What the subject reports of a handle's object (a pair that `fits`), or None; anything else is a fault."""
        if not isinstance(value, Handle):
            return None
        said = self.ask(op, value._w_number)
        if said is not None and (type(said) is not list or len(said) != 2 or not fits(said)):
            self.fault = self.fault or WireFault("malformed", malformed)
            raise self.fault
        return said

    def call(self, number: int, args: tuple, kwargs: dict):
        if not kwargs and all(json_data(a) for a in args):  # the commonest call: JSON's own data, sent as it is
            message = {"op": "call", "h": number, "id": 0, "j": list(args)}  # "j" last: the subject reads its text
        else:
            other = self._other
            message = self._encoded(lambda: {
                "op": "call", "h": number, "a": [encode(a, other) for a in args],
                "k": [[str(k), encode(v, other)] for k, v in kwargs.items()] if kwargs else []})
        reply = self._exchange(message)
        if "wb" in reply:
            self.in_place.apply(reply["wb"], args, kwargs)
        return self._result(reply)

    def _encoded(self, build):
        """The message `build` makes. A callable lent while it was encoded is taken back when encoding fails (it was
        never handed over, so the implementation may not call it: found by a reviewer); a StopIteration raised in
        encoding (an oracle's iterator, a path) never reaches the property, where it would end a loop silently."""
        mark = len(self.fresh)
        try:
            return build()
        except StopIteration as exc:
            self._take_back(mark)
            raise RuntimeError("StopIteration while a value was handed to the implementation") from exc
        except BaseException:
            self._take_back(mark)
            raise
        finally:
            del self.fresh[mark:]

    def _take_back(self, mark: int) -> None:
        for number in self.fresh[mark:]:
            function = self.callbacks.pop(number, None)
            if self.lent.get(id(function)) == number:
                del self.lent[id(function)]

    def _exchange(self, message: dict) -> dict:
        if self.fault is not None:
            raise self.fault
        message["id"] = number = next(self.numbers)
        try:
            self.channel.send(message)
            while True:
                reply = self.channel.receive()
                if type(reply) is not dict:
                    raise WireFault("unexpected", "a message that answers no request of the judge")
                answered = reply.get("re")
                if answered == number and type(answered) is int:
                    if not reply.keys() <= _REPLY_KEYS or ("ok" in reply) == ("err" in reply):
                        raise WireFault("malformed", "an answer that is neither a value nor an exception")
                    return reply
                if "cb" in reply and reply.keys() <= _CALLBACK_KEYS:
                    self._call_back(reply)
                    continue
                raise WireFault("unexpected", "a message that answers no request of the judge")
        except WireFault as fault:
            self.fault = self.fault or fault
            raise self.fault from None

    def _result(self, reply: dict, op: str = ""):
        try:
            if "ok" in reply:  # _exchange saw that a reply has one of "ok" and "err"
                return decode(reply["ok"], self._tags)
            error = self.decode(reply["err"])
        except WireFault as fault:  # a malformed answer sticks like any fault: the property cannot catch it away
            self.fault = self.fault or fault
            raise self.fault from None
        if not isinstance(error, BaseException):
            raise WireFault("malformed", "an error that is not an exception")
        if op != "next" and isinstance(error, (StopIteration, StopAsyncIteration)):
            # only `next` may end an iteration: raised by anything else it would end the property's own loop
            # silently (`for v in map(f, xs)`), so it arrives as PEP 479 has it in a generator
            stopped = RuntimeError(f"the implementation raised {type(error).__name__} outside iteration")
            stopped.__witness_where__ = getattr(error, "__witness_where__", None)
            raise stopped from error
        raise error

    # -- callbacks --------------------------------------------------------------------------------------------
    def _call_back(self, message: dict) -> None:
        number, request = message.get("cb"), message.get("id")
        if type(request) is not int or request <= self.last_call_back:
            raise WireFault("unexpected", "a callback request out of order")
        self.last_call_back = request
        function = self.callbacks.get(number) if type(number) is int else None
        if function is None:
            raise WireFault("unexpected", "a callback that is not the judge's to serve now")
        if type(message.get("a", [])) is not list or type(message.get("k", [])) is not list:
            raise WireFault("malformed", "a callback's arguments")
        args = [self.decode(tree) for tree in message.get("a", [])]
        kwargs = {}
        for pair in message.get("k", []):
            if type(pair) is not list or len(pair) != 2 or not is_name(pair[0]):
                raise WireFault("malformed", "a callback's keyword argument")
            kwargs[pair[0]] = self.decode(pair[1])
        try:
            result = function(*args, **kwargs)
            answer = {"re": request, "ok": self._encoded(lambda: self.encode(result))}
        except WireFault:
            raise
        except BaseException as exc:  # noqa: BLE001 - the callable's exception goes back to the implementation
            if self.fault is not None:
                raise self.fault from None
            answer = {"re": request, "err": {"X": [self._judge_class(type(exc)), [self._text(a) for a in exc.args],
                                                   self._text(exc), None, []]}}
        self.channel.send(answer)

    def _judge_class(self, cls) -> dict:
        if getattr(cls, "__witness_class__", None):
            return {"i": cls.__witness_class__}
        while cls.__module__ != "builtins" or getattr(builtins, cls.__name__, None) is not cls:
            cls = cls.__base__
        return {"b": cls.__name__}

    @staticmethod
    def _text(value) -> str:
        try:
            return str(value)[:MAX_TEXT]
        except Exception:  # noqa: BLE001
            return "?"

    # -- values out -------------------------------------------------------------------------------------------
    def encode(self, value):
        return encode(value, self._other)

    def _other(self, value, inner):
        if isinstance(value, Handle):
            return {"H": value._w_number}
        made = getattr(type(value), "__witness_class__", None)
        enum = sys.modules.get("enum")
        if made and enum is not None and isinstance(value, enum.Enum):
            return {"E": [made, value.name]}
        if made and isinstance(value, tuple):
            return {"U": [made, [inner(item) for item in value]]}
        if isinstance(value, type) and getattr(value, "__witness_class__", None):
            return {"H": value.__witness_class__}
        for base in (int, float, str, bytes, bytearray, list, dict, set, frozenset):
            if isinstance(value, base):  # a subclass the oracle made (OrderedDict, Counter, IntEnum) goes as data
                return inner(base(value))
        if isinstance(value, tuple):
            return inner(tuple(value))
        pathlib = sys.modules.get("pathlib")  # no path exists before its module is imported
        if pathlib is not None and isinstance(value, pathlib.PurePath):  # a project's own path class too
            kind = ("PureWindowsPath" if isinstance(value, pathlib.PureWindowsPath) else
                    "PosixPath" if isinstance(value, pathlib.Path) else "PurePosixPath")
            return {"P": [kind, str(value)]}
        if isinstance(value, type) and (named := standard_class(value)) is not None:
            return {"O": named}  # `__type__ = int`, `(datetime.date, str)`: the class itself there, not a callable
        if callable(value):  # before iterators: a MagicMock is both, and a test hands it over to be called
            return {"K": self._lend(value)}
        if hasattr(type(value), "__next__") and hasattr(type(value), "__iter__"):
            return {"J": drained(value, inner)}
        return {"R": [self._lend_object(value), type(value).__qualname__[:200]]}

    def _lend_object(self, value) -> int:
        """The number of an object of the oracle's the implementation holds by reference (pyrsistent's tests put
        their own objects in its vectors and maps): it comes back as the same object, and the implementation may
        ask it only what a container asks of its members (Lent)."""
        number = self.referenced.get(id(value))
        lent = self.callbacks.get(number) if number is not None else None
        if type(lent) is Lent and lent.value is value:
            return number
        number = self._lend(Lent(value))
        self.referenced[id(value)] = number
        return number

    def _lend(self, function) -> int:
        """The number of a callable lent to the implementation, which may call it back whenever the judge waits on it,
        as code in one process could call a function it kept (natsort's chain_functions returns a closure over the
        functions it was given). The oldest is taken back past MAX_LENT distinct callables."""
        number = self.lent.get(id(function))
        if number is not None and self.callbacks.get(number) is function:
            return number
        number = next(self.callback_numbers)
        self.callbacks[number] = function
        self.lent[id(function)] = number
        self.fresh.append(number)
        if len(self.callbacks) > MAX_LENT:
            oldest = next(iter(self.callbacks))
            if self.lent.get(id(self.callbacks[oldest])) == oldest:
                del self.lent[id(self.callbacks[oldest])]
            del self.callbacks[oldest]
        return number

    # -- values in --------------------------------------------------------------------------------------------
    def decode(self, tree):
        return decode(tree, self._tags)

    def _handle(self, body, inner) -> Handle:
        if type(body) is not list or len(body) != 2 or type(body[0]) is not int or type(body[1]) is not str:
            raise TypeError("a handle")
        number = body[0]
        if not 0 < number <= MAX_HANDLES:
            raise ValueError("a handle's number")
        handle = self.handles.get(number)
        if handle is None:
            handle = self.handles[number] = Handle(self, number, body[1][:200])
        return handle

    def _callable(self, body, inner):
        if body not in self.callbacks or type(self.callbacks[body]) is Lent:
            raise ValueError("a callable the judge no longer lends")
        return self.callbacks[body]

    def _reference(self, body, inner):
        number = body[0] if type(body) is list and body else body
        lent = self.callbacks.get(number) if type(number) is int else None
        if type(lent) is not Lent:
            raise ValueError("an object the judge no longer lends")
        return lent.value


_CURRENT: Peer | None = None


class NoSubject(Exception):  # no TypeError: `pytest.raises(TypeError)` must not pass on what was never asked
    """A pickle of the implementation's objects loaded where no subject can load it."""


def current() -> Peer:
    if _CURRENT is None:
        raise NoSubject("no implementation to load this pickle of its objects in")
    return _CURRENT
