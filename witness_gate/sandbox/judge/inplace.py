"""Arguments the implementation changed in place come back: the judge's objects are made to hold what the subject's
copies hold, and a change reaching the pinned payload is noted for good (a failure, `mutated_payload`, even when a
later call puts it back)."""

from __future__ import annotations

from witness_gate.sandbox.wire.frames import WireFault

_MISSING = object()


class InPlace:
    """Write-backs for one evaluation; `payload_ids` are the pinned payload's containers."""

    def __init__(self, decode) -> None:
        self.decode = decode
        self.payload_ids: frozenset[int] = frozenset()
        self.payload_changed = False

    def apply(self, changed, args: tuple, kwargs: dict) -> None:
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


def containers(value, found: set | None = None, depth: int = 0) -> set:
    """The ids of every list and dict inside `value` (the pinned payload's, whose changes through a call count)."""
    found = set() if found is None else found
    if type(value) in (list, dict) and depth < 200:
        found.add(id(value))
        for item in (value.values() if type(value) is dict else value):
            containers(item, found, depth + 1)
    return found
