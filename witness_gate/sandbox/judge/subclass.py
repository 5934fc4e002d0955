"""A class of the oracle's whose bases are the implementation's classes (`class Naturals(CheckedPVector): ...`, as
pyrsistent's and bidict's tests write them): the class is made in the subject, and the judge holds a handle to it.

Its body's values cross as any value does: data as data, the implementation's objects as themselves, and the body's
functions as callables the judge lends, so a method runs here, in the judge, on a handle of the instance there,
whenever the implementation calls it. `super()` in such a method has no class here to start from: call the base's
method by name instead.
"""

from __future__ import annotations

_LEFT_OUT = frozenset({"__module__", "__qualname__", "__orig_bases__", "__classcell__"})


class Remote(type):
    """The metaclass of a class statement over the implementation's classes: it returns a handle, never a class."""

    def __new__(mcls, name, bases, namespace, **keywords):
        if "__orig_bases__" not in namespace:  # the placeholder below
            return super().__new__(mcls, name, bases, namespace)
        return made_there(name, namespace["__orig_bases__"], namespace, keywords)


Placeholder = Remote("ImplementationClass", (), {})  # what Handle.__mro_entries__ gives Python's class statement


def made_there(name: str, bases: tuple, namespace: dict, keywords: dict):
    from witness_gate.sandbox.judge.handles import Handle, Parameterized

    bases = tuple(base.alias if isinstance(base, Parameterized) else base for base in bases)  # typing's, there
    handles = [base for base in bases if isinstance(base, Handle)]
    if len(handles) != len(bases):
        raise TypeError(f"class {name}: a class of the oracle's cannot be combined with the implementation's classes "
                        "as bases (the implementation's run in another process)")
    members = []
    for key, value in namespace.items():
        if key in _LEFT_OUT:
            continue
        how = ""
        if isinstance(value, staticmethod):
            how, value = "static", value.__func__
        elif isinstance(value, classmethod):
            how, value = "class", value.__func__
        elif isinstance(value, property):
            how, value = "property", [value.fget, value.fset, value.fdel]
        members.append([key, how, value])
    spec = {"bases": handles, "members": members, "module": str(namespace.get("__module__", "")),
            "keywords": keywords}
    made = handles[0]._w_peer.ask("subclass", handles[0]._w_number, name=name, v=spec)
    cell = namespace.get("__classcell__")
    if cell is not None:  # `__class__` in a method names the class there
        cell.cell_contents = made
    return made
