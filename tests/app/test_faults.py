"""GitHub on a bad day: every fault injected by the double, and the check run always ends."""

import os
import time

import pytest

from test_app import GOOD, gate, make_pull
from appcore.settings import RetryPolicy


def tidy(double, tmp_path):
    return make_pull(double, tmp_path, {"src/calc.py": GOOD + "\n# tidy\n"})[0]


@pytest.mark.parametrize("method, fragment, status, headers, times", [
    ("GET", "/pulls/7/files", 502, {}, 1),
    ("GET", "/pulls/7/files", 503, {}, 2),
    ("GET", "/contents/.witness.yml", 500, {}, 3),
    ("POST", "/check-runs", 429, {"Retry-After": "1"}, 1),
    ("PATCH", "/check-runs/", 403, {"X-RateLimit-Remaining": "0",
                                    "X-RateLimit-Reset": str(int(time.time()) + 1)}, 1),
    ("GET", "/pulls/7", 401, {}, 1),  # an installation token that expired early: refreshed once
    ("GET", ".git/info/refs", 502, {}, 1),  # the head is fetched with git
])
def test_transient_faults_are_retried_and_the_gate_finishes(stack, double, tmp_path, method, fragment, status,
                                                            headers, times):
    name = tidy(double, tmp_path)
    if "X-RateLimit-Reset" in headers:  # a reset one second from now, not from when the module loaded
        headers = {**headers, "X-RateLimit-Reset": str(int(time.time()) + 1)}
    double.fail_next(method, fragment, status, headers=headers, times=times)
    run, _ = gate(stack, double, name)
    assert run["conclusion"] == "success", run["output"]
    assert [c.status for c in double.calls_to(method, fragment)][:times] == [status] * times


def test_a_timeout_is_retried(stack, double, tmp_path):
    name = tidy(double, tmp_path)
    double.fail_next("GET", "/pulls/7/files", delay=3)  # longer than the worker's 2 s timeout
    run, _ = gate(stack, double, name)
    assert run["conclusion"] == "success"


@pytest.mark.parametrize("status, headers, reason", [
    (500, {}, "500"),  # still failing after every retry
    (422, {}, "422"),  # GitHub refused the request: asking again changes nothing
    (429, {"Retry-After": "3600"}, "429"),  # a rate limit that resets too late to wait for
])
def test_faults_that_outlast_the_retries_end_the_check_run_with_the_reason(stack, double, tmp_path, status,
                                                                           headers, reason):
    name = tidy(double, tmp_path)
    double.fail_next("GET", "/pulls/7/files", status, headers=headers, times=10)
    run, _ = gate(stack, double, name)
    assert run["conclusion"] == "action_required"
    assert run["output"]["title"] == "witness-gate could not finish"
    assert reason in run["output"]["summary"] and [a["identifier"] for a in run["actions"]] == ["replay"]
    double.faults.clear()


@pytest.mark.parametrize("status, headers, attempt, wait", [
    (502, {}, 1, 1.0), (502, {}, 3, 4.0), (0, {}, 2, 2.0),
    (429, {"Retry-After": "7"}, 1, 7.0), (429, {"retry-after": "120"}, 1, None),
    (403, {"x-ratelimit-remaining": "0", "x-ratelimit-reset": "0"}, 1, 0.0),
    (403, {}, 1, None), (404, {}, 1, None), (422, {}, 1, None),
])
def test_the_retry_policy(status, headers, attempt, wait):
    assert RetryPolicy(backoff=1.0, max_wait=60).wait(status, headers, attempt) == wait


def test_a_killed_work_horse_still_ends_the_check_run(stack, double, tmp_path):
    import subprocess

    head = _slow_gate_in_progress(stack, double, tmp_path)
    # the horse of a property's job, while it evaluates (a sandbox under it): not the gate job's, which may be done
    seen: list[int] = []  # the horses as the wait saw them: asked again, the evaluation may have ended meanwhile
    stack.wait_until(lambda: seen.extend(_evaluating(stack)) or seen, what="a work-horse evaluating a property")
    subprocess.run(["kill", "-9", str(seen[0])], check=True)
    run = stack.wait_for_check(head, timeout=120)
    assert run["conclusion"] == "action_required", run["output"]
    assert "transport:worker" in run["output"]["summary"] or "could not finish" in run["output"]["title"]


def _slow_gate_in_progress(stack, double, tmp_path) -> str:
    """A pull request whose properties take seconds, gated until a work-horse is busy with it."""
    from appstack import pull_request_event
    from test_app import CONFIG

    name, _ = make_pull(double, tmp_path, {"src/calc.py": "import time\ntime.sleep(2)\n" + GOOD},
                        config=CONFIG.replace("runs: 20", "runs: 3"))
    head = double.sha(name, "patch")
    assert stack.send("pull_request", pull_request_event(double, name, 7)).status_code == 202
    stack.wait_until(lambda: double.runs_for(head), what="the check run")
    stack.wait_until(lambda: _horses(stack), what="a work-horse running a job")
    return head


def _evaluating(stack) -> list[int]:
    """Work-horses with a bubblewrap sandbox among their children: running a property's evaluations."""
    import subprocess

    out = subprocess.run(["ps", "-ww", "-eo", "pid,ppid,comm"], capture_output=True, text=True).stdout.splitlines()
    sandboxed = {line.split()[1] for line in out[1:] if line.split()[2:] == ["bwrap"]}
    return [horse for horse in _horses(stack) if str(horse) in sandboxed]


def _horses(stack) -> list[int]:
    """Work-horses of this stack's rq workers: their forked children running a job.

    Only this stack's queue counts: another test run on the machine has workers of its own. A worker
    started --with-scheduler also forks its scheduler, which runs no job: its log names its pid.
    """
    import re
    import subprocess

    schedulers = {pid for log in (stack.tmp / "logs").glob("worker-*.log")
                  for pid in re.findall(r"Scheduler for .* started with PID (\d+)", log.read_text(errors="replace"))}
    out = subprocess.run(["ps", "-ww", "-eo", "pid,ppid,args"], capture_output=True, text=True).stdout.splitlines()
    workers = {line.split()[0] for line in out[1:] if f"rq.cli worker {stack.queue} " in line}
    # a horse is forked by a worker (RQ may retitle it, so its args are no guide)
    return [int(line.split()[0]) for line in out[1:]
            if line.split()[1] in workers and line.split()[0] not in schedulers]


def test_the_reconciler_gates_a_missed_head_and_ends_a_stuck_run(stack, double, tmp_path):
    from datetime import datetime, timedelta, timezone

    from rq import Queue
    from rq.serializers import JSONSerializer

    missed = tidy(double, tmp_path)  # a pull request whose delivery never arrived
    head = double.sha(missed, "patch")
    stuck_name, _ = make_pull(double, tmp_path, {"src/calc.py": GOOD + "\n# stuck\n"})
    stuck_head = double.sha(stuck_name, "patch")
    double.check_runs[5] = {"id": 5, "repo": stuck_name, "name": "witness-gate", "head_sha": stuck_head,
                            "status": "in_progress", "conclusion": None, "output": {}, "annotations": [],
                            "actions": [], "history": []}
    long_ago = datetime.now(timezone.utc) - timedelta(hours=3)
    run = stack.store.add_run(repo=stuck_name, installation_id=77, pr_number=7, head_sha=stuck_head,
                              base_sha=double.sha(stuck_name, "main"), status="in_progress", check_run_id=5)
    stack.store.update_run(run.id, updated_at=long_ago)
    with stack.store.session.begin() as s:  # onupdate stamped "now": put the old time back
        from witness_gate.records.store import GateRunRow

        s.get(GateRunRow, run.id).updated_at = long_ago
    unconfigured, _ = make_pull(double, tmp_path, {"src/calc.py": GOOD + "\n# tidy\n"}, config=None)
    queue = Queue(stack.queue, connection=stack.redis, serializer=JSONSerializer)
    queue.enqueue("worker.jobs.reconcile")
    gated = stack.wait_for_check(head)
    assert gated["conclusion"] == "success"
    stack.wait_until(lambda: double.check_runs[5]["status"] == "completed", what="the stuck run to end")
    assert double.check_runs[5]["conclusion"] == "action_required"
    assert "stuck in progress" in double.check_runs[5]["output"]["summary"]
    # a second pass within the period lists no repository again; a base without .witness.yml is never gated
    again = queue.enqueue("worker.jobs.reconcile")
    stack.wait_until(lambda: again.get_status(refresh=True) == "finished", what="the second pass")
    listed = [c for c in double.calls if c.method == "GET" and c.path == f"/repos/{missed}/pulls"]
    assert len(listed) == 1, listed
    assert double.runs_for(double.sha(unconfigured, "patch")) == []


def test_a_whole_worker_killed_mid_attempt_still_ends_the_check_run(stack, double, tmp_path):
    """The worker process and its work-horse both die: the reconciler ends what they left in progress."""
    import signal
    import subprocess

    head = _slow_gate_in_progress(stack, double, tmp_path)
    out = subprocess.run(["ps", "-ww", "-eo", "pid,ppid,args"], capture_output=True, text=True).stdout.splitlines()
    workers = {line.split()[0]: line.split()[1] for line in out[1:] if f"rq.cli worker {stack.queue} " in line}
    busy = {workers[str(h)] for h in _horses(stack) if str(h) in workers}
    victim = int(sorted(busy)[0])
    for pid in [victim] + [h for h in _horses(stack) if workers.get(str(h)) == str(victim)]:
        os.kill(pid, signal.SIGKILL)
    # RQ parks the dead worker's job as abandoned and runs neither its failure callback nor its
    # dependents, so the check run would stay in progress: the reconciler is what ends it
    from rq import Queue
    from rq.serializers import JSONSerializer

    time.sleep(4)
    Queue(stack.queue, connection=stack.redis, serializer=JSONSerializer).enqueue(
        "worker.jobs.reconcile", kwargs={"stuck_after": 3})
    run = stack.wait_for_check(head, timeout=60)
    assert run["conclusion"] == "action_required", run["output"]
    assert "stuck in progress" in run["output"]["summary"] and [a["identifier"] for a in run["actions"]] == ["replay"]
    stack.restart_workers()


def test_a_killed_gate_job_still_ends_the_check_run_it_created(stack, double, tmp_path):
    # the gate job itself is killed after its check run exists and before any property job does: no finish
    # job will come, so the worker runs the job's failure callback for the killed horse (RQ does only for a raise)
    from appstack import pull_request_event
    from test_app import CONFIG

    listing = "if [ -n \"$WITNESS_LIST\" ]; then sleep 30; echo total_ok; fi\n"  # the listing takes its time
    config = CONFIG.replace("properties:\n", "properties:\n  command: [sh, tests/properties/list.sh]\n")
    name, _ = make_pull(double, tmp_path, {"src/calc.py": GOOD + "\n# tidy\n",
                                           "README.md": "calc, listed slowly\n"},
                        base_files={"tests/properties/list.sh": listing}, config=config)
    head = double.sha(name, "patch")
    assert stack.send("pull_request", pull_request_event(double, name, 7)).status_code == 202
    stack.wait_until(lambda: double.runs_for(head), what="the check run")
    stack.wait_until(lambda: _horses(stack), what="the gate job's work-horse")
    time.sleep(1)  # into the listing
    import subprocess

    subprocess.run(["kill", "-9", *map(str, _horses(stack))], check=True)
    run = stack.wait_for_check(head, timeout=60)
    assert run["conclusion"] == "action_required" and run["output"]["title"] == "witness-gate could not finish"
    assert "killed" in run["output"]["summary"], run["output"]
