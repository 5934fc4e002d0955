"""End to end: signed webhooks into gunicorn, real rq workers, Redis, a database, and the GitHub double."""

import json
import subprocess
import time

import pytest
import requests

from appstack import check_run_event, comment_event, pull_request_event
from conftest import GitRepo
from tricks import HOST_FILES, TRICKS, one_pull_of_every_trick
from witness_gate.sandbox import Sandbox

CALC_PROPS = '''
import os
from calc import double, total
from witness_gate import contract

@contract(invariant="double(x) == x + x", domain="integers")
def prop_double(fixture):
    return all(double(x) == x + x for x in fixture["xs"]) or "double-wrong"

@contract(invariant="total is the sum", domain="integers")
def prop_total(fixture):
    return total(fixture["xs"]) == sum(fixture["xs"]) or "total-wrong"
'''
COIN = '''

@contract(invariant="the coin lands heads", domain="any payload")
def prop_coin(fixture):
    return True if os.urandom(1)[0] < 128 else "coin-tails"
'''
CONFIG = """version: 1
properties:
  fixtures: {"*": tests/fixtures/xs.json}
policy:
  runs: 20
  timeout_seconds: 10
freeze:
  expires_in_hours: 24
"""
GOOD = "def double(x):\n    return x + x\n\ndef total(xs):\n    return sum(xs)\n"
BUGGY = "def double(x):\n    return 2 * x if x != 13 else 27\n\ndef total(xs):\n    return sum(xs)\n"


counter = iter(range(1, 10**6))


def make_pull(double, tmp_path, head_files, *, base_files=None, config=CONFIG, props=CALC_PROPS,
              permissions=None):
    name = f"acme/calc{next(counter)}"
    repo = GitRepo(tmp_path / name.replace("/", "_"))
    files = {"src/calc.py": GOOD, "tests/fixtures/xs.json": {"xs": list(range(-20, 20))}, "README.md": "calc\n"}
    if props is not None:
        files["tests/properties/test_calc.py"] = props
    if config is not None:
        files[".witness.yml"] = config
    repo.commit({**files, **(base_files or {})}, "base")
    repo.git("checkout", "-q", "-b", "patch")
    repo.commit(head_files, "patch")
    double.add_repo(name, repo.path, installation_id=77)
    double.repos[name].permissions.update(permissions or {"maintainer": "write", "visitor": "read"})
    double.open_pull(name, "patch", "main", 7)
    return name, repo


def gate(stack, double, name, action="opened"):
    response = stack.send("pull_request", pull_request_event(double, name, 7, action))
    assert response.status_code == 202, response.text
    head = double.sha(name, "patch")
    return stack.wait_for_check(head), head


def test_a_passing_pull_request_is_a_success(stack, double, tmp_path):
    name, _ = make_pull(double, tmp_path, {"src/calc.py": GOOD + "\n# tidy\n"})
    run, head = gate(stack, double, name)
    assert run["conclusion"] == "success", run["output"]
    assert run["name"] == "witness-gate" and run["output"]["title"].startswith("pass")
    assert "| `prop_double` | pass | 0/20 |" in run["output"]["summary"]
    assert run["history"][0]["status"] == "in_progress"  # created in progress at once
    record = requests.get(run["details_url"], timeout=5).json()
    assert record["kind"] == "gate_run" and record["label"] == "pass" and record["head_sha"] == head
    assert run["external_id"] == record["record_id"]
    assert [a["label"] for a in record["attempts"]] == ["pass", "pass"]
    double.expect("POST", "/check-runs", times=1)
    double.expect("GET", "/contents/.witness.yml")
    double.expect("GET", "/pulls/7/files")


def test_jobs_leave_no_staged_copy_of_the_gate_behind(stack, double, tmp_path):
    # each job's work horse ends with os._exit: a staged copy of the gate it made for itself was never removed
    for _ in range(2):
        name, _ = make_pull(double, tmp_path, {"src/calc.py": GOOD + "\n# tidy\n"})
        run, _ = gate(stack, double, name)
        assert run["conclusion"] == "success", run["output"]
    from pathlib import Path
    staged = list(Path(stack.tmpdir).glob("witness-stage-*"))
    assert len(staged) <= 2, staged  # one a worker process, whatever the number of jobs (6 here)
    left = [p.name for p in Path(stack.tmpdir).iterdir() if not p.name.startswith("witness-stage-")]
    assert left == [], left


def test_a_regression_fails_with_the_witness_and_an_annotation(stack, double, tmp_path):
    name, repo = make_pull(double, tmp_path, {"src/calc.py": BUGGY})
    run, _ = gate(stack, double, name)
    assert run["conclusion"] == "failure"
    assert run["output"]["title"] == "regression: prop_double"
    assert '{"xs": [13]}' in run["output"]["text"]
    [note] = [a for a in run["annotations"] if a["path"] == "tests/properties/test_calc.py"]
    assert note["start_line"] == 7 and note["annotation_level"] == "failure"  # the def line
    assert [a["identifier"] for a in run["actions"]] == ["replay"]
    # a reviewer pastes the printed command on a fresh clone at the head and sees the regression again
    [command] = [ln for ln in run["output"]["text"].splitlines() if ln.startswith("witness-gate replay ")]
    assert command.startswith(f"witness-gate replay {stack.url}/records/")
    clone = tmp_path / "reviewer"
    subprocess.run(["git", "clone", "-q", "--branch", "patch", str(repo.path), str(clone)], check=True)
    pasted = subprocess.run(f"{command} --runs 2", shell=True, cwd=clone, capture_output=True, text=True,
                            timeout=120)
    assert pasted.returncode == 1, pasted.stdout + pasted.stderr
    assert "prop_double: 2 of 2 failed (reason double-wrong)" in pasted.stdout
    assert "agrees with the record" in pasted.stdout


def test_a_head_that_answers_only_the_pinned_inputs_is_a_regression_found_by_inputs_it_never_saw(stack, double,
                                                                                                 tmp_path):
    # right for exactly the pinned fixture's values, wrong everywhere else: the broader sample's inputs are drawn
    # from the App's own secret, so the head cannot know them
    known = "def double(x):\n    return x + x if -20 <= x < 20 else x + x + 1\n\ndef total(xs):\n    return sum(xs)\n"
    name, _ = make_pull(double, tmp_path, {"src/calc.py": known})
    run, _ = gate(stack, double, name)
    assert (run["conclusion"], run["output"]["title"]) == ("failure", "regression: prop_double"), run["output"]
    assert "failed on the head and passed on the base" in run["output"]["summary"], run["output"]["summary"][-3000:]
    record = requests.get(run["details_url"], timeout=5).json()
    [attempt] = [a for a in record["attempts"] if a["assertion_id"] == "prop_double"]
    attempt = requests.get(f"{stack.url}/records/{attempt['record_id']}", timeout=5).json()
    assert isinstance(attempt["broader_sample"]["exposed"], int) and len(attempt["broader_sample"]["seed"]) == 32
    assert any(not -20 <= x < 20 for x in attempt["witness"]["xs"]), attempt["witness"]


def test_a_flake_needs_a_person_and_proposes_a_freeze(stack, double, tmp_path):
    name, _ = make_pull(double, tmp_path, {"src/calc.py": GOOD + "\n# tidy\n"}, props=CALC_PROPS + COIN)
    run, _ = gate(stack, double, name)
    assert run["conclusion"] == "action_required", run["output"]
    assert run["output"]["title"] == "flake: prop_coin"
    assert "### proposed freeze: `prop_coin`" in run["output"]["text"]
    freeze = json.loads(run["output"]["text"].split("```json\n")[1].split("\n```")[0])
    assert freeze["state"] == "proposed" and freeze["assertion_id"] == "prop_coin"
    assert [a["identifier"] for a in run["actions"]] == ["replay", "accept_freeze"]
    record = requests.get(run["details_url"], timeout=5).json()
    [coin] = [a for a in record["attempts"] if a["assertion_id"] == "prop_coin"]
    attempt = requests.get(f"{stack.url}/records/{coin['record_id']}?download=1", timeout=5)
    assert attempt.headers["Content-Disposition"].startswith("attachment;")
    assert attempt.json()["freeze"]["witness_hash"] == freeze["witness_hash"]


SETUP_PROPS = CALC_PROPS.replace("from calc import double, total",
                                 "from calc import double, total\nfrom installed_helper import HELPER")


def test_the_heads_set_up_runs_in_the_sandbox_before_its_properties(stack, double, tmp_path):
    install = 'printf \\"HELPER = 1\\\\n\\" > \\"$WITNESS_ENV/installed_helper.py\\"'
    config = CONFIG + f'setup:\n  command: [sh, -c, "{install}"]\n'
    name, _ = make_pull(double, tmp_path, {"src/calc.py": GOOD + "\n# tidy\n"}, config=config, props=SETUP_PROPS)
    run, _ = gate(stack, double, name)
    assert run["conclusion"] == "success", run["output"]
    record = requests.get(run["details_url"], timeout=5).json()
    attempts = [requests.get(f"{stack.url}/records/{a['record_id']}", timeout=5).json() for a in record["attempts"]]
    # both property jobs used one environment: built by the first, reused by the second
    assert len({a["setup"]["key"] for a in attempts}) == 1
    assert sorted(a["setup"]["reused"] for a in attempts) == [False, True]

    config = CONFIG + 'setup:\n  command: [sh, -c, "echo no index for helper >&2; exit 2"]\n'
    name, _ = make_pull(double, tmp_path, {"src/calc.py": GOOD + "\n# tidy\n"}, config=config, props=SETUP_PROPS)
    run, _ = gate(stack, double, name)
    assert run["conclusion"] == "action_required"
    assert "(hold: setup_failed)" in run["output"]["summary"]
    assert "### set-up failed (exit:2): `sh -c echo no index for helper >&2; exit 2`" in run["output"]["text"]
    assert "```\nno index for helper\n```" in run["output"]["text"]


def test_each_worker_runs_evaluations_as_a_uid_of_its_own(stack, double, tmp_path):
    import os
    props = ('import os\nfrom witness_gate import contract\n\n@contract(invariant="shows its uid", domain="any")\n'
             'def prop_uid(fixture):\n    return "uid:%d" % os.getuid()\n')
    name, _ = make_pull(double, tmp_path, {"src/calc.py": GOOD + "\n# tidy\n"}, props=props)
    run, _ = gate(stack, double, name)
    record = requests.get(run["details_url"], timeout=5).json()
    [attempt] = [requests.get(f"{stack.url}/records/{a['record_id']}", timeout=5).json() for a in record["attempts"]]
    uid = int(attempt["reason"].split(":")[1])
    if os.geteuid() == 0:  # derived from the worker's name, in the range systemd leaves unused
        assert 0x70000000 <= uid < 0x71000000, attempt["reason"]


def test_a_mixed_edit_is_refused_before_anything_runs(stack, double, tmp_path):
    name, _ = make_pull(double, tmp_path, {"src/calc.py": BUGGY,
                                           "tests/properties/test_calc.py": CALC_PROPS + "\n# weaker\n"})
    run, _ = gate(stack, double, name)
    assert run["conclusion"] == "failure" and run["output"]["title"].startswith("mixed_edit")
    assert [a["path"] for a in run["annotations"]] == ["tests/properties/test_calc.py"]
    assert double.calls_to("POST", ".git/git-upload-pack") == []  # no code was fetched, so none ran


def test_a_change_of_ignored_paths_only_is_skipped_and_says_why(stack, double, tmp_path):
    # a README-only change ran every property once: the check run says skipped, and which paths, before anything runs
    config = CONFIG.replace("version: 1\n", 'version: 1\npaths:\n  ignore: ["**/*.md", "docs/"]\n')
    name, _ = make_pull(double, tmp_path, {"README.md": "calc, documented\n", "docs/guide.md": "how to double\n"},
                        config=config)
    run, _ = gate(stack, double, name)
    assert (run["conclusion"], run["output"]["title"]) == ("skipped", "only ignored paths changed"), run
    assert "matches `paths.ignore`" in run["output"]["summary"] and "`README.md`" in run["output"]["summary"]
    assert double.calls_to("POST", ".git/git-upload-pack") == []  # no code was fetched, so none ran


def test_a_fix_with_a_new_property_beside_it_is_judged_by_the_base_s_oracle(stack, double, tmp_path):
    # policy.new_tests: judge_by_base: an oracle file the change only adds cannot weaken a check
    name, _ = make_pull(double, tmp_path, {"src/calc.py": GOOD, "tests/properties/test_thirteen.py":
                                           "from calc import double\n\ndef prop_thirteen(fixture):\n"
                                           "    return double(13) == 26\n"}, base_files={"src/calc.py": BUGGY})
    run, _ = gate(stack, double, name)
    assert run["conclusion"] == "success", run["output"]
    summary = run["output"]["summary"]
    assert "| `prop_double` | pass |" in summary and "prop_thirteen" not in summary.split("new_oracle")[0], summary
    assert "new_oracle: this change adds tests/properties/test_thirteen.py" in summary, summary


def test_a_repository_s_own_pytest_tests_gate_a_pull_request(stack, double, tmp_path):
    tests = ("from calc import double\n\n\ndef test_double_small():\n    assert double(3) == 6\n\n\n"
             "def test_thirteen():\n    assert double(13) == 26\n")
    config = "version: 1\nproperties:\n  pytest: [tests/unit/]\npolicy:\n  runs: 3\n  timeout_seconds: 20\n"
    name, _ = make_pull(double, tmp_path, {"src/calc.py": BUGGY}, props=None, config=config,
                        base_files={"tests/unit/test_calc.py": tests})
    run, _ = gate(stack, double, name)
    assert run["conclusion"] == "failure" and run["output"]["title"].startswith("regression"), stack.logs()
    summary = run["output"]["summary"]
    assert "| `tests.unit.test_calc.test_thirteen` | regression |" in summary, summary
    assert "| `tests.unit.test_calc.test_double_small` | pass |" in summary, summary
    assert "assert 27 == 26" in json.dumps(run), run  # pytest's own message, from the judge


def test_an_oracle_only_change_needs_an_oracle_review(stack, double, tmp_path):
    name, _ = make_pull(double, tmp_path, {"tests/properties/test_calc.py": CALC_PROPS + "\n# reworded\n"})
    run, _ = gate(stack, double, name)
    assert run["conclusion"] == "action_required"
    assert run["output"]["title"].startswith("oracle_defect")


def test_a_broken_config_fails_with_its_line(stack, double, tmp_path):
    name, _ = make_pull(double, tmp_path, {"src/calc.py": BUGGY}, config="version: 1\npolicy:\n  runs: lots\n")
    run, _ = gate(stack, double, name)
    assert run["conclusion"] == "failure"
    assert "policy.runs: expected an integer >= 1, got 'lots'" in run["output"]["summary"]
    assert run["annotations"] == [{"path": ".witness.yml", "start_line": 3, "end_line": 3,
                                   "annotation_level": "failure", "message": "invalid .witness.yml on the base branch"}]


def test_a_repository_without_config_gets_no_check_run_and_no_comment(stack, double, tmp_path):
    # issue 14: a repository that never opted in hears nothing from the App (it was a neutral check run)
    name, _ = make_pull(double, tmp_path, {"src/calc.py": BUGGY}, config=None)
    assert stack.send("pull_request", pull_request_event(double, name, 7)).status_code == 202
    stack.wait_until(lambda: double.calls_to("GET", "/contents/.witness.yml"), what="the worker to look for a config")
    time.sleep(1)
    assert double.check_runs == {} and double.comments == []


def test_replay_from_a_writer_and_from_a_reader(stack, double, tmp_path):
    name, _ = make_pull(double, tmp_path, {"src/calc.py": GOOD + "\n# tidy\n"})
    _, head = gate(stack, double, name)
    refused = stack.send("issue_comment", comment_event(double, name, 7, "/witness replay", "visitor", comment_id=901))
    assert refused.status_code == 202
    stack.wait_until(lambda: double.comments, what="a reply to the reader")
    assert "needs write permission" in double.comments[0]["body"] and "`read`" in double.comments[0]["body"]
    accepted = stack.send("issue_comment", comment_event(double, name, 7, "Looks flaky.\n/witness replay",
                                                          "maintainer", comment_id=902))
    assert accepted.status_code == 202
    stack.wait_for_check(head, count=2)
    assert double.reactions == [{"comment_id": 902, "content": "eyes"}]
    assert len(double.runs_for(head)) == 2


def test_commands_in_quotes_code_or_by_the_bot_do_nothing(stack, double, tmp_path):
    name, _ = make_pull(double, tmp_path, {"src/calc.py": GOOD + "\n# tidy\n"})
    for body, author, kind in [("> /witness replay", "maintainer", "User"),
                               ("```\n/witness replay\n```", "maintainer", "User"),
                               ("/witness replay", f"{double.app_slug}[bot]", "Bot"),
                               ("please /witness replay", "maintainer", "User")]:
        response = stack.send("issue_comment", comment_event(double, name, 7, body, author, author_type=kind))
        assert response.status_code == 200, (body, response.text)


def test_githubs_rerun_button_gates_again(stack, double, tmp_path):
    name, _ = make_pull(double, tmp_path, {"src/calc.py": GOOD + "\n# tidy\n"})
    first, head = gate(stack, double, name)
    response = stack.send("check_run", check_run_event(double, name, 7, first, "rerequested", "maintainer"))
    assert response.status_code == 202
    second = stack.wait_for_check(head, count=2)
    assert second["id"] != first["id"] and second["conclusion"] == "success"


def test_a_new_push_supersedes_the_running_attempt(stack, double, tmp_path):
    slow = CONFIG.replace("runs: 20", "runs: 3")  # each evaluation of the first head takes a second
    name, repo = make_pull(double, tmp_path, {"src/calc.py": "import time\ntime.sleep(1)\n" + GOOD}, config=slow)
    old_head = double.sha(name, "patch")
    assert stack.send("pull_request", pull_request_event(double, name, 7)).status_code == 202
    stack.wait_until(lambda: double.runs_for(old_head), what="the first check run")
    repo.commit({"src/calc.py": GOOD + "\n# the fix\n"}, "second push")
    new_head = double.sha(name, "patch")
    assert stack.send("pull_request", pull_request_event(double, name, 7, "synchronize")).status_code == 202
    newest = stack.wait_for_check(new_head)
    assert newest["conclusion"] == "success", newest["output"]
    old = stack.wait_for_check(old_head, timeout=120)
    assert old["conclusion"] == "cancelled" and "superseded" in old["output"]["title"], old["output"]


def test_a_superseded_run_whose_completion_fails_still_ends_superseded(stack, double, tmp_path):
    # the old head's finish cannot PATCH its check run once (GitHub refuses: not retried), so the
    # failure path ends it: for a replaced head that is "superseded", never a fault that asks for a person
    slow = CONFIG.replace("runs: 20", "runs: 3")
    name, repo = make_pull(double, tmp_path, {"src/calc.py": "import time\ntime.sleep(1)\n" + GOOD}, config=slow)
    old_head = double.sha(name, "patch")
    assert stack.send("pull_request", pull_request_event(double, name, 7)).status_code == 202
    stack.wait_until(lambda: double.runs_for(old_head), what="the first check run")
    double.fail_next("PATCH", f"/check-runs/{double.runs_for(old_head)[0]['id']}", 422)
    repo.commit({"src/calc.py": GOOD + "\n# the fix\n"}, "second push")
    new_head = double.sha(name, "patch")
    assert stack.send("pull_request", pull_request_event(double, name, 7, "synchronize")).status_code == 202
    assert stack.wait_for_check(new_head)["conclusion"] == "success"
    old = stack.wait_for_check(old_head, timeout=120)
    assert old["conclusion"] == "cancelled" and "superseded" in old["output"]["title"], old["output"]
    assert [c.status for c in double.calls_to("PATCH", "/check-runs/")].count(422) == 1  # the fault was met


def test_signatures_size_and_duplicates(stack, double, tmp_path):
    name, _ = make_pull(double, tmp_path, {"src/calc.py": GOOD + "\n# tidy\n"})
    payload = pull_request_event(double, name, 7)
    assert stack.send("pull_request", payload, secret="wrong").status_code == 401
    raw = json.dumps(payload).encode()
    unsigned = requests.post(f"{stack.url}/webhook", data=raw, timeout=5,
                             headers={"X-GitHub-Event": "pull_request", "X-GitHub-Delivery": "d-unsigned"})
    assert unsigned.status_code == 401
    big = stack.send("pull_request", {}, body=b"{" + b" " * (26 * 1024 * 1024) + b"}")
    assert big.status_code == 413
    assert stack.send("pull_request", payload, delivery="same-delivery").status_code == 202
    assert stack.send("pull_request", payload, delivery="same-delivery").status_code == 200
    head = double.sha(name, "patch")
    stack.wait_for_check(head)
    time.sleep(1)
    assert len(double.runs_for(head)) == 1  # the repeat enqueued nothing
    assert stack.send("pull_request", {"action": "opened"}).status_code == 400
    assert stack.send("ping", {"zen": "Keep it logically awesome."}).status_code == 200
    assert stack.send("deployment", {"action": "created"}).status_code == 200


def test_healthz_and_records(stack):
    health = requests.get(f"{stack.url}/healthz", timeout=5).json()
    assert health == {"status": "ok", "redis": "ok", "database": "ok"}
    assert requests.get(f"{stack.url}/records/{'0' * 32}", timeout=5).status_code == 404
    assert requests.get(f"{stack.url}/records/../../etc/passwd", timeout=5).status_code == 404


def test_more_than_3000_changed_files_are_diffed_from_the_trees(stack, double, tmp_path):
    # GitHub's file list stops at 3,000; the oracle edit is the 3,001st path in its order
    many = {f"src/gen/m{i:04d}.py": f"X = {i}\n" for i in range(3000)}
    name, _ = make_pull(double, tmp_path, {**many, "tests/properties/test_calc.py": CALC_PROPS + "\n# weaker\n"})
    run, _ = gate(stack, double, name)
    assert run["conclusion"] == "failure" and run["output"]["title"].startswith("mixed_edit"), run["output"]
    assert double.calls_to("GET", "/compare/") and double.calls_to("POST", ".git/git-upload-pack")  # merge base and head fetched


def test_closing_the_pull_request_cancels_pending_work(stack, double, tmp_path):
    slow = CONFIG.replace("runs: 20", "runs: 3")
    name, _ = make_pull(double, tmp_path, {"src/calc.py": "import time\ntime.sleep(1)\n" + GOOD}, config=slow)
    head = double.sha(name, "patch")
    assert stack.send("pull_request", pull_request_event(double, name, 7)).status_code == 202
    stack.wait_until(lambda: double.runs_for(head), what="the check run")
    double.repos[name].pulls[7].state = "closed"
    assert stack.send("pull_request", pull_request_event(double, name, 7, "closed")).status_code == 202
    run = stack.wait_for_check(head)
    assert run["conclusion"] == "cancelled" and run["output"]["title"] == "pull request closed"


def test_an_api_error_mid_run_ends_the_check_run_with_a_replay_button(stack, double, tmp_path):
    name, _ = make_pull(double, tmp_path, {"src/calc.py": GOOD + "\n# tidy\n"})
    double.fail_next("GET", "/pulls/7/files", 403)
    run, _ = gate(stack, double, name)
    assert run["conclusion"] == "action_required"
    assert run["output"]["title"] == "witness-gate could not finish"
    assert "403" in run["output"]["summary"] and [a["identifier"] for a in run["actions"]] == ["replay"]


def test_a_pull_request_that_vanished_leaves_no_check_run_and_a_healthy_worker(stack, double, tmp_path):
    name, _ = make_pull(double, tmp_path, {"src/calc.py": GOOD + "\n# tidy\n"})
    payload = pull_request_event(double, name, 7)
    del double.repos[name].pulls[7]  # deleted (or the repository made private) after the event was sent
    assert stack.send("pull_request", payload).status_code == 202
    stack.wait_until(lambda: double.calls_to("GET", "/pulls/7"), what="the worker to ask for the pull request")
    time.sleep(1)
    assert double.check_runs == {}
    double.problems.clear()  # the 404 was the point
    double.open_pull(name, "patch", "main", 7)
    run, _ = gate(stack, double, name)  # the same workers still gate the next delivery
    assert run["conclusion"] == "success"


def drained(stack, response) -> bool:
    """The jobs a delivery's answer names have ended, and no job of this stack's queue is waiting, running,
    deferred or scheduled."""
    from rq import Queue
    from rq.job import Job
    from rq.serializers import JSONSerializer

    queue = Queue(stack.queue, connection=stack.redis, serializer=JSONSerializer)
    ids = response.json()["message"].removeprefix("enqueued ").split(", ")
    ended = all(Job.fetch(i, connection=stack.redis, serializer=JSONSerializer).is_finished for i in ids)
    return ended and (queue.count == 0 and queue.started_job_registry.count == 0
                      and queue.deferred_job_registry.count == 0 and queue.scheduled_job_registry.count == 0)


def test_an_older_synchronize_arriving_late_does_not_win(stack, double, tmp_path):
    """Issue 29, "What broke when it was tried as users and operators would", point 1: GitHub delivered the
    synchronize of an older head after the newer head's, and the late one superseded the newest head's run.

    Delivered back to back, the newer head's job recorded its head again after both, so the first version of
    this test passed on the commit before the fix (527168d) too; delivered after the newer head's run had
    completed, the stale head's job skipped and nothing changed, so it passed there as well. The late delivery
    now comes while the newer head is being gated (its check run exists, in progress): before the fix, that
    run ended cancelled, "superseded by a newer push"."""
    slow = "import time\ntime.sleep(0.5)\n" + GOOD  # gated for seconds: time for the late delivery
    name, repo = make_pull(double, tmp_path, {"src/calc.py": slow + "\n# first\n"})
    old_head = double.sha(name, "patch")
    old_payload = pull_request_event(double, name, 7, "synchronize")
    old_payload["pull_request"]["updated_at"] = "2026-11-30T10:00:00Z"
    repo.commit({"src/calc.py": slow + "\n# second\n"}, "second push")
    new_head = double.sha(name, "patch")
    new_payload = pull_request_event(double, name, 7, "synchronize")
    new_payload["pull_request"]["updated_at"] = "2026-11-30T10:05:00Z"
    assert stack.send("pull_request", new_payload).status_code == 202
    stack.wait_until(lambda: double.runs_for(new_head), what="the newer head's check run")  # it is being gated
    late = stack.send("pull_request", old_payload)  # delivered late
    assert late.status_code == 202, late.text
    assert double.runs_for(new_head)[0]["status"] == "in_progress"  # it came while the newer head was gated
    stack.wait_for_check(new_head)
    stack.wait_until(lambda: drained(stack, late), what="the late delivery's jobs and the queue")
    [run] = double.runs_for(new_head)
    assert run["status"] == "completed" and run["conclusion"] == "success", run["output"]  # not superseded
    old_runs = double.runs_for(old_head)
    assert len(old_runs) <= 1 and all(r["status"] == "completed" and r["conclusion"] != "success"
                                      for r in old_runs), old_runs


def test_two_replays_at_once_make_one_run(stack, double, tmp_path):
    import threading

    slow = "import time\ntime.sleep(0.5)\n" + GOOD
    name, _ = make_pull(double, tmp_path, {"src/calc.py": slow}, config=CONFIG.replace("runs: 20", "runs: 3"))
    _, head = gate(stack, double, name)
    sends = [threading.Thread(target=stack.send, args=("issue_comment", comment_event(
        double, name, 7, "/witness replay", "maintainer", comment_id=9100 + i))) for i in range(2)]
    for t in sends:
        t.start()
    for t in sends:
        t.join()
    stack.wait_for_check(head, count=2)
    time.sleep(3)
    assert len(double.runs_for(head)) == 2  # the first gate and exactly one replay
    assert len(double.reactions) == 2  # both people were heard


def test_a_replay_while_an_attempt_runs_never_overlaps_it(stack, double, tmp_path):
    slow = "import time\ntime.sleep(1)\n" + GOOD
    name, _ = make_pull(double, tmp_path, {"src/calc.py": slow}, config=CONFIG.replace("runs: 20", "runs: 3"))
    head = double.sha(name, "patch")
    assert stack.send("pull_request", pull_request_event(double, name, 7)).status_code == 202
    stack.wait_until(lambda: double.runs_for(head), what="the first check run")
    assert stack.send("issue_comment", comment_event(double, name, 7, "/witness replay", "maintainer",
                                                      comment_id=9300)).status_code == 202
    overlap, deadline = 0, time.time() + 90
    while time.time() < deadline:  # the replay waits for the running attempt; it never runs beside it
        runs = double.runs_for(head)
        overlap = max(overlap, sum(1 for r in runs if r["status"] == "in_progress"))
        if runs and all(r["status"] == "completed" for r in runs) and double.reactions:
            break
        time.sleep(0.05)
    time.sleep(2)  # a replay taken after the attempt ended gates again: let it finish too
    stack.wait_until(lambda: all(r["status"] == "completed" for r in double.runs_for(head)), what="every run")
    runs = double.runs_for(head)
    assert overlap == 1
    assert {r["conclusion"] for r in runs} == {"success"} and 1 <= len(runs) <= 2
    assert double.reactions == [{"comment_id": 9300, "content": "eyes"}]


REACHING = """import sys


def double(x):
    for module in list(sys.modules.values()):  # the shared harness's verdict, were it in this process
        if hasattr(module, "verdict_of"):
            module.verdict_of = lambda returned: ("pass", None)
    frame = sys._getframe()
    while frame is not None:
        frame = frame.f_back
    return 27
"""


def test_a_regression_that_reaches_for_the_harness_is_still_a_regression(stack, double, tmp_path):
    name, _ = make_pull(double, tmp_path, {"src/calc.py": REACHING})
    run, _ = gate(stack, double, name)
    assert run["conclusion"] == "failure", run["output"]
    assert run["output"]["title"] == "regression: prop_double"
    record = requests.get(run["details_url"], timeout=5).json()
    attempts = [requests.get(f"{stack.url}/records/{a['record_id']}", timeout=5).json() for a in record["attempts"]]
    assert {row["isolation"] for a in attempts for row in a["first_runs"]} == {"split-cold"}


TRICKS_CONFIG = CONFIG.replace("xs.json", "orders.json").replace("runs: 20", "runs: 3\n  min_reruns: 3")


@pytest.mark.parametrize("names", [sorted(TRICKS), ["winapi"]], ids=["together", "winapi"])
def test_every_trick_that_forged_a_pass_in_one_process_blocks_through_the_app(stack, double, tmp_path, names):
    # winapi plays in a pull request of its own: its src/_winapi.py would be every trick module's
    base, head = one_pull_of_every_trick(names)
    head.update(HOST_FILES)  # and files that once hung or crashed the gate on the host
    name, _ = make_pull(double, tmp_path, head, base_files=base, config=TRICKS_CONFIG, props=None)
    run, _ = gate(stack, double, name)
    assert run["conclusion"] == "failure", run["output"]
    record = requests.get(run["details_url"], timeout=5).json()
    attempts = {a["assertion_id"]: requests.get(f"{stack.url}/records/{a['record_id']}", timeout=5).json()
                for a in record["attempts"]}
    assert sorted(attempts) == [f"prop_{n}" for n in names]
    for assertion_id, attempt in attempts.items():
        assert attempt["label"] == "regression", (assertion_id, attempt["label"], attempt.get("notes"))
        assert attempt["reason"] in ("negative-total", "mutated_payload") or (
            assertion_id == "prop_enum_dunders" and attempt["reason"].startswith(("raise:TypeError@", "raise:NoContents@"))), attempt["reason"]
        assert {row["isolation"] for row in attempt["first_runs"]} == {"split-cold"}  # a pass could only come cold


# a wrong total that hides itself by changing the list it was handed: the property sums the list after the call
REWRITES_THE_PAYLOAD = "def double(x):\n    return x + x\n\ndef total(xs):\n    xs.append(5)\n    return sum(xs)\n"


def test_an_implementation_that_rewrites_the_payload_it_was_handed_is_a_regression(stack, double, tmp_path):
    name, _ = make_pull(double, tmp_path, {"src/calc.py": REWRITES_THE_PAYLOAD})
    run, _ = gate(stack, double, name)
    assert run["conclusion"] == "failure", run["output"]
    assert run["output"]["title"] == "regression: prop_total"
    assert "mutated_payload" in run["output"]["summary"]


YAML_PROPS = '''
import yaml
from calc import double
from witness_gate import contract

@contract(invariant="double(x) == x + x", domain="integers")
def prop_double(fixture):
    expected = yaml.safe_load("[" + ", ".join(str(x + x) for x in fixture["xs"]) + "]")
    return [double(x) for x in fixture["xs"]] == expected or "double-wrong"
'''


@pytest.mark.skipif(subprocess.run([Sandbox("bwrap").python, "-c", "import yaml"], check=False).returncode != 0,
                    reason="the sandbox's interpreter has no PyYAML installed")
def test_a_module_added_under_an_installed_package_s_name_cannot_answer_for_it(stack, double, tmp_path):
    # the regression and a `yaml` of the patch's: the judge's yaml is the installed one, whatever the patch adds
    name, _ = make_pull(double, tmp_path, {"src/calc.py": "def double(x):\n    return 27\n",
                                           "src/yaml.py": "def safe_load(text):\n    return [27] * (text.count(',') + 1)\n"},
                        props=YAML_PROPS)
    run, _ = gate(stack, double, name)
    assert run["conclusion"] == "failure", run["output"]
    assert run["output"]["title"] == "regression: prop_double"


def test_a_new_witness_yml_is_checked_beside_the_result_and_never_gates(stack, double, tmp_path):
    broken = CONFIG.replace("  runs: 20\n", "  runs: 20\n  retries: 3\n")  # an unknown key, at line 6
    name, _ = make_pull(double, tmp_path, {".witness.yml": broken})
    run, _ = gate(stack, double, name)
    assert "| `prop_double` | oracle_defect | 0/20 |" in run["output"]["summary"], run["output"]  # the base's runs
    assert "### the new `.witness.yml`" in run["output"]["text"]
    assert "policy.retries: unknown key" in run["output"]["text"]
    [note] = [a for a in run["annotations"] if a["path"] == ".witness.yml"]
    assert (note["start_line"], note["annotation_level"]) == (6, "warning")


def test_replay_with_a_count_answers_in_one_comment_and_respects_the_cap(stack, double, tmp_path):
    name, _ = make_pull(double, tmp_path, {"src/calc.py": BUGGY})
    _, head = gate(stack, double, name)
    over = stack.send("issue_comment", comment_event(double, name, 7, "/witness replay 51", "maintainer", comment_id=911))
    assert over.status_code == 202
    stack.wait_until(lambda: double.comments, what="the refusal")
    assert "51 replays is more than this repository allows (policy.max_runs: 50)" in double.comments[0]["body"]
    assert len(double.runs_for(head)) == 1  # refused: nothing ran again
    # fewer than policy.runs would gate on less evidence than every push gets (a rare failure passes more often)
    under = stack.send("issue_comment",
                       comment_event(double, name, 7, "/witness replay 1", "maintainer", comment_id=910))
    assert under.status_code == 202
    stack.wait_until(lambda: len(double.comments) >= 2, what="the refusal of fewer")
    assert "1 replays is fewer than every gate of this repository runs (policy.runs: 20)" in double.comments[1]["body"]
    assert len(double.runs_for(head)) == 1
    asked = stack.send("issue_comment", comment_event(double, name, 7, "/witness replay 23", "maintainer", comment_id=912))
    assert asked.status_code == 202
    again = stack.wait_for_check(head, count=2)
    assert "| `prop_double` | regression | 23/23 |" in again["output"]["summary"], again["output"]
    stack.wait_until(lambda: len(double.comments) >= 3, what="the answer")
    answer = double.comments[2]["body"]
    assert "replayed each failing witness 23 times" in answer
    assert "`prop_double`: 23 of 23 failed (double-wrong)" in answer
    assert len(double.comments) == 3  # one answer, not one per property or per replay


def test_a_failure_already_on_the_base_is_pre_existing_and_a_new_one_still_a_regression(stack, double, tmp_path):
    drops_negatives = "\ndef total(xs):\n    return sum(x for x in xs if x >= 0)\n"
    base_calc = "def double(x):\n    return x + x\n" + drops_negatives
    head_calc = "def double(x):\n    return 2 * x if x != 13 else 27\n" + drops_negatives
    name, _ = make_pull(double, tmp_path, {"src/calc.py": head_calc}, base_files={"src/calc.py": base_calc})
    run, _ = gate(stack, double, name)
    assert (run["conclusion"], run["output"]["title"]) == ("failure", "regression: prop_double"), run["output"]
    assert "| `prop_total` | pre_existing | 20/20 |" in run["output"]["summary"]
    base = double.sha(name, "main")
    assert f"pre_existing: 20 of 20 replays of the witness failed on the base {base[:12]}" in run["output"]["summary"]
