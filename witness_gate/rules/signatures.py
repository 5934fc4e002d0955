"""Article 004's signatures of a replay series (SPEC §2 step 8), and the rows its table reads."""

from __future__ import annotations

from witness_gate.model.contract import Observation, RunnerClass
from witness_gate.model.evaluation import Evaluation


def sign(rows: list[Evaluation]) -> list[str | None]:
    """Article 004 signatures for a replay series (SPEC §2 step 8)."""
    failures = [row.reason for row in rows if row.outcome == "fail"]
    every_row_one_reason = len(failures) == len(rows) and len(set(failures)) == 1
    signatures: list[str | None] = []
    for row in rows:
        if row.outcome == "transport":
            signatures.append(f"transport:{row.reason}")
        elif row.outcome == "pass":
            signatures.append(None)
        elif every_row_one_reason:
            signatures.append(f"invariant:{row.reason}")
        else:
            signatures.append(f"flake:{row.reason}")
    return signatures


def observations(rows: list[Evaluation], fixture: str, contract_digest: str) -> list[Observation]:
    return [
        Observation(RunnerClass.EVIDENCE, fixture, contract_digest, signature,
                    transport_fault=row.outcome == "transport")
        for row, signature in zip(rows, sign(rows))
    ]
