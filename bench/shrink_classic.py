"""The classic problems side by side: real Hypothesis (its @given test, pinned seed) against our shrinker
from the same failing start.

Hypothesis runs the problem's @given test with `@seed(s)`: generation, then its own shrinking. The
first value its test fails on is the start; from there its predicate calls are counted (distinct
values, as our shrinker caches by digest and counts distinct values; Hypothesis's raw count is
printed too) and its witness is the value of its final call, the replay of what it shrank to. Our
shrinker then starts from that same value with the product's default budget (32 steps, 2,000
evaluations). The ratio per problem is of median calls; the RESULT line takes the median
over problems, against Hypothesis's distinct values (the stricter count) and its raw calls.
A witness "reached the minimum" when its canonical JSON is no longer than the
published minimum's (ours orders values by canonical bytes, so `[0, 1, 2]` is our minimum where
Hypothesis's order gives `[0, 1, -1]`). Seeds whose generation finds no failure are skipped.
Hypothesis also draws constants from the local modules it finds loaded (ours included), so the
starts move when those sources change; both sides always start from the same value.
"""

from __future__ import annotations

import json
import statistics
from dataclasses import dataclass
from typing import Any

from hypothesis import HealthCheck, Phase, Verbosity, given, seed, settings

from shrink_problems import PROBLEMS, Problem
from witness_gate.model.canonical import canonical_bytes
from witness_gate.shrink import shrink

MAX_EXAMPLES = 1000
SEED_TRIES = 40


@dataclass
class Side:
    witness: Any
    calls: int  # distinct values from the start on
    raw_calls: int
    budget_hit: bool = False

    def size(self) -> int:
        return len(canonical_bytes(self.witness))


def run_hypothesis_given(problem: Problem, pinned: int) -> "tuple[Any, Side] | None":
    """(start, Hypothesis's side) for one seed, or None when generation found no failure."""
    values: list[Any] = []
    failing: list[int] = []

    def test(drawn):
        value = json.loads(json.dumps(drawn))  # tuples become lists: the JSON the predicate sees
        values.append(value)
        if problem.predicate(value) is not None:
            failing.append(len(values) - 1)
            raise AssertionError(problem.predicate(value))

    config = settings(database=None, deadline=None, max_examples=MAX_EXAMPLES, report_multiple_bugs=False,
                      phases=[Phase.generate, Phase.target, Phase.shrink], verbosity=Verbosity.quiet,
                      suppress_health_check=list(HealthCheck))
    try:
        config(seed(pinned)(given(problem.strategy)(test)))()
    except AssertionError:
        pass
    if not failing:
        return None
    first = failing[0]
    seen = {canonical_bytes(v) for v in values[first:]}
    return values[first], Side(values[-1], len(seen), len(values) - first)


def run_ours_from(problem: Problem, start: Any) -> Side:
    calls = []

    def counted(value):
        calls.append(value)
        return problem.predicate(value)

    result = shrink(start, counted, target_reason=problem.predicate(start))
    return Side(result.witness, result.evaluations, len(calls), result.budget_hit)


def compare(problem: Problem, seeds: int) -> list[tuple[Any, Side, Side]]:
    runs = []
    for pinned in range(SEED_TRIES):
        found = run_hypothesis_given(problem, pinned)
        if found is not None:
            start, theirs = found
            runs.append((start, run_ours_from(problem, start), theirs))
        if len(runs) == seeds:
            break
    return runs


def report(seeds: int) -> list[str]:
    """The table, one row per problem (medians over seeds), and the RESULT lines."""
    lines = [f"{'problem':<17} {'min':>4} | {'ours':>5} {'calls':>6} {'min':>5} {'cut':>3} | {'hypo':>5} {'calls':>6} "
             f"{'raw':>6} {'min':>5} | {'calls':>6}  ours / hypothesis witness (median seed)"]
    every_ours = every_theirs = larger = 0
    ratios, raw_ratios = [], []
    for problem in PROBLEMS:
        runs = compare(problem, seeds)
        limit = len(canonical_bytes(problem.minimum))
        for _, ours, theirs in runs:
            assert problem.predicate(ours.witness) == problem.predicate(theirs.witness) is not None, problem.name
        ours_min = sum(o.size() <= limit for _, o, _ in runs)
        theirs_min = sum(t.size() <= limit for _, _, t in runs)
        every_ours += ours_min == len(runs)
        every_theirs += theirs_min == len(runs)
        ob, oc = _median([o.size() for _, o, _ in runs]), _median([o.calls for _, o, _ in runs])
        tb, tc = _median([t.size() for _, _, t in runs]), _median([t.calls for _, _, t in runs])
        raw = _median([t.raw_calls for _, _, t in runs])
        larger += ob > tb
        ratios.append(oc / tc)
        raw_ratios.append(oc / raw)
        middle = sorted(runs, key=lambda r: r[1].size())[len(runs) // 2]
        cut = sum(o.budget_hit for _, o, _ in runs)
        lines.append(f"{problem.name:<17} {limit:>4} | {ob:>5} {oc:>6} {ours_min:>3}/{len(runs)} {cut:>3} | {tb:>5} {tc:>6} "
                     f"{raw:>6} {theirs_min:>3}/{len(runs)} | {oc / tc:>5.2f}x  "
                     f"{json.dumps(middle[1].witness)[:30]} / {json.dumps(middle[2].witness)[:30]}")
    lines.append(f"RESULT shrink-classic: problems where every seed reaches the minimum = {every_ours} of "
                 f"{len(PROBLEMS)} (hypothesis {every_theirs}; target >= hypothesis)")
    lines.append(f"RESULT shrink-classic: problems with a larger median witness than hypothesis = {larger} (target 0)")
    lines.append(f"RESULT shrink-classic: median calls = {statistics.median(ratios):.2f}x hypothesis's distinct "
                 f"values (target <= 0.50)")
    lines.append(f"RESULT shrink-classic: median calls = {statistics.median(raw_ratios):.2f}x hypothesis's raw calls")
    return lines


def _median(values: list[int]) -> int:
    return int(statistics.median_low(values))
