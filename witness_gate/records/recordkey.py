"""The record key: an HMAC over every attempt record and witness file `check` and `run` write.

`classify`, `freeze` and `replay` trust only what the gate wrote, so each record carries
`"mac": {"alg": "hmac-sha256", "key_id": <12 hex of sha256(key)>, "value": <hex>}` over the
canonical JSON of the record without its `mac`. The key lives outside every checkout: the file
named by WITNESS_RECORD_KEY_FILE (CI), else $XDG_CONFIG_HOME/witness-gate/record.key
(~/.config/witness-gate/record.key), created on first write with 32 random bytes, mode 0600.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from witness_gate.model.canonical import canonical_bytes

KEY_ENV = "WITNESS_RECORD_KEY_FILE"
ALG = "hmac-sha256"
MIN_KEY_BYTES = 32


class RecordKeyError(ValueError):
    """A key that cannot be used, or a record that fails the check; the message says what to do."""


@dataclass(frozen=True)
class RecordKey:
    path: Path
    secret: bytes = b""

    @property
    def key_id(self) -> str:
        return hashlib.sha256(self.secret).hexdigest()[:12]

    def mac(self, record: dict[str, Any]) -> str:
        return hmac.new(self.secret, _body(record), hashlib.sha256).hexdigest()


def key_path() -> Path:
    """Where the key is: $WITNESS_RECORD_KEY_FILE, else the per-user config directory."""
    named = os.environ.get(KEY_ENV)
    if named:
        return Path(named).expanduser().absolute()
    config = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(config).absolute() / "witness-gate" / "record.key"


def load(*, guard: Path | None, create: bool) -> RecordKey:
    """The record key, checked; `create` (writers only) makes one when the file does not exist yet.

    `guard` is the repository being gated: a key inside it could be read by the code under test.
    """
    path = key_path()
    real = Path(os.path.realpath(path.parent)) / path.name
    if guard is not None:
        root = Path(os.path.realpath(guard))
        if real == root or root in real.parents:
            raise RecordKeyError(
                f"the record key {path} is inside {root}, the repository being gated: the code under test "
                f"could read it and forge records; set {KEY_ENV} to a file outside the repository")
    if create and not os.path.lexists(path):
        _create(path)
    return RecordKey(path, _read(path))


def _create(path: Path) -> None:
    directory = path.parent
    if not directory.exists():
        directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        os.chmod(directory, 0o700)
    _check_directory(path)
    tmp = directory / f".{path.name}.{secrets.token_hex(6)}.tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(secrets.token_bytes(MIN_KEY_BYTES))
            handle.flush()
            os.fsync(handle.fileno())
        try:
            os.link(tmp, path)  # never replaces a key another process created meanwhile
        except FileExistsError:
            pass
    finally:
        tmp.unlink(missing_ok=True)


def _check_directory(path: Path) -> None:
    st = os.stat(path.parent)
    if st.st_mode & 0o022 and not st.st_mode & stat.S_ISVTX:
        raise RecordKeyError(
            f"the record key's directory {path.parent} is writable by others (mode {stat.S_IMODE(st.st_mode):04o}), "
            f"so they could replace the key; run `chmod 700 {path.parent}` or set {KEY_ENV} elsewhere")


def _read(path: Path) -> bytes:
    how = f"set {KEY_ENV} to the key file `check` used, or run `check` again to write records with a new key"
    if os.path.islink(path):
        raise RecordKeyError(f"the record key {path} is a symlink; a key file is refused unless it is the file "
                             f"itself: point {KEY_ENV} at the real file")
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    except FileNotFoundError:
        raise RecordKeyError(f"no record key at {path}; {how}") from None
    except OSError as exc:
        raise RecordKeyError(f"the record key {path} cannot be read ({exc.strerror}); {how}") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise RecordKeyError(f"the record key {path} is not a regular file; point {KEY_ENV} at a file")
        if st.st_uid != os.geteuid():
            raise RecordKeyError(f"the record key {path} belongs to uid {st.st_uid}, not to you (uid {os.geteuid()}); "
                                 f"use a key file of your own ({KEY_ENV})")
        if st.st_mode & 0o077:
            raise RecordKeyError(
                f"the record key {path} is open to group or others (mode {stat.S_IMODE(st.st_mode):04o}), so "
                f"anyone who reads it can forge records; run `chmod 600 {path}` (and make a new key if others "
                "may have read it)")
        secret = os.read(fd, 4096)
    finally:
        os.close(fd)
    _check_directory(path)
    if len(secret) < MIN_KEY_BYTES:
        raise RecordKeyError(f"the record key {path} holds {len(secret)} bytes, fewer than {MIN_KEY_BYTES}; "
                             f"write a new one with `head -c 32 /dev/urandom > {path}`")
    return secret


def _body(record: dict[str, Any]) -> bytes:
    return canonical_bytes({k: v for k, v in record.items() if k != "mac"})


def seal(record: dict[str, Any], key: RecordKey) -> dict[str, Any]:
    """A copy of `record` with its mac; the record is first put in its JSON form, as a reader will see it."""
    plain = json.loads(canonical_bytes({k: v for k, v in record.items() if k != "mac"}))
    return {**plain, "mac": {"alg": ALG, "key_id": key.key_id, "value": key.mac(plain)}}


class Verifier:
    """Checks records against the key, loaded once, and only when a record carries a mac."""

    def __init__(self, *, guard: Path | None = None, key: RecordKey | None = None) -> None:
        self.guard = guard
        self._key = key

    def key(self) -> RecordKey:
        if self._key is None:
            self._key = load(guard=self.guard, create=False)
        return self._key

    def check(self, record: Any, source: str | Path) -> None:
        """Raise RecordKeyError naming `source` unless the gate wrote `record` with this key."""
        mac = record.get("mac") if isinstance(record, dict) else None
        if mac is None:
            raise RecordKeyError(f"{source}: has no mac: written by an older witness-gate or edited; run check again")
        if not isinstance(mac, dict) or mac.get("alg") != ALG or not isinstance(mac.get("value"), str) \
                or not isinstance(mac.get("key_id"), str):
            raise RecordKeyError(f"{source}: its mac is not an {ALG} mac; the record was edited; run check again")
        try:
            key = self.key()
        except RecordKeyError as exc:
            raise RecordKeyError(f"{source}: written with record key id {mac['key_id']}, which cannot be "
                                 f"loaded: {exc}") from None
        if mac["key_id"] != key.key_id:
            raise RecordKeyError(
                f"{source}: written with another record key (key id {mac['key_id']}; {key.path} is key id "
                f"{key.key_id}); set {KEY_ENV} to the key that wrote it")
        if not hmac.compare_digest(mac["value"], key.mac(record)):
            raise RecordKeyError(f"{source}: its mac does not match: edited after the gate wrote it; run check again")


_writing: RecordKey | None = None


def establish(guard: Path) -> RecordKey:
    """Load (or create) the key the records of this process are sealed with; `check` and `run` call it first."""
    global _writing
    _writing = load(guard=guard, create=True)
    return _writing


def established() -> RecordKey | None:
    return _writing
