"""The verdict (SPEC §6): the three tables on one attempt's evidence, and the strictest result."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Any

from witness_gate.model import outcomes
from witness_gate.model.evidence import Binding, Evidence, Policy, from_another_example, wavered
from witness_gate.rules import failure_kind, replay_budget, shrunk_witness
from witness_gate.rules.replay_budget import Decision
from witness_gate.rules.shrunk_witness import Gate
from witness_gate.rules.signatures import observations, sign

# the one table of labels (witness_gate.model.outcomes), as the names older callers use
ORDER = outcomes.ORDER
BLOCKING = {label.name for label in outcomes.TABLE if label.blocking and label.rank is not None}
NEEDS_PERSON = {label.name for label in outcomes.TABLE if label.exit_code == outcomes.EXIT_PERSON}


@dataclass(frozen=True)
class Split:
    impl_changed: bool
    oracle_changed: bool

    @property
    def mixed(self) -> bool:
        return self.impl_changed and self.oracle_changed


@dataclass(frozen=True)
class FreezeMatch:
    """An accepted freeze a later flake may match."""

    assertion_id: str
    fixture_digest: str
    witness_hash: str
    expires_at: str  # ISO 8601, UTC
    accepted_by: str = ""
    contract_digest: str = ""  # when set, a changed contract starts a new ledger
    signature: str = ""  # "flake:<reason>"; when set, only a flake with this one signature matches
    witness: Any = field(default=None, compare=False, hash=False)  # the frozen payload, replayed first
    patch_digest: str = ""  # the patch whose attempt proposed it ("" when not known)


@dataclass
class Verdict:
    label: str
    hold_reasons: list[str] = field(default_factory=list)
    tables: dict[str, str | None] = field(default_factory=dict)
    signatures: list[str | None] = field(default_factory=list)
    failures: int = 0
    runs: int = 0
    frozen_by: FreezeMatch | None = None
    freeze_expires: str = ""  # the proposed expiry written into the article 000 witness
    reasons: list[str] = field(default_factory=list)  # the distinct failure reasons of the series, in order

    @property
    def proposes_freeze(self) -> bool:
        """A flake, or a hold whose only reason is an empty expiry (the acceptor supplies one)."""
        return outcomes.proposes_freeze(self.label, self.hold_reasons)


def proposed_expiry(now: datetime, hours: float | None) -> str:
    if hours is None:
        return ""
    return (now + timedelta(hours=hours)).astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def decide_property(
    binding: Binding,
    evidence: Evidence | None,
    split: Split,
    policy: Policy,
    *,
    expires_in_hours: float | None,
    now: datetime,
    extra_holds: tuple[str, ...] = (),
    digest_matches: bool = True,
    freezes: tuple[FreezeMatch, ...] = (),
    failed_before: str = "",
) -> Verdict:
    """Per property, the first matching row of SPEC §6.

    `evidence` is None when nothing ran (a missing identifier, a refused patch). `extra_holds`
    carries what only the shell can see, such as `patch_mismatch` or `sandbox_unavailable`.
    `failed_before` names an earlier attempt in which this property failed on this very patch: a
    failure once seen for the same code is never forgotten, so this attempt is at best
    `not_reproduced` (a patch that fails only on the first evaluation it ever meets gains nothing).
    """
    holds = list(extra_holds) + binding.missing()
    if evidence is None:
        if split.mixed:
            return Verdict("mixed_edit")
        return Verdict("oracle_defect" if split.oracle_changed else "hold", hold_reasons=holds or ["not_run"])

    rows = evidence.series
    failures = sum(1 for row in rows if row.outcome == "fail")
    fixture = evidence.witness_hash if evidence.failed_once else evidence.pinned_hash
    # an accepted freeze carries its own expiry; otherwise the policy proposes one (or none)
    own_patch = binding.patch_digest if from_another_example(evidence.example_replays, evidence.witness_hash,
                                                             evidence.pinned_hash) else None
    match = _matching_freeze(binding, fixture, freezes, now, {sig for sig in sign(rows) if sig}, own_patch)
    expiry = match.expires_at if match else proposed_expiry(now, expires_in_hours)
    verdict = Verdict("hold", failures=failures, runs=len(rows), freeze_expires=expiry,
                      signatures=sign(rows), reasons=list(dict.fromkeys(r.reason for r in rows if r.outcome == "fail")))
    t = _tables(binding, evidence, split, policy, fixture, expiry, digest_matches)
    verdict.tables = {"gate": t.gate.value, "labels": t.kind, "budget": t.budget.value,
                      "freeze_allowed": str(t.allowed).lower()}
    if split.oracle_changed:
        # the evidence stays on the record, but an oracle the diff rewrote cannot certify anything
        verdict.label = "mixed_edit" if split.mixed else "oracle_defect"
        return verdict
    every_replay_failed = every_replay_failed_rule(evidence, policy)
    holds += _evidence_holds(evidence, policy, failures, len(rows), digest_matches, t.budget, every_replay_failed)
    if 0 < failures < len(rows) and not expiry and not holds:
        holds.append("expiry_empty")
    if holds:
        verdict.hold_reasons = holds
        return _blame(verdict, evidence)
    return _blame(_combine(verdict, t, evidence, failures, every_replay_failed, match, failed_before), evidence)


def skipped_alike(target: str | None, base_rows) -> bool:
    """Whether a head's only failure is cases it skipped (`skipped:<k>/<n>:<digest>`, judge/tests.py) that every base
    replay skipped too, whether or not the base also failed another case (`<reason>|skipped:...`): then the head ran
    every case the base ran and passed them all. A case the head skips and the base ran is no pass, and a test with
    no case run has nothing to pass on."""
    if not (target or "").startswith("skipped:") or not base_rows:
        return False
    skipped, _, cases = target.split(":")[1].partition("/")
    if not (skipped.isdigit() and cases.isdigit() and int(skipped) < int(cases)):
        return False  # nothing ran: no evidence to pass on (pre_existing, when the base skips it too)
    return all(row.outcome == "fail" and row.reason is not None and
               (row.reason == target or row.reason.endswith("|" + target)) for row in base_rows)


def _blame(verdict: Verdict, evidence: Evidence) -> Verdict:
    """Blame only the patch: a witness that fails the same way on every base replay was failing before the
    patch (`pre_existing`); a base that disagrees with itself can neither clear nor convict it (a hold)."""
    base = evidence.base
    flaky = verdict.label == "flake" or verdict.hold_reasons == ["expiry_empty"]  # a flake with no expiry yet
    if base is None or not (verdict.label == "regression" or flaky):
        return verdict
    if verdict.label == "regression" and skipped_alike(evidence.target_reason, base.replays):
        verdict.label = "pass"  # every case it ran passed, and it skipped only what the base skips
        return verdict
    story = base.story(evidence.target_reason)
    if story == "fails":
        verdict.label, verdict.hold_reasons = "pre_existing", []
    elif story == "flaky" and verdict.label == "regression":
        failed = sum(row.outcome == "fail" for row in base.replays)
        verdict.label, verdict.hold_reasons = "hold", [f"base_flaky:{failed}/{len(base.replays)}"]
    return verdict


def _combine(verdict: Verdict, t: "_Tables", evidence: Evidence, failures: int, every_replay_failed: bool,
             match: FreezeMatch | None, failed_before: str) -> Verdict:
    """SPEC §6's rows once nothing holds: the three tables agree on a label, or they disagree (a hold)."""
    if t.gate is Gate.REJECT and (t.budget is Decision.REJECT_PATCH or every_replay_failed):
        verdict.label = "regression"
    elif (t.gate is Gate.FREEZE_CANDIDATE and t.kind == "flake" and t.allowed
          and t.budget is Decision.FREEZE_ELIGIBLE):
        verdict.label = "frozen" if match else "flake"
        verdict.frozen_by = match
    elif evidence.failed_once and failures == 0:
        verdict.label = "not_reproduced"
    elif not evidence.failed_once and t.gate is Gate.PASS and t.budget is Decision.ACCEPT:
        verdict.label = "not_reproduced" if failed_before else "pass"
    else:
        verdict.hold_reasons = [f"tables_disagree:{t.gate.value}/{t.kind}/{t.budget.value}"]
    return verdict


@dataclass(frozen=True)
class _Tables:
    gate: Gate
    kind: str | None  # article 001's label, once a witness exists
    allowed: bool  # article 001's freeze_allowed
    budget: Decision


def _tables(binding: Binding, evidence: Evidence, split: Split, policy: Policy, fixture: str, expiry: str,
            digest_matches: bool) -> _Tables:
    """The three articles' tables on one attempt's evidence, each exactly as its article has it."""
    rows = evidence.series
    failures = sum(1 for row in rows if row.outcome == "fail")
    contract_digest = binding.contract.digest() if binding.contract else ""
    # article 000, on the witness that actually ran (its hash stands in for the fixture digest)
    shrunk = evidence.shrink.stopped if evidence.shrink else True  # a pass had nothing to shrink
    budget_hit = evidence.shrink.budget_hit if evidence.shrink else False
    g = shrunk_witness.decide(
        shrunk_witness.Witness(binding.patch_digest, binding.property_id, fixture, binding.seed, shrunk=shrunk,
                               outcomes=tuple(row.outcome for row in rows), freeze_expires=expiry,
                               shrink_budget_hit=budget_hit),
        min_reruns=policy.min_reruns,
    )
    # article 001, only once a witness exists
    kind = (failure_kind.classify(failures, len(rows), split.impl_changed, split.oracle_changed)
            if evidence.failed_once else None)
    allowed = failure_kind.freeze_allowed(kind or "", evidence.failed_once, digest_matches)
    # article 004: the budget is spent once every planned replay completed
    remaining = max(0, policy.runs - len(rows))
    d = replay_budget.decide(contract_digest, fixture, remaining, observations(rows, fixture, contract_digest))
    return _Tables(g, kind, allowed, d)


def _evidence_holds(evidence: Evidence, policy: Policy, failures: int, runs: int, digest_matches: bool,
                    d: Decision, every_replay_failed: bool) -> list[str]:
    """Why the evidence cannot decide yet (SPEC §6's hold row), in a fixed order."""
    holds = list(evidence.transport)
    if evidence.shrink and evidence.shrink.budget_hit:
        holds.append("shrink_budget_hit")
    elif evidence.shrink and not evidence.shrink.stopped:
        holds.append("shrink_not_stopped")
    if runs < policy.min_reruns and not evidence.transport:
        holds.append("too_few_replays")
    if not digest_matches:
        holds.append("fixture_digest_moved")
    if d is Decision.HOLD_OPEN and failures and not every_replay_failed:
        holds.append("two_flake_signatures")  # article 004 holds any two signatures; §6 only a real flake
    if d is Decision.REJECT_EVIDENCE:
        holds.append("evidence_rejected")
    wide = evidence.unshrunk_replays
    if evidence.failed_once and failures == 0 and any(r.outcome == "fail" for r in wide):
        holds.append("shrink_distorted")  # the wide input still fails, its witness does not
    elif (0 < failures < runs and len(wide) >= policy.min_reruns and all(r.outcome == "fail" for r in wide)
          and not wavered(evidence)):
        # the wide input fails every time, its witness only sometimes: no flake, unless the wide input's own runs saw
        # one example fail and pass (Hypothesis's FlakyFailure in a seeded search: a set order, an address)
        holds.append("shrink_distorted")
    return holds


def every_replay_failed_rule(evidence: Evidence, policy: Policy) -> bool:
    """SPEC §6: a witness whose every replay failed (at least `min_reruns`, no pass, no transport fault)
    is a regression whatever mix of reasons it gave (all are recorded in `Verdict.reasons`), so a patch
    cannot buy a hold for two flake signatures by changing its exception on every evaluation."""
    rows = evidence.replays
    return evidence.failed_once and len(rows) >= policy.min_reruns and all(r.outcome == "fail" for r in rows)


def freeze_matches(freeze: FreezeMatch, *, assertion_id: str, fixture_digest: str, contract_digest: str,
                   witness_hash: str, now: datetime, signatures: set[str] | None = None,
                   own_patch: str | None = None) -> bool:
    """The one rule for "this accepted freeze silences this attempt", at run time and at render time.

    All five: the same assertion, fixture, witness and — when the freeze names them — contract and
    flake signature (an attempt whose contract is missing or changed, or whose failures carry another
    reason, does not match); and not expired. `signatures` are the attempt's distinct failing-row
    signatures. `own_patch`: the attempt's patch digest when its witness is another example its search saw fail
    (evidence.from_another_example): only a freeze that patch's own attempt proposed silences it (a freeze
    accepted on a real flake's example, which a later head's search also saw fail, silenced that head's own bug,
    whatever order the accept and the gating came in: found by two reviewers).
    """
    return ((freeze.assertion_id, freeze.fixture_digest, freeze.witness_hash)
            == (assertion_id, fixture_digest, witness_hash)
            and (not freeze.contract_digest or freeze.contract_digest == contract_digest)
            and (not freeze.signature or signatures == {freeze.signature})
            and (own_patch is None or (bool(own_patch) and freeze.patch_digest == own_patch))
            and _parse_time(freeze.expires_at) > now)


def _matching_freeze(binding: Binding, witness: str, freezes: tuple[FreezeMatch, ...], now: datetime,
                     signatures: set[str] | None = None, own_patch: str | None = None) -> FreezeMatch | None:
    contract_digest = binding.contract.digest() if binding.contract else ""
    return next((f for f in freezes if freeze_matches(
        f, assertion_id=binding.assertion_id, fixture_digest=binding.fixture_digest,
        contract_digest=contract_digest, witness_hash=witness, now=now, signatures=signatures,
        own_patch=own_patch)), None)


def frozen_witness(binding: Binding, freezes: tuple[FreezeMatch, ...], now: datetime) -> FreezeMatch | None:
    """An accepted, unexpired freeze of this assertion on this fixture and contract whose payload is known:
    the next attempt replays it before anything else (a freeze is one retained payload, not a re-shrink)."""
    contract_digest = binding.contract.digest() if binding.contract else ""
    return next((f for f in freezes if f.witness is not None and f.assertion_id == binding.assertion_id
                 and f.fixture_digest == binding.fixture_digest
                 and (not f.contract_digest or f.contract_digest == contract_digest)
                 and _parse_time(f.expires_at) > now), None)


def _parse_time(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def overall_label(labels_: list[str]) -> str:
    """The pull request's label: the first of ORDER among its properties ("pass" when empty)."""
    return outcomes.overall(labels_)


def exit_code(labels_: list[str]) -> int:
    """0 nothing blocks; 1 a regression or mixed edit; 3 something needs a person."""
    return outcomes.exit_code(labels_)


def freeze_proposal(binding: Binding, evidence: Evidence, verdict: Verdict,
                    expires_in_hours: float | None) -> dict[str, Any]:
    """The freeze record the gate proposes; it silences nothing until a person accepts it."""
    reason = next((s for s in verdict.signatures if s), None)
    return {
        "state": "proposed",
        "assertion_id": binding.assertion_id,
        "property_id": binding.property_id,
        "contract_digest": binding.contract.digest() if binding.contract else "",
        "fixture_digest": binding.fixture_digest,
        "witness_hash": evidence.witness_hash,
        "seed": binding.seed,
        "patch_digest": binding.patch_digest,
        "signature": reason,
        "failures": verdict.failures,
        "runs": verdict.runs,
        "expires_in_hours": expires_in_hours,
        "expires_at": verdict.freeze_expires or None,
    }
