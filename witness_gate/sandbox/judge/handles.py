"""An object of the implementation, as the judge holds it: a number the subject gave, and nothing of the object."""

from __future__ import annotations

from witness_gate.sandbox.wire.forms import MAX_TEXT


class Handle:
    """An object of the implementation, which stays in the subject: attribute reads, calls, iteration and item
    access are forwarded; it has no truth, order, equality or hash here (compare the data it gives instead)."""

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
