"""The record store on SQLite and PostgreSQL: the migrations build exactly the models, both ways."""

import os

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import inspect

from witness_gate.store import Base, Store

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
