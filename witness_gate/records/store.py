"""The record store: gate runs per pull request head and one attempt record per property (SQLAlchemy).

SQLite by default (`sqlite:///witness.db`), PostgreSQL for CI and several hosts (`DATABASE_URL`).
Record ids are 128 random bits in hex, so a record page needs its id and nothing lists them.
"""

from __future__ import annotations

import secrets
from datetime import datetime, timezone
from typing import Any

from sqlalchemy import JSON, BigInteger, DateTime, ForeignKey, Integer, String, create_engine, select
from sqlalchemy.engine import Engine
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, sessionmaker

DEFAULT_DATABASE_URL = "sqlite:///witness.db"


def new_record_id() -> str:
    return secrets.token_hex(16)


def utcnow() -> datetime:
    return datetime.now(timezone.utc)


class Base(DeclarativeBase):
    type_annotation_map = {dict[str, Any]: JSON, list[Any]: JSON}


class GateRunRow(Base):
    """One gate run: one pull request head, one check run."""

    __tablename__ = "witness_gate_runs"

    id: Mapped[str] = mapped_column(String(32), primary_key=True, default=new_record_id)
    repo: Mapped[str] = mapped_column(String(200), index=True)  # owner/name
    installation_id: Mapped[int] = mapped_column(Integer)
    pr_number: Mapped[int] = mapped_column(Integer, index=True)
    head_sha: Mapped[str] = mapped_column(String(40), index=True)
    base_sha: Mapped[str] = mapped_column(String(40), default="")
    check_run_id: Mapped[int | None] = mapped_column(BigInteger, nullable=True)  # GitHub's ids passed 2^31
    status: Mapped[str] = mapped_column(String(20), default="queued")  # queued, in_progress, completed, superseded
    label: Mapped[str | None] = mapped_column(String(30), nullable=True)
    conclusion: Mapped[str | None] = mapped_column(String(30), nullable=True)
    patch_digest: Mapped[str] = mapped_column(String(64), default="")
    details: Mapped[dict[str, Any]] = mapped_column(default=dict)  # config problems, split, properties
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow, onupdate=utcnow)


class AttemptRow(Base):
    """One property's attempt on one head: the full attempt record of SPEC §2 step 10."""

    __tablename__ = "witness_attempts"

    id: Mapped[str] = mapped_column(String(32), primary_key=True, default=new_record_id)
    run_id: Mapped[str] = mapped_column(ForeignKey("witness_gate_runs.id", ondelete="CASCADE"), index=True)
    assertion_id: Mapped[str] = mapped_column(String(200))
    label: Mapped[str] = mapped_column(String(30))
    record: Mapped[dict[str, Any]] = mapped_column(default=dict)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class FreezeRow(Base):
    """A freeze: proposed by the gate for a flake, accepted by a person, ended by the clock or a revoke."""

    __tablename__ = "witness_freezes"

    id: Mapped[str] = mapped_column(String(32), primary_key=True, default=new_record_id)
    repo: Mapped[str] = mapped_column(String(200), index=True)
    pr_number: Mapped[int] = mapped_column(Integer)
    run_id: Mapped[str] = mapped_column(String(32), index=True)  # the gate run that proposed it
    head_sha: Mapped[str] = mapped_column(String(40))
    assertion_id: Mapped[str] = mapped_column(String(200))
    property_id: Mapped[str] = mapped_column(String(300), default="")
    contract_digest: Mapped[str] = mapped_column(String(64), default="")
    fixture_digest: Mapped[str] = mapped_column(String(64))
    witness_hash: Mapped[str] = mapped_column(String(64))
    seed: Mapped[str] = mapped_column(String(200), default="")
    signature: Mapped[str] = mapped_column(String(300), default="")
    failures: Mapped[int] = mapped_column(Integer, default=0)
    runs: Mapped[int] = mapped_column(Integer, default=0)
    state: Mapped[str] = mapped_column(String(20), default="proposed", index=True)
    proposed_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    accepted_by: Mapped[str | None] = mapped_column(String(100), nullable=True)
    accepted_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    expires_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    ended_by: Mapped[str | None] = mapped_column(String(100), nullable=True)
    ended_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)


class FreezeEventRow(Base):
    """The audit trail: every change of a freeze, and every refusal, with actor, time and reason."""

    __tablename__ = "witness_freeze_events"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    freeze_id: Mapped[str] = mapped_column(String(32), index=True)
    action: Mapped[str] = mapped_column(String(20))  # propose, accept, revoke, expire, refuse
    actor: Mapped[str] = mapped_column(String(100))
    reason: Mapped[str] = mapped_column(String(1000), default="")
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class Store:
    """A thin wrapper over one engine; each method is one short transaction."""

    def __init__(self, url: str = DEFAULT_DATABASE_URL) -> None:
        self.url = url
        self.engine: Engine = create_engine(url, future=True, pool_pre_ping=True)
        self.session = sessionmaker(self.engine, expire_on_commit=False)

    def create_schema(self) -> None:
        """Bring the database to the newest schema with the Alembic migrations."""
        from witness_gate.records.migrate import upgrade

        upgrade(self.engine)

    def drop_schema(self) -> None:
        from witness_gate.records.migrate import downgrade

        downgrade(self.engine)

    def ping(self) -> None:
        with self.engine.connect() as conn:
            conn.exec_driver_sql("SELECT 1")

    # -- gate runs -------------------------------------------------------------------------
    def add_run(self, **fields: Any) -> GateRunRow:
        with self.session.begin() as s:
            row = GateRunRow(**fields)
            s.add(row)
        return row

    def get_run(self, run_id: str) -> GateRunRow | None:
        with self.session() as s:
            return s.get(GateRunRow, run_id)

    def update_run(self, run_id: str, **fields: Any) -> GateRunRow:
        with self.session.begin() as s:
            row = s.get(GateRunRow, run_id)
            if row is None:
                raise KeyError(run_id)
            for key, value in fields.items():
                setattr(row, key, value)
        return row

    def runs_for_pull(self, repo: str, pr_number: int) -> list[GateRunRow]:
        with self.session() as s:
            return list(s.scalars(select(GateRunRow).where(
                GateRunRow.repo == repo, GateRunRow.pr_number == pr_number).order_by(GateRunRow.created_at)))

    def recent_runs(self, limit: int = 50) -> list[GateRunRow]:
        with self.session() as s:
            return list(s.scalars(select(GateRunRow).order_by(GateRunRow.created_at.desc()).limit(limit)))

    def open_heads(self, repo: str) -> list[GateRunRow]:
        """The newest run of each pull request of `repo`, when it still stands for an open head:
        completed, and neither superseded nor ended with its pull request."""
        newest: dict[int, GateRunRow] = {}
        with self.session() as s:
            for row in s.scalars(select(GateRunRow).where(GateRunRow.repo == repo)
                                 .order_by(GateRunRow.created_at.desc())):
                newest.setdefault(row.pr_number, row)
        return [row for row in newest.values() if row.status == "completed" and row.check_run_id
                and row.label not in ("superseded", "cancelled")]

    def repos_with_label(self, label: str) -> list[str]:
        """Repositories with a completed run of this label (the reconciler's frozen heads), by name."""
        with self.session() as s:
            return list(s.scalars(select(GateRunRow.repo).distinct().where(
                GateRunRow.label == label, GateRunRow.status == "completed").order_by(GateRunRow.repo)))

    def heads_with_runs(self, repo: str) -> set[tuple[int, str]]:
        """(pull request, head sha) of every run of `repo`: the heads the reconciler need not gate."""
        with self.session() as s:
            return set(s.execute(select(GateRunRow.pr_number, GateRunRow.head_sha)
                                 .where(GateRunRow.repo == repo)).tuples())

    # -- attempts --------------------------------------------------------------------------
    def add_attempt(self, run_id: str, record: dict[str, Any]) -> AttemptRow:
        with self.session.begin() as s:
            row = AttemptRow(id=record.get("record_id") or new_record_id(), run_id=run_id,
                             assertion_id=record["assertion_id"], label=record["label"], record=record)
            s.merge(row)
        return row

    def attempts(self, run_id: str) -> list[AttemptRow]:
        with self.session() as s:
            return list(s.scalars(select(AttemptRow).where(AttemptRow.run_id == run_id)
                                  .order_by(AttemptRow.assertion_id)))

    def recent_attempts(self, limit: int = 100) -> list[tuple[AttemptRow, GateRunRow]]:
        with self.session() as s:
            return list(s.execute(select(AttemptRow, GateRunRow).join(GateRunRow, AttemptRow.run_id == GateRunRow.id)
                                  .order_by(AttemptRow.created_at.desc()).limit(limit)).tuples())

    def get_attempt(self, record_id: str) -> AttemptRow | None:
        with self.session() as s:
            return s.get(AttemptRow, record_id)
