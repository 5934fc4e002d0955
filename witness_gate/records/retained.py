"""A retained witness file (article 001's `retain`): `<assertion_id>.<witness_hash[:12]>.json`, written whole."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from witness_gate.model.canonical import witness_hash
from witness_gate.records.files import write_json_atomic


def retain(
    assertion_id: str, payload: dict, fixture_digest: str, out_dir: Path, **extra: Any
) -> dict:
    """Write `<assertion_id>.<witness_hash[:12]>.json`; extra fields join the article's four."""
    digest = witness_hash(payload)
    record = {
        **extra,
        "assertion_id": assertion_id,
        "fixture_digest": fixture_digest,
        "witness_hash": digest,
        "payload": payload,
    }
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / f"{assertion_id}.{digest[:12]}.json"
    write_json_atomic(path, record)
    return record
