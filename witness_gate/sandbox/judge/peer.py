"""The judge's end of the boundary: requests to the subject, its answers rebuilt as data, handles for the rest.

Nothing the subject sends is run: data is rebuilt as exact builtin types, classes are made here from names, and an
object that is not data stays in the subject behind a `Handle`. The first fault of the wire sticks: once the
boundary failed, the evaluation is a transport fault whatever the property makes of it.
"""

from __future__ import annotations

import builtins
import itertools
import sys

from witness_gate.sandbox.wire.forms import MAX_TEXT, is_name, is_where
from witness_gate.sandbox.wire.frames import Channel, WireFault, dumps
from witness_gate.sandbox.wire.values import decode, encode

_REPLY_KEYS = frozenset({"re", "ok", "err", "wb", "file", "package"})
_CALLBACK_KEYS = frozenset({"cb", "id", "a", "k"})
MAX_HANDLES = 1_000_000
_MISSING = object()


class Handle:
    """An object of the implementation, which stays in the subject: attribute reads, calls, iteration and item
    access are forwarded; it has no truth, order, equality or hash here (compare the data it gives instead)."""

    __slots__ = ("_w_peer", "_w_number", "_w_type", "__weakref__")

    def __init__(self, peer: "Peer", number: int, kind: str) -> None:
        object.__setattr__(self, "_w_peer", peer)
        object.__setattr__(self, "_w_number", number)
        object.__setattr__(self, "_w_type", kind)

    def __getattr__(self, name):
        return self._w_peer.ask("getattr", self._w_number, name=name)

    def __setattr__(self, name, value):
        self._w_peer.ask("setattr", self._w_number, name=name, v=value)

    def __delattr__(self, name):
        self._w_peer.ask("delattr", self._w_number, name=name)

    def __call__(self, *args, **kwargs):
        return self._w_peer.call(self._w_number, args, kwargs)

    def __iter__(self):
        return self._w_peer.ask("iter", self._w_number)

    def __next__(self):
        return self._w_peer.ask("next", self._w_number)

    def __len__(self):
        return self._w_peer.ask("len", self._w_number)

    def __getitem__(self, key):
        return self._w_peer.ask("getitem", self._w_number, key=key)

    def __setitem__(self, key, value):
        self._w_peer.ask("setitem", self._w_number, key=key, v=value)

    def __delitem__(self, key):
        self._w_peer.ask("delitem", self._w_number, key=key)

    def __contains__(self, value):
        return self._w_peer.ask("contains", self._w_number, v=value) is True

    def __enter__(self):
        return self.__getattr__("__enter__")()

    def __exit__(self, *info):
        return self.__getattr__("__exit__")(*info)

    def __repr__(self):
        try:
            return str(self._w_peer.ask("repr", self._w_number))[:MAX_TEXT]
        except Exception:  # noqa: BLE001 - a repr is for people
            return self._w_name()

    def __str__(self):
        return str(self._w_peer.ask("str", self._w_number))[:MAX_TEXT]

    def _w_name(self) -> str:
        return f"<{self._w_type} object of the implementation>"

    def _w_refuse(self, *_):
        raise TypeError(f"{self._w_name()} stays in the implementation's process: it has no truth value, order, "
                        "equality or hash in the judge; compare the data it gives (its attributes, what its "
                        "methods return) instead")

    __bool__ = __eq__ = __ne__ = __lt__ = __le__ = __gt__ = __ge__ = __hash__ = _w_refuse


class Peer:
    """Requests to the subject; while one waits, the subject may call back the judge's callables it was given."""

    def __init__(self, channel: Channel) -> None:
        self.channel = channel
        self.fault: WireFault | None = None
        self.numbers = itertools.count(1)
        self.handles: dict[int, Handle] = {}
        self.built: dict[str, type] = {}
        self.callbacks: dict[int, object] = {}
        self.scopes: list[list[int]] = []
        self.callback_numbers = itertools.count(1)
        self.last_call_back = 0
        self.payload_ids: frozenset[int] = frozenset()
        self.payload_changed = False  # the implementation changed the pinned payload through a call
        self.imported: list[str] = []
        self._tags = {"H": self._handle, "K": self._callable, "E": self._enum_member, "G": self._enum_of,
                      "U": self._named, "X": self._exception, "Y": self._exception_of}

    # -- requests ---------------------------------------------------------------------------------------------
    def import_module(self, name: str) -> tuple[Handle, str, bool]:
        reply = self._request({"op": "import", "name": name}, ())
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
        self.scopes.append([])
        try:
            if key is not _MISSING:
                message["key"] = self.encode(key)
            if v is not _MISSING:
                message["v"] = self.encode(v)
            return self._result(self._exchange(message))
        finally:
            self._end_scope()

    def call(self, number: int, args: tuple, kwargs: dict):
        self.scopes.append([])
        try:
            message = {"op": "call", "h": number, "a": [self.encode(a) for a in args],
                       "k": [[str(k), self.encode(v)] for k, v in kwargs.items()]}
            reply = self._exchange(message)
            self._write_back(reply.get("wb"), args, kwargs)
            return self._result(reply)
        finally:
            self._end_scope()

    def _request(self, message: dict, args) -> dict:
        self.scopes.append([])
        try:
            return self._exchange(message)
        finally:
            self._end_scope()

    def _end_scope(self) -> None:
        for number in self.scopes.pop():
            self.callbacks.pop(number, None)

    def _exchange(self, message: dict) -> dict:
        if self.fault is not None:
            raise self.fault
        message["id"] = number = next(self.numbers)
        try:
            self.channel.send(message)
            while True:
                reply = self.channel.receive()
                if type(reply) is dict and reply.get("re") == number and type(reply.get("re")) is int:
                    if not reply.keys() <= _REPLY_KEYS or ("ok" in reply) == ("err" in reply):
                        raise WireFault("malformed", "an answer that is neither a value nor an exception")
                    return reply
                if type(reply) is dict and "cb" in reply and reply.keys() <= _CALLBACK_KEYS:
                    self._call_back(reply)
                    continue
                raise WireFault("unexpected", "a message that answers no request of the judge")
        except WireFault as fault:
            self.fault = self.fault or fault
            raise self.fault from None

    def _result(self, reply: dict):
        if "err" in reply:
            error = self.decode(reply["err"])
            if not isinstance(error, BaseException):
                raise WireFault("malformed", "an error that is not an exception")
            raise error
        return self.decode(reply["ok"])

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
            answer = {"re": request, "ok": self.encode(function(*args, **kwargs))}
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
        if callable(value):
            number = next(self.callback_numbers)
            self.callbacks[number] = value
            self.scopes[-1].append(number)
            return {"K": number}
        raise TypeError(f"a {type(value).__name__} cannot be handed to the implementation, which runs in another "
                        "process: pass data, a callable, or an object the implementation gave")

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
        if body not in self.callbacks:
            raise ValueError("a callable the judge no longer lends")
        return self.callbacks[body]

    def _enum_of(self, body, inner):
        key = "G" + dumps(body).decode()
        if key not in self.built:
            import enum

            desc = body
            members = [(str(name), inner(value)) for name, value in desc["v"]]
            mixin = {"int": enum.IntEnum, "str": None, "flag": enum.Flag, "intflag": enum.IntFlag}.get(desc["k"], None)
            base = mixin or enum.Enum
            options = {"type": str} if desc["k"] == "str" else {}
            made = base(str(desc["n"])[:200], members or [], module=str(desc["m"])[:200],
                        qualname=str(desc["q"])[:200], **options)
            made.__witness_class__ = desc["i"]
            self.built[key] = made
        return self.built[key]

    def _enum_member(self, body, inner):
        number, desc, name = body
        try:
            return self._enum_of(desc, inner)[name]
        except (KeyError, TypeError, ValueError, AttributeError):  # not an enum this judge can make: stays there
            return self._handle([number, str(desc.get("n", "enum"))], inner)

    def _named(self, body, inner):
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

    def _exception_of(self, body, inner, depth: int = 0) -> type:
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
            bases = tuple(self._exception_of(b, inner, depth + 1) for b in body.get("s", [])[:8]) or (Exception,)
            name = str(body["n"])[:200]
            namespace = {"__module__": str(body["m"])[:200], "__qualname__": str(body["q"])[:200],
                         "__str__": _message, "__witness_class__": body["i"]}
            try:
                made = type(name, bases, namespace)
            except TypeError:  # bases whose layouts cannot be combined here: the first one is kept
                made = type(name, bases[:1], namespace)
            self.built[key] = made
        return self.built[key]

    def _exception(self, body, inner) -> BaseException:
        described, args, message, where, attributes = body
        cls = self._exception_of(described, inner)
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

    # -- arguments changed in place ---------------------------------------------------------------------------
    def _write_back(self, changed, args: tuple, kwargs: dict) -> None:
        if not changed:
            return
        if type(changed) is not list:
            raise WireFault("malformed", "arguments changed in place")
        for pair in changed:
            if type(pair) is not list or len(pair) != 2:
                raise WireFault("malformed", "an argument changed in place")
            where, tree = pair
            if type(where) is int and 0 <= where < len(args):
                target = args[where]
            elif type(where) is str and where in kwargs:
                target = kwargs[where]
            else:
                raise WireFault("malformed", "an argument the call did not have")
            self._sync(target, self.decode(tree), 0)

    def _sync(self, old, new, depth: int) -> None:
        """Make `old` hold what `new` holds, in place, keeping the identity of the containers both still have."""
        if type(old) is not type(new) or depth > 200:
            return
        if type(old) is list:
            if len(old) != len(new):
                self._changed(old)
                old[:] = new
                return
            for index, (a, b) in enumerate(zip(old, new)):
                if type(a) in (list, dict) and type(a) is type(b):
                    self._sync(a, b, depth + 1)
                elif not _same(a, b):
                    self._changed(old)
                    old[index] = b
        elif type(old) is dict:
            for k in [k for k in old if k not in new]:
                self._changed(old)
                del old[k]
            for k, b in new.items():
                a = old.get(k, _MISSING)
                if type(a) in (list, dict) and type(a) is type(b):
                    self._sync(a, b, depth + 1)
                elif a is _MISSING or not _same(a, b):
                    self._changed(old)
                    old[k] = b
        elif old != new:
            self._changed(old)
            if type(old) is set:
                old.clear()
                old.update(new)
            else:
                old[:] = new

    def _changed(self, container) -> None:
        if id(container) in self.payload_ids:
            self.payload_changed = True


def _same(a, b) -> bool:
    if a is b:
        return True
    try:
        return type(a) is type(b) and bool(a == b)
    except TypeError:  # a handle inside: not the same value
        return False


def _message(self) -> str:
    said = self.__dict__.get("_witness_message")  # what the implementation's exception said, when it came from there
    return said if said is not None else BaseException.__str__(self)


def containers(value, found: set | None = None, depth: int = 0) -> set:
    """The ids of every list and dict inside `value` (the pinned payload's, whose changes through a call count)."""
    found = set() if found is None else found
    if type(value) in (list, dict) and depth < 200:
        found.add(id(value))
        for item in (value.values() if type(value) is dict else value):
            containers(item, found, depth + 1)
    return found
