"""Blame only the patch: a head's failing witness replayed on the base commit, with the base's implementation.

Every base replay fails the same way: the failure was already there (`pre_existing`). The base passes:
the head's label stands. The base disagrees with itself: a head `regression` cannot be blamed on the
patch alone, so it holds and says why. And when the base passes the pinned fixture but fails the
head's witness, the shrink drifted into inputs no implementation passes: it shrinks again keeping only
candidates the base passes, and the attempt decides on the witness that separates head from base.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from witness_gate.model.canonical import witness_hash
from witness_gate.model.evaluation import Evaluation
from witness_gate.model.evidence import Evidence, Policy
from witness_gate.pipeline.attempt import Evaluate, Progress, replay_series
from witness_gate.shrink import ShrinkResult, shrink

BASE_FAILS = "base-fails-too"  # a shrink candidate the base fails as well never separates them


@dataclass(frozen=True)
class BaseCode:
    """The base commit, checked out and set up like the head, for the replays of a failing witness."""

    sha: str
    checkout: Path
    environment: Path | None = None


class LazyBase:
    """The base commit, checked out and set up (as the head was) on first use only: most attempts pass, and
    a passing property never replays on the base. Calling it gives the BaseCode, or why there is none."""

    def __init__(self, sha: str, check_out: Callable[[], Path], set_up: Callable[[Path], Any]) -> None:
        self.sha, self._check_out, self._set_up = sha, check_out, set_up
        self._code: BaseCode | str | None = None

    def __call__(self) -> BaseCode | str:
        if self._code is None:
            self._code = self._build()
        return self._code

    def _build(self) -> BaseCode | str:
        try:
            checkout = self._check_out()
        except (OSError, RuntimeError, ValueError) as exc:  # git, the checkout cache, GitHub: said, not raised
            return f"cannot check out the base {self.sha[:12]}: {exc}"
        setup = self._set_up(checkout)
        if setup.holds:
            return f"the base's set-up failed: {setup.note}"
        return BaseCode(self.sha, checkout, setup.environment.path if setup.environment else None)


@dataclass
class BaseEvidence:
    """What the base commit did with the head's witness (and, when it failed, with the pinned payload)."""

    sha: str
    replays: list[Evaluation]
    pinned: list[Evaluation] = field(default_factory=list)
    drifted_witness: Any = None  # the head's first witness, when it failed on the base but the pinned payload did not
    drifted_hash: str = ""

    def as_record(self, rows: Callable[[list[Evaluation]], list[dict]]) -> dict[str, Any]:
        return {"sha": self.sha, "replays": rows(self.replays), "pinned": rows(self.pinned),
                "drifted_witness": self.drifted_witness, "drifted_witness_hash": self.drifted_hash or None}

    def notes(self, target_reason: str | None) -> list[str]:
        """What a person reads about the base: it names the commit."""
        failed = sum(row.outcome == "fail" for row in self.replays)
        said = f"{failed} of {len(self.replays)} replays of the witness failed on the base {self.sha[:12]}"
        notes = []
        if self.drifted_hash:
            notes.append(f"the first witness {self.drifted_hash[:12]} failed on the base too, which passes the "
                         "pinned fixture: shrunk again to a witness that separates head from base")
        story = self.story(target_reason)
        if story == "fails":
            notes.append(f"pre_existing: {said} ({target_reason}): the patch did not cause it")
        elif story == "flaky":
            notes.append(f"the base disagrees with itself: {said}; the patch can be neither cleared nor blamed")
        elif story == "other":
            notes.append(f"{said}, each for another reason than the head's: not the same failure, the head's "
                         "label stands")
        elif story == "unknown":
            notes.append(f"the base's replays did not all finish ({said}); the head's label stands")
        return notes

    def story(self, target_reason: str | None) -> str:
        """passes; fails (every replay, the head's reason); other (every replay, another reason: not the head's
        failure); flaky (it disagrees with itself, or fails every replay of a re-shrunk witness it did not fail
        while shrinking); unknown (a replay did not finish)."""
        if any(row.outcome == "transport" for row in self.replays) or not self.replays:
            return "unknown"
        failures = [row for row in self.replays if row.outcome == "fail"]
        if not failures:
            return "passes"
        if len(failures) == len(self.replays) and {row.reason for row in failures} != {target_reason}:
            return "other"
        if len(failures) == len(self.replays):  # a re-shrunk witness is one the base passed while shrinking
            return "flaky" if self.drifted_hash else "fails"
        return "flaky"


def replay_on_base(evidence: Evidence, payload: Any, head: Evaluate, base: Evaluate, policy: Policy, sha: str,
                   progress: Progress, base_candidate: Evaluate | None = None,
                   first: Evaluation | None = None) -> BaseEvidence:
    """Replay the head's witness on the base; re-shrink when the witness no longer separates the two. A warm series
    (`base_candidate`) that the base passes settles it (the head's label stands); any failure there is replayed cold,
    since a base that fails may make the head's failure pre_existing. `first`: a cold base replay made already."""
    if base_candidate is not None and first is None:
        rows = replay_series(evidence.witness, base_candidate, policy.runs, "replay-base", progress)
        if not any(row.outcome == "fail" for row in rows):
            return BaseEvidence(sha, rows)
    rows = [first, *replay_series(evidence.witness, base, policy.runs - 1, "replay-base", progress)] if first else \
        replay_series(evidence.witness, base, policy.runs, "replay-base", progress)
    if not any(row.outcome == "fail" for row in rows):
        return BaseEvidence(sha, rows)
    pinned = _sample_plan(evidence, payload, rows, base, policy)
    # only the head's own failure on every run of the pinned payload was there before; a pass, a fault or another
    # reason there means the head's witness may have drifted onto a failure of the base's, chosen by the patch
    if all(row.failure_reason == evidence.target_reason for row in pinned):
        return BaseEvidence(sha, rows, pinned)
    drifted, drifted_hash = evidence.witness, evidence.witness_hash
    _separate(evidence, payload, head, base, policy, progress)
    rows = replay_series(evidence.witness, base, policy.runs, "replay-base", progress)
    return BaseEvidence(sha, rows, pinned, drifted, drifted_hash)


def _sample_plan(evidence: Evidence, payload: Any, rows: list[Evaluation], base: Evaluate,
                 policy: Policy) -> list[Evaluation]:
    """The base's own sample plan on the pinned payload, while it fails as the head does; a witness that is the pinned
    payload (a test with nothing shrunk) has it in its replays already."""
    if evidence.witness_hash == witness_hash(payload):
        return list(rows)
    pinned = []
    for _ in range(policy.runs):
        pinned.append(base(payload))
        if pinned[-1].failure_reason != evidence.target_reason:
            break
    return pinned


def _separate(evidence: Evidence, payload: Any, head: Evaluate, base: Evaluate, policy: Policy,
              progress: Progress) -> None:
    """Shrink the pinned payload again, keeping only candidates the head fails and the base passes."""
    target = evidence.target_reason
    evidence.shrink = shrink_separating(payload, target, head, base, policy, progress, "shrink-base")
    evidence.witness = evidence.shrink.witness
    evidence.witness_hash = witness_hash(evidence.witness)
    evidence.flaky_shrink = None
    evidence.replays = replay_series(evidence.witness, head, policy.runs, "replay", progress)
    # as run_attempt does: unless every replay of the new witness failed, the pinned payload gets its own series on
    # the head, so that a witness the code under test steered onto a coin toss is no flake (shrink_distorted)
    evidence.unshrunk_replays = [] if all(row.outcome == "fail" for row in evidence.replays) else replay_series(
        payload, head, policy.runs, "replay-unshrunk", progress)


def shrink_separating(payload: Any, target: str | None, head: Evaluate, base: Evaluate, policy: Policy,
                      progress: Progress, phase: str) -> ShrinkResult:
    """`payload` shrunk keeping only candidates that separate head from base: the head failing for `target`, the base
    passing. `payload` itself is taken as separating (both sides just said so): not run again."""
    calls = 0

    def separates(candidate: Any) -> str | None:
        nonlocal calls
        calls += 1
        progress(phase, calls, policy.max_evals)
        reason = head(candidate).failure_reason
        if reason != target:
            return reason
        return target if base(candidate).outcome == "pass" else BASE_FAILS

    return shrink(payload, _first_is_known(payload, target, separates), target_reason=target,
                  max_steps=policy.max_steps, max_evals=policy.max_evals)


def _first_is_known(payload: Any, target: str | None,
                    predicate: Callable[[Any], str | None]) -> Callable[[Any], str | None]:
    """The pinned payload is taken as separating (the head failed it, the base did not fail it the head's way):
    not run again."""
    def known(candidate: Any) -> str | None:
        return target if candidate is payload else predicate(candidate)
    return known
