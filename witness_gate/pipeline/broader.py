"""The broader sample, run (SPEC §10): after the pinned payload passed, inputs near it that the patch has never seen.

Differential, so that it never cries wolf: an input counts only where the base implementation passes it. The first
input the head fails and the base passes becomes the attempt's witness, shrunk keeping that difference (the head
failing for the same reason, the base passing), replayed cold on both like any witness. Inputs both fail, or the base
fails, are not the patch's doing and never block. Warm rows only look; every row that decides is cold.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from witness_gate.model.canonical import witness_hash
from witness_gate.model.evaluation import ROW_REFUSED
from witness_gate.model.evidence import Evidence, Policy
from witness_gate.pipeline.attempt import Evaluate, Progress, distorted_example, kept_whole, replay_series
from witness_gate.pipeline.baseline import BaseEvidence, shrink_separating

SILENT = "silent"  # _not_passing's word for a row that came to no verdict on any input


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
    in_row: int = 0  # inputs the head failed only after others in one subject, and passed alone
    holds: list[str] = field(default_factory=list)  # why the attempt cannot pass (sample_state:<i>, sample_row:<i>)

    def as_record(self) -> dict[str, Any]:
        return {"seed": self.seed, "size": self.size, "ran": self.ran, "base_failed": self.base_failed,
                "exposed": self.exposed, "input": self.exposed_input if self.exposed is not None else None,
                "in_row": self.in_row, **({"search": True} if self.search else {})}

    def said(self) -> str:
        """The sample in a line, for people."""
        if self.search:
            return f"broader sample: Hypothesis searched again with seed {self.seed}: " + (
                "its failure, which the base passes, is the witness" if self.exposed is not None else
                "it failed on the base too" if self.base_failed else "it passed")
        if self.exposed is not None:
            return (f"broader sample: unseen input #{self.exposed} of {self.size} (seed {self.seed}) failed on the "
                    f"head and passed on the base; {self.ran} ran")
        if self.holds and self.holds[0].startswith("sample_row:"):
            return (f"broader sample: the head came to no verdict, twice, on a row of unseen inputs from "
                    f"#{self.holds[0].rpartition(':')[2]} of {self.size} (seed {self.seed}) in one subject (it ran out "
                    "of time or output, or its judge died), while it passes each alone and the base gives a verdict "
                    "on every input of the same row: state kept between calls, for a person to look at")
        if self.holds:
            return (f"broader sample: the head failed unseen input #{self.holds[0].rpartition(':')[2]} of {self.size} "
                    f"(seed {self.seed}) after the inputs before it in one subject, and passes it alone; the base "
                    "passes the same inputs in one subject every time: state kept between calls (a cache, a counter, "
                    "a first call unlike the others) answers differently, which a person should look at")
        return (f"broader sample: {self.ran} unseen inputs ran (seed {self.seed}), none failed on the head where the "
                f"base passed" + (f" ({self.base_failed} failed on both)" if self.base_failed else "")
                + (f"; {self.in_row} failed only after others in one subject and passed alone" if self.in_row else ""))


def run_sample(evidence: Evidence, inputs: list[Any], sample: Sample, head: Sides, base: Callable[[], Sides | None],
               policy: Policy, progress: Progress) -> Evidence:
    """`evidence` (the pinned payload passed) with a witness from the sample when an input separates head from base:
    shrunk, replayed, and its base replays on record. `base` gives the base's sides on first use (most heads fail no
    input, and then the base is never checked out); the inputs the head did not pass go to the base together."""
    sides: list[Sides | None] = []

    def base_sides() -> Sides | None:
        if not sides:
            sides.append(base())
        return sides[0]
    found = list(_not_passing(inputs, head, sample, progress))
    failing = [(index, start) for index, outcome, start in found if outcome != SILENT]  # (input, its row's start)
    if not found or base_sides() is None:
        return evidence  # nothing failed, or no base to tell the patch's failures from old ones: the sample is silent
    if failing:
        evidence = _on_base(evidence, inputs, failing, sample, head, base_sides(), policy, progress)
    for start in [start for _, outcome, start in found if outcome == SILENT]:
        if sample.exposed is None and not sample.holds and _silent_on_head_only(inputs[start:], head, base_sides(),
                                                                                 policy):
            sample.holds.append(f"sample_row:{start}")  # each input alone passed: the row is what differs
    return evidence


def _on_base(evidence: Evidence, inputs: list[Any], failing: list[tuple[int, int]], sample: Sample, head: Sides,
             sides: Sides, policy: Policy, progress: Progress) -> Evidence:
    """The inputs the head did not pass, asked of the base together; the first the base passes and the head fails
    alone is the witness; one the head fails only in its row is the kept-state check's."""
    on_base = [inputs[index] for index, _ in failing]
    base_fails = {failing[at][0] for at, outcome, _ in _not_passing(on_base, sides, Sample("", len(on_base)),
                                                                     lambda *_: None) if outcome != SILENT}
    sample.base_failed = len(base_fails)
    for index, start in failing:
        if index in base_fails:
            continue
        candidate = inputs[index]
        first = head.cold(candidate)  # alone, in a subject of its own: the row that counts
        if first.outcome == "pass":
            sample.in_row += 1
            if _kept_state(inputs[start:index + 1], sides, policy):
                sample.holds.append(f"sample_state:{index}")
                return evidence
            continue
        if _series_passing(candidate, sides.cold, policy, progress) is None:
            sample.base_failed += 1  # the base fails it too, if only sometimes: not the patch's doing
            continue
        sample.exposed, sample.exposed_input = index, candidate
        return _witness(evidence, candidate, first, head, sides, policy, progress)
    return evidence


def _kept_state(row: list[Any], base: Sides, policy: Policy) -> bool:
    """Whether the base passes the last input of `row` (which the head failed or hung on after the others, in one
    subject, and passed alone) every one of `runs` times it is given the same inputs in one subject: then the failure
    was the inputs before it, in code the base does not have (a cache that answers for the wrong input, an
    implementation right on a process's first call only, or wrong at random after it: found by two reviewers). What
    the base makes of the inputs before it decides nothing (an input the patch fixed, failing on the base at the row's
    start, excused every later failure: found by a reviewer); a base that fails the input itself even once may have a
    bug of its own there (a set order: found by one too)."""
    if base.batch is None or len(row) < 2:
        return False
    for _ in range(policy.runs):
        told = _told(base.batch(row), len(row))
        if told is None or told[0] != len(row) or len(row) - 1 in told[1]:
            return False
    return True


def _silent_on_head_only(row: list[Any], head: Sides, base: Sides | None, policy: Policy) -> bool:
    """Whether a row of inputs the head came to no verdict on (it flooded its output, outran the row's time, crashed
    the judge) does so again, and the base gives a verdict on every input of the same row in one subject, `runs` times
    out of `runs`: then the head differs from the base in one subject, where each input alone could not show it (a
    head right on a process's first call and raising a long message after it, whose tracebacks overran the row's
    output: found by a reviewer). Else each input is asked alone, as before."""
    if base is None or base.batch is None or head.batch is None or len(row) < 2:
        return False
    if _told(head.batch(row), len(row)) is not None:
        return False  # the head's row came to a verdict this time: the inputs are asked alone
    return all(_finished(base.batch(row), len(row)) for _ in range(policy.runs))


def _finished(row, size: int) -> bool:
    told = _told(row, size)
    return told is not None and told[0] == size


def _not_passing(inputs: list[Any], side: Sides, sample: Sample,
                 progress: Progress) -> Iterator[tuple[int, str, int]]:
    """(index, outcome, where its row started) of each input `side` does not pass, in order, up to the first with no
    verdict (a hang, a broken boundary: the inputs after it could each take as long): the inputs go in cold rows of
    several, each naming the inputs it failed and going on past them; a row that does not say which (it ran out of
    time, its judge died) is given as (its start, SILENT, its start), and leaves the rest to one cold row each. One
    row at a time: a row keeps both cores busy (each side spins briefly for the other's answer), so rows at once only
    slow each other (measured)."""
    start = 0
    while start < len(inputs):
        row = side.batch(inputs[start:]) if side.batch is not None else None
        told = _told(row, len(inputs) - start)
        if told is None:
            if row is not None and row.reason != ROW_REFUSED and len(inputs) - start > 1:
                yield start, SILENT, start  # the caller may ask the base about this row before each input goes alone
            break
        ran, failed = told
        sample.ran = min(len(inputs), start + ran + 1)
        progress("sample", sample.ran, len(inputs))
        yield from ((start + index, "fail", start) for index in failed)
        if ran == len(inputs) - start:
            return
        yield start + ran, row.outcome, start
        if row.outcome == "transport":
            return
        start += ran + 1
    for index in range(start, len(inputs)):
        sample.ran = index + 1
        progress("sample", sample.ran, len(inputs))
        outcome = side.cold(inputs[index]).outcome
        if outcome != "pass":
            yield index, outcome, index
            if outcome == "transport":
                return


def _told(row, size: int) -> tuple[int, tuple[int, ...]] | None:
    """(how many inputs the row got through, the indices of those it failed) when the row says so consistently: it
    ran them all (passing only when it failed none), or it ended on one it did not pass after the ones it failed."""
    if row is None or row.sample is None or row.failed is None or not 0 <= row.sample <= size:
        return None
    ran, failed = row.sample, row.failed
    if failed and not 0 <= failed[0] <= failed[-1] < ran:
        return None
    if ran == size and (row.outcome == "pass") != (not failed):
        return None
    if ran < size and row.outcome == "pass":
        return None
    return ran, failed


def run_search(evidence: Evidence, payload: Any, sample: Sample, head: Sides, base: Callable[[], Sides | None],
               policy: Policy, progress: Progress) -> Evidence:
    """A Hypothesis test's broader sample: its search again, seeded with the sample's seed (SPEC §10), on the head and,
    when the head fails it, on the base, whose search must pass `runs` times for the failure to be the patch's. The
    witness is the example the head's search ended on when the base passes it alone, else the search itself (an
    example the base cannot replay: the test draws after the implementation failed it)."""
    sample.ran = 1
    progress("sample", 1, 1)
    first = head.search(payload)
    if first.outcome == "pass":
        return evidence
    sides = base()
    if sides is None:
        return evidence
    if _series_passing(payload, sides.search, policy, progress) is None:
        sample.base_failed = 1  # the base's own search fails too (or cannot be told apart): not the patch's doing
        return evidence
    example = first.example if first.example is not None and sides.cold(first.example).outcome == "pass" else None
    witness, on_head, on_base = (example, head.cold, sides.cold) if example is not None else \
        (payload, head.search, sides.search)
    sample.exposed, sample.exposed_input = 0, witness
    found = Evidence(pinned_hash=evidence.pinned_hash, first=evidence.first, target_reason=first.reason,
                     sample=evidence.sample)
    found.shrink = kept_whole(witness, first.reason)
    found.witness, found.witness_hash = witness, witness_hash(witness)
    found.replays = replay_series(witness, on_head, policy.runs, "replay", progress)
    if example is not None and not all(row.outcome == "fail" for row in found.replays):
        # as a test's own attempt does: the search that found the example has its own series (attempt.py)
        found.unshrunk_replays = replay_series(payload, head.search, policy.runs, "replay-unshrunk", progress,
                                               at_once=False)
        distorted_example(found, payload, head.search, policy, progress)
        if found.witness_hash == witness_hash(payload):  # the search became the witness: the base's is its series
            on_base = sides.search
    found.base = BaseEvidence(sides.sha, replay_series(found.witness, on_base, policy.runs, "replay-base", progress))
    found.base_witness = found.witness_hash
    return found


def _series_passing(payload: Any, evaluate: Evaluate, policy: Policy, progress: Progress) -> list | None:
    """`runs` cold evaluations of `payload`, or None as soon as one does not pass: a base that fails it even once, or
    gives no verdict, cannot tell the patch's failure from its own (a flaky base: found by a reviewer)."""
    rows = []
    for done in range(policy.runs):
        progress("replay-base", done + 1, policy.runs)
        rows.append(evaluate(payload))
        if rows[-1].outcome != "pass":
            return None
    return rows


def _witness(evidence: Evidence, candidate: Any, first, head: Sides, base: Sides, policy: Policy,
             progress: Progress) -> Evidence:
    target = first.reason
    found = Evidence(pinned_hash=evidence.pinned_hash, first=evidence.first, target_reason=target, sample=evidence.sample)
    if first.outcome == "fail":  # shrink candidates on warm subjects only steer; the rows after them are cold
        found.shrink = shrink_separating(candidate, target, head.warm, base.warm, policy, progress, "shrink")
    else:  # no verdict on the head (a hang, a crash of the judge's) where the base passed: replayed as it is, a hold
        found.shrink = kept_whole(candidate, target)
    found.witness = found.shrink.witness
    found.witness_hash = witness_hash(found.witness)
    found.replays = replay_series(found.witness, head.cold, policy.runs, "replay", progress)
    shrunk = found.witness_hash != witness_hash(candidate)
    if shrunk and not all(row.outcome == "fail" for row in found.replays):
        # as run_attempt does: the wide input's own series
        wide = replay_series(candidate, head.cold, policy.runs, "replay-unshrunk", progress, at_once=False)
        if all(row.outcome == "fail" for row in wide):
            # the shrink wandered onto an input that fails only sometimes (the smallest inputs are where a frozen
            # flake's witness lies: found by a reviewer's test), and the input it came from fails every time: that
            # input, which the base passed every time, is the witness
            _as_is(found, candidate, target, wide)
            shrunk = False
        else:
            found.unshrunk_replays = wide
    rows = replay_series(found.witness, base.cold, policy.runs, "replay-base", progress)
    if shrunk and any(row.outcome != "pass" for row in rows):
        # the base does not pass the shrunk witness every time, though it passed the input `runs` times: the input
        # itself is the witness, which is the patch's doing
        _as_is(found, candidate, target, replay_series(candidate, head.cold, policy.runs, "replay", progress))
        rows = replay_series(candidate, base.cold, policy.runs, "replay-base", progress)
    found.base = BaseEvidence(base.sha, rows)
    found.base_witness = found.witness_hash
    return found


def _as_is(found: Evidence, candidate: Any, target: str | None, replays: list) -> None:
    """The unshrunk input as the witness, with its head replays."""
    found.shrink = kept_whole(candidate, target)
    found.witness, found.witness_hash, found.replays, found.unshrunk_replays = (
        candidate, witness_hash(candidate), replays, [])
