"""An object of the implementation, as the judge holds it: a number the subject gave, and nothing of the object."""

from __future__ import annotations

import itertools

from witness_gate.sandbox.judge.compare import SYMBOLS, ImplementationDisagrees, NoContents, by_contents, checked, form
from witness_gate.sandbox.wire.forms import MAX_TEXT


class Handle:
    """An object of the implementation, which stays in the subject: attribute reads, calls, iteration, item access,
    operators, hash and truth are forwarded; its equality, order and `in` are its own answers, which stand only when
    its contents agree (judge/compare.py), and an object with no contents (no sequence, set or mapping) has none."""

    __slots__ = ("_w_peer", "_w_number", "_w_type", "__weakref__")

    def __init__(self, peer, number: int, kind: str) -> None:
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
        said = self._w_peer.ask("getitem", self._w_number, key=key)  # its own answer, raising too
        if isinstance(said, Handle) and said._w_type.endswith("Alias") and _type_parameters(key):
            return Parameterized(said, key)  # `Their[KT, VT]`: typing's alias there, subscripted again here
        return said

    def __setitem__(self, key, value):
        self._w_peer.ask("setitem", self._w_number, key=key, v=value)

    def __delitem__(self, key):
        self._w_peer.ask("delitem", self._w_number, key=key)

    def __contains__(self, value):
        mine = self._w_peer.contents(self)  # before it is shown the needle
        said = self._w_peer.ask("contains", self._w_number, v=value)  # its own answer: raising is one
        if mine is None:
            raise NoContents(self._w_without("`in`"))
        kind, items = mine
        found = any(value is item or value == item for item in ([k for k, _ in items] if kind == "map" else items))
        if said is not found:
            raise ImplementationDisagrees(f"{self._w_name()}: its `in` says {said}, its contents say {found}; an "
                                          "object's membership must agree with what it holds")
        return said

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

    def __hash__(self):  # its own answer: a hash shows it nothing of the oracle's
        said = self._w_peer.ask("hash", self._w_number)
        if type(said) is not int:
            raise TypeError(f"the hash of {self._w_name()} is no int")
        return said

    def __bool__(self):
        said = self._w_peer.ask("bool", self._w_number)
        if type(said) is not bool:
            raise ImplementationDisagrees(f"the truth of {self._w_name()} is no bool")
        mine = self._w_peer.contents(self)
        if mine is not None and said is not bool(mine[1]):
            raise ImplementationDisagrees(f"{self._w_name()}: its truth says {said}, and it holds {len(mine[1])} "
                                          "items; an object's truth must agree with what it holds")
        return said

    def _w_without(self, what: str) -> str:
        return (f"{self._w_name()} stays in the implementation's process and is no sequence, set or mapping (nor an "
                f"object of a class with its own == and attributes): its {what} has no contents here to be checked "
                "by; compare the data it gives (its attributes, what its methods return) instead")

    def _w_compare(self, other, op: str) -> bool:
        """The implementation's own answer, which stands only when it agrees with the contents of both sides; its
        contents are taken before it is shown the other side (an object told what it is compared with could take it
        on: found by a reviewer). Raising is an answer too (`pytest.raises(TypeError)` around an order)."""
        peer = self._w_peer
        mine = peer.contents(self)
        if mine is None and op in ("eq", "ne") and other is not self and not self._w_class():
            mine = peer.state(self)  # an object of a class with its own `==`: by its attributes
        # the other side's too before the compare: its `__eq__` could change an object of its own it is shown
        theirs = form(other, peer.contents) if mine is not None else None
        if theirs is None and mine is not None and mine[0] == "obj":
            theirs = peer.state(other)
        said = peer.ask("compare", self._w_number, name=op, v=other)
        show = lambda: f"{self._w_name()} {SYMBOLS[op]} {type(other).__name__}"  # noqa: E731
        if mine is None and op in ("eq", "ne") and (other is self or self._w_class()):
            # itself: equal, whatever it holds; a class (of a metaclass the subject names): equal to itself alone, as
            # `type` has it (`bi_t in mutable_bidict_types`, typing's `Union` and aliases over the implementation's
            # classes); the implementation's own answer must agree
            return checked(op, said, (other is self) == (op == "eq"), show)
        if mine is None:
            raise NoContents(self._w_without(SYMBOLS[op]))
        expected = by_attributes(self, other, op, mine, theirs) if mine[0] == "obj" else by_contents(op, mine, theirs)
        if expected is None:
            raise NoContents(f"{show()}: no {SYMBOLS[op]} between these by their contents, which could check the "
                             f"implementation's answer ({said})")
        return checked(op, said, expected, show)

    def __mro_entries__(self, bases):  # `class Mine(TheirClass):` is made in the subject (judge/subclass.py)
        from witness_gate.sandbox.judge.subclass import Placeholder

        return (Placeholder,)

    def __instancecheck__(self, instance):  # a value of the judge's is none of the implementation's classes
        return isinstance(instance, Handle) and self._w_peer.ask("isinstance", self._w_number, v=instance) is True

    def __subclasscheck__(self, cls):
        return isinstance(cls, Handle) and self._w_peer.ask("issubclass", self._w_number, v=cls) is True

    def __reduce_ex__(self, protocol):
        """Pickled by the subject, and unpickled there: the judge keeps its bytes and never loads them itself."""
        pickled = self._w_peer.ask("pickle", self._w_number, v=protocol if type(protocol) is int else None)
        if type(pickled) is not bytes:  # no TypeError: `pytest.raises(TypeError)` must not take it for a refusal
            raise ImplementationDisagrees(f"{self._w_name()} was pickled to no bytes")
        return _unpickled, (pickled,)

    def __copy__(self):  # the implementation's own copies, made where it is, by the modules a test would import
        return self._w_peer.ask("copy", self._w_number)

    def __deepcopy__(self, memo):
        # one memo in the subject for one deepcopy here (kept in this one under a key no id() is): what the copied
        # objects share stays shared (the memo's contents are the subject's; the implementation sees no judge object)
        held = _SUBJECT_MEMO not in memo and len(memo) > 0  # copied inside a structure: a memo that holds it
        token = memo.setdefault(_SUBJECT_MEMO, str(next(_MEMOS)))  # a number, never an id() a later memo reuses
        return self._w_peer.ask("deepcopy", self._w_number, name=token, v=held)

    def _w_class(self) -> bool:
        """Whether the subject named this object's kind a metaclass: `type`, or one named as Python's are (ABCMeta,
        EnumMeta, EnumType). The subject chooses the name; the implementation's answer must still agree with
        identity, so a value object named so only loses the comparison by its own `__eq__`."""
        return self._w_type in ("type", "EnumType") or self._w_type.endswith("Meta")

    def _w_name(self) -> str:
        return f"<{self._w_type} object of the implementation>"


MAX_NESTING = 48  # objects compared by attributes inside one another: deeper has no check here (NoContents)
_COMPARING: list[tuple[int, int]] = []  # the pairs being compared by attributes, outermost first


def by_attributes(mine_handle: Handle, other, op: str, mine, theirs):
    """by_contents for two objects compared by their attributes, which may hold each other: a pair already being
    compared further out is taken as equal there (a tree's parent pointer, a cycle: the outer comparison decides),
    and nesting past MAX_NESTING is no check here. Found by a reviewer: a chain of 170 value objects overflowed the
    judge's stack, a transport fault (a hold) where the test had been green."""
    pair = (mine_handle._w_number, other._w_number if isinstance(other, Handle) else id(other))
    if pair in _COMPARING:
        return op == "eq"
    if len(_COMPARING) >= MAX_NESTING:
        raise NoContents(f"{mine_handle._w_name()} {SYMBOLS[op]} {type(other).__name__}: objects nested more than "
                         f"{MAX_NESTING} deep in each other's attributes have no check here")
    _COMPARING.append(pair)
    try:
        return by_contents(op, mine, theirs)
    finally:
        _COMPARING.pop()


_SUBJECT_MEMO = "witness-gate: the subject's memo"
_MEMOS = itertools.count(1)


def _unpickled(pickled: bytes):
    """A handle's pickle loaded (`pickle.loads` in the oracle): by the subject that made it, into a new handle."""
    from witness_gate.sandbox.judge.peer import current

    return current().unpickle(pickled)


def _comparison(op: str):
    def compare(self, other):
        return self._w_compare(other, op)
    return compare


def _arith(name: str, how: str = ""):
    asked = how + name

    def operator_(self, other):
        return self._w_peer.ask("arith", self._w_number, name=asked, v=other)
    return operator_


def _unary(name: str):
    def operator_(self):
        return self._w_peer.ask("unary", self._w_number, name=name)
    return operator_


for _name in SYMBOLS:
    setattr(Handle, f"__{_name}__", _comparison(_name))
# the implementation's arithmetic is its answer, as a method's is (`pvector([1]) + pvector([2])`, `2 * v`)
for _name in ("add", "sub", "mul", "matmul", "truediv", "floordiv", "mod", "pow", "lshift", "rshift", "and", "xor",
              "or"):
    setattr(Handle, f"__{_name}__", _arith(_name))
    setattr(Handle, f"__r{_name}__", _arith(_name, "r:"))
    setattr(Handle, f"__i{_name}__", _arith(_name, "i:"))
for _name in ("neg", "pos", "invert", "abs", "int", "float", "index"):
    setattr(Handle, f"__{_name}__", _unary(_name))


class Parameterized:
    """The implementation's generic alias over type variables of the oracle's (`bidict[KT, VT]`, as bidict's tests
    write it), as the subject made it: called, read from and subclassed (`class UserBi(bidict[KT, VT])`) there. Only
    what typing does with the oracle's variables stays here, where they are variables: subscripted again
    (`BB[KT, VT]`, `Type[BB[KT, VT]][K, V]`) it keeps the same alias with the new parameters, as Python erases them
    when the code runs (the subject sees the variables as the oracle's objects, which typing cannot substitute)."""

    __slots__ = ("alias", "parameters")

    def __init__(self, alias: Handle, parameters) -> None:
        self.alias, self.parameters = alias, parameters if isinstance(parameters, tuple) else (parameters,)

    def __getitem__(self, key):
        return Parameterized(self.alias, key)

    @property
    def __parameters__(self) -> tuple:  # what typing substitutes in an alias over it (`Type[BB[KT, VT]][K, V]`)
        found: list = []
        for part in self.parameters:
            if _type_parameters(part) and part not in found:
                found.append(part)
        return tuple(found)

    def __call__(self, *args, **kwargs):
        return self.alias(*args, **kwargs)

    def __getattr__(self, name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return getattr(self.alias, name)

    def __mro_entries__(self, bases):
        return self.alias.__mro_entries__(bases)

    def __instancecheck__(self, instance):
        raise TypeError("Subscripted generics cannot be used with class and instance checks")

    def __subclasscheck__(self, cls):
        raise TypeError("Subscripted generics cannot be used with class and instance checks")

    def __repr__(self):
        return repr(self.alias)


def _type_parameters(key) -> bool:
    """Whether `key` holds a type variable of the oracle's (typing.TypeVar, ParamSpec, TypeVarTuple)."""
    import typing

    kinds = tuple(getattr(typing, name) for name in ("TypeVar", "ParamSpec", "TypeVarTuple") if hasattr(typing, name))
    return any(isinstance(part, kinds) for part in (key if isinstance(key, tuple) else (key,)))
