"""A property's contract and one evidence row as article 004 reads it (SPEC §1, §2 step 8)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from witness_gate.model.canonical import contract_digest


class RunnerClass(str, Enum):
    EVIDENCE = "evidence"
    COST_PROBE = "cost_probe"


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
