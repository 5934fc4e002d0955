"""People and events against the GitHub double, in process: buttons on their own run, forks, Re-run's permission,
one reply per comment, the event's head after a push, no config, merge queues (issue 14, issue 13).

Each test sends GitHub's example payload through the router, then runs the job it routed with a worker
Context on a real Redis and record store, talking to the double over HTTP; the jobs it enqueues are read
back from the queue, not run.
"""

import os
import uuid

import pytest
from rq import Queue
from rq.serializers import JSONSerializer

from appcore.settings import Settings
from bot.events import route
from ghdouble.webhooks import check_run_event, check_suite_event, comment_event, merge_group_event, pull_request_event
from test_app import GOOD, make_pull
from witness_gate.records.ledger import Ledger
from worker import checks
from worker.buttons import press
from worker.context import Context, complete
from worker.gating import _start, gate_head, gate_property
from worker.people import answer_comment

QUIET = "version: 1\npaths:\n  ignore: [README.md]\n"  # a README-only change is skipped: nothing runs


@pytest.fixture
def ctx(double, tmp_path):
    settings = Settings(str(double.app_id), double.private_key_pem, b"s", api_url=double.url,
                        redis_url=os.environ.get("WITNESS_TEST_REDIS_URL", "redis://127.0.0.1:6379/9"),
                        database_url=f"sqlite:///{tmp_path / 'w.db'}", queue=f"presses-{uuid.uuid4().hex[:8]}")
    context = Context(settings)
    yield context
    for key in context.redis.scan_iter(f"rq:*{settings.queue}*"):
        context.redis.delete(key)


def queued(ctx):
    """(function, kwargs) of every job the handlers enqueued."""
    queue = Queue(ctx.settings.queue, connection=ctx.redis, serializer=JSONSerializer)
    return [(job.func_name, job.kwargs) for job in queue.get_jobs()]


def routed_job(event, payload):
    [job] = route(event, payload, f"d-{uuid.uuid4().hex[:12]}").jobs
    return job


def finished_run(ctx, double, name, head_ref="patch", witness="w" * 64):
    """A finished gate run of the head of `head_ref`, made as the worker makes it, with a proposed freeze."""
    target = routed_job("pull_request", pull_request_event(double, name, 7)).kwargs["target"]
    head, base = double.sha(name, head_ref), double.sha(name, "main")
    ctx.mark_head(target, head, "2026-01-01T00:00:00Z")
    run, target = _start(ctx, ctx.api(target), target, (head, base, ""), "test", f"d-{uuid.uuid4().hex[:8]}")
    ctx.store.update_run(run.id, details={**run.details, "config_text": "version: 1\n"})
    Ledger(ctx.store).propose(repo=name, pr_number=7, run_id=run.id, head_sha=head,
                              proposal={"assertion_id": "prop_coin", "fixture_digest": "f" * 64, "witness_hash": witness})
    complete(ctx, ctx.api(target), run.id, checks.render_results([], patch_digest="p", details_url="u"), "flake")
    run = ctx.store.get_run(run.id)
    return run, double.check_runs[run.check_run_id]


def do_press(ctx, payload):
    job = routed_job("check_run" if "check_run" in payload else "check_suite", payload)
    assert job.func == "worker.jobs.handle_action"
    return press(ctx, ctx.api(job.kwargs["target"]), **{k: v for k, v in job.kwargs.items()})


def test_replay_on_a_fork_heads_check_run_gates_that_head(ctx, double, tmp_path):
    name, _ = make_pull(double, tmp_path, {"src/calc.py": GOOD + "\n# tidy\n"})
    double.repos[name].pulls[7].fork = "visitor/calc"  # the head lives in a fork the App cannot read
    run, check = finished_run(ctx, double, name)
    payload = check_run_event(double, name, 7, check, "requested_action", "maintainer", "replay")
    assert payload["check_run"]["pull_requests"] == []  # what GitHub sends for a fork's head
    assert do_press(ctx, payload) == {"replayed": run.head_sha}
    [(func, kwargs)] = queued(ctx)
    assert func == "worker.jobs.gate_pull_request"
    assert (kwargs["target"]["pr_number"], kwargs["target"]["head_sha"]) == (7, run.head_sha)
    assert [c.path for c in double.calls if "visitor/calc" in c.path] == []  # the fork is never read


def test_a_rerun_of_a_fork_heads_suite_finds_its_pull_request_by_the_head(ctx, double, tmp_path):
    name, _ = make_pull(double, tmp_path, {"src/calc.py": GOOD + "\n# tidy\n"})
    double.repos[name].pulls[7].fork = "visitor/calc"
    run, _ = finished_run(ctx, double, name)
    assert do_press(ctx, check_suite_event(double, name, 7, run.head_sha, "maintainer")) == {"replayed": run.head_sha}
    assert [kwargs["target"]["pr_number"] for _, kwargs in queued(ctx)] == [7]


def test_a_press_no_pull_request_can_be_found_for_says_so_on_its_check_run(ctx, double, tmp_path):
    name, _ = make_pull(double, tmp_path, {"src/calc.py": GOOD + "\n# tidy\n"})
    double.repos[name].pulls[7].fork = "visitor/calc"
    _, check = finished_run(ctx, double, name)
    ctx.store.update_run(check["external_id"], check_run_id=1)  # no record knows this check run ...
    check = {**check, "external_id": "0" * 32}  # ... and its record is one this store never had (a new database)
    assert "unfound" in do_press(ctx, check_run_event(double, name, 7, check, "requested_action", "maintainer",
                                                      "replay"))
    said = double.check_runs[check["id"]]
    assert said["output"]["title"] == "witness-gate cannot find this head's pull request"
    assert "in a fork" in said["output"]["summary"] and "/witness replay" in said["output"]["summary"]
    assert queued(ctx) == [] and double.comments == []

    # a suite's Re-run of a head nothing is known of: GitHub waits for the App to create the check run
    head = double.sha(name, "main")
    assert "unfound" in do_press(ctx, check_suite_event(double, name, 7, head, "maintainer"))
    [created] = double.runs_for(head)
    assert created["conclusion"] == "action_required" and "cannot find" in created["output"]["title"]


def test_githubs_rerun_needs_write_permission_like_the_buttons(ctx, double, tmp_path):
    name, _ = make_pull(double, tmp_path, {"src/calc.py": GOOD + "\n# tidy\n"})
    _, check = finished_run(ctx, double, name)
    assert do_press(ctx, check_run_event(double, name, 7, check, "rerequested", "visitor")) == {"refused": "visitor"}
    [reply] = double.comments
    assert reply["body"] == ("@visitor the Re-run button needs write permission on this repository; yours is "
                             "`read`. Nothing was done.")
    assert queued(ctx) == []
    assert do_press(ctx, check_run_event(double, name, 7, check, "rerequested", "maintainer"))["replayed"]
    assert len(queued(ctx)) == 1


def test_buttons_on_an_older_heads_run_act_on_that_run_and_say_it_is_superseded(ctx, double, tmp_path):
    name, repo = make_pull(double, tmp_path, {"src/calc.py": GOOD + "\n# tidy\n"})
    old_run, old_check = finished_run(ctx, double, name, witness="a" * 64)
    repo.commit({"src/calc.py": GOOD + "\n# second push\n"}, "second push")
    new_run, new_check = finished_run(ctx, double, name, witness="b" * 64)

    assert do_press(ctx, check_run_event(double, name, 7, old_check, "requested_action", "maintainer",
                                         "replay")) == {"superseded": old_run.head_sha}
    assert queued(ctx) == []
    assert f"this check run is for {old_run.head_sha[:12]}, which is no longer the head" in double.comments[-1]["body"]

    assert do_press(ctx, check_run_event(double, name, 7, old_check, "requested_action", "maintainer",
                                         "accept_freeze"))
    freezes = {f.run_id: f for f in Ledger(ctx.store).freezes() if f.repo == name}
    assert (freezes[old_run.id].state, freezes[new_run.id].state) == ("proposed", "proposed")  # no expiry given
    assert "say for how long" in double.comments[-1]["body"]
    ctx.store.update_run(old_run.id, details={**old_run.details, "config_text": "version: 1\nfreeze:\n  expires_in_hours: 2\n"})
    assert do_press(ctx, check_run_event(double, name, 7, old_check, "requested_action", "maintainer",
                                         "accept_freeze")) == {"accepted": True}
    freezes = {f.run_id: f for f in Ledger(ctx.store).freezes() if f.repo == name}
    assert (freezes[old_run.id].state, freezes[new_run.id].state) == ("accepted", "proposed")  # its own proposal
    assert f"accepted the freeze proposed on {old_run.head_sha[:12]}, an older head" in double.comments[-1]["body"]

    assert do_press(ctx, check_run_event(double, name, 7, new_check, "requested_action", "maintainer",
                                         "replay")) == {"replayed": new_run.head_sha}
    [(_, kwargs)] = queued(ctx)
    assert kwargs["target"]["head_sha"] == new_run.head_sha  # its own head, not whatever is newest when it runs


def test_one_comment_gets_one_reply_and_at_most_three_commands(ctx, double, tmp_path):
    name, _ = make_pull(double, tmp_path, {"src/calc.py": GOOD + "\n# tidy\n"})
    body = "\n".join(["/witness frobnicate", "/witness replay", "/witness freeze revoke"] + ["/witness replay"] * 300)
    for author in ("visitor", "maintainer"):
        job = routed_job("issue_comment", comment_event(double, name, 7, body, author))
        answer_comment(ctx, ctx.api(job.kwargs["target"]), **job.kwargs)
    refused, taken = [c["body"] for c in double.comments]
    assert refused.startswith("@visitor `/witness frobnicate` is not a witness-gate command.")
    assert refused.count("needs write permission") == 2 and "300 more were not" in refused
    assert refused.count("/witness help` — this list") == 1
    assert "`/witness freeze revoke` refused: the current head" in taken and "needs write" not in taken
    assert len(queued(ctx)) == 1  # only the maintainer's one replay among the first three lines
    assert double.reactions == [{"comment_id": 555, "content": "eyes"}]


def test_the_events_head_is_gated_even_when_a_read_right_after_the_push_shows_the_previous_one(ctx, double, tmp_path):
    name, repo = make_pull(double, tmp_path, {"README.md": "calc, tidied\n"}, config=QUIET)
    old_head = double.sha(name, "patch")
    repo.commit({"README.md": "calc, tidied twice\n"}, "second push")
    new_head = double.sha(name, "patch")
    job = routed_job("pull_request", pull_request_event(double, name, 7, "synchronize"))
    for _target, sha, at in route("pull_request", pull_request_event(double, name, 7, "synchronize"), "d").heads:
        ctx.mark_head(job.kwargs["target"], sha, at)  # what the receiver records at once
    double.serve_stale_read(name, 7, old_head)
    assert gate_head(ctx, ctx.api(job.kwargs["target"]), **job.kwargs)["label"] == "skipped"
    [run] = double.runs_for(new_head)
    assert run["conclusion"] == "skipped" and double.runs_for(old_head) == []


def test_a_repository_without_config_gets_no_check_run_and_no_comment(ctx, double, tmp_path):
    name, _ = make_pull(double, tmp_path, {"src/calc.py": GOOD + "\n# tidy\n"}, config=None)
    job = routed_job("pull_request", pull_request_event(double, name, 7))
    assert gate_head(ctx, ctx.api(job.kwargs["target"]), **job.kwargs)["skipped"].startswith("no .witness.yml")
    assert double.check_runs == {} and double.comments == []
    assert ctx.store.runs_for_pull(name, 7) == []
    # a person who asks is told why nothing happens, and nothing is queued
    asked = routed_job("issue_comment", comment_event(double, name, 7, "/witness replay", "maintainer"))
    answer_comment(ctx, ctx.api(asked.kwargs["target"]), **asked.kwargs)
    [reply] = [c["body"] for c in double.comments]
    assert "has no `.witness.yml` on the base branch, so there is nothing to gate" in reply
    assert queued(ctx) == [] and double.reactions == []


def test_a_merge_queue_entry_is_gated_on_its_merge_commit_and_reported_there(ctx, double, tmp_path):
    name, repo = make_pull(double, tmp_path, {"src/calc.py": GOOD + "\n# tidy\n"})
    base = double.sha(name, "main")
    repo.git("checkout", "-q", "-b", "gh-readonly-queue/main/pr-7", "main")
    merge = repo.commit({"src/calc.py": GOOD + "\n# tidy\n", "tests/properties/test_calc.py": "# weaker\n"}, "queue")
    job = routed_job("merge_group", merge_group_event(double, name, merge, base, 7))
    assert gate_head(ctx, ctx.api(job.kwargs["target"]), **job.kwargs)["label"] == "mixed_edit"
    [run] = double.runs_for(merge)
    assert run["conclusion"] == "failure" and run["output"]["title"].startswith("mixed_edit")
    assert double.calls_to("GET", "/pulls/") == []  # nothing asked of a pull request: the event names the heads


def test_a_property_job_of_a_run_an_earlier_version_started_gathers_the_change_again(ctx, double, tmp_path):
    # a deploy between a run's fan-out and its property jobs: the earlier worker kept no gathered change in the run,
    # and each of its jobs ended in a KeyError (a hold: "press Replay") instead of gating
    name, _ = make_pull(double, tmp_path, {"src/calc.py": GOOD + "\n# tidy\n"})
    job = routed_job("pull_request", pull_request_event(double, name, 7))
    target = job.kwargs["target"]
    ctx.mark_head(target, double.sha(name, "patch"), "2026-01-01T00:00:00Z")
    assert gate_head(ctx, ctx.api(target), **job.kwargs)["properties"] >= 1
    [(func, kwargs), *_] = [entry for entry in queued(ctx) if entry[0] == "worker.jobs.run_property"]
    run = ctx.store.get_run(kwargs["run_id"])
    kept = run.details.pop("change")
    ctx.store.update_run(run.id, details=run.details)  # as the earlier version left it
    done = gate_property(ctx, ctx.api(kwargs["target"]), kwargs["run_id"], kwargs["target"], kwargs["assertion_id"])
    assert done == {"assertion_id": kwargs["assertion_id"], "label": "pass"}, done
    [attempt] = [a for a in ctx.store.attempts(run.id) if a.assertion_id == kwargs["assertion_id"]]
    assert attempt.record["patch_digest"] == kept["patch_digest"]  # the same change, gathered again
