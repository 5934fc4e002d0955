"""The standard library's abstract classes asked about the implementation's objects (`isinstance(b, Mapping)`,
`issubclass(bidict, Reversible)`, typing's `Reversible` through them): the object is in the subject, so its class there
answers, against the subject's own `collections.abc` class of the same name. An abstract class of the oracle's own
cannot be named there: it answers as Python does for an object it does not know."""

from __future__ import annotations

import abc

_installed: list[bool] = []


def install() -> None:
    """Make ABCMeta's checks ask the subject about a handle (once a process; a warm judge's children inherit it)."""
    if _installed:
        return
    from witness_gate.sandbox.judge.handles import Handle
    from witness_gate.sandbox.judge.peer import _standard_class

    instancecheck, subclasscheck = abc.ABCMeta.__instancecheck__, abc.ABCMeta.__subclasscheck__

    def __instancecheck__(cls, instance):
        if type(instance) is Handle and _standard_class(cls) is not None:
            return instance._w_peer.ask("instance_of", instance._w_number, v=cls) is True
        return instancecheck(cls, instance)

    def __subclasscheck__(cls, subclass):
        if type(subclass) is Handle and _standard_class(cls) is not None:
            return subclass._w_peer.ask("subclass_of", subclass._w_number, v=cls) is True
        return subclasscheck(cls, subclass)

    abc.ABCMeta.__instancecheck__, abc.ABCMeta.__subclasscheck__ = __instancecheck__, __subclasscheck__
    _typing(Handle, _standard_class)
    _installed.append(True)


def _typing(Handle, _standard_class) -> None:
    """typing's unsubscripted aliases (`typing.Iterable`, `typing.Callable`) check `type(obj)`, which is the judge's
    Handle class, with all its operators, so every implementation object was an Iterable, Sized, Collection (found by
    a reviewer): a handle is checked against the alias's own class there. Its runtime protocols (`SupportsInt`) read
    attributes off the handle: a handle is checked there too."""
    import typing

    alias = typing._SpecialGenericAlias
    alias_check = alias.__instancecheck__

    def alias_instancecheck(self, obj):
        if type(obj) is Handle:
            return isinstance(obj, self.__origin__)
        return alias_check(self, obj)

    alias.__instancecheck__ = alias_instancecheck
    protocols = type(typing.SupportsInt)  # typing's _ProtocolMeta, an ABCMeta of its own
    protocol_check = protocols.__dict__.get("__instancecheck__")
    if protocol_check is not None:
        def protocol_instancecheck(cls, instance):
            if type(instance) is Handle and _standard_class(cls) is not None:
                return instance._w_peer.ask("instance_of", instance._w_number, v=cls) is True
            return protocol_check(cls, instance)

        protocols.__instancecheck__ = protocol_instancecheck
