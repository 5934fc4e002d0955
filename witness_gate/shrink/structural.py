"""The structural shrinker: a failing JSON payload down to a small witness with the same reason."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from witness_gate.model.canonical import canonical_bytes, sha256_hex, shortlex_key
from witness_gate.shrink.local_stop import shrink_until_local_stop
from witness_gate.shrink.memory import Slot
from witness_gate.shrink.moves.numbers import shift_pairs, shrink_equal_values, sum_fields, sum_lists
from witness_gate.shrink.moves.structure import (
    delete_after_values,
    delete_repeated_zeros,
    delete_structure,
    lift_descendants,
    lift_similar,
    merge_sibling_lists,
    renumber_indices,
)
from witness_gate.shrink.moves.values import simplify_values, sort_lists

__all__ = ["ShrinkResult", "Shrinker", "shrink", "shrink_until_local_stop", "single_deletions"]

Reason = str | None


@dataclass(frozen=True)
class ShrinkResult:
    witness: Any
    reason: str
    steps: int  # rounds that committed a smaller witness (see Shrinker)
    evaluations: int  # distinct predicate calls
    stopped: bool  # a full round of every pass found nothing (shapes the memory skips aside): a local stop
    budget_hit: bool  # max_steps or max_evals ended the search first

    def as_record(self) -> dict:
        return {
            "steps": self.steps,
            "evaluations": self.evaluations,
            "stopped": self.stopped,
            "budget_hit": self.budget_hit,
        }


class _BudgetSpent(Exception):
    pass


# coarse to fine: a record's list of numbers into its sum (one probe for what deletion pays one a number),
# then structure (it removes the most per evaluation; layers of a recursive tree
# before single children; a list of indices renumbered before deletion breaks its indices), then numbers
# that move together (a list into its sum, copies of one value, pairs in step) before each value alone
# (a payload of a few numbers loses a repeated 0 first); last, lists sorted again and deletion in a
# payload of a few numbers, which their values decide (delete_after_values)
MOVES = (
    sum_fields,
    lift_similar,
    renumber_indices,
    delete_structure,
    lift_descendants,
    merge_sibling_lists,
    sum_lists,
    shrink_equal_values,
    shift_pairs,
    delete_repeated_zeros,
    simplify_values,
    sort_lists,
    delete_after_values,
)


class Shrinker:
    """Greedy structural shrinking in shortlex order of canonical JSON.

    Invariants: `current` always fails with `target_reason`; a candidate is accepted only when
    it fails with that same reason and is strictly smaller (length, then bytes) than `current`,
    so the search terminates and depends on nothing but the payload and the predicate. Every
    candidate goes through `consider()`, which caches predicate results by canonical digest.

    A round runs every move once, coarse to fine (`MOVES`); a round in which no move commits
    anything is a local stop. A round is article 000's `shrink_once`: it returns a strictly
    smaller failing witness or nothing, so one round that commits is one step, however many
    reductions it commits. `max_steps` thus bounds how often the whole tool is applied, not the
    fixture's width: a 200-order fixture costs a few steps, not one per order.

    The searches inside moves (runs to delete, magnitudes of numbers) presume that failing is
    monotone and give up when one step does not fail; a failure that skips values (fails at
    multiples of 100, say) can leave a witness a jump away from a smaller one.

    `memory` keeps what refuted candidates taught (shrink/memory.py): a part of a record (a list or
    dict of mixed kinds) that could not go, or a leaf of one that could not become null or "", is
    not probed again on a node of the same kind. So a local stop is a round with no commit among
    the candidates not so skipped; the memory is deterministic and never touches the cache.
    """

    def __init__(
        self,
        payload: Any,
        run: Callable[[Any], Reason],
        *,
        target_reason: str,
        max_steps: int = 32,
        max_evals: int = 2000,
    ) -> None:
        if max_steps < 0 or max_evals < 1:
            raise ValueError("max_steps must be >= 0 and max_evals >= 1")
        if not target_reason:
            raise ValueError("target_reason must be a non-empty reason code")
        self.run = run
        self.target = target_reason
        self.max_steps = max_steps
        self.max_evals = max_evals
        self.cache: dict[str, Reason] = {}
        self.memory: dict[Slot, bool] = {}  # shapes refuted (see memory.py)
        self.steps = 0
        self.round_counted = False
        self.current = payload
        self.current_key = shortlex_key(payload)

    # -- the one door every candidate goes through -------------------------------------
    def reason_of(self, value: Any, raw: bytes | None = None) -> Reason:
        digest = sha256_hex(canonical_bytes(value) if raw is None else raw)
        if digest not in self.cache:
            if len(self.cache) >= self.max_evals:
                raise _BudgetSpent
            self.cache[digest] = self.run(value)
        return self.cache[digest]

    def fails(self, candidate: Any) -> bool:
        """Whether `candidate` fails with the target reason, smaller or not: searches steer by it."""
        return self.reason_of(candidate) == self.target

    def refuted(self, candidate: Any) -> bool:
        """Whether `candidate` was already evaluated and did not fail with the target reason (no call)."""
        reason = self.cache.get(sha256_hex(canonical_bytes(candidate)), self.target)
        return reason != self.target

    def smaller(self, candidate: Any) -> bool:
        return shortlex_key(candidate) < self.current_key

    def would_accept(self, candidate: Any) -> bool:
        key = shortlex_key(candidate)
        return key < self.current_key and self.reason_of(candidate, key[1]) == self.target

    def consider(self, candidate: Any) -> bool:
        """Accept `candidate` as the new current witness if it qualifies; the round's first is a step."""
        if not self.would_accept(candidate):
            return False
        if not self.round_counted:
            if self.steps >= self.max_steps:
                # a further failing reduction exists, so this is a cut-off, not a local stop
                raise _BudgetSpent
            self.steps += 1
            self.round_counted = True
        self.current = candidate
        self.current_key = shortlex_key(candidate)
        return True

    # -- the search ----------------------------------------------------------------------
    def run_search(self) -> ShrinkResult:
        if self.reason_of(self.current) != self.target:
            raise ValueError(
                f"the start payload does not fail with {self.target!r}; nothing to shrink"
            )
        stopped = False
        budget_hit = False
        try:
            while self._round():
                pass
            stopped = True
        except _BudgetSpent:
            budget_hit = True
        return ShrinkResult(
            witness=self.current,
            reason=self.target,
            steps=self.steps,
            evaluations=len(self.cache),
            stopped=stopped,
            budget_hit=budget_hit,
        )

    def _round(self) -> bool:
        self.round_counted = False
        changed = False
        for move in MOVES:
            changed |= move(self)
        return changed


def shrink(
    payload: Any,
    run: Callable[[Any], Reason],
    *,
    target_reason: str,
    max_steps: int = 32,
    max_evals: int = 2000,
) -> ShrinkResult:
    """Shrink `payload`, which must fail with `target_reason` under `run`, to a local stop.

    `run(payload)` returns the reason code of a failure, or None for a pass. The result's
    witness still fails with `target_reason`; `stopped` and `budget_hit` never both hold.
    A step is one round of every move that returns a strictly smaller failing witness (article
    000's `shrink_once`); `max_steps` bounds those rounds and `max_evals` the distinct predicate
    calls. `budget_hit` says one of them ended the search before a local stop (the step budget
    only when a further reduction was found past it).
    """
    shrinker = Shrinker(
        payload, run, target_reason=target_reason, max_steps=max_steps, max_evals=max_evals
    )
    return shrinker.run_search()


def single_deletions(value: Any) -> Iterator[Any]:
    """Every value that is `value` with one dict key or list element removed, anywhere in it.

    A witness none of whose single deletions fails the same way is 1-minimal under deletion.
    """
    if isinstance(value, dict):
        for key in sorted(value):
            yield {k: v for k, v in value.items() if k != key}
            for inner in single_deletions(value[key]):
                yield {**value, key: inner}
    elif isinstance(value, list):
        for i in range(len(value)):
            yield value[:i] + value[i + 1:]
            for inner in single_deletions(value[i]):
                yield value[:i] + [inner] + value[i + 1:]
