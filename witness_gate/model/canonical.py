"""Canonical JSON and the identifiers built on it (SPEC §1)."""

from __future__ import annotations

import hashlib
import json
import math
from pathlib import Path
from typing import Any


class CanonicalError(ValueError):
    """A value or a file that has no canonical JSON form."""


def canonical_bytes(value: Any) -> bytes:
    """The one byte form of a JSON value: sorted keys, no spaces, ASCII escapes."""
    try:
        text = json.dumps(value, sort_keys=True, separators=(",", ":"), allow_nan=False)
    except ValueError as exc:  # NaN or Infinity
        raise CanonicalError(
            f"{exc}: NaN and Infinity have no JSON form; use null or a string instead"
        ) from None
    except TypeError as exc:
        raise CanonicalError(f"not a JSON value: {exc}") from None
    except RecursionError:
        raise CanonicalError("nesting too deep for a canonical form; flatten the value") from None
    return text.encode("utf-8")


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def witness_hash(payload: Any) -> str:
    """Identity of the input that actually ran: sha256 of its canonical JSON."""
    return sha256_hex(canonical_bytes(payload))


# Article 004 calls the same function fixture_id.
fixture_id = witness_hash


def fixture_digest(path: str | Path) -> str:
    """Identity of the pinned fixture file: sha256 of its bytes."""
    return sha256_hex(Path(path).read_bytes())


def contract_digest(name: str, invariant: str, input_domain: str) -> str:
    return sha256_hex(
        canonical_bytes({"name": name, "invariant": invariant, "input_domain": input_domain})
    )


def property_id(relpath: str, function: str, file_bytes: bytes) -> str:
    """`<path>::<function>@<12 hex>`: editing the predicate file changes it."""
    return f"{relpath}::{function}@{sha256_hex(file_bytes)[:12]}"


def patch_digest(base_tree: str, head_tree: str) -> str:
    return sha256_hex(canonical_bytes({"base_tree": base_tree, "head_tree": head_tree}))


def shortlex_key(value: Any) -> tuple[int, bytes]:
    """Order used by the shrinker: shorter canonical form first, then bytewise."""
    raw = canonical_bytes(value)
    return (len(raw), raw)


def _refuse_constant(name: str) -> Any:
    raise CanonicalError(f"{name} is not JSON; use null or a string instead")


def _refuse_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    seen: dict[str, Any] = {}
    for key, value in pairs:
        if key in seen:
            raise CanonicalError(f"duplicate key {key!r}; a canonical form would silently drop one")
        seen[key] = value
    return seen


def loads_strict(text: str | bytes, *, source: str) -> Any:
    """Parse JSON, refusing NaN, Infinity and duplicate keys; errors name `source`."""
    try:
        value = json.loads(
            text, parse_constant=_refuse_constant, object_pairs_hook=_refuse_duplicates
        )
    except CanonicalError as exc:
        raise CanonicalError(f"{source}: {exc}") from None
    except UnicodeDecodeError as exc:
        raise CanonicalError(f"{source}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    except RecursionError:
        raise CanonicalError(f"{source}: nesting too deep; flatten the document") from None
    except json.JSONDecodeError as exc:
        raise CanonicalError(
            f"{source}:{exc.lineno}:{exc.colno}: not JSON ({exc.msg}); "
            "a fixture must be a JSON document"
        ) from None
    except ValueError as exc:  # an integer of more digits than Python converts (4,300 by default)
        raise CanonicalError(f"{source}: a number too long to read ({str(exc).split(';')[0]}); "
                             "write it as a string") from None
    _refuse_big_floats(value, source)
    return value


def _refuse_big_floats(value: Any, source: str) -> None:
    # json.loads turns 1e400 into inf silently; that has no canonical form
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, float) and not math.isfinite(item):
            raise CanonicalError(f"{source}: a number overflows to {item}; write it as a string")
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)


def load_json_file(path: str | Path) -> Any:
    path = Path(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise CanonicalError(f"{path}: cannot read ({exc.strerror})") from None
    return loads_strict(raw, source=str(path))
