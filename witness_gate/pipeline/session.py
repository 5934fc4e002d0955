"""Gating the properties of one checkout: bind, run the attempt, decide, write the records."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Protocol

from witness_gate.config.lock import Fixture, Lock
from witness_gate.config.schema import Config
from witness_gate.model.evaluation import Evaluation
from witness_gate.model.evidence import Binding, Evidence, Policy
from witness_gate.pipeline.attempt import pinned_shows_only, replay_frozen, run_attempt
from witness_gate.pipeline.baseline import BaseCode, replay_on_base
from witness_gate.pipeline.discover import PropertyTarget
from witness_gate.pipeline.record import (
    another_example_notes,
    attempt_record,
    contract_dict,
    transport_notes,
    unreplayed_search_notes,
)
from witness_gate.pipeline.unseen import UnseenInputs
from witness_gate.records.recordkey import RecordKey
from witness_gate.records.sinks import FileSink, RecordSink
from witness_gate.rules.path_split import path_matches
from witness_gate.rules.verdict import FreezeMatch, Split, Verdict, decide_property, frozen_witness
from witness_gate.sandbox import Sandbox
from witness_gate.sandbox.runner import PropertyRunner
from witness_gate.sandbox.sides import Sides
from witness_gate.sandbox.views import Views, split_checkout
from witness_gate.setup.environment import SetupOutcome


class Reporter(Protocol):
    def start(self, target: PropertyTarget, index: int, total: int) -> None: ...
    def progress(self, phase: str, done: int, total: int) -> None: ...
    def say(self, text: str) -> None: ...
    def finish(self, result: "PropertyResult") -> None: ...


@dataclass(frozen=True)
class Pinned:
    """A property's pinned fixture, or why there is none."""

    lock: Lock | None
    fixture: Fixture | None
    problem: str = ""


@dataclass
class PropertyResult:
    target: PropertyTarget
    binding: Binding
    evidence: Evidence | None
    verdict: Verdict
    record: dict[str, Any]
    record_path: Path | None = None
    witness_path: Path | None = None
    notes: list[str] = field(default_factory=list)  # what a person should read or do

    @property
    def freeze(self) -> dict[str, Any] | None:
        return self.record.get("freeze")


@dataclass
class GateRun(UnseenInputs):
    """What one gate run needs besides the properties themselves."""

    checkout: Path
    patch_digest: str
    split: Split
    policy: Policy
    config: Config
    sandbox: Sandbox
    out_dir: Path | None  # where files go when no sink is given (the CLI)
    reporter: Reporter
    extra_holds: tuple[str, ...] = ()
    freezes: tuple[FreezeMatch, ...] = ()
    now: datetime = field(default_factory=lambda: datetime.now(timezone.utc))
    make_runner: Callable[..., Callable[[Any], Evaluation]] = PropertyRunner
    setup: SetupOutcome = field(default_factory=SetupOutcome)  # the head's environment, or why it holds
    notes: tuple[str, ...] = ()  # for every property: what a person should know about the whole run
    # assertion id -> where it failed in an earlier attempt of this same patch: never forgotten; None: as the sink
    # remembers it (the CLI's record files, the App's store)
    failed_before: dict[str, str] | None = None
    # seals the record files; None: the key `check`/`run` established (recordkey.establish), else unsealed
    record_key: RecordKey | None = None
    sink: RecordSink | None = None  # where attempts go; None: files under out_dir
    new_modules: tuple[str, ...] = ()  # top-level modules the patch adds (sandbox/names.py): never the judge's
    _views: dict[Path, Views] | None = field(default=None, init=False, repr=False)
    _sides: dict[tuple[Path, str], Sides] = field(default_factory=dict, init=False, repr=False)
    _properties: tuple[str, ...] = field(default=(), init=False, repr=False)
    # where the code under test came from (head_sha, head_tree, base_sha, the tree that ran, oracle_paths laid
    # over it from the base): what `replay` checks a reviewer's directory against and rebuilds from
    source: dict[str, Any] = field(default_factory=dict)
    # the base commit for the replays of a failing witness, checked out on first use (a reason when it cannot be)
    base: Callable[[], BaseCode | str] | None = None
    # the secret the broader sample's seeds derive from (the App's own); None: the record key, else one of this run's
    sample_secret: bytes | None = None

    def gate(self, targets: list[PropertyTarget], pinned: Callable[[PropertyTarget], Pinned]) -> list[PropertyResult]:
        results = []
        self._views = {}  # each checkout is split into the judge's and the subject's views once for every property
        self._properties = tuple(target.relpath for target in targets)  # the judge's, wherever they are
        try:
            for index, target in enumerate(targets):
                self.reporter.start(target, index + 1, len(targets))
                result = self.gate_one(target, pinned(target))
                self.reporter.finish(result)
                results.append(result)
        finally:
            for sides in self._sides.values():
                sides.close()
            self._sides.clear()
            for views in self._views.values():
                views.remove()
            self._views = None
        return results

    def _views_of(self, checkout: Path, seed: str) -> dict[str, Any]:
        """The runner's `views` and `sides` keywords: the checkout's views, made once while `gate` runs, and the sides
        its runners of one seed keep running (the next property's first evaluation starts none); else each runner
        makes its own."""
        if self._views is None or self.config.command is not None:
            return {}
        if checkout not in self._views:
            self._views[checkout] = split_checkout(checkout, _matcher((*oracle_paths(self.config), *self._properties)))
        return {"views": self._views[checkout], "sides": self._sides.setdefault((checkout, seed), Sides())}

    def gate_one(self, target: PropertyTarget, pinned: Pinned) -> PropertyResult:
        lock = pinned.lock
        binding = Binding(
            patch_digest=self.patch_digest,
            property_id=target.property_id,
            assertion_id=target.assertion_id,
            contract=target.contract,
            fixture_digest=lock.fixture_digest if lock else "",
            seed=lock.seed if lock else "",
        )
        header = pinned.fixture.header if pinned.fixture else {}
        holds = self.extra_holds + self.setup.holds + target.holds + header_holds(header, binding)
        if self.config.command is not None and self.config.require_isolation:
            holds += ("isolation_shared",)  # a command runs oracle and implementation in one process
        notes = [n for n in (*self.notes, self.setup.note, pinned.problem, target.contract_problem) if n]
        if not self.patch_digest:
            notes.append("no patch digest: run inside a git repository so the code under test can be hashed")
        evidence = None
        refused = self.split.mixed or bool(binding.missing()) or bool(holds)
        if not refused and pinned.fixture is not None:
            runner = self._head_runner(target, binding.seed)
            try:
                drawn = self._drawing(target, binding, pinned.fixture.payload)  # while the pinned rows run
                asked = self._failed_before(target, binding, pinned.fixture.payload, runner) \
                    if self.base is not None else None
                evidence = self._attempt(binding, pinned.fixture.payload, runner, notes, test=bool(target.node),
                                         failed_before=asked)
                if evidence.failed_once and evidence.shrink is not None and self.base is not None:
                    notes += self._on_base(target, binding, evidence, pinned.fixture.payload, runner)
                elif not evidence.failed_once and not evidence.transport and (
                        not target.node or any(row.searched for row in evidence.first)):
                    evidence = self._broader(target, binding, pinned.fixture.payload, runner, evidence, notes, drawn)
                elif evidence.frozen and (not target.node or evidence.witness):  # a test's: a Hypothesis example
                    evidence = self._beside_freeze(target, binding, pinned.fixture.payload, runner, evidence, notes)
            finally:
                getattr(runner, "close", lambda: None)()  # a warm start's sandboxes end with their series
            notes += [note for note in (getattr(runner, "note", ""),) if note]  # why a warm start went cold
            notes += transport_notes(evidence) + unreplayed_search_notes(evidence) + another_example_notes(evidence)
            earlier = self._failed_on_this_patch().get(target.assertion_id)
            if earlier and not evidence.failed_once:
                notes.append(f"failed before on this same patch ({earlier}) but "
                             "not in this attempt: code that fails only on its first evaluation looks like this; "
                             "replay the earlier witness")
        if evidence is not None and evidence.sample is not None:
            holds += tuple(evidence.sample.holds)  # the sample saw the head differ in a way no witness holds
        verdict = decide_property(
            binding, evidence, self.split, self.policy,
            expires_in_hours=self.config.expires_in_hours, now=self.now,
            extra_holds=holds, freezes=self.freezes,
            failed_before=self._failed_on_this_patch().get(target.assertion_id, ""),
        )
        result = PropertyResult(target, binding, evidence, verdict, {}, notes=notes)
        result.record = attempt_record(result, self, lock, header)
        self._write(result)
        return result

    def _head_runner(self, target: PropertyTarget, seed: str, search_seed: str = "") -> Callable[[Any], Evaluation]:
        environment = self.setup.environment
        setup = {"environment": environment.path, "judge_environment": self._judge_environment()} \
            if environment else {}
        return self.make_runner(
            repo=self.checkout, selector=target.selector, seed=seed, sandbox=self.sandbox,
            timeout_seconds=self.policy.timeout_seconds, command=self.config.command, replays=self.policy.runs,
            oracle=oracle_paths(self.config), new_modules=self.new_modules, **setup,
            **({"tests": True} if self.config.pytest else {}),
            **({"search_seed": search_seed} if search_seed else {}),
            **self._views_of(self.checkout, seed),
        )

    def _judge_environment(self) -> Path | None:
        """The judge's set-up: the base's when there is a base (never the head's), else the one set-up there is
        (`check`, whose working tree is its own oracle)."""
        if self.base is None:
            return self.setup.environment.path if self.setup.environment else None
        code = self.base()
        return code.environment if not isinstance(code, str) else None

    def _attempt(self, binding: Binding, payload: Any, runner: Callable[[Any], Evaluation],
                 notes: list[str], test: bool = False,
                 failed_before: Callable[[Evidence], bool] | None = None) -> Evidence:
        """An accepted freeze's witness is replayed first; when it does not decide, the whole attempt runs (`test`: a
        repository's own pytest test)."""
        frozen = frozen_witness(binding, self.freezes, self.now)
        if frozen is not None:
            evidence, rows = replay_frozen(payload, frozen.witness, frozen.signature, runner, self.policy,
                                           self.reporter.progress)
            if evidence is not None and (len(rows) == sum(r.outcome == "fail" for r in rows)
                                         or pinned_shows_only(frozen.signature, payload, runner, self.policy)):
                notes.append(f"replayed the frozen witness {frozen.witness_hash[:12]} "
                             f"({sum(r.outcome == 'fail' for r in rows)} of {len(rows)} failed)")
                return evidence
            if not any(row.outcome == "fail" for row in rows):
                notes.append(f"the frozen witness {frozen.witness_hash[:12]} passed {len(rows)} of {len(rows)} "
                             "replays: the freeze can be revoked (it ends on its expiry or by a reviewer, not by "
                             "a green day)")
        # a pytest test has nothing to shrink: all its rows are cold, each subject with its own hash seed and layout,
        # so a test that hangs on set order or addresses shows as replays that disagree
        warm = None if test else getattr(runner, "candidate", None)
        return run_attempt(payload, runner, self.policy, self.reporter.progress, warm, failed_before=failed_before,
                           other_examples=not any(f.assertion_id == binding.assertion_id and
                                                  f.patch_digest != binding.patch_digest for f in self.freezes))

    def _on_base(self, target: PropertyTarget, binding: Binding, evidence: Evidence, payload: Any,
                 head: Callable[[Any], Evaluation]) -> list[str]:
        """The failing witness replayed on the base commit, which is checked out only now (it often never is)."""
        if evidence.base is not None and evidence.base_witness == evidence.witness_hash:  # asked before looking harder
            return evidence.base.notes(evidence.target_reason)
        code = self.base()
        if isinstance(code, str):
            return [f"the base could not be replayed ({code}); the head's label stands"]
        base = self._base_runner(code, target, binding)
        try:
            evidence.base = replay_on_base(evidence, payload, head, base, self.policy, code.sha, self.reporter.progress,
                                           getattr(base, "candidate", None))
        finally:
            getattr(base, "close", lambda: None)()
        return evidence.base.notes(evidence.target_reason)

    def _base_runner(self, code: BaseCode, target: PropertyTarget, binding: Binding,
                     search_seed: str = "") -> Callable[[Any], Evaluation]:
        return self.make_runner(repo=code.checkout, selector=target.selector, seed=binding.seed,
                                **({"search_seed": search_seed} if search_seed else {}), sandbox=self.sandbox,
                                timeout_seconds=self.policy.timeout_seconds, command=self.config.command,
                                replays=self.policy.runs, oracle=oracle_paths(self.config),
                                **self._views_of(code.checkout, binding.seed),
                                **({"environment": code.environment, "judge_environment": code.environment}
                                   if code.environment else {}))

    def _failed_before(self, target: PropertyTarget, binding: Binding, payload: Any,
                       head: Callable[[Any], Evaluation]) -> Callable[[Evidence], bool]:
        """Whether the base fails the witness as the head does on every replay (run_attempt asks before it looks
        harder): one cold base replay tells a base that passes; one that fails the same way is replayed on the base
        now rather than after (evidence.base, kept while the witness stays the same)."""
        def ask(evidence: Evidence) -> bool:
            code = self.base()
            if isinstance(code, str):
                return False
            base = self._base_runner(code, target, binding)
            try:
                first = base(evidence.witness)
                if first.outcome != "fail" or first.reason != evidence.target_reason:
                    return False
                evidence.base = replay_on_base(evidence, payload, head, base, self.policy, code.sha,
                                               self.reporter.progress, first=first)
                evidence.base_witness = evidence.witness_hash
            finally:
                getattr(base, "close", lambda: None)()
            return evidence.base.story(evidence.target_reason) == "fails"
        return ask

    def _sink(self) -> RecordSink:
        return self.sink or FileSink(self.out_dir, self.record_key)

    def _failed_on_this_patch(self) -> dict[str, str]:
        """What failed in an earlier attempt of this same patch, asked of the sink once for the run."""
        if self.failed_before is None:
            self.failed_before = self._sink().failed_before(self.patch_digest)
        return self.failed_before

    def _write(self, result: PropertyResult) -> None:
        """Hand the attempt to its sink: the record, and the retained witness when the property failed."""
        evidence = result.evidence
        witness = None
        if evidence is not None and evidence.failed_once:
            witness = {
                "assertion_id": result.target.assertion_id, "payload": evidence.witness,
                "fixture_digest": result.binding.fixture_digest, "property_id": result.binding.property_id,
                "contract": contract_dict(result.binding), "seed": result.binding.seed,
                "reason": evidence.target_reason,
                "shrink": evidence.shrink.as_record() if evidence.shrink else None,
            }
        kept = self._sink().keep(result.record, witness)
        result.record_path, result.witness_path = kept.record_path, kept.witness_path


def _matcher(patterns: tuple[str, ...]) -> Callable[[str], bool]:
    return lambda relpath: any(path_matches(relpath, pattern) for pattern in patterns)


def oracle_paths(config: Config) -> tuple[str, ...]:
    """What the judge sees of a checkout and the subject never does: the oracle's paths, the fixtures, the properties."""
    return (*config.oracle_patterns, *config.fixtures.values(), config.properties_dir.rstrip("/") + "/")


def header_holds(header: dict[str, Any], binding: Binding) -> tuple[str, ...]:
    """An article-000 fixture header names the property and the patch it was captured for: evidence on
    another one would be read as theirs, so each field it names and the attempt does not match holds."""
    return tuple(f"fixture_header:{name}" for name in ("property_id", "patch_digest")
                 if header.get(name) and header[name] != getattr(binding, name))
