"""The freeze ledger: proposed -> accepted -> expired or revoked, every change an audit row."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any

from sqlalchemy import select, update

from witness_gate.model import outcomes
from witness_gate.model.evidence import from_another_example
from witness_gate.records.store import FreezeEventRow, FreezeRow, GateRunRow, Store, utcnow
from witness_gate.rules.verdict import FreezeMatch, freeze_matches

ISO = "%Y-%m-%dT%H:%M:%SZ"


def iso(moment: datetime | None) -> str:
    if moment is None:
        return ""
    if moment.tzinfo is None:  # SQLite hands back naive datetimes; every one we store is UTC
        moment = moment.replace(tzinfo=timezone.utc)
    return moment.astimezone(timezone.utc).strftime(ISO)


def aware(moment: datetime | None) -> datetime | None:
    if moment is not None and moment.tzinfo is None:
        return moment.replace(tzinfo=timezone.utc)
    return moment


@dataclass(frozen=True)
class Outcome:
    """What a ledger command did: the freezes it changed, or why it refused (for the reply)."""

    changed: list[FreezeRow]
    refusal: str = ""

    @property
    def ok(self) -> bool:
        return not self.refusal


def check_expiry(hours: float | None, max_hours: float) -> str:
    """'' when `hours` is an expiry a person may give, else why not."""
    if hours is None:
        return ("say for how long: `/witness freeze accept <hours>h` "
                f"(at most {max_hours:g}h); this repository proposes no default expiry")
    if hours <= 0:
        return f"an expiry of {hours:g}h is not in the future"
    if hours > max_hours:
        return f"{hours:g}h is longer than this repository allows (freeze.max_hours: {max_hours:g})"
    return ""


class Ledger:
    def __init__(self, store: Store, clock: Callable[[], datetime] = utcnow) -> None:
        self.store = store
        self.clock = clock

    def _event(self, session, freeze_id: str, action: str, actor: str, reason: str = "") -> None:
        session.add(FreezeEventRow(freeze_id=freeze_id, action=action, actor=actor, reason=reason[:1000],
                                   at=self.clock()))

    # -- proposing ---------------------------------------------------------------------------
    def propose(self, *, repo: str, pr_number: int, run_id: str, head_sha: str, proposal: dict[str, Any]) -> FreezeRow:
        """Record the gate's proposal for a flake; the same witness proposed again is one freeze."""
        with self.store.session.begin() as s:
            existing = s.scalars(select(FreezeRow).where(
                FreezeRow.repo == repo, FreezeRow.pr_number == pr_number, FreezeRow.state == "proposed",
                FreezeRow.assertion_id == proposal["assertion_id"],
                FreezeRow.fixture_digest == proposal["fixture_digest"],
                FreezeRow.witness_hash == proposal["witness_hash"])).first()
            if existing is not None:
                existing.run_id, existing.head_sha = run_id, head_sha
                return existing
            row = FreezeRow(repo=repo, pr_number=pr_number, run_id=run_id, head_sha=head_sha,
                            assertion_id=proposal["assertion_id"], property_id=proposal.get("property_id") or "",
                            contract_digest=proposal.get("contract_digest") or "",
                            fixture_digest=proposal["fixture_digest"], witness_hash=proposal["witness_hash"],
                            seed=proposal.get("seed") or "", signature=proposal.get("signature") or "",
                            failures=proposal.get("failures", 0), runs=proposal.get("runs", 0),
                            proposed_at=self.clock())
            s.add(row)
            s.flush()
            self._event(s, row.id, "propose", "witness-gate",
                        f"{row.failures}/{row.runs} replays failed ({row.signature})")
        return row

    # -- a person decides ------------------------------------------------------------------------
    def accept(self, *, repo: str, pr_number: int, run_id: str, actor: str, hours: float | None,
               max_hours: float) -> Outcome:
        """Accept the proposals of one gate run; only one person's accept takes effect."""
        with self.store.session.begin() as s:
            proposals = list(s.scalars(select(FreezeRow).where(FreezeRow.repo == repo, FreezeRow.run_id == run_id)))
            pending = [p for p in proposals if p.state == "proposed"]
            if not proposals:
                return self._refuse(s, None, actor, "there is no proposed freeze on the current head; only a "
                                                    "flake gets one, and a regression never does")
            if not pending:
                taken = proposals[0]
                return self._refuse(s, taken.id, actor, f"the freeze is already {taken.state}"
                                    + (f" by @{taken.accepted_by} until {iso(taken.expires_at)}"
                                       if taken.state == "accepted" else ""))
            problem = check_expiry(hours, max_hours)
            if problem:
                return self._refuse(s, pending[0].id, actor, problem)
            now = self.clock()
            expires = now + timedelta(hours=hours)
            changed = []
            for p in pending:
                # the WHERE on state makes two accepts at once a race that exactly one wins
                done = s.execute(update(FreezeRow).where(FreezeRow.id == p.id, FreezeRow.state == "proposed")
                                 .values(state="accepted", accepted_by=actor, accepted_at=now, expires_at=expires))
                if done.rowcount == 1:
                    self._event(s, p.id, "accept", actor, f"until {iso(expires)} ({hours:g}h)")
                    changed.append(p)
            if not changed:
                return self._refuse(s, pending[0].id, actor, "someone else accepted it a moment ago")
        return Outcome([self.get(p.id) for p in changed])

    def revoke(self, *, repo: str, pr_number: int, actor: str) -> Outcome:
        with self.store.session.begin() as s:
            now = self.clock()
            live = [f for f in s.scalars(select(FreezeRow).where(
                FreezeRow.repo == repo, FreezeRow.pr_number == pr_number, FreezeRow.state == "accepted"))
                    if aware(f.expires_at) > now]
            if not live:
                return self._refuse(s, None, actor, "there is no accepted, unexpired freeze on this pull request")
            revoked = []
            for f in live:
                done = s.execute(update(FreezeRow).where(FreezeRow.id == f.id, FreezeRow.state == "accepted")
                                 .values(state="revoked", ended_by=actor, ended_at=now))
                if done.rowcount == 1:
                    self._event(s, f.id, "revoke", actor, "revoked by command")
                    revoked.append(f)
            if not revoked:
                return self._refuse(s, live[0].id, actor, "someone else ended it a moment ago")
        return Outcome([self.get(f.id) for f in revoked])

    def _refuse(self, session, freeze_id: str | None, actor: str, reason: str) -> Outcome:
        self._event(session, freeze_id or "-", "refuse", actor, reason)
        return Outcome([], reason)

    # -- the clock ---------------------------------------------------------------------------
    def expire_due(self) -> list[FreezeRow]:
        """Mark accepted freezes whose time is up as expired, with an audit row each."""
        now = self.clock()
        with self.store.session.begin() as s:
            due = [f for f in s.scalars(select(FreezeRow).where(FreezeRow.state == "accepted"))
                   if aware(f.expires_at) <= now]
            ended = []
            for f in due:
                done = s.execute(update(FreezeRow).where(FreezeRow.id == f.id, FreezeRow.state == "accepted")
                                 .values(state="expired", ended_by="clock", ended_at=now))
                if done.rowcount == 1:  # several processes notice the clock; one writes the audit row
                    self._event(s, f.id, "expire", "clock", f"expired at {iso(f.expires_at)}")
                    ended.append(f)
        return ended

    # -- reading -----------------------------------------------------------------------------
    def get(self, freeze_id: str) -> FreezeRow | None:
        with self.store.session() as s:
            return s.get(FreezeRow, freeze_id)

    def standing(self, repo: str, assertion_id: str, witness_hash: str) -> dict[str, Any] | None:
        """Where the freeze of this assertion and witness stands, with its audit trail (None: there is none)."""
        self.expire_due()
        with self.store.session() as s:
            rows = list(s.scalars(select(FreezeRow).where(
                FreezeRow.repo == repo, FreezeRow.assertion_id == assertion_id,
                FreezeRow.witness_hash == witness_hash).order_by(FreezeRow.proposed_at.desc())))
        if not rows:
            return None
        freeze = rows[0]
        return {"id": freeze.id, "state": freeze.state, "accepted_by": freeze.accepted_by or "",
                "expires_at": iso(freeze.expires_at), "ended_by": freeze.ended_by or "",
                "ended_at": iso(freeze.ended_at), "signature": freeze.signature,
                "events": [{"action": e.action, "actor": e.actor, "at": iso(e.at), "reason": e.reason}
                           for e in self.events(freeze.id)]}

    def active(self, repo: str) -> tuple[FreezeMatch, ...]:
        """Accepted, unexpired freezes of a repository, as the verdict matches them, with their payloads."""
        now = self.clock()
        with self.store.session() as s:
            rows = [r for r in s.scalars(select(FreezeRow).where(FreezeRow.repo == repo,
                                                                 FreezeRow.state == "accepted"))
                    if aware(r.expires_at) > now]
            proposed_by = {r.run_id: self._patch_of(s, r.run_id) for r in rows}
        return tuple(FreezeMatch(r.assertion_id, r.fixture_digest, r.witness_hash, iso(r.expires_at),
                                 r.accepted_by or "", r.contract_digest, r.signature or "",
                                 witness=self._payload(r), patch_digest=proposed_by[r.run_id]) for r in rows)

    @staticmethod
    def _patch_of(session, run_id: str) -> str:
        """The patch digest of the gate run that proposed a freeze ("" when the run is gone)."""
        run = session.get(GateRunRow, run_id)
        return run.patch_digest or "" if run is not None else ""

    def _payload(self, freeze: FreezeRow) -> Any:
        """The witness the proposing run retained, from its attempt record (None when it is gone)."""
        for attempt in self.store.attempts(freeze.run_id):
            if attempt.assertion_id == freeze.assertion_id and attempt.record.get("witness_hash") == freeze.witness_hash:
                return attempt.record.get("witness")
        return None

    def freezes(self, limit: int = 200) -> list[FreezeRow]:
        with self.store.session() as s:
            return list(s.scalars(select(FreezeRow).order_by(FreezeRow.proposed_at.desc()).limit(limit)))

    def events(self, freeze_id: str | None = None) -> list[FreezeEventRow]:
        with self.store.session() as s:
            query = select(FreezeEventRow).order_by(FreezeEventRow.id)
            if freeze_id:
                query = query.where(FreezeEventRow.freeze_id == freeze_id)
            return list(s.scalars(query))


def apply_freezes(records: list[dict[str, Any]], freezes: tuple[FreezeMatch, ...],
                  now: datetime | None = None) -> list[dict[str, Any]]:
    """Relabel attempt records against the freezes in force now (after a revoke or expiry).

    A frozen record was a flake underneath, gated beside its freeze: it stays frozen while an accepted freeze in force
    names its assertion, fixture and witness, and is a flake again once none does. A record gated without a freeze
    is never made frozen here: what stands beside a freeze (the pinned payload showing only its flake, the broader
    sample) ran only when the head was gated with it in force (a head keeping the frozen coin with a bug of its own on
    unseen inputs, gated before the accept, was relabelled `frozen`: found by a reviewer), so an accept gates again
    the heads it would silence (`silenced_anew`, worker/silencing.py).
    """
    out = []
    for record in records:
        record = dict(record)
        gated_frozen = record.get("label") == "frozen"
        if gated_frozen:
            record["label"] = record.get("unfrozen_label", "flake")
            record.pop("frozen_by", None)
        match = _silencing(record, freezes, now) if gated_frozen else None
        if match is not None:
            record["unfrozen_label"] = record["label"]
            record["label"] = "frozen"
            record["frozen_by"] = {"assertion_id": match.assertion_id, "expires_at": match.expires_at,
                                   "accepted_by": match.accepted_by}
            record.pop("freeze", None)
        out.append(record)
    return out


def silenced_anew(records: list[dict[str, Any]], freezes: tuple[FreezeMatch, ...],
                  now: datetime | None = None) -> bool:
    """Whether a freeze in force would silence one of these records that was gated without it: its head is gated
    again, beside the freeze, for the label to change."""
    return any(record.get("label") != "frozen" and _silencing(record, freezes, now) is not None for record in records)


def _silencing(record: dict[str, Any], freezes: tuple[FreezeMatch, ...], now: datetime | None) -> FreezeMatch | None:
    """The freeze in force that names this (unfrozen) record, if any."""
    if not outcomes.proposes_freeze(record.get("label") or "hold", record.get("hold_reasons") or []):
        return None
    signatures = {row["signature"] for row in record.get("replays") or [] if row.get("signature")}
    own_patch = str(record.get("patch_digest") or "") if from_another_example(
        record.get("example_replays"), record.get("witness_hash"), record.get("pinned_hash")) else None
    return next((f for f in freezes if freeze_matches(
        f, assertion_id=record.get("assertion_id") or "", fixture_digest=record.get("fixture_digest") or "",
        contract_digest=record.get("contract_digest") or "", witness_hash=record.get("witness_hash") or "",
        now=now or datetime.now(timezone.utc), signatures=signatures, own_patch=own_patch)), None)
