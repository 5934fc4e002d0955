"""Article 000's table: pass / reject / hold / freeze_candidate for one shrunk witness."""

import hashlib
from dataclasses import dataclass
from enum import Enum


class Gate(str, Enum):
    PASS = "pass"
    REJECT = "reject"
    HOLD = "hold"
    FREEZE_CANDIDATE = "freeze_candidate"


@dataclass(frozen=True)
class Witness:
    patch_digest: str
    property_id: str
    # the digest taken after shrinking stops: the witness hash, not the fixture file's
    fixture_digest: str
    seed: str
    shrunk: bool
    outcomes: tuple[str, ...]
    freeze_expires: str
    shrink_budget_hit: bool = False


def sha256_bytes(payload: bytes) -> str:
    return hashlib.sha256(payload).hexdigest()


def bounds_check(fixture: dict, output: dict) -> bool:
    """The article's shape example of a predicate."""
    return fixture["lo"] <= output["value"] <= fixture["hi"]


def drop_optional(fixture: dict):
    """The article's shape example of a shrink step: None when nothing optional remains."""
    if "optional_note" not in fixture:
        return None
    nxt = dict(fixture)
    del nxt["optional_note"]
    return nxt


def decide(w: Witness, min_reruns: int = 3) -> Gate:
    if min_reruns < 2:
        raise ValueError("min_reruns must compare more than one attempt")
    required = (w.patch_digest, w.property_id, w.fixture_digest, w.seed)
    if any(not item for item in required):
        return Gate.HOLD
    if w.shrink_budget_hit or not w.shrunk:
        return Gate.HOLD
    if len(w.outcomes) < min_reruns:
        return Gate.HOLD
    if any(item not in {"pass", "fail"} for item in w.outcomes):
        return Gate.HOLD
    unique = set(w.outcomes)
    if unique == {"pass"}:
        return Gate.PASS
    if unique == {"fail"}:
        return Gate.REJECT
    if not w.freeze_expires:
        return Gate.HOLD
    return Gate.FREEZE_CANDIDATE


def shrink_until_local_stop(fixture, fails, shrink_once, max_steps=32):
    """Article 000's loop; None means the current fixture does not fail (callers hold)."""
    current = fixture
    for _ in range(max_steps):
        if not fails(current):
            return None
        nxt = shrink_once(current)
        if nxt is None or nxt == current or not fails(nxt):
            return current
        current = nxt
    return current
