"""The broader sample, run (SPEC §10): after the pinned payload passed, inputs near it that the patch has never seen.

Differential, so that it never cries wolf: an input counts only where the base implementation passes it. The first
input the head fails and the base passes becomes the attempt's witness, shrunk keeping that difference (the head
failing for the same reason, the base passing), replayed cold on both like any witness. Inputs both fail, or the base
fails, are not the patch's doing and never block. Warm rows only look; every row that decides is cold.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from witness_gate.attempt import Evaluate, Evidence, Policy, Progress, replay_series
from witness_gate.baseline import BASE_FAILS, BaseEvidence
from witness_gate.canonical import witness_hash
from witness_gate.shrink import ShrinkResult, shrink


@dataclass
class Sides:
    """How one property is evaluated on one side: `cold` rows decide, `warm` rows may only look (a subject that ran
    earlier evaluations), and `batch` runs a list of inputs in one cold row until one does not pass."""

    warm: Evaluate
    cold: Evaluate
    sha: str = ""  # the commit evaluated
    batch: Callable[[list], Any] | None = None
    search: Evaluate | None = None  # a test's Hypothesis search, seeded with the sample's seed


@dataclass
class Sample:
    """What the broader sample did for one property, for the record, the report and the check run."""

    seed: str
    size: int  # inputs drawn
    ran: int = 0  # inputs the head was given
    base_failed: int = 0  # inputs the head failed and the base failed too: not the patch's doing
    exposed: int | None = None  # the index of the input the head failed and the base passed
    exposed_input: Any = None
    search: bool = False  # a Hypothesis test's: its search again, with the sample's seed

    def as_record(self) -> dict[str, Any]:
        return {"seed": self.seed, "size": self.size, "ran": self.ran, "base_failed": self.base_failed,
                "exposed": self.exposed, "input": self.exposed_input if self.exposed is not None else None,
                **({"search": True} if self.search else {})}

    def said(self) -> str:
        """The sample in a line, for people."""
        if self.search:
            return f"broader sample: Hypothesis searched again with seed {self.seed}: " + (
                "its failure, which the base passes, is the witness" if self.exposed is not None else
                "it failed on the base too" if self.base_failed else "it passed")
        if self.exposed is not None:
            return (f"broader sample: unseen input #{self.exposed} of {self.size} (seed {self.seed}) failed on the "
                    f"head and passed on the base; {self.ran} ran")
        return (f"broader sample: {self.ran} unseen inputs ran (seed {self.seed}), none failed on the head where the "
                f"base passed" + (f" ({self.base_failed} failed on both)" if self.base_failed else ""))


def run_sample(evidence: Evidence, inputs: list[Any], sample: Sample, head: Sides, base: Callable[[], Sides | None],
               policy: Policy, progress: Progress) -> Evidence:
    """`evidence` (the pinned payload passed) with a witness from the sample when an input separates head from base:
    shrunk, replayed, and its base replays on record. `base` gives the base's sides on first use (most heads fail no
    input, and then the base is never checked out); the inputs the head did not pass go to the base together."""
    failing = []
    for index, outcome in _not_passing(inputs, head, sample, progress):
        failing.append(index)
        if outcome == "transport":
            break  # no verdict (a hang, a broken boundary): the next inputs could each take as long
    if not failing:
        return evidence
    sides = base()
    if sides is None:
        return evidence  # no base to tell the patch's failures from old ones: the sample cannot speak
    on_base = [inputs[index] for index in failing]
    base_fails = {failing[at] for at, _ in _not_passing(on_base, sides, Sample("", len(on_base)), lambda *_: None)}
    sample.base_failed = len(base_fails)
    for index in failing:
        if index in base_fails:
            continue
        candidate = inputs[index]
        first = head.cold(candidate)  # alone, in a subject of its own: the row that counts
        if first.outcome == "pass":
            continue  # it failed only after the inputs before it in one subject: that decides nothing
        if sides.cold(candidate).outcome != "pass":
            sample.base_failed += 1
            continue
        sample.exposed, sample.exposed_input = index, candidate
        return _witness(evidence, candidate, first, head, sides, policy, progress)
    return evidence


def _not_passing(inputs: list[Any], side: Sides, sample: Sample, progress: Progress) -> Iterator[tuple[int, str]]:
    """(index, outcome) of each input `side` does not pass, in order: the inputs go in cold rows of several at once,
    each row ending on the first input it does not pass; a row that names no input (it ran out of time, its judge
    died) leaves the rest to one cold row each."""
    start = 0
    while start < len(inputs):
        row = side.batch(inputs[start:]) if side.batch is not None else None
        told = row.sample if row is not None else None
        if told is None or not 0 <= told <= len(inputs) - start or (row.outcome == "pass") != (
                told == len(inputs) - start):
            break
        sample.ran = min(len(inputs), start + told + 1)
        progress("sample", sample.ran, len(inputs))
        if row.outcome == "pass":
            return
        yield start + told, row.outcome
        start += told + 1
    for index in range(start, len(inputs)):
        sample.ran = index + 1
        progress("sample", sample.ran, len(inputs))
        outcome = side.cold(inputs[index]).outcome
        if outcome != "pass":
            yield index, outcome


def run_search(evidence: Evidence, payload: Any, sample: Sample, head: Sides, base: Callable[[], Sides | None],
               policy: Policy, progress: Progress) -> Evidence:
    """A Hypothesis test's broader sample: its search again, seeded with the sample's seed (SPEC §10). A failure whose
    example the base passes is the witness, replayed as a Hypothesis example is (alone, in fresh subjects) on both
    sides; a failure with no example to replay is the search itself, replayed with that seed."""
    sample.ran = 1
    progress("sample", 1, 1)
    first = head.search(payload)
    if first.outcome == "pass":
        return evidence
    sides = base()
    if sides is None:
        return evidence
    witness = first.example if first.example is not None else payload
    on_head, on_base = (head.cold, sides.cold) if first.example is not None else (head.search, sides.search)
    if on_base(witness).outcome != "pass":
        sample.base_failed = 1
        return evidence
    sample.exposed, sample.exposed_input = 0, witness
    found = Evidence(pinned_hash=evidence.pinned_hash, first=evidence.first, target_reason=first.reason,
                     sample=evidence.sample)
    found.shrink = ShrinkResult(witness, first.reason, steps=0, evaluations=0, stopped=True, budget_hit=False)
    found.witness, found.witness_hash = witness, witness_hash(witness)
    found.replays = replay_series(witness, on_head, policy.runs, "replay", progress)
    found.base = BaseEvidence(sides.sha, replay_series(witness, on_base, policy.runs, "replay-base", progress))
    found.base_witness = found.witness_hash
    return found


def _witness(evidence: Evidence, candidate: Any, first, head: Sides, base: Sides, policy: Policy,
             progress: Progress) -> Evidence:
    target = first.reason
    found = Evidence(pinned_hash=evidence.pinned_hash, first=evidence.first, target_reason=target, sample=evidence.sample)
    if first.outcome == "fail":
        found.shrink = _separating(candidate, target, head, base, policy, progress)
    else:  # no verdict on the head (a hang, a crash of the judge's) where the base passed: replayed as it is, a hold
        found.shrink = ShrinkResult(candidate, target, steps=0, evaluations=0, stopped=True, budget_hit=False)
    found.witness = found.shrink.witness
    found.witness_hash = witness_hash(found.witness)
    found.replays = replay_series(found.witness, head.cold, policy.runs, "replay", progress)
    if found.witness_hash != witness_hash(candidate) and not all(row.outcome == "fail" for row in found.replays):
        # as run_attempt does: the wide input's own series
        found.unshrunk_replays = replay_series(candidate, head.cold, policy.runs, "replay-unshrunk", progress,
                                               at_once=False)
    found.base = BaseEvidence(base.sha, replay_series(found.witness, base.cold, policy.runs, "replay-base", progress))
    found.base_witness = found.witness_hash
    return found


def _separating(candidate: Any, target: str | None, head: Sides, base: Sides, policy: Policy,
                progress: Progress) -> ShrinkResult:
    """The input shrunk keeping only what separates head from base: the head failing for `target`, the base passing."""
    calls = 0

    def separates(value: Any) -> str | None:
        nonlocal calls
        if value is candidate:
            return target  # both sides just said so, cold
        calls += 1
        progress("shrink", calls, policy.max_evals)
        reason = head.warm(value).failure_reason
        if reason != target:
            return reason
        return target if base.warm(value).outcome == "pass" else BASE_FAILS

    return shrink(candidate, separates, target_reason=target, max_steps=policy.max_steps, max_evals=policy.max_evals)
