"""The record store on SQLite and PostgreSQL: the migrations build exactly the models, both ways."""

import json
import os
from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import inspect

from witness_gate.records.ledger import Ledger, check_expiry
from witness_gate.records.store import Base, Store

URLS = ["sqlite"] + (["postgresql"] if os.environ.get("WITNESS_TEST_DATABASE_URL", "").startswith("postgresql") else [])


@pytest.fixture(params=URLS)
def store(request, tmp_path):
    url = f"sqlite:///{tmp_path / 'w.db'}" if request.param == "sqlite" else os.environ["WITNESS_TEST_DATABASE_URL"]
    s = Store(url)
    s.drop_schema()
    s.create_schema()
    yield s
    s.drop_schema()
    s.engine.dispose()


def test_migrations_build_the_models(store):
    with store.engine.connect() as conn:
        assert compare_metadata(MigrationContext.configure(conn), Base.metadata) == []


def test_downgrade_removes_everything(store):
    store.drop_schema()
    assert set(inspect(store.engine).get_table_names()) <= {"alembic_version"}
    store.create_schema()
    store.create_schema()  # idempotent
    assert {"witness_gate_runs", "witness_attempts", "witness_freezes", "witness_freeze_events"} <= set(
        inspect(store.engine).get_table_names())


def test_runs_and_attempts_round_trip(store):
    run = store.add_run(repo="o/r", installation_id=1, pr_number=2, head_sha="a" * 40, base_sha="b" * 40,
                        details={"split": {"impl_changed": True}})
    assert len(run.id) == 32 and run.id != store.add_run(repo="o/r", installation_id=1, pr_number=2,
                                                         head_sha="c" * 40).id
    store.add_attempt(run.id, {"record_id": "f" * 32, "assertion_id": "prop_x", "label": "flake", "witness": {"é": [1]}})
    [attempt] = store.attempts(run.id)
    assert attempt.record["witness"] == {"é": [1]} and store.get_attempt("f" * 32).label == "flake"
    store.update_run(run.id, status="completed", label="flake")
    assert store.get_run(run.id).status == "completed"
    assert [r.head_sha for r in store.runs_for_pull("o/r", 2)] == ["a" * 40, "c" * 40]


def test_the_freezes_command_lists_the_ledger(store):
    from datetime import datetime, timedelta, timezone

    from conftest import run_cli
    from witness_gate.records.ledger import Ledger

    clock = [datetime(2026, 11, 30, 12, 0, tzinfo=timezone.utc)]
    ledger = Ledger(store, clock=lambda: clock[0])
    proposal = {"assertion_id": "prop_coin", "fixture_digest": "f" * 64, "witness_hash": "w" * 64,
                "failures": 3, "runs": 10, "signature": "flake:coin"}
    ledger.propose(repo="o/r", pr_number=4, run_id="r" * 32, head_sha="h" * 40, proposal=proposal)
    outcome = ledger.accept(repo="o/r", pr_number=4, run_id="r" * 32, actor="alice", hours=1e6, max_hours=10**7)
    assert outcome.ok
    done = run_cli("freezes", "--database-url", store.url, cwd=Path("/"))
    assert done.returncode == 0, done.stderr
    assert "accepted  prop_coin o/r#4 witness wwwwwwwwwwww 3/10 by @alice until" in done.stdout
    listed = json.loads(run_cli("freezes", "--json", "--database-url", store.url, cwd=Path("/")).stdout)
    assert [e["action"] for e in listed[0]["events"]] == ["propose", "accept"]
    clock[0] += timedelta(hours=2)
    assert ledger.revoke(repo="o/r", pr_number=4, actor="bob").ok


def test_ledger_refusals_are_audited(store):
    ledger = Ledger(store)
    assert ledger.accept(repo="o/r", pr_number=1, run_id="x" * 32, actor="eve", hours=2, max_hours=5).refusal
    assert ledger.revoke(repo="o/r", pr_number=1, actor="eve").refusal == (
        "there is no accepted, unexpired freeze on this pull request")
    assert [e.action for e in ledger.events()] == ["refuse", "refuse"]


def test_expiry_is_checked_before_anything_changes():
    assert check_expiry(None, 168).startswith("say for how long")
    assert check_expiry(-1, 168) == "an expiry of -1h is not in the future"
    assert check_expiry(200, 168) == "200h is longer than this repository allows (freeze.max_hours: 168)"
    assert check_expiry(24, 168) == ""


def test_two_processes_noticing_an_expiry_write_one_audit_row(store):
    from datetime import datetime, timedelta, timezone

    clock = [datetime(2026, 11, 30, 12, 0, tzinfo=timezone.utc)]
    first, second = Ledger(store, clock=lambda: clock[0]), Ledger(Store(store.url), clock=lambda: clock[0])
    first.propose(repo="o/r", pr_number=1, run_id="r" * 32, head_sha="h" * 40,
                  proposal={"assertion_id": "p", "fixture_digest": "f", "witness_hash": "w"})
    assert first.accept(repo="o/r", pr_number=1, run_id="r" * 32, actor="a", hours=1, max_hours=5).ok
    clock[0] += timedelta(hours=2)
    assert len(first.expire_due()) + len(second.expire_due()) == 1
    assert [e.action for e in first.events()] == ["propose", "accept", "expire"]


def test_a_check_run_id_past_two_to_the_31_is_kept(store):
    # GitHub's check-run ids passed 2^31 long ago; a 32-bit column could not keep the run's id on PostgreSQL
    run = store.add_run(repo="acme/calc", installation_id=1, pr_number=7, head_sha="h" * 40, base_sha="b" * 40,
                        status="in_progress", details={})
    store.update_run(run.id, check_run_id=2**33 + 7)
    assert store.get_run(run.id).check_run_id == 2**33 + 7


def test_an_active_freeze_names_the_patch_whose_run_proposed_it(store):
    # a witness another example of an unsteady search gave is silenced by its own patch's freeze only (verdict.py
    # freeze_matches): the ledger tells which patch proposed each freeze
    from witness_gate.records.ledger import Ledger

    run = store.add_run(repo="o/r", installation_id=1, pr_number=4, head_sha="h" * 40)
    store.update_run(run.id, patch_digest="p" * 64)
    ledger = Ledger(store)
    proposal = {"assertion_id": "prop_coin", "fixture_digest": "f" * 64, "witness_hash": "w" * 64,
                "failures": 3, "runs": 10, "signature": "flake:coin"}
    ledger.propose(repo="o/r", pr_number=4, run_id=run.id, head_sha="h" * 40, proposal=proposal)
    assert ledger.accept(repo="o/r", pr_number=4, run_id=run.id, actor="alice", hours=1, max_hours=10).ok
    [active] = ledger.active("o/r")
    assert (active.assertion_id, active.patch_digest) == ("prop_coin", "p" * 64)
