"""One attempt (SPEC §2 steps 4-8): first run, shrink, replay and sign, with the evaluator injected."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import nullcontext
from typing import Any

from witness_gate.model.canonical import witness_hash
from witness_gate.model.evaluation import Evaluation
from witness_gate.model.evidence import Evidence, FlakyShrink, Policy, wavered
from witness_gate.rules.signatures import sign
from witness_gate.shrink import ShrinkResult, shrink

Evaluate = Callable[[Any], Evaluation]
# progress(phase, done, total): phases "run", "shrink", "replay", "replay-unshrunk"
Progress = Callable[[str, int, int], None]


def _quiet(_phase: str, _done: int, _total: int) -> None:
    pass


def run_attempt(payload: Any, evaluate: Evaluate, policy: Policy, progress: Progress = _quiet,
                candidate: Evaluate | None = None,
                failed_before: Callable[[Evidence], bool] | None = None, other_examples: bool = True) -> Evidence:
    """Steps 4-7: first run and sample plan, shrink on failure, replay the witness.
    `failed_before(evidence)`: whether the base fails the witness as the head does on every replay (it may set
    evidence.base): asked before a witness whose replays all failed is looked at harder, since a failure that was
    there before is pre_existing whether the head's replays would waver or not. `other_examples`: whether another
    example an unsteady search saw fail may become the witness (`another_example`; never beside a freeze another
    patch proposed)."""
    evidence = Evidence(pinned_hash=witness_hash(payload))
    for i in range(policy.runs):
        row = evaluate(payload)
        evidence.first.append(row)
        progress("run", i + 1, policy.runs)
        if row.outcome != "pass":
            break
    last = evidence.first[-1]
    if last.outcome == "transport":
        return evidence
    if last.outcome == "pass":
        return evidence
    evidence.target_reason = last.reason
    if last.example is not None:  # a test's Hypothesis search shrank its failure itself: its example is the witness
        evidence.shrink = kept_whole(last.example, last.reason)
    else:
        # a pass before the failure on the same payload: this property is flaky, so a passing candidate is retried
        tries = policy.flaky_tries if len(evidence.first) > 1 else 1
        evidence.flaky_shrink = FlakyShrink(tries) if tries > 1 else None
        # shrink candidates may come from a warm subject (`candidate`); every row that can let a patch through is cold
        evidence.shrink = _shrink(payload, last, candidate or evaluate, policy, progress, evidence.flaky_shrink)
    evidence.witness = evidence.shrink.witness
    evidence.witness_hash = witness_hash(evidence.witness)
    warm = replay_series(evidence.witness, candidate, policy.runs, "replay", progress) if candidate else []
    evidence.replays = warm
    # a warm series may confirm a block, never anything else: every row failing for the reason the first run saw
    if not warm or not unanimous_failure(warm) or warm[0].reason != evidence.target_reason:
        # a warm series that disagreed with itself foretells a cold one that does, and so does a first run that gave
        # two results (a pass before the failure, Hypothesis's FlakyFailure): that one goes one at a time (at once, a
        # series that disagrees is run again one at a time: pyrsistent's maps in hash order paid for it twice)
        evidence.replays = replay_series(evidence.witness, evaluate, policy.runs, "replay", progress,
                                         at_once=not warm and not gave_two_results(evidence))
    # the base is asked only when the head would be looked at harder: otherwise it is asked once the attempt ends
    if seen_two_ways(evidence) and not (failed_before is not None and unanimous_failure(evidence.replays)
                                        and evidence.replays[0].reason == evidence.target_reason
                                        and failed_before(evidence)):
        evidence.replays = look_harder(evidence.witness, evidence.replays, evaluate, policy, progress)
    if not all(row.outcome == "fail" for row in evidence.replays) and not run_whole(evidence) \
            and not unsteady_example_disagrees(evidence):
        # shrinking can distort timing bugs, and the code under test can steer it onto a witness that fails on a
        # coin toss: unless every replay of the witness failed, the wide input gets its own series
        # (the witness's own replays disagreed: these would too, so they go one at a time)
        evidence.unshrunk_replays = replay_series(payload, evaluate, policy.runs, "replay-unshrunk", progress,
                                                  at_once=False)
        if last.example is not None:
            distorted_example(evidence, payload, evaluate, policy, progress)
            if wavered(evidence) and evidence.replays and all(row.outcome == "pass" for row in evidence.replays):
                # Hypothesis saw the example fail and pass inside its search, whose every replay fails: an example
                # that fails on few subjects' layouts (natsort's set order, about one in five) passed all of its
                # replays one time in a hundred; they go on longer before that is believed
                evidence.replays = look_harder(evidence.witness, evidence.replays, evaluate, policy, progress,
                                               limit=policy.runs * UNSTEADY_RUNS * 2)
                if other_examples and all(row.outcome == "pass" for row in evidence.replays) \
                        and evidence.unshrunk_replays and all(row.outcome == "fail" for row in evidence.unshrunk_replays):
                    another_example(evidence, last.other_examples, evaluate, policy, progress)
    return evidence


def another_example(evidence: Evidence, others: tuple, evaluate: Evaluate, policy: Policy,
                    progress: Progress = _quiet) -> None:
    """When Hypothesis's last failing example of a search that saw an example fail and pass passed every replay alone,
    while the search failed every time: the other examples it saw fail (`Evaluation.other_examples`, smallest first),
    each replayed alone `runs` times, one at a time. The first whose replays disagree, failing only for the search's
    own reason, is the witness, a flake shown directly: it fails on some subjects' layouts and passes on others
    (bidict's nodes linked in set order: its last example passed 40 replays alone one gate run in thirty). A bug that
    answers differently on a repeated call in one process passes alone on every layout, so none disagrees and the hold
    stands (shrink_distorted); the example's own passing replays are kept for people. A coin tossed on another input
    for another reason is not the search's failure (found by a reviewer: `flake:other` for a search failing `neg`
    every time), and beside an accepted freeze no other example is looked for (a freeze on a real flake's example,
    seen again by a later head's search, silenced that head's new regression: found by the same reviewer)."""
    for other in others:
        rows = replay_series(other, evaluate, policy.runs, "replay-example", progress, at_once=False)
        failed = [row for row in rows if row.outcome == "fail"]
        if failed and all(row.reason == evidence.target_reason for row in failed) \
                and any(row.outcome == "pass" for row in rows):
            evidence.example_replays, evidence.replays = evidence.replays, rows
            evidence.witness, evidence.witness_hash = other, witness_hash(other)
            evidence.shrink = kept_whole(other, evidence.target_reason or "")
            return


def distorted_example(evidence: Evidence, payload: Any, evaluate: Evaluate, policy: Policy,
                      progress: Progress = _quiet) -> None:
    """A Hypothesis example that does not fail every time alone, while the seeded search that found it fails on every
    replay and never sees an example waver, failed in the search because of what ran before it in that process (a
    cache, a counter, a coin tossed on a process's first call): the search is the witness, as it was before examples
    were kept, and its replays decide. A search that itself saw an example fail and pass (`wavered`: Hypothesis's
    FlakyFailure, in the first run or a replay) is no such distortion, and the example's replays stand (a set-order
    bug's flake); a search whose replays agree on that is looked at harder first (up to UNSTEADY_RUNS x runs), since a
    search sees its example waver in some processes only."""
    search = evidence.unshrunk_replays
    if not search or not all(row.outcome == "fail" for row in search):
        return
    while not wavered(evidence):
        if len(search) >= policy.runs * UNSTEADY_RUNS:  # it never wavered: the search is the witness
            evidence.example_replays, evidence.replays, evidence.unshrunk_replays = evidence.replays, search, []
            evidence.witness, evidence.witness_hash = payload, witness_hash(payload)
            evidence.shrink = kept_whole(payload, evidence.target_reason or "")
            return
        search.append(evaluate(payload))
        progress("replay-unshrunk", len(search), policy.runs * UNSTEADY_RUNS)
        if search[-1].outcome != "fail":
            return


def gave_two_results(evidence: Evidence) -> bool:
    """Whether the first run already saw the property pass and fail: a pass before its failure, or its runner
    (Hypothesis) seeing one example fail and pass."""
    return len(evidence.first) > 1 or any(row.unsteady for row in evidence.first)


def unsteady_example_disagrees(evidence: Evidence) -> bool:
    """Whether Hypothesis's example failed some of its replays and passed others after its first run saw an example
    fail and pass (FlakyFailure): the flake is already shown, and the search's own series could decide nothing more
    (`distorted_example` and the shrink_distorted hold ask it only of a search that never wavered), so it is not run
    (natsort's set order: five searches, 40% of the gate run)."""
    return (bool(evidence.first) and evidence.first[-1].example is not None  # a sample's evidence has no first run
            and any(row.unsteady for row in evidence.first) and any(row.outcome == "fail" for row in evidence.replays))


def kept_whole(witness: Any, reason: str) -> ShrinkResult:
    """A witness no shrink of ours made: Hypothesis's own example, the seeded search itself, an unseen input as drawn."""
    return ShrinkResult(witness, reason, steps=0, evaluations=0, stopped=True, budget_hit=False)


def seen_two_ways(evidence: Evidence) -> bool:
    """Whether the property already gave two results (a pass before its first failure, its runner (Hypothesis) seeing
    one example fail and pass, a witness whose every replay passed after it failed), or its witness is a Hypothesis
    example, run alone in fresh processes whose layouts differ: a set-order bug's example failed all five of its
    replays about one run in thirty, with nothing else wavering (found by a full run's ten-run test). So is a test with
    no @given (an empty payload, with nothing a shrink could try): its replays run just what the first run ran, and
    only the layout differs (pyrsistent's maps compared in hash order failed on 5 in 8 layouts, and all five replays
    of the test one run in ten)."""
    return (gave_two_results(evidence) or evidence.first[-1].example is not None
            or run_whole(evidence)
            or not any(row.outcome == "fail" for row in evidence.replays))


def run_whole(evidence: Evidence) -> bool:
    """Whether the witness is the pinned payload with no smaller input tried (a test with no @given: the empty
    payload). Its replays run just what the first run ran, so it has no wider input of its own to replay apart (that
    series, all failing by chance, held a set-order flake as `shrink_distorted`)."""
    return (evidence.witness_hash == evidence.pinned_hash and evidence.shrink is not None
            and evidence.shrink.evaluations <= 1)  # its start alone


def look_harder(witness: Any, rows: list[Evaluation], evaluate: Evaluate, policy: Policy,
                progress: Progress = _quiet, limit: int = 0) -> list[Evaluation]:
    """The replays of a property already seen to give two results (`seen_two_ways`): a series that agreed with itself
    goes on, one cold replay at a time, until a replay disagrees or there are UNSTEADY_RUNS times `runs` of them. A bug
    that follows set order or addresses fails on some layouts only: five replays agree one time in sixteen, so five
    alone would call it a regression (or not reproduced) as often."""
    rows = list(rows)
    limit = limit or policy.runs * UNSTEADY_RUNS
    while (rows and len(rows) < limit and len({row.outcome for row in rows}) == 1
           and rows[0].outcome in ("pass", "fail")):
        rows.append(evaluate(witness))
        progress("replay", len(rows), limit)
    return rows


UNSTEADY_RUNS = 4


def replay_frozen(payload: Any, witness: Any, signature: str, evaluate: Evaluate, policy: Policy,
                  progress: Progress = _quiet) -> tuple[Evidence | None, list[Evaluation]]:
    """Replay an accepted freeze's retained witness before anything else (article 001: a freeze is one payload).

    Every replay fails, or the failures keep the freeze's one flake signature: that series decides, with
    the frozen witness as the witness (no new shrink, so its hash matches the freeze). Anything else —
    all passing, another reason, a transport fault — returns None: the normal pipeline runs.
    """
    rows = replay_series(witness, evaluate, policy.runs, "replay-frozen", progress)
    # a frozen witness is known to give two results: a series that agrees with itself goes on before it decides (a
    # fair coin, frozen, failed or passed all five replays one attempt in sixteen: `regression`, or a new `flake`)
    rows = look_harder(witness, rows, evaluate, policy, progress)
    failing = [row for row in rows if row.outcome == "fail"]
    decisive = bool(failing) and not any(row.outcome == "transport" for row in rows) and (
        len(failing) == len(rows) or {sig for sig in sign(rows) if sig} == {signature})
    if not decisive:
        return None, rows
    return Evidence(pinned_hash=witness_hash(payload), target_reason=failing[0].reason, witness=witness,
                    witness_hash=witness_hash(witness), replays=rows, frozen=True), rows


def pinned_shows_only(signature: str, payload: Any, evaluate: Evaluate, policy: Policy) -> bool:
    """The pinned payload's sample plan shows nothing but the frozen flake: a freeze silences one payload's one
    signature, never a failure the patch brings on other inputs, nor one the pinned payload shows on every run, which
    is no flake (either runs the whole pipeline). `runs` rows, one of which must pass: asked on for longer, a near-stable
    bug that trips the frozen assert passes one row sooner or later (a reviewer's head failing 19 rows in 20 was
    `frozen`); a real flake's `runs` rows all failing lifts the freeze for that attempt, which then needs a person —
    unless the whole pipeline comes back to the frozen witness as a flake: a Hypothesis search that wavered keeps its
    example, whose replays disagree, so it is `frozen` again (a property's shrunk witness is held as
    shrink_distorted instead; stated in docs/SECURITY.md, found by a reviewer)."""
    passed = False
    for _ in range(policy.runs):
        row = evaluate(payload)
        if row.outcome == "transport" or (row.outcome == "fail" and f"flake:{row.reason}" != signature):
            return False
        passed = passed or row.outcome == "pass"
    return passed


def _shrink(payload: Any, first_failure: Evaluation, evaluate: Evaluate, policy: Policy,
            progress: Progress, flaky: FlakyShrink | None = None) -> ShrinkResult:
    calls = 0
    evaluations = 0
    target = first_failure.reason

    def reason_of(candidate: Any) -> str | None:
        nonlocal calls, evaluations
        if calls == 0 and candidate is payload:
            calls += 1
            return target  # the start already failed; do not run it twice
        calls += 1
        progress("shrink", calls, policy.max_evals)
        # retries stop once they have cost max_evals evaluations: the budget bounds real work, not calls
        tries = flaky.tries if flaky is not None and evaluations < policy.max_evals else 1
        for attempt in range(tries):
            evaluations += 1
            reason = evaluate(candidate).failure_reason
            if reason is not None or attempt == tries - 1:
                if reason == target and attempt and flaky is not None:
                    flaky.decided_by_retry += 1
                return reason
        return None

    return shrink(payload, reason_of, target_reason=target,
                  max_steps=policy.max_steps, max_evals=policy.max_evals)


def replay_series(payload: Any, evaluate: Evaluate, runs: int, phase: str, progress: Progress,
                  at_once: bool = True) -> list[Evaluation]:
    """`runs` replays of one payload, in order: at once when the runner allows (and `at_once`), and then kept only
    when every one failed for one reason; any other series is replayed one at a time, as the first run was."""
    # replays are independent processes: up to the runner's `parallel` at once, rows kept in their order
    width = min(runs, getattr(evaluate, "parallel", 1)) if at_once else 1
    rows = _series(payload, evaluate, runs, width, phase, progress)
    if width > 1 and not unanimous_failure(rows):
        # replays at once can see each other (a lock on a file they share, the uid's process count) and so
        # fail only some of themselves or starve each other: only a series that sight cannot soften is kept
        rows = _series(payload, evaluate, runs, 1, phase, progress)
    return rows


def unanimous_failure(rows: list[Evaluation]) -> bool:
    return bool(rows) and all(row.outcome == "fail" for row in rows) and len({row.reason for row in rows}) == 1


def _series(payload: Any, evaluate: Evaluate, runs: int, width: int, phase: str,
            progress: Progress) -> list[Evaluation]:
    rows: list[Evaluation] = []
    with ThreadPoolExecutor(width) if width > 1 else nullcontext() as pool:
        for row in (pool.map(evaluate, [payload] * runs) if pool else (evaluate(payload) for _ in range(runs))):
            rows.append(row)
            progress(phase, len(rows), runs)
    return rows
