"""A gate run's broader sample (SPEC §10, "Broader sample"): once the pinned payload passed, inputs the patch has never
seen, drawn from a seed of the gate's secret and the patch digest, or for a Hypothesis test its search again with that
seed; and beside an accepted freeze, the same sample, so a freeze never silences what the patch brings elsewhere.

A part of `GateRun` (witness_gate/pipeline/session.py), whose runners, policy and base these use."""

from __future__ import annotations

import secrets
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any

from witness_gate.model.canonical import CanonicalError
from witness_gate.model.evaluation import Evaluation
from witness_gate.model.evidence import Binding, Evidence
from witness_gate.pipeline.attempt import look_harder
from witness_gate.pipeline.broader import Sample, Sides as SampleSides, run_sample, run_search
from witness_gate.pipeline.discover import PropertyTarget
from witness_gate.pipeline.sample import constants_of, draw, sample_seed
from witness_gate.records import recordkey
from witness_gate.sources import safefs


class UnseenInputs:
    """The broader sample of one property, run by a `GateRun`."""

    def _drawing(self, target: PropertyTarget, binding: Binding, payload: Any) -> Future | None:
        """The sample's inputs, drawn on a thread of their own while the pinned payload's rows run (they mostly wait on
        the sandboxes); None when this property will have no drawn sample."""
        if not self.policy.broader_sample or self.base is None or target.node:
            return None
        seed = sample_seed(self._sample_secret(), binding.patch_digest, binding.property_id)
        constants = self._constants(target)
        return in_background(lambda: draw(payload, self.policy.broader_sample, seed, constants))

    def _broader(self, target: PropertyTarget, binding: Binding, payload: Any, head: Callable[[Any], Evaluation],
                 evidence: Evidence, notes: list[str], drawn: Future | None = None) -> Evidence:
        """The broader sample once the pinned payload passed (witness_gate/pipeline/broader.py), from a seed of the gate's
        secret and the patch digest: inputs drawn here that reach only the judge, or for a Hypothesis test its search again
        with that seed (`drawn`: the inputs `_drawing` began)."""
        if not self.policy.broader_sample:
            return evidence
        if self.base is None:
            notes.append("broader sample: not run, there is no base to compare with (it runs in `run` and the App)")
            return evidence
        seed = sample_seed(self._sample_secret(), binding.patch_digest, binding.property_id)
        if not target.node:
            try:
                inputs = drawn.result() if drawn is not None else \
                    draw(payload, self.policy.broader_sample, seed, self._constants(target))
            except (RecursionError, CanonicalError):  # nested deeper than Python's stack: varied nowhere, said so
                notes.append("broader sample: not run, the pinned payload is nested too deep to vary")
                return evidence
        opened: list[Any] = []

        def base_sides() -> SampleSides | None:
            code = self.base()
            if isinstance(code, str):
                notes.append(f"broader sample: stopped, the base could not be run ({code})")
                return None
            runner = self._base_runner(code, target, binding)
            search = self._base_runner(code, target, binding, search_seed=seed) if target.node else None
            opened.extend((runner, search))
            return SampleSides(getattr(runner, "candidate", runner), runner, code.sha, search=search,
                               batch=getattr(runner, "evaluate_sample", None))

        try:
            if target.node:  # a Hypothesis test: its own search, seeded anew
                sample = Sample(seed, 1, search=True)
                opened.append(self._head_runner(target, binding.seed, search_seed=seed))
                evidence = run_search(evidence, payload, sample, SampleSides(head, head, search=opened[-1]),
                                      base_sides, self.policy, self.reporter.progress)
            else:
                sample = Sample(seed, len(inputs))
                evidence = run_sample(evidence, inputs, sample, SampleSides(
                    getattr(head, "candidate", head), head, batch=getattr(head, "evaluate_sample", None)),
                    base_sides, self.policy, self.reporter.progress)
        finally:
            for runner in opened:
                getattr(runner, "close", lambda: None)()
        evidence.sample = sample
        notes.append(sample.said())
        if evidence.base is not None:
            notes += evidence.base.notes(evidence.target_reason)
        return evidence

    def _beside_freeze(self, target: PropertyTarget, binding: Binding, payload: Any,
                       head: Callable[[Any], Evaluation], evidence: Evidence, notes: list[str]) -> Evidence:
        """An accepted freeze silences its one flake on the pinned payload, never a failure the patch brings on other
        inputs (a head that truncated every unseen amount kept the frozen coin and was `frozen`: found by a
        reviewer): the broader sample runs too (for a Hypothesis test, its search with a new seed), and a witness of
        its that fails for another reason than the frozen flake's, or fails every replay, is the verdict's (a
        reviewer's head failing another assert on unseen inputs 2 replays in 3 was `frozen`). Its in-row failures for
        the frozen reason are the frozen flake's own coin, which holds nothing."""
        found = self._broader(target, binding, payload, head, Evidence(pinned_hash=evidence.pinned_hash), notes)
        if found.failed_once and found.target_reason != evidence.target_reason:
            return found  # not the frozen flake: the tables judge it as any witness
        if found.failed_once and found.replays and all(row.outcome == "fail" for row in found.replays):
            # a frozen coin fails a few replays in a row now and then: beside a freeze, the witness must fail every
            # one of UNSTEADY_RUNS x runs (the shipped coin, frozen, was a regression about one attempt in twenty)
            found.replays = look_harder(found.witness, found.replays, head, self.policy, self.reporter.progress)
            if all(row.outcome == "fail" for row in found.replays):
                return found
        if found.sample is not None:
            found.sample.holds.clear()
        evidence.sample = found.sample
        return evidence

    def _sample_secret(self) -> bytes:
        if self.sample_secret is None:
            key = recordkey.established()
            self.sample_secret = key.secret if key is not None and key.secret else secrets.token_bytes(32)
        return self.sample_secret

    def _constants(self, target: PropertyTarget) -> tuple:
        """What the property's module spells out (the base's oracle: only parsed, never run)."""
        try:
            return constants_of(safefs.read_inside(self.checkout, target.relpath, max_bytes=1 << 20))
        except (OSError, safefs.UnsafePath):
            return ()


def in_background(work: Callable[[], Any]) -> Future:
    """`work` on a daemon thread of its own: its result, or what it raised, when asked."""
    future: Future = Future()

    def run() -> None:
        try:
            future.set_result(work())
        except BaseException as exc:  # noqa: BLE001 - raised again where the result is asked for
            future.set_exception(exc)
    threading.Thread(target=run, name="witness-draw", daemon=True).start()
    return future
