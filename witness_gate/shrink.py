"""The structural shrinker: a failing JSON payload down to a small witness with the same reason."""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from witness_gate.canonical import canonical_bytes, sha256_hex, shortlex_key
from witness_gate.gate import shrink_until_local_stop

__all__ = ["ShrinkResult", "Shrinker", "shrink", "shrink_until_local_stop", "single_deletions"]

Path = tuple[Any, ...]
Reason = str | None


@dataclass(frozen=True)
class ShrinkResult:
    witness: Any
    reason: str
    steps: int  # accepted reductions
    evaluations: int  # distinct predicate calls
    stopped: bool  # a full round of every pass found nothing: a local stop
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


class Shrinker:
    """Greedy structural shrinking in shortlex order of canonical JSON.

    Invariants: `current` always fails with `target_reason`; a candidate is accepted only when
    it fails with that same reason and is strictly smaller (length, then bytes) than `current`,
    so the search terminates and depends on nothing but the payload and the predicate. Every
    candidate goes through `consider()`, which caches predicate results by canonical digest.
    Passes run coarse to fine; a full round in which no pass accepts anything is a local stop.
    A pass may probe several candidates but commits at most one reduction per decision, and
    each commit is one step.
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
        self.steps = 0
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

    def would_accept(self, candidate: Any) -> bool:
        key = shortlex_key(candidate)
        return key < self.current_key and self.reason_of(candidate, key[1]) == self.target

    def consider(self, candidate: Any) -> bool:
        """Accept `candidate` as the new current witness if it qualifies; one step."""
        if not self.would_accept(candidate):
            return False
        if self.steps >= self.max_steps:
            # a further failing reduction exists, so this is a cut-off, not a local stop
            raise _BudgetSpent
        self.current = candidate
        self.current_key = shortlex_key(candidate)
        self.steps += 1
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
            while True:
                if not self._round():
                    stopped = True
                    break
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
        changed = self._sweep(self._reduce_structure)
        changed |= self._sweep(self._reduce_value)
        return changed

    def _sweep(self, reduce_node: Callable[[Path], bool]) -> bool:
        """Visit every node breadth first, from the tree as it is after earlier commits.

        A node's reduction only touches its own subtree, and its children are queued after
        it, so every queued path stays valid.
        """
        changed = False
        queue: deque[Path] = deque([()])
        while queue:
            path = queue.popleft()
            changed |= reduce_node(path)
            node = _get(self.current, path)
            if isinstance(node, dict):
                queue.extend(path + (key,) for key in sorted(node))
            elif isinstance(node, list):
                queue.extend(path + (i,) for i in range(len(node)))
        return changed

    # -- reductions, coarse to fine ----------------------------------------------------------
    def _reduce_structure(self, path: Path) -> bool:
        """Empty the container, else delete the longest runs of its children."""
        node = _get(self.current, path)
        if not isinstance(node, (dict, list)) or not node:
            return False
        if self.consider(_set(self.current, path, type(node)())):
            return True
        changed = False
        index = 0
        while True:
            node = _get(self.current, path)
            if index >= len(node):
                return changed
            changed |= self._delete_longest_run(path, index, node)
            index += 1

    def _delete_longest_run(self, path: Path, index: int, node: dict | list) -> bool:
        """Delete the longest run of children from `index` that keeps the failure.

        Everything from `index` on goes first, in one probe: a wide fixture usually has one
        culprit, and one commit for the whole tail keeps the step budget for the rest.
        """
        room = len(node) - index

        def without(count: int) -> Any:
            return _set(self.current, path, _drop_run(node, index, count))

        if room > 1 and self.consider(without(room)):
            return True
        count = _find_largest(lambda k: self.would_accept(without(k)), room)
        return count > 0 and self.consider(without(count))

    def _reduce_value(self, path: Path) -> bool:
        """The simplest value of the type, then null; then shorter strings, smaller numbers.

        Containers also try an empty key and moving one number's value into its neighbour (so
        that a sum survives while an element goes), as Hypothesis's shrinker does.
        """
        node = _get(self.current, path)
        for simpler in _simpler_values(node):
            if self.consider(_set(self.current, path, simpler)):
                return True
        if isinstance(node, dict):
            return self._empty_a_key(path, node) or self._redistribute(path, node)
        if isinstance(node, list):
            return self._redistribute(path, node)
        if isinstance(node, str):
            return self._shorten_string(path)
        if isinstance(node, (int, float)) and not isinstance(node, bool):
            return any(
                self.consider(_set(self.current, path, candidate))
                for candidate in self._smaller_numbers(path, node)
            )
        return False

    def _trim(self, path: Path, *, keep_prefix: bool) -> bool:
        """Bisection for the shortest prefix (or suffix) that still fails: a culprit inside a long
        string costs two logarithms, not a probe per character. Bisection presumes that longer cuts
        keep failing; every cut is still checked, so a wrong presumption costs evaluations, never
        correctness, and the character pass that follows finds what it skipped."""
        text = _get(self.current, path)

        def cut(length: int) -> Any:
            return _set(self.current, path, text[:length] if keep_prefix else text[len(text) - length:])

        lo, hi = 0, len(text)  # cut(hi) is the text itself; cut(lo) is "", tried by the value pass
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if self.would_accept(cut(mid)):
                hi = mid
            else:
                lo = mid
        return hi < len(text) and self.consider(cut(hi))

    def _empty_a_key(self, path: Path, node: dict) -> bool:
        if "" in node:
            return False
        for key in sorted(node):
            renamed = {("" if k == key else k): v for k, v in node.items()}
            if self.consider(_set(self.current, path, renamed)):
                return True
        return False

    def _redistribute(self, path: Path, node: dict | list) -> bool:
        """For neighbouring integers a, b of one sign: drop a and let b carry a + b."""
        keys = sorted(node) if isinstance(node, dict) else list(range(len(node)))
        for left, right in zip(keys, keys[1:]):
            a, b = node[left], node[right]
            if not (_is_int(a) and _is_int(b)) or a == 0 or b == 0 or (a > 0) != (b > 0):
                continue
            if isinstance(node, dict):
                merged = {k: (a + b if k == right else v) for k, v in node.items() if k != left}
            else:
                merged = node[:left] + [a + b] + node[right + 1:]
            if self.consider(_set(self.current, path, merged)):
                return True
        return False

    def _shorten_string(self, path: Path) -> bool:
        """Trim to the shortest failing prefix, then suffix (bisection); then delete runs of characters."""
        changed = self._trim(path, keep_prefix=True) | self._trim(path, keep_prefix=False)
        index = 0
        while True:
            text = _get(self.current, path)
            if index >= len(text):
                return changed

            def cut(count: int, text: str = text, at: int = index) -> Any:
                return _set(self.current, path, text[:at] + text[at + count :])

            count = _find_largest(lambda k: self.would_accept(cut(k)), len(text) - index)
            if count > 0 and self.consider(cut(count)):
                changed = True
            else:
                index += 1

    def _smaller_numbers(self, path: Path, number: int | float) -> Iterator[int | float]:
        if number < 0:
            yield -number
        if isinstance(number, float):
            if number.is_integer():
                yield int(number)
            else:
                yield math.trunc(number)
                for digits in range(0, 6):
                    yield round(number, digits)
            return
        magnitude = abs(number)
        sign = 1 if number > 0 else -1

        def fails_at(m: int) -> bool:
            return self.would_accept(_set(self.current, path, sign * (magnitude - m)))

        # the largest step toward zero that still fails, by exponential probe then bisection
        reduction = _find_largest(fails_at, magnitude)
        if reduction:
            yield sign * (magnitude - reduction)


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
    """
    shrinker = Shrinker(
        payload, run, target_reason=target_reason, max_steps=max_steps, max_evals=max_evals
    )
    return shrinker.run_search()


# -- helpers over JSON trees ---------------------------------------------------------------
def _get(value: Any, path: Path) -> Any:
    for part in path:
        try:
            value = value[part]
        except (KeyError, IndexError, TypeError):
            raise LookupError(f"no node at {path!r}") from None
    return value


def _set(value: Any, path: Path, new: Any) -> Any:
    """A copy of `value` with the node at `path` replaced; untouched branches are shared."""
    if not path:
        return new
    head, rest = path[0], path[1:]
    if isinstance(value, dict):
        copy = dict(value)
    else:
        copy = list(value)
    copy[head] = _set(value[head], rest, new)
    return copy


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _drop_run(node: dict | list, index: int, count: int) -> dict | list:
    if isinstance(node, dict):
        keys = sorted(node)
        gone = set(keys[index : index + count])
        return {k: v for k, v in node.items() if k not in gone}
    return node[:index] + node[index + count :]


def _simpler_values(node: Any) -> list[Any]:
    """The simplest value of the node's type, then null."""
    if node is None:
        return []
    if isinstance(node, bool):
        return [False, None]
    if isinstance(node, (int, float)):
        return [0, None]
    if isinstance(node, str):
        return ["", None]
    if isinstance(node, list):
        return [[], None]
    return [{}, None]


def _find_largest(holds: Callable[[int], bool], limit: int) -> int:
    """Largest k in [0, limit] with holds(k), assuming holds(0); exponential probe, then bisect."""
    if limit <= 0 or not holds(1):
        return 0
    lo = 1
    hi = 2
    while hi <= limit and holds(hi):
        lo = hi
        hi *= 2
    hi = min(hi, limit + 1)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if holds(mid):
            lo = mid
        else:
            hi = mid
    return lo


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
