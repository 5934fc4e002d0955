"""Reading attempt records and witness files back, refusing any that were edited after the gate wrote them."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from witness_gate.model.canonical import CanonicalError, load_json_file, witness_hash
from witness_gate.model.contract import Contract
from witness_gate.model.evaluation import Evaluation
from witness_gate.model.evidence import Binding, Evidence, Policy
from witness_gate.pipeline.baseline import BaseEvidence
from witness_gate.records.recordkey import RecordKeyError, Verifier
from witness_gate.shrink import ShrinkResult

ATTEMPT_SUFFIX = ".attempt.json"


class RecordError(ValueError):
    """A record or witness file that cannot be trusted; the message names the file."""


@dataclass(frozen=True)
class StoredAttempt:
    path: Path
    record: dict[str, Any]
    binding: Binding
    evidence: Evidence | None
    policy: Policy


def _verifier() -> Verifier:
    """The default check: the record key, refused when it lies inside the working directory."""
    return Verifier(guard=Path.cwd())


def _authentic(path: str | Path, verifier: Verifier | None, value: Any = None) -> Any:
    """The JSON of `path`, once its mac shows the gate wrote it with the record key (witness_gate.records.recordkey)."""
    try:
        if value is None:
            value = load_json_file(path)
        (verifier or _verifier()).check(value, path)
    except (CanonicalError, RecordKeyError) as exc:
        raise RecordError(str(exc)) from None
    return value


def read_witness(path: str | Path, verifier: Verifier | None = None) -> dict[str, Any]:
    """A retained witness file the gate wrote (its mac checks) whose hash still matches its payload."""
    try:
        value = load_json_file(path)
    except CanonicalError as exc:
        raise RecordError(str(exc)) from None
    required = ("assertion_id", "fixture_digest", "witness_hash", "payload")
    if not isinstance(value, dict) or any(k not in value for k in required):
        raise RecordError(f"{path}: not a witness file (needs {', '.join(required)})")
    actual = witness_hash(value["payload"])
    if actual != value["witness_hash"]:
        raise RecordError(
            f"{path}: the payload hashes to {actual[:12]}…, not the recorded witness_hash "
            f"{str(value['witness_hash'])[:12]}…; the file was edited after it was retained. "
            "Run `python -m witness_gate check` again to retain a fresh witness"
        )
    return _authentic(path, verifier, value)


def load_attempts(directory: str | Path, verifier: Verifier | None = None) -> list[StoredAttempt]:
    directory = Path(directory)
    if not directory.is_dir():
        raise RecordError(f"{directory}: no such directory; point --witnesses at the --out of `check`")
    paths = sorted(directory.glob(f"*{ATTEMPT_SUFFIX}"))
    if not paths:
        raise RecordError(f"{directory}: no attempt records (*{ATTEMPT_SUFFIX}); run `check` first")
    verifier = verifier or _verifier()
    return [load_attempt(p, verifier) for p in paths]


def load_attempt(path: str | Path, verifier: Verifier | None = None) -> StoredAttempt:
    """One attempt record the gate wrote (its mac checks), with its witness file beside it."""
    path = Path(path)
    verifier = verifier or _verifier()
    record = _authentic(path, verifier)
    try:
        binding = _binding(record)
        evidence = _evidence(record)
        policy = Policy(**record["policy"])
    except (KeyError, TypeError, ValueError) as exc:
        raise RecordError(f"{path}: not an attempt record written by the gate ({exc})") from None
    if evidence is not None and evidence.failed_once:
        if witness_hash(evidence.witness) != evidence.witness_hash:
            raise RecordError(f"{path}: the witness no longer hashes to its witness_hash; it was edited")
        witness_file = path.parent / record.get("witness_file", "")
        if not witness_file.is_file():
            raise RecordError(f"{path}: its witness file {witness_file.name} is missing")
        if read_witness(witness_file, verifier)["witness_hash"] != evidence.witness_hash:
            raise RecordError(f"{witness_file}: belongs to another witness than {path.name}")
    return StoredAttempt(path, record, binding, evidence, policy)


def _binding(record: dict[str, Any]) -> Binding:
    c = record.get("contract")
    contract = Contract(c["name"], c["invariant"], c["input_domain"]) if c else None
    return Binding(record["patch_digest"], record["property_id"], record["assertion_id"], contract,
                   record["fixture_digest"], record["seed"])


def _rows(rows: list[dict[str, Any]]) -> list[Evaluation]:
    out = []
    for row in rows:
        if row["outcome"] not in ("pass", "fail", "transport"):
            raise ValueError(f"outcome {row['outcome']!r}")
        out.append(Evaluation(row["outcome"], row.get("reason"), "", float(row.get("seconds", 0)),
                              unsteady=row.get("unsteady") is True))
    return out


def _evidence(record: dict[str, Any]) -> Evidence | None:
    if "first_runs" not in record:
        return None
    shrink = None
    if record.get("shrink"):
        s = record["shrink"]
        shrink = ShrinkResult(record["witness"], record["reason"], s["steps"], s["evaluations"],
                              s["stopped"], s["budget_hit"])
    return Evidence(
        pinned_hash=record["pinned_hash"],
        first=_rows(record["first_runs"]),
        target_reason=record.get("reason"),
        shrink=shrink,
        witness=record.get("witness"),
        witness_hash=record.get("witness_hash") or "",
        replays=_rows(record.get("replays", [])),
        unshrunk_replays=_rows(record.get("unshrunk_replays", [])),
        example_replays=_rows(record.get("example_replays", [])),
        base=_base(record.get("base")),
    )


def _base(base: dict[str, Any] | None) -> BaseEvidence | None:
    """What the base did with the witness, as the record kept it: decided again like the rest."""
    if not base:
        return None
    return BaseEvidence(str(base["sha"]), _rows(base.get("replays") or []), _rows(base.get("pinned") or []),
                        base.get("drifted_witness"), base.get("drifted_witness_hash") or "")


FREEZE_FIELDS = ("assertion_id", "fixture_digest", "witness_hash", "expires_at", "payload")


def read_freezes(path: str | Path, verifier: Verifier | None = None) -> tuple[Any, ...]:
    """The freeze records `freeze` wrote (a file, or every `*.json` of a folder that is one), as the verdict
    matches them. Each must carry its seal; passing them to `run` or `check` is a person accepting them."""
    from witness_gate.rules.verdict import FreezeMatch

    path = Path(path)
    if path.is_dir():
        files = sorted(p for p in path.glob("*.json") if not p.name.endswith(ATTEMPT_SUFFIX))
    elif path.is_file():
        files = [path]
    else:
        raise RecordError(f"{path}: no such freeze record or folder; write one with `witness-gate freeze --out`")
    found = []
    for file in files:
        value = _authentic(file, verifier)
        is_freeze = isinstance(value, dict) and "expires_at" in value and "state" in value
        if not is_freeze or any(k not in value for k in FREEZE_FIELDS):
            if path.is_dir() and not is_freeze:
                continue  # a witness file or another record beside the freezes
            raise RecordError(f"{file}: not a freeze record with its witness (needs {', '.join(FREEZE_FIELDS)}); "
                              "write it again with `witness-gate freeze --out`")
        if witness_hash(value["payload"]) != value["witness_hash"]:
            raise RecordError(f"{file}: its payload no longer hashes to its witness_hash")
        found.append(FreezeMatch(value["assertion_id"], value["fixture_digest"], value["witness_hash"],
                                 value["expires_at"], value.get("accepted_by") or "", value.get("contract_digest") or "",
                                 value.get("signature") or "", witness=value["payload"],
                                 patch_digest=str(value.get("patch_digest") or "")))
    return tuple(found)
