"""What one shrunk witness allows (article 000): pass, reject, hold, or a freeze candidate."""

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
