"""A fresh review's attacks on the base replays and the replays at once: each attack kept as a test that
fails without its defence, with a control that shows it landing when the defence is taken out."""

from collections import Counter

import pytest

from test_baseline import BASE_SUMS, F, HEAD_OFF_BY_ONE, ORDER, gate
import test_replay
from witness_gate import attempt, baseline
from witness_gate.attempt import Policy, run_attempt
from witness_gate.canonical import witness_hash
from witness_gate.runner import Evaluation, PropertyRunner
from witness_gate.sandbox import Sandbox, bwrap_works, stage_directory


def base_failing_its_pinned_payload_another_way(payload):
    """A base already red on the pinned payload for another reason (a known bug, a frozen flake), which also
    fails the wrong claims the head's shrink drifts onto: the head's own failure is not the base's."""
    return Evaluation("fail", "other-bug") if payload == ORDER else BASE_SUMS(payload)


def test_a_base_red_on_the_pinned_payload_for_another_reason_does_not_make_the_head_s_failure_pre_existing():
    result = gate(HEAD_OFF_BY_ONE, base_failing_its_pinned_payload_another_way)
    assert result.verdict.label == "regression", result.notes
    assert result.record["base"]["drifted_witness"] is not None  # shrunk again, not taken from the drift


def test_a_base_that_times_out_on_the_pinned_payload_does_not_make_the_head_s_failure_pre_existing():
    result = gate(HEAD_OFF_BY_ONE, lambda p: Evaluation("transport", "timeout") if p == ORDER else BASE_SUMS(p))
    assert result.verdict.label == "regression", result.notes


def test_control_taking_the_drifted_witness_whenever_the_pinned_payload_does_not_pass(monkeypatch):
    # the old rule: any pinned result but a pass kept the drifted witness, which the base fails the head's way
    real = baseline.replay_on_base

    def old_rule(evidence, payload, head, base, policy, sha, progress, base_candidate=None):
        rows = baseline.replay_series(evidence.witness, base, policy.runs, "replay-base", progress)
        pinned = [base(payload)]
        if pinned[-1].outcome != "pass":
            return baseline.BaseEvidence(sha, rows, pinned)
        return real(evidence, payload, head, base, policy, sha, progress, base_candidate)

    monkeypatch.setattr("witness_gate.session.replay_on_base", old_rule)
    assert gate(HEAD_OFF_BY_ONE, base_failing_its_pinned_payload_another_way).verdict.label == "pre_existing"


def base_flaky_on_what_it_has_seen():
    """A base that passes a wrong-looking input once, then fails it: a flaky base, steered to by a head that
    fails wherever the base happened to pass while shrinking again."""
    seen = Counter()

    def evaluate(payload):
        seen[witness_hash(payload)] += 1
        if payload == ORDER or seen[witness_hash(payload)] == 1:
            return BASE_SUMS(payload)
        return F

    return evaluate


def test_a_re_shrunk_witness_the_base_passed_once_is_never_pre_existing():
    result = gate(HEAD_OFF_BY_ONE, base_flaky_on_what_it_has_seen())
    assert result.record["base"]["drifted_witness"] is not None
    assert [r["outcome"] for r in result.record["base"]["replays"]] == ["fail"] * 5  # every replay on the base
    assert (result.verdict.label, result.verdict.hold_reasons) == ("hold", ["base_flaky:5/5"]), result.notes


def test_control_a_re_shrunk_witness_the_base_fails_on_every_replay_was_pre_existing(monkeypatch):
    monkeypatch.setattr(baseline.BaseEvidence, "drifted_hash", "", raising=False)  # no memory of the re-shrink
    real_init = baseline.BaseEvidence.__init__

    def forget(self, *args, **kwargs):
        real_init(self, *args, **kwargs)
        self.drifted_hash = ""

    monkeypatch.setattr(baseline.BaseEvidence, "__init__", forget)
    assert gate(HEAD_OFF_BY_ONE, base_flaky_on_what_it_has_seen()).verdict.label == "pre_existing"


ALONE = '''
import fcntl
import time


def total():
    # the regression shows only while no sibling replay holds a lock on the checkout's file (shared by all)
    with open(__file__) as me:
        try:
            fcntl.flock(me, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return True
        time.sleep(1)
        return False
'''


@pytest.fixture
def alone_fails(tmp_path, monkeypatch):
    # locks are refused in an evaluation now (tests/test_runner.py::test_cold_subjects_alive_at_once_cannot_count_each_
    # other); allowed here, they stand in for a channel between siblings nobody has found yet: the attempt's own
    # rule must hold whatever the channel
    from witness_gate import seccomp

    monkeypatch.setitem(seccomp.NOTICING, "x86_64", (72, {}))
    (tmp_path / "alone.py").write_text(ALONE)
    (tmp_path / "p.py").write_text("from alone import total\n\ndef prop_alone_fails(p):\n    return total()\n")
    runner = PropertyRunner(stage_directory(tmp_path), "p.py::prop_alone_fails", "1", Sandbox("bwrap"),
                            timeout_seconds=20, parallel=2)
    assert runner.parallel == 2
    yield runner
    runner.close()


@pytest.mark.skipif(bool(bwrap_works()), reason="bubblewrap cannot run here")
def test_replays_at_once_that_see_each_other_cannot_turn_a_regression_into_a_flake(alone_fails):
    evidence = run_attempt({}, alone_fails, Policy(runs=4))
    assert [row.outcome for row in evidence.first] == ["fail"]  # one at a time, it always fails
    assert [row.outcome for row in evidence.replays] == ["fail"] * 4  # a regression, replayed one at a time


@pytest.mark.skipif(bool(bwrap_works()), reason="bubblewrap cannot run here")
def test_control_replays_at_once_kept_as_they_came_make_the_regression_a_flake(alone_fails, monkeypatch):
    monkeypatch.setattr(attempt, "unanimous_failure", lambda _rows: True)  # every series at once is kept
    evidence = run_attempt({}, alone_fails, Policy(runs=4))
    assert "pass" in [row.outcome for row in evidence.replays]


def test_a_pull_request_moved_onto_another_base_is_gated_again():
    # open it against a branch that already fails (pre_existing, neutral), then retarget it at main: the head's
    # check run must be main's verdict, not the chosen branch's
    from bot.events import route
    from ghdouble.webhooks import app_payload

    moved = app_payload("pull_request.opened", action="edited")
    moved["changes"] = {"base": {"ref": {"from": "already-failing"}, "sha": {"from": "c" * 40}}}
    assert [job.func for job in route("pull_request", moved, "0f1e2d3c-bbbb").jobs] == ["worker.jobs.gate_pull_request"]
    retitled = app_payload("pull_request.opened", action="edited")
    retitled["changes"] = {"title": {"from": "wip"}}
    assert route("pull_request", retitled, "0f1e2d3c-cccc").jobs == []  # control: an edit that moves nothing


@pytest.fixture
def shared_cache(monkeypatch):
    """A cache the sandbox uid can reach (tmp_path is closed to it), as $WITNESS_CACHE."""
    import shutil
    import tempfile
    from pathlib import Path

    root = Path(tempfile.mkdtemp(prefix="witness-h2-cache-"))
    root.chmod(0o755)
    monkeypatch.setenv("WITNESS_CACHE", str(root))
    yield root
    shutil.rmtree(root, ignore_errors=True)


def test_a_record_cannot_plant_a_set_up_environment_in_the_shared_cache(git_repo, tmp_path, shared_cache):
    # the record's source.tree keys the replay's set-up: in the shared cache it would be the key of a patch that
    # `run` gates later (a patch digest is 64 hex digits too), which would then reuse what the replay built
    import json

    from conftest import run_cli
    from test_run import base_repo, gate as gate_run

    repo = base_repo(git_repo, "version: 1\nsetup:\n  command: [sh, -c, 'echo built > $WITNESS_ENV/marker']\n")
    repo.commit({"src/calc.py": "def double(x):\n    return 2 * x if x != 13 else 27\n"})
    assert gate_run(repo).returncode == 1
    [record_path] = (repo.path.parent / "out").glob("*/prop_double.attempt.json")
    record = json.loads(record_path.read_text())
    record["source"]["tree"] = "d" * 64  # what a later patch's digest is
    planted = tmp_path / "planted.attempt.json"
    planted.write_text(json.dumps(record))
    kept = set((shared_cache / "witness-envs").glob("*.json"))
    done = run_cli("replay", str(planted), "--runs", "1", cwd=repo.path)
    assert done.returncode == 1 and "1 of 1 failed" in done.stdout, done.stdout + done.stderr
    assert set((shared_cache / "witness-envs").glob("*.json")) == kept  # nothing new kept under its key


def serving(body: bytes):
    """A record server that answers every path with `body`, counting what it was asked."""
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    asked = []

    class Same(BaseHTTPRequestHandler):
        def do_GET(self):
            asked.append(self.path)
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Same)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, asked


def test_a_record_url_nested_without_end_is_refused_with_a_reason():
    from witness_gate.replaying import ReplayError, load

    server, _ = serving(b"[" * 200_000 + b"]" * 200_000)  # well under the size cap, far past the parser's depth
    try:
        with pytest.raises(ReplayError, match="nesting too deep"):
            load(f"http://127.0.0.1:{server.server_port}/records/1")
    finally:
        server.shutdown()


def test_a_run_record_that_names_itself_or_too_many_attempts_is_refused_before_it_is_fetched_on():
    import json

    from witness_gate.replaying import MAX_ATTEMPTS, ReplayError, load

    itself = json.dumps({"attempts": [{"record_id": "again", "label": "regression"}]}).encode()
    server, asked = serving(itself)  # every attempt it lists is this run record once more
    try:
        with pytest.raises(ReplayError, match="an attempt of the run is itself a run record"):
            load(f"http://127.0.0.1:{server.server_port}/records/run")
        assert len(asked) == 2
    finally:
        server.shutdown()
    many = json.dumps({"attempts": [{"record_id": f"a{i}", "label": "regression"} for i in range(MAX_ATTEMPTS + 1)]})
    server, asked = serving(many.encode())
    try:
        with pytest.raises(ReplayError, match=f"{MAX_ATTEMPTS + 1} attempts, more than a run has"):
            load(f"http://127.0.0.1:{server.server_port}/records/run")
        assert len(asked) == 1  # the run record only
    finally:
        server.shutdown()


def test_a_head_s_witness_yml_of_nested_aliases_is_refused_at_the_first_alias():
    # each line nine aliases of the one before: 9^n strings once a problem prints the value (9 lines: gigabytes
    # in the worker, outside any sandbox); four lines show the rule without the cost
    from witness_gate.config import Config
    from witness_gate.plan import review_head_config

    lines = ["version: 1", "bomb:", '  a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    lines += [f"  a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, 4)]
    lines += ["properties:", "  names: *a3"]
    review = review_head_config(Config(), "\n".join(lines).encode(), [".witness.yml"])
    [(line, problem)] = review.problems
    assert line == 4 and "an alias (*name) is not allowed here" in problem, review.problems


HIDES_ITS_BREAKAGE = '''#!/bin/sh
# the implementation, sourced by the property script, answers the listing itself: the broken one is left out
. ./src/impl.sh
'''
IMPL_THAT_LISTS = '''if [ "$WITNESS_LIST" = 1 ]; then echo total_ok; exit 0; fi
'''


@pytest.mark.skipif(bool(bwrap_works()), reason="bubblewrap cannot run here")
def test_a_listing_that_leaves_out_a_contracted_property_still_gates_it(tmp_path):
    from witness_gate.config import parse_config
    from witness_gate.discover import properties_of

    (tmp_path / "tests" / "properties").mkdir(parents=True)
    (tmp_path / "src").mkdir()
    (tmp_path / "tests" / "properties" / "run.sh").write_text(HIDES_ITS_BREAKAGE)
    (tmp_path / "src" / "impl.sh").write_text(IMPL_THAT_LISTS)
    config = parse_config("properties:\n  command: [sh, tests/properties/run.sh]\n  contracts:\n"
                          "    total_ok: {invariant: 'totals are >= 0', domain: 'invoices'}\n"
                          "    refund_ok: {invariant: 'a refund never exceeds its invoice', domain: 'invoices'}\n")
    targets = properties_of(stage_directory(tmp_path), config, Sandbox("bwrap"))
    assert [t.assertion_id for t in targets] == ["total_ok", "refund_ok"]  # the base's contract keeps it gated
    assert targets[1].contract is not None and not targets[1].holds


regressed = test_replay.regressed  # a fixture: a regression gated by `run`, and its attempt record


@pytest.fixture
def without_bwrap(tmp_path, monkeypatch):
    """A reviewer's machine with git but no bubblewrap on PATH."""
    import os
    import shutil

    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in ("git", "sh"):
        os.symlink(shutil.which(tool), bin_dir / tool)
    monkeypatch.setenv("PATH", str(bin_dir))


def test_replay_without_bubblewrap_refuses_to_run_the_record_s_code(regressed, without_bwrap):
    from conftest import run_cli

    repo, record = regressed
    done = run_cli("replay", str(record), "--runs", "1", cwd=repo.path)
    assert done.returncode == 2 and "bubblewrap (bwrap) is not installed" in done.stderr, done.stderr
    assert "--sandbox none" in done.stderr and "failed" not in done.stdout
    # control: the old default, auto, runs the head's code with no isolation at all (a warning only)
    done = run_cli("replay", str(record), "--runs", "1", "--sandbox", "auto", cwd=repo.path)
    assert done.returncode == 1 and "1 of 1 failed" in done.stdout
    assert "no filesystem or network isolation" in done.stderr


def test_a_huge_new_witness_yml_is_reviewed_in_a_bounded_answer():
    # 100,000 unknown keys were 100,000 problems (11 MB kept with the run and rendered), a long list one problem
    # that printed the whole value; a file past the cap is not parsed at all
    from witness_gate.config import Config
    from witness_gate.plan import HEAD_CONFIG_BYTES, PROBLEM_CHARS, REVIEW_PROBLEMS, review_head_config

    many = ("version: 1\n" + "".join(f"k{i}: 1\n" for i in range(2000))).encode()
    review = review_head_config(Config(), many, [".witness.yml"])
    assert len(review.problems) == REVIEW_PROBLEMS + 1 and "1950 more problems not shown" in review.problems[-1][1]
    long = ("version: 1\nproperties:\n  names: [" + ", ".join(["x"] * 5000) + "]\n").encode()
    [(_line, problem)] = review_head_config(Config(), long, [".witness.yml"]).problems
    assert len(problem) <= PROBLEM_CHARS
    [(_line, problem)] = review_head_config(Config(), b"#" * (HEAD_CONFIG_BYTES + 1), [".witness.yml"]).problems
    assert "more than a .witness.yml may hold" in problem
