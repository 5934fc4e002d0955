"""The attempt record one property's result becomes (SPEC §2 step 10): identifiers, every outcome and signature, the
three tables, the label, the expiry; and what a person reads of its faults."""

from __future__ import annotations

import secrets
from typing import TYPE_CHECKING, Any

from witness_gate.config.lock import Lock
from witness_gate.model.evaluation import Evaluation
from witness_gate.model.evidence import Binding, Evidence, from_another_example
from witness_gate.pipeline.attempt import unsteady_example_disagrees
from witness_gate.rules.signatures import sign
from witness_gate.rules.verdict import freeze_proposal

if TYPE_CHECKING:
    from witness_gate.pipeline.session import GateRun, PropertyResult


def contract_dict(binding: Binding) -> dict[str, str] | None:
    c = binding.contract
    return {"name": c.name, "invariant": c.invariant, "input_domain": c.input_domain} if c else None


def transport_notes(evidence: Evidence) -> list[str]:
    notes = []
    for row in evidence.first + evidence.replays + evidence.unshrunk_replays:
        if row.outcome == "transport" and (row.observed or row.detail):
            notes.append(f"transport:{row.reason}: {_why(row)[:300]}")
            break
    return notes


def unreplayed_search_notes(evidence: Evidence) -> list[str]:
    """What a person deciding on a freeze should know when the seeded search was not replayed (attempt.py): only its
    first run is on the record."""
    if not (evidence.failed_once and not evidence.frozen and not evidence.unshrunk_replays
            and unsteady_example_disagrees(evidence)):
        return []
    failed = sum(row.outcome == "fail" for row in evidence.replays)
    return [f"the seeded search failed its first run, where Hypothesis saw an example fail and pass, and its example "
            f"failed {failed} of {len(evidence.replays)} replays alone, so the search was not replayed: a bug that "
            "follows set order or addresses looks like this, and so does one whose answer changes on a repeated call "
            "in one process (its search would fail every time); look before accepting a freeze"]


def another_example_notes(evidence: Evidence) -> list[str]:
    """What a person should know when another example the search saw fail became the witness (attempt.another_example):
    the last one passed every replay alone."""
    if not (evidence.failed_once and from_another_example(evidence.example_replays, evidence.witness_hash,
                                                          evidence.pinned_hash)):
        return []
    failed = sum(row.outcome == "fail" for row in evidence.replays)
    return [f"Hypothesis's last failing example passed all {len(evidence.example_replays)} of its replays alone while "
            f"its seeded search failed every time; another example that search saw fail failed {failed} of "
            f"{len(evidence.replays)} replays alone and is the witness: it fails on some subjects' layouts (set order, "
            "addresses) and passes on others"]


def _why(row: Evaluation) -> str:
    """A transport row in a line: what the judge said (its first line, and pytest's `E` line naming the error), else
    the last line of what the process printed."""
    if row.observed:
        lines = row.observed.strip().splitlines()
        errors = [line.strip() for line in lines if line.startswith("E ")]
        return lines[0] + (f" ({errors[-1][1:].strip()})" if errors else "")
    return row.detail.strip().splitlines()[-1]


def _observed(evidence: Evidence) -> str | None:
    """What the judge saw when the witness failed for the attempt's reason (pytest's message): the first such row's."""
    for row in (*evidence.replays, *evidence.first):
        if row.outcome == "fail" and row.reason == evidence.target_reason and row.observed:
            return row.observed
    return None


def _rows(rows: list[Evaluation]) -> list[dict[str, Any]]:
    return [{**row.as_row(), "signature": sig} for row, sig in zip(rows, sign(rows))]


def attempt_record(result: PropertyResult, run: GateRun, lock: Lock | None,
                   header: dict[str, Any] | None = None) -> dict[str, Any]:
    """SPEC §2 step 10: identifiers, every outcome and signature, the tables, the label, the expiry."""
    binding, evidence, verdict = result.binding, result.evidence, result.verdict
    record: dict[str, Any] = {
        "record_id": secrets.token_hex(16),
        "created_at": run.now.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "assertion_id": binding.assertion_id,
        "property_id": binding.property_id,
        "patch_digest": binding.patch_digest,
        "source": run.source,
        "contract": contract_dict(binding),
        "contract_digest": binding.contract.digest() if binding.contract else "",
        "fixture": lock.as_dict() if lock else None,
        "fixture_digest": binding.fixture_digest,
        "fixture_header": header or None,  # what an article-000 header said, beside what the attempt bound
        "seed": binding.seed,
        "policy": vars(run.policy),
        "split": {"impl_changed": run.split.impl_changed, "oracle_changed": run.split.oracle_changed},
        "label": verdict.label,
        "hold_reasons": verdict.hold_reasons,
        "tables": verdict.tables,
        "failures": verdict.failures,
        "runs": verdict.runs,
        "freeze_expires": verdict.freeze_expires,
        "notes": result.notes,
        "line": result.target.line,
        "relpath": result.target.relpath,
    }
    if evidence is not None:
        record.update(
            pinned_hash=evidence.pinned_hash,
            witness_hash=evidence.witness_hash or None,
            reason=evidence.target_reason,
            observed=_observed(evidence),
            first_runs=_rows(evidence.first),
            shrink=evidence.shrink.as_record() if evidence.shrink else None,
            flaky_shrink=evidence.flaky_shrink.as_record() if evidence.flaky_shrink else None,
            witness=evidence.witness if evidence.failed_once else None,
            replays=_rows(evidence.replays),
            unshrunk_replays=_rows(evidence.unshrunk_replays),
            **({"example_replays": _rows(evidence.example_replays)} if evidence.example_replays else {}),
            base=evidence.base.as_record(_rows) if evidence.base is not None else None,
            broader_sample=evidence.sample.as_record() if evidence.sample is not None else None,
        )
    if run.setup.record is not None:
        record["setup"] = run.setup.record
    if verdict.frozen_by:
        record["frozen_by"] = vars(verdict.frozen_by)
    if evidence is not None and verdict.proposes_freeze:
        record["freeze"] = freeze_proposal(binding, evidence, verdict, run.config.expires_in_hours)
    return record
