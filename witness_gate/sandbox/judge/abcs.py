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
    _installed.append(True)
