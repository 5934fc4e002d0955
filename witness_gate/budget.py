"""Article 004's table: the replay budget over evidence rows with failure signatures."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from witness_gate.model.canonical import contract_digest, fixture_id

__all__ = ["Contract", "Decision", "Observation", "RunnerClass", "decide", "fixture_id"]


class RunnerClass(str, Enum):
    EVIDENCE = "evidence"
    COST_PROBE = "cost_probe"


class Decision(str, Enum):
    ACCEPT = "accept"
    REJECT_PATCH = "reject_patch"
    REJECT_EVIDENCE = "reject_evidence"
    HOLD_OPEN = "hold_open"
    QUARANTINE = "quarantine"
    FREEZE_ELIGIBLE = "freeze_eligible"
    IGNORE_PROBE = "ignore_probe"
    TRANSPORT_FAULT = "transport_fault"


@dataclass(frozen=True)
class Contract:
    name: str
    invariant: str
    input_domain: str

    def digest(self) -> str:
        return contract_digest(self.name, self.invariant, self.input_domain)

    def complete(self) -> bool:
        return all(item.strip() for item in (self.name, self.invariant, self.input_domain))


@dataclass(frozen=True)
class Observation:
    runner: RunnerClass
    fixture_id: str
    contract_digest: str
    signature: str | None
    transport_fault: bool = False


def decide(
    expected_digest: str,
    expected_fixture: str,
    budget_remaining: int,
    rows: list[Observation],
) -> Decision:
    if budget_remaining < 0:
        raise ValueError("budget_remaining must be >= 0")
    evidence = [row for row in rows if row.runner is RunnerClass.EVIDENCE]
    if not evidence:
        return Decision.IGNORE_PROBE
    flakes: list[str] = []
    for row in evidence:
        if row.contract_digest != expected_digest or row.fixture_id != expected_fixture:
            return Decision.REJECT_EVIDENCE
        if row.transport_fault or (row.signature or "").startswith("transport:"):
            return Decision.TRANSPORT_FAULT
        if (row.signature or "").startswith("invariant:"):
            return Decision.REJECT_PATCH
        if row.signature is None:
            continue
        if not row.signature.startswith("flake:"):
            return Decision.REJECT_EVIDENCE
        if row.signature not in flakes:
            flakes.append(row.signature)
    if len(flakes) > 1:
        return Decision.HOLD_OPEN
    if len(flakes) == 1 and budget_remaining > 0:
        return Decision.QUARANTINE
    if len(flakes) == 1 and budget_remaining == 0:
        return Decision.FREEZE_ELIGIBLE
    if budget_remaining == 0:
        return Decision.ACCEPT
    return Decision.HOLD_OPEN
