"""The broader sample (SPEC §10): inputs near a pinned payload that the code under test has never seen.

A pinned fixture sits in the repository, so a patch can see every input it holds and answer those alone correctly.
The sample is drawn from a seed derived from a secret of the gate's and the patch digest: the same patch gets the
same sample, and nothing in the repository or the sandbox tells the code under test which inputs it will be. Each
input is one to three small moves away from the payload: a number moved to a boundary or a neighbour (0, 1, -1, the
values the payload and the property's constants use), a string shortened or varied, an element duplicated, dropped
or moved, values swapped between siblings. Keys are never changed: they are the payload's shape, not its data.
"""

from __future__ import annotations

import ast
import hashlib
import hmac
import random
from typing import Any

from witness_gate.model.canonical import CanonicalError, canonical_bytes

MAX_TRIES = 20  # draws per wanted input, for a payload with little to vary
MAX_CONSTANTS = 200
MAX_CONSTANT_TEXT = 40
MAX_LEAVES = 50_000  # of a payload, moved field by field
STOP_AT_CONTAINER = 0.25  # a walk down the payload varies the container it is in, this often


def sample_seed(secret: bytes, patch_digest: str, property_id: str) -> str:
    """The seed of one property's sample for one patch: 32 hex digits, known to whoever holds `secret`."""
    message = f"witness-gate broader sample\0{patch_digest}\0{property_id}".encode("utf-8")
    return hmac.new(secret, message, hashlib.sha256).hexdigest()[:32]


def draw(payload: Any, count: int, seed: str, constants: tuple = ()) -> list[Any]:
    """Up to `count` distinct inputs near `payload` (none equal to it), the same for the same seed."""
    rng = random.Random(int(hashlib.sha256(seed.encode("utf-8")).hexdigest(), 16))
    pool = _Pool(payload, constants)
    seen = {canonical_bytes(payload)}
    drawn: list[Any] = []
    shapes = _Shapes()
    for _ in range(count * MAX_TRIES):
        if len(drawn) >= count:
            break
        candidate = payload
        for _ in range(rng.choice((1, 1, 2, 2, 3))):
            # one value moved, or one field moved in every record that has it (a lookup table keyed on the pinned
            # values misses them all, and a field a property reads in one record of many is moved too)
            candidate = _vary(candidate, rng, pool) if rng.random() < 0.3 else _vary_field(candidate, rng, shapes)
        try:
            key = canonical_bytes(candidate)
        except CanonicalError:  # a float pushed out of range: not a JSON value
            continue
        if key not in seen:
            seen.add(key)
            drawn.append(candidate)
    return drawn


def constants_of(source: bytes) -> tuple:
    """The numbers and short strings a property's module spells out (its thresholds and names), for the sample to try;
    the source is only parsed, never run."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return ()
    found: dict = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and type(node.value) in (int, float, str):
            value = node.value
            if (type(value) is str and len(value) > MAX_CONSTANT_TEXT) or (type(value) is int and abs(value) > 2**53):
                continue
            found.setdefault((type(value).__name__, value), value)
        if len(found) >= MAX_CONSTANTS:
            break
    return tuple(found.values())


class _Pool:
    """The values the payload and the property use, by kind: what a number or a string may be moved to."""

    def __init__(self, payload: Any, constants: tuple) -> None:
        self.numbers: list = [0, 1, -1]
        self.texts: list[str] = [""]
        for value in [*_atoms(payload), *constants]:
            if type(value) in (int, float) and value not in self.numbers:
                self.numbers.append(value)
            elif type(value) is str and value not in self.texts:
                self.texts.append(value)
        self.letters = sorted({c for text in self.texts for c in text}) or ["a"]


def _atoms(value: Any, limit: int = 10_000) -> list:
    atoms, stack = [], [value]
    while stack and len(atoms) < limit:
        item = stack.pop()
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
        elif type(item) in (int, float, str):
            atoms.append(item)
    return atoms


def _vary(value: Any, rng: random.Random, pool: _Pool) -> Any:
    """`value` with one small move made somewhere inside it: a walk down from the top picks where."""
    if isinstance(value, (dict, list)) and value and rng.random() >= STOP_AT_CONTAINER:
        if isinstance(value, dict):
            key = rng.choice(sorted(value))
            return {**value, key: _vary(value[key], rng, pool)}
        index = rng.randrange(len(value))
        return [*value[:index], _vary(value[index], rng, pool), *value[index + 1:]]
    if isinstance(value, (list, dict)) and not value:
        return value  # nothing in it to move
    if isinstance(value, list):
        return _vary_list(value, rng)
    if isinstance(value, dict):
        return _swap_values(value, rng)
    if type(value) is bool:
        return not value
    if type(value) is int:
        return rng.choice([n for n in _near_numbers(value, pool) if type(n) is int and n != value] or [value])
    if type(value) is float:
        return rng.choice([n for n in map(_float, _near_numbers(value, pool)) if n is not None and n != value]
                          or [value])
    if type(value) is str:
        return _vary_text(value, rng, pool)
    return value


def _vary_field(payload: Any, rng: random.Random, shapes: _Shapes) -> Any:
    """One field (a path with any list index) moved the same way wherever it holds a number, a string or a truth: in
    every record, or in about half of them."""
    fields = shapes.fields(payload)
    if not fields:
        return payload
    field = rng.choice(sorted(fields, key=repr))
    leaves = fields[field]
    values = [_at(payload, path) for path in leaves]
    lowest, highest = min(values), max(values)  # one kind of value: they compare
    move = rng.choice(_FIELD_MOVES[type(values[0])])
    everywhere = rng.random() < 0.5
    changes = [(path, move(value, lowest, highest)) for path, value in zip(leaves, values)
               if everywhere or rng.random() < 0.5]
    moved = _replaced(payload, changes)
    shapes.same_as(moved, payload)  # a field moves within its kind: the leaves stay where they were
    return moved


class _Shapes:
    """Each drawn value's leaves by field, walked once per shape: a field moved keeps its payload's shape."""

    def __init__(self) -> None:
        self._known: dict[int, tuple[Any, dict]] = {}  # id -> (the value, kept alive so the id stays its, fields)

    def fields(self, value: Any) -> dict[tuple, list[tuple]]:
        known = self._known.get(id(value))
        if known is None or known[0] is not value:
            found: dict[tuple, list[tuple]] = {}
            _leaves(value, (), (), found)
            known = self._known[id(value)] = (value, found)
        return known[1]

    def same_as(self, moved: Any, source: Any) -> None:
        self._known[id(moved)] = (moved, self.fields(source))


def _replaced(value: Any, changes: list[tuple[tuple, Any]]) -> Any:
    """`value` with each (path, new value) set, copying only the containers on the paths (drawn inputs share the rest,
    and nothing changes a value once drawn)."""
    if not changes:
        return value
    if changes[0][0] == ():
        return changes[-1][1]
    root = _shallow(value)
    copies: dict[tuple, Any] = {}  # the path of each container copied so far -> its copy
    for path, new in changes:
        node = root
        for depth in range(1, len(path)):
            copied = copies.get(path[:depth])
            if copied is None:
                copied = copies[path[:depth]] = _shallow(node[path[depth - 1]])
                node[path[depth - 1]] = copied
            node = copied
        node[path[-1]] = new
    return root


def _shallow(container: Any) -> Any:
    return dict(container) if isinstance(container, dict) else list(container)


_NUMBER_MOVES = (lambda n, lo, hi: n + 1, lambda n, lo, hi: n - 1, lambda n, lo, hi: n * 2, lambda n, lo, hi: -n,
                 lambda n, lo, hi: 0 * n, lambda n, lo, hi: lo, lambda n, lo, hi: hi)
_FIELD_MOVES = {  # a field's lowest and highest values are where generators put their edge cases
    int: _NUMBER_MOVES + (lambda n, lo, hi: n // 2,),
    float: _NUMBER_MOVES + (lambda n, lo, hi: n / 2, lambda n, lo, hi: n + 0.5),
    str: (lambda t, lo, hi: t[:-1], lambda t, lo, hi: t + t[-1:], lambda t, lo, hi: t.swapcase(),
          lambda t, lo, hi: "", lambda t, lo, hi: t[1:], lambda t, lo, hi: lo, lambda t, lo, hi: hi),
    bool: (lambda b, lo, hi: not b,),
}


def _leaves(value: Any, path: tuple, field: tuple, found: dict, room: list | None = None) -> None:
    """Each number, string and truth in `value` by its field (its path with any list index), at most MAX_LEAVES."""
    room = room if room is not None else [MAX_LEAVES]
    if room[0] <= 0:
        return
    if isinstance(value, dict):
        for key in value:
            _leaves(value[key], path + (key,), field + (key,), found, room)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            _leaves(item, path + (index,), field + (None,), found, room)
    elif type(value) in (int, float, str, bool):
        found.setdefault((field, type(value).__name__), []).append(path)
        room[0] -= 1


def _at(value: Any, path: tuple) -> Any:
    for step in path:
        value = value[step]
    return value


def _near_numbers(value: int | float, pool: _Pool) -> list:
    neighbours = [value + 1, value - 1, -value, value * 2, value // 2 if type(value) is int else value / 2]
    if type(value) is float:
        neighbours += [float(round(value)), value + 0.5, value - 0.5, value * 1.5]
    others = [n for n in pool.numbers if type(n) is type(value) or type(value) is float]
    return neighbours + others + [n + d for n in others for d in (1, -1) if type(n) is int]


def _float(number: int | float) -> float | None:
    try:
        return float(number)
    except OverflowError:  # an integer past a float's range
        return None


def _vary_text(text: str, rng: random.Random, pool: _Pool) -> str:
    moves = [lambda: "", lambda: rng.choice(pool.texts), lambda: text.swapcase(), lambda: text + text[-1:]]
    if text:
        i = rng.randrange(len(text))
        moves += [lambda: text[:-1], lambda: text[1:], lambda: text[:len(text) // 2], lambda: text[:i] + text[i + 1:],
                  lambda: text[:i] + text[i] + text[i:], lambda: text[:i] + rng.choice(pool.letters) + text[i + 1:]]
    return rng.choice(moves)()


def _vary_list(items: list, rng: random.Random) -> list:
    i, j = rng.randrange(len(items)), rng.randrange(len(items))
    moves = [lambda: items[:i] + items[i + 1:], lambda: items[:i + 1] + [items[i]] + items[i + 1:],
             lambda: _swapped(items, i, j), lambda: items[::-1], lambda: items[1:] + items[:1]]
    shared = _shared_keys(items)
    if shared:  # a field of one element swapped with the same field of another
        key = rng.choice(shared)
        moves.append(lambda: _swap_field(items, i, j, key))
    return rng.choice(moves)()


def _swap_values(mapping: dict, rng: random.Random) -> dict:
    """Two values of one kind swapped between their keys (a price and a quantity, two names)."""
    keys = sorted(mapping)
    first = rng.choice(keys)
    partners = [k for k in keys if k != first and _kind(mapping[k]) == _kind(mapping[first])
                and mapping[k] != mapping[first]]
    if not partners:
        return mapping
    second = rng.choice(partners)
    return {**mapping, first: mapping[second], second: mapping[first]}


def _kind(value: Any) -> str:
    return "number" if type(value) in (int, float) else type(value).__name__


def _swapped(items: list, i: int, j: int) -> list:
    swapped = list(items)
    swapped[i], swapped[j] = items[j], items[i]
    return swapped


def _shared_keys(items: list) -> list[str]:
    if len(items) < 2 or not all(isinstance(item, dict) for item in items):
        return []
    return sorted(set.intersection(*(set(item) for item in items)))


def _swap_field(items: list, i: int, j: int, key: str) -> list:
    swapped = list(items)
    swapped[i], swapped[j] = {**items[i], key: items[j][key]}, {**items[j], key: items[i][key]}
    return swapped


def main(argv: list[str]) -> int:
    """`python -m witness_gate.pipeline.sample FIXTURE SEED [COUNT] [PROPERTY_FILE]`: a recorded sample drawn again, one JSON
    input a line (its seed is in the attempt record's `broader_sample.seed`; the property file adds its constants)."""
    import json
    import sys

    if len(argv) not in (2, 3, 4) or (len(argv) > 2 and not argv[2].isdigit()):
        print(main.__doc__.split(":")[0].strip("`"), file=sys.stderr)
        return 2
    from witness_gate.config.lock import parse_fixture

    try:
        with open(argv[0], "rb") as handle:
            payload = parse_fixture(handle.read(), argv[0]).payload
        constants = ()
        if len(argv) == 4:
            with open(argv[3], "rb") as handle:
                constants = constants_of(handle.read())
    except (OSError, ValueError) as exc:
        print(f"{exc}: give the pinned fixture (JSON) and the property's file", file=sys.stderr)
        return 2
    for value in draw(payload, int(argv[2]) if len(argv) > 2 else 32, argv[1], constants):
        print(json.dumps(value, sort_keys=True))
    return 0


if __name__ == "__main__":
    import sys

    sys.exit(main(sys.argv[1:]))
