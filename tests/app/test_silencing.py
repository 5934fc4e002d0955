"""An accept gates again the heads it would silence (worker/silencing.py): the checks beside a freeze run only in a gate
run. With the ledger in a real SQLite store and a queue that keeps what is enqueued."""

from __future__ import annotations

from witness_gate.records.ledger import Ledger
from witness_gate.records.store import Store
from worker.people import freeze_command
from worker.silencing import GATED_AGAIN, gate_again_if_silenced

FLAKE = {"assertion_id": "prop_coin", "label": "flake", "fixture_digest": "f" * 64, "witness_hash": "w" * 64,
         "contract_digest": "", "hold_reasons": []}


class _Checks:
    def update_check_run(self, check_run_id, body):
        pass


class _Queue:
    def __init__(self):
        self.jobs = []

    def enqueue(self, function, kwargs, job_id, **_):
        self.jobs.append((job_id, kwargs))


class _Context:
    def __init__(self, store):
        self.store, self.queue, self.checks = store, _Queue(), _Checks()

    def api(self, target):
        return self.checks

    def details_url(self, run_id):
        return f"https://gate.example/runs/{run_id}"


def _run(store, pr, head, status="completed", reason="push"):
    run = store.add_run(repo="o/r", installation_id=1, pr_number=pr, head_sha=head * 40, base_sha="b" * 40,
                        status=status, label="flake" if status == "completed" else None, check_run_id=pr * 10,
                        details={"config_text": "version: 1\n", "repo_id": 9, "reason": reason})
    store.add_attempt(run.id, dict(FLAKE))
    return run


def test_an_accept_gates_again_every_head_it_would_silence_and_a_run_in_progress_asks_once_it_ends(tmp_path):
    # found by a fourth reviewer: a head whose run was in progress at the accept was neither gated again (the accept
    # sees finished runs only) nor frozen at its end (nothing is relabelled frozen): the accept was lost for it
    store = Store(f"sqlite:///{tmp_path / 'records.db'}")
    store.create_schema()
    ctx = _Context(store)
    seven = _run(store, 7, "a")
    Ledger(store).propose(repo="o/r", pr_number=7, run_id=seven.id, head_sha="a" * 40,
                          proposal={"assertion_id": "prop_coin", "fixture_digest": "f" * 64, "witness_hash": "w" * 64})
    eight = _run(store, 8, "c", status="in_progress")
    assert freeze_command(ctx, ctx.checks, seven, "freeze_accept", "maintainer", 24).ok
    assert [(kw["target"]["pr_number"], kw["target"]["head_sha"], kw["reason"]) for _, kw in ctx.queue.jobs] == \
        [(7, "a" * 40, GATED_AGAIN)], ctx.queue.jobs
    active = Ledger(store).active("o/r")
    records = [a.record for a in store.attempts(eight.id)]
    assert gate_again_if_silenced(ctx, eight, records, active)  # what gating.finish asks as pull request 8 ends
    assert [kw["target"]["pr_number"] for _, kw in ctx.queue.jobs] == [7, 8]
    # a run that is itself such a gate never asks again (no loop), nor does a head no freeze silences
    assert not gate_again_if_silenced(ctx, _run(store, 8, "c", reason=GATED_AGAIN), records, active)
    assert not gate_again_if_silenced(ctx, eight, [{**FLAKE, "witness_hash": "x" * 64}], active)
    # each gate again has a job id of its own: its delivery's first 12 characters, which reach the id, are random
    assert all(len(kw["delivery"]) == 32 and int(kw["delivery"], 16) >= 0 for _, kw in ctx.queue.jobs)
    assert len({job_id for job_id, _ in ctx.queue.jobs}) == 2
