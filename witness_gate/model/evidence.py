"""What one attempt is bound to, decided under and observed: the identifiers, the policy, the evidence."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from witness_gate.model.contract import Contract
from witness_gate.model.evaluation import Evaluation

if TYPE_CHECKING:
    from witness_gate.shrink import ShrinkResult


@dataclass(frozen=True)
class Policy:
    runs: int = 5
    min_reruns: int = 3
    max_steps: int = 32
    max_evals: int = 2000
    timeout_seconds: float = 60
    flaky_tries: int = 5  # a shrink candidate of a flaky property gets this many evaluations to fail
    broader_sample: int = 0  # unseen inputs near a passing pinned payload (witness_gate/pipeline/broader.py); 0: none

    @classmethod
    def from_config(cls, config: Any, runs: int | None = None) -> "Policy":
        return cls(
            runs=runs if runs is not None else config.runs,
            min_reruns=config.min_reruns,
            max_steps=config.max_steps,
            max_evals=config.max_evals,
            timeout_seconds=config.timeout_seconds,
            broader_sample=config.broader_sample,
        )


@dataclass(frozen=True)
class Binding:
    """The identifiers bound before the first run (step 1)."""

    patch_digest: str
    property_id: str
    assertion_id: str
    contract: Contract | None
    fixture_digest: str  # of the pinned fixture file
    seed: str

    def missing(self) -> list[str]:
        """`missing:<field>` for every identifier that is empty, contract included."""
        reasons = [
            f"missing:{name}"
            for name in ("patch_digest", "property_id", "fixture_digest", "seed")
            if not getattr(self, name)
        ]
        if self.contract is None or not self.contract.complete():
            reasons.append("missing:contract")
        return reasons


@dataclass
class Evidence:
    """Everything one attempt observed; the verdict is computed from this alone."""

    pinned_hash: str  # witness hash of the pinned payload
    first: list[Evaluation] = field(default_factory=list)  # first run and the sample plan
    target_reason: str | None = None  # the first failure's reason
    shrink: ShrinkResult | None = None
    flaky_shrink: "FlakyShrink | None" = None  # set when the sample plan showed the property flaky
    witness: Any = None
    witness_hash: str = ""
    replays: list[Evaluation] = field(default_factory=list)  # the witness series
    unshrunk_replays: list[Evaluation] = field(default_factory=list)
    # a Hypothesis example's own replays, kept for people when its seeded search became the witness (distorted_example)
    example_replays: list[Evaluation] = field(default_factory=list)
    base: Any = None  # witness_gate.pipeline.baseline.BaseEvidence: what the base commit did with the witness
    base_witness: str = ""  # the witness hash `base` replayed, when it was asked before the attempt ended
    sample: Any = None  # witness_gate.pipeline.broader.Sample: what the broader sample did, once the pinned payload passed
    frozen: bool = False  # an accepted freeze's witness decided it (replay_frozen)

    @property
    def failed_once(self) -> bool:
        return self.target_reason is not None

    @property
    def transport(self) -> list[str]:
        rows = self.first + self.replays + self.unshrunk_replays
        return sorted({f"transport:{row.reason}" for row in rows if row.outcome == "transport"})

    @property
    def series(self) -> list[Evaluation]:
        """The rows the tables read: the witness replays, or the sample plan of a pass."""
        return self.replays if self.failed_once else self.first


@dataclass
class FlakyShrink:
    """How a flaky property was shrunk: each candidate got up to `tries` evaluations to fail with the
    target reason; `decided_by_retry` counts the candidates that passed first and failed on a retry."""

    tries: int
    decided_by_retry: int = 0

    def as_record(self) -> dict[str, int]:
        return {"tries": self.tries, "decided_by_retry": self.decided_by_retry}


def from_another_example(example_replays, witness: str, pinned: str) -> bool:
    """Whether an attempt's witness is another example its search saw fail (attempt.another_example): its own example's
    replays are kept and the witness is not the search (the pinned payload). Such a witness is silenced only by a
    freeze its own patch proposed (verdict.freeze_matches)."""
    return bool(example_replays) and witness != pinned


def wavered(evidence: Evidence) -> bool:
    """Whether a run of the pinned payload saw one example fail and pass (Hypothesis's FlakyFailure)."""
    return any(row.unsteady for row in evidence.first + evidence.unshrunk_replays)
