"""What a replay series allows (article 004): accept, reject the patch or the evidence, hold open, quarantine, freeze
eligible, ignore a probe, a transport fault. Read over evidence rows with failure signatures."""

from __future__ import annotations

from enum import Enum

from witness_gate.model.contract import Observation, RunnerClass


class Decision(str, Enum):
    ACCEPT = "accept"
    REJECT_PATCH = "reject_patch"
    REJECT_EVIDENCE = "reject_evidence"
    HOLD_OPEN = "hold_open"
    QUARANTINE = "quarantine"
    FREEZE_ELIGIBLE = "freeze_eligible"
    IGNORE_PROBE = "ignore_probe"
    TRANSPORT_FAULT = "transport_fault"


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
