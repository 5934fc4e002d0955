"""The standard library's abstract classes asked about the implementation's objects (`isinstance(b, Mapping)`,
`issubclass(bidict, Reversible)`, `typing.Iterable`, `typing.SupportsInt`): the object is in the subject, so its class
there answers, against the subject's own class of the same name. An abstract class of the oracle's own cannot be named
there: it answers as Python does for an object it does not know.

The standard abstract classes are given a metaclass of their own (a subclass of theirs) rather than ABCMeta a wrapper:
typing's protocols decide some checks by the module of the frame that called them, and a frame of ours in every
ABCMeta check broke them for the whole process (found by the suite: openapi-core's protocols in the GitHub double)."""

from __future__ import annotations

import abc

_installed: list[bool] = []


def install() -> None:
    """Once a judge process (a warm judge's children inherit it)."""
    if _installed:
        return
    import collections.abc
    import contextlib
    import numbers
    import typing

    from witness_gate.sandbox.judge.handles import Handle
    from witness_gate.sandbox.judge.lending import standard_class as _standard_class

    def asking(meta: type) -> type:
        class HandleAware(meta):
            def __instancecheck__(cls, instance):
                if type(instance) is Handle and _standard_class(cls) is not None:
                    return instance._w_peer.ask("instance_of", instance._w_number, v=cls) is True
                return super().__instancecheck__(instance)

            def __subclasscheck__(cls, subclass):
                if type(subclass) is Handle and _standard_class(cls) is not None:
                    return subclass._w_peer.ask("subclass_of", subclass._w_number, v=cls) is True
                return super().__subclasscheck__(subclass)
        return HandleAware

    plain, protocols = asking(abc.ABCMeta), asking(type(typing.SupportsInt))
    for module in (collections.abc, contextlib, numbers, typing):
        for name in dir(module):
            value = getattr(module, name)
            if type(value) is abc.ABCMeta:
                value.__class__ = plain
            elif type(value) is type(typing.SupportsInt) and getattr(value, "_is_runtime_protocol", False):
                value.__class__ = protocols  # SupportsInt, SupportsIndex, ...
    _aliases(Handle)
    _installed.append(True)


def _aliases(Handle) -> None:
    """typing's unsubscripted aliases (`typing.Iterable`, `typing.Callable`) check `type(obj)`, which is the judge's
    Handle class, with all its operators, so every implementation object was an Iterable, Sized, Collection (found by
    a reviewer): a handle is checked against the alias's own class, which asks the subject."""
    import typing

    alias = typing._SpecialGenericAlias
    alias_check = alias.__instancecheck__

    def alias_instancecheck(self, obj):
        if type(obj) is Handle:
            return isinstance(obj, self.__origin__)
        return alias_check(self, obj)

    alias.__instancecheck__ = alias_instancecheck
