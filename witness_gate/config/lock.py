"""The fixture lock (article 001 `pin`): path, fixture digest, generator version and seed."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from witness_gate.model.canonical import CanonicalError, load_json_file, loads_strict, sha256_hex
from witness_gate.records.files import write_json_atomic
from witness_gate.sources import safefs

HEADER_KEYS = {"patch_digest", "property_id", "seed", "fixture"}
MAX_FIXTURE_BYTES = 64 * 1024 * 1024  # a fixture larger than this is refused, not read


class LockError(ValueError):
    """A lock or fixture that cannot be trusted as it is."""


@dataclass(frozen=True)
class Lock:
    path: str
    fixture_digest: str
    generator_version: int
    seed: str

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Fixture:
    """A fixture file's payload and what its header (article 000 form) says."""

    payload: Any
    seed: str | None  # from the header, when there is one
    header: dict[str, Any]


def parse_fixture(raw: bytes, source: str) -> Fixture:
    """A plain JSON payload, or the header form whose payload is `fixture`."""
    value = loads_strict(raw, source=source)
    if isinstance(value, dict) and "fixture" in value and "seed" in value and set(value) <= HEADER_KEYS:
        seed = value["seed"]
        if not isinstance(seed, str):
            raise LockError(f"{source}: the header's seed must be a string, like \"17\"")
        header = {k: v for k, v in value.items() if k != "fixture"}
        return Fixture(value["fixture"], seed or None, header)
    return Fixture(value, None, {})


def pin(fixture_path: str | Path, generator_version: int, seed: str | None, *, display_path: str | None = None,
        root: str | Path | None = None) -> Lock:
    """Hash the fixture's bytes; the seed comes from its header first, then `seed`.

    The fixture is read as a checkout's file, relative to `root` (the working directory): a link
    out of it or a special file is refused, never followed or opened.
    """
    path = Path(fixture_path)
    try:
        raw, _rel = safefs.read_user_file(path, max_bytes=MAX_FIXTURE_BYTES, root=root)
    except safefs.UnsafePath as exc:
        raise LockError(f"cannot pin the fixture: {exc}") from None
    except OSError as exc:
        raise LockError(f"{path}: cannot read the fixture ({exc.strerror})") from None
    fixture = parse_fixture(raw, str(path))
    return Lock(
        path=display_path or str(fixture_path),
        fixture_digest=sha256_hex(raw),
        generator_version=generator_version,
        seed=fixture.seed or seed or "",
    )


def write_lock(lock: Lock, out: str | Path) -> Path:
    return write_json_atomic(out, lock.as_dict())


def read_lock(path: str | Path) -> Lock:
    try:
        value = load_json_file(path)
    except CanonicalError as exc:
        raise LockError(f"{exc}; make a lock with `python -m witness_gate pin`") from None
    expected = {"path": str, "fixture_digest": str, "generator_version": int, "seed": str}
    if not isinstance(value, dict) or set(value) != set(expected):
        raise LockError(f"{path}: a lock holds exactly {', '.join(sorted(expected))}; make one with "
                        "`python -m witness_gate pin`")
    for key, kind in expected.items():
        if not isinstance(value[key], kind) or isinstance(value[key], bool):
            raise LockError(f"{path}: {key} must be a {kind.__name__}")
    return Lock(**value)


def load_pinned(lock: Lock, base_dir: Path | None = None) -> Fixture:
    """The pinned payload, refusing a fixture whose bytes no longer match the lock.

    `lock.path` is read inside `base_dir` (the working directory by default) through `safefs`:
    a lock cannot point the host at a file outside the tree, a link out of it, or a FIFO.
    """
    root = base_dir if base_dir is not None else Path.cwd()
    path = Path(lock.path) if base_dir is None or Path(lock.path).is_absolute() else base_dir / lock.path
    try:
        raw, _rel = safefs.read_user_file(lock.path, max_bytes=MAX_FIXTURE_BYTES, root=root)
    except safefs.UnsafePath as exc:
        raise LockError(f"the locked fixture cannot be read: {exc}") from None
    except OSError as exc:
        raise LockError(f"{path}: the locked fixture cannot be read ({exc.strerror})") from None
    digest = sha256_hex(raw)
    if digest != lock.fixture_digest:
        raise LockError(
            f"{path}: the fixture no longer matches its lock (sha256 {digest[:12]}…, lock says "
            f"{lock.fixture_digest[:12]}…); pin it again in its own change, reviewed on its own"
        )
    return parse_fixture(raw, str(path))
