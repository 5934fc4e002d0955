"""`replay RECORD`: a reviewer re-runs the exact evidence on their own machine with one command."""

import json
import subprocess
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from conftest import GitRepo, run_cli
from test_run import base_repo, gate
from witness_gate.model.outcomes import EXIT_BLOCK, EXIT_OK, EXIT_PERSON
from witness_gate.cli.replaying import Replayable, summarize
from witness_gate.model.evaluation import Evaluation

F, P, T = Evaluation("fail", "double-wrong"), Evaluation("pass"), Evaluation("transport", "timeout")
ITEM = Replayable("prop_double", "tests/properties/test_calc.py::prop_double", {"xs": [13]}, "ab" * 32, "17", 5,
                  reason="double-wrong", seen=(5, 5))


@pytest.mark.parametrize("rows, code, agrees", [
    ([F] * 5, EXIT_BLOCK, True),
    ([P] * 5, EXIT_OK, False),  # the record failed every time: a green replay does not tell its story
    ([F, P, F, P, P], EXIT_PERSON, False),
    ([F, F, F, F, T], EXIT_PERSON, False),  # a fault is not a pass
    ([Evaluation("fail", "other")] * 5, EXIT_BLOCK, False),  # failing for another reason
])
def test_the_exit_code_and_the_agreement_read_the_series(rows, code, agrees):
    summary = summarize(rows)
    assert summary.exit_code == code
    assert summary.agreement(ITEM).startswith("agrees") is agrees


def test_the_summary_line_names_count_reason_seed_and_witness():
    assert summarize([F, F, P]).line(ITEM) == (
        f"prop_double: 2 of 3 failed (reason double-wrong), seed 17, witness {'ab' * 6}")


@pytest.fixture
def regressed(git_repo: GitRepo):
    repo = base_repo(git_repo)
    repo.commit({"src/calc.py": "def double(x):\n    return 2 * x if x != 13 else 27\n"})
    done = gate(repo)
    assert done.returncode == 1
    [record] = (repo.path.parent / "out").glob("*/prop_double.attempt.json")
    repo.report = done.stdout
    return repo, record


def test_the_report_prints_the_command_and_pasting_it_replays(regressed):
    repo, record = regressed
    [line] = [ln.strip() for ln in repo.report.splitlines() if ln.strip().startswith("replay: ")]
    assert line == f"replay: witness-gate replay {record}"
    pasted = subprocess.run(line.removeprefix("replay: ") + " --runs 2", shell=True, cwd=repo.path,
                            capture_output=True, text=True, timeout=120)
    assert pasted.returncode == EXIT_BLOCK and "2 of 2 failed" in pasted.stdout, pasted.stdout + pasted.stderr


def test_a_reviewer_reproduces_a_regression_from_its_attempt_record(regressed):
    repo, record = regressed
    done = run_cli("replay", str(record), "--runs", "3", cwd=repo.path)
    assert done.returncode == EXIT_BLOCK, done.stdout + done.stderr
    seen = json.loads(record.read_text())
    assert (f"prop_double: 3 of 3 failed (reason double-wrong), seed {seen['seed']}, "
            f"witness {seen['witness_hash'][:12]}") in done.stdout
    assert "agrees with the record: the record saw 5 of 5 failed (reason double-wrong)" in done.stdout


def test_the_witness_file_replays_with_its_attempt_record_beside_it(regressed):
    repo, record = regressed
    [witness] = [p for p in record.parent.glob("prop_double.*.json") if not p.name.endswith(".attempt.json")]
    done = run_cli("replay", str(witness), "--runs", "2", cwd=repo.path)
    assert done.returncode == EXIT_BLOCK and "2 of 2 failed" in done.stdout, done.stdout + done.stderr


def test_a_directory_that_is_not_at_the_head_says_which_commit_to_check_out(regressed):
    repo, record = regressed
    head = repo.git("rev-parse", "HEAD").strip()
    repo.git("checkout", "-q", "main")
    done = run_cli("replay", str(record), cwd=repo.path)
    assert done.returncode == 2 and f"check out {head}" in done.stderr, done.stderr
    assert "failed" not in done.stdout  # nothing ran on the wrong code


def test_a_witness_edited_after_the_gate_wrote_it_is_refused(regressed, tmp_path):
    repo, record = regressed
    edited = json.loads(record.read_text())
    edited["witness"] = {"xs": [12]}
    (tmp_path / "edited.attempt.json").write_text(json.dumps(edited))
    done = run_cli("replay", str(tmp_path / "edited.attempt.json"), cwd=repo.path)
    assert done.returncode == 2 and "it was edited after the gate wrote it" in done.stderr


def test_the_record_url_of_the_app_replays_the_same_way(regressed):
    repo, record = regressed
    body = record.read_bytes()

    class Records(BaseHTTPRequestHandler):
        def do_GET(self):  # the App's record page answers JSON to Accept: application/json
            ok = self.path == "/records/abc" and "application/json" in self.headers.get("Accept", "")
            self.send_response(200 if ok else 404)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(body if ok else b"{}")

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Records)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/records/abc"
        done = run_cli("replay", url, "--runs", "2", cwd=repo.path)
    finally:
        server.shutdown()
    assert done.returncode == EXIT_BLOCK and "2 of 2 failed (reason double-wrong)" in done.stdout, done.stderr


def test_a_flake_replays_as_a_disagreement_exit_3(git_repo):
    repo = base_repo(git_repo, config="version: 1\npolicy:\n  runs: 12\n")
    repo.commit({"src/calc.py": "import os\n\ndef double(x):\n    return 2 * x + (os.urandom(1)[0] < 128)\n"})
    gate(repo)
    [record] = (repo.path.parent / "out").glob("*/prop_double.attempt.json")
    done = run_cli("replay", str(record), "--runs", "20", cwd=repo.path)  # all alike: 2 in a million
    assert done.returncode == EXIT_PERSON, done.stdout + done.stderr
    assert " of 20 failed (reason double-wrong)" in done.stdout


def hostile(record_path, tmp_path, **changes):
    record = json.loads(record_path.read_text())
    for dotted, value in changes.items():
        where = record
        *parents, last = dotted.split("__")
        for part in parents:
            where = where.setdefault(part, {})
        where[last] = value
    path = tmp_path / "hostile.attempt.json"
    path.write_text(json.dumps(record))
    return path


@pytest.mark.parametrize("changes, refusal", [
    ({"source__head_sha": "--output=/tmp/owned"}, "source.head_sha is not a git hash"),
    ({"source__base_sha": "HEAD~1"}, "source.base_sha is not a git hash"),
    ({"source__oracle_paths": ["--exec=sh"]}, "source.oracle_paths is not a list of path patterns"),
    ({"property_id": "/etc/passwd::prop_double@0"}, "is not <path in the repository>::<function>"),
    ({"property_id": "../../outside.py::prop_double@0"}, "is not <path in the repository>::<function>"),
    ({"seed": "17\u0000x"}, "is not printable text"),
    ({"policy__runs": 10**9}, "is not a count from 1 to 1000"),
    ({"policy__timeout_seconds": 10**9}, "is not a number of seconds up to 3600"),
])
def test_a_record_from_anywhere_is_checked_before_anything_reaches_git_or_the_sandbox(regressed, tmp_path, changes,
                                                                                      refusal):
    repo, record = regressed
    done = run_cli("replay", str(hostile(record, tmp_path, **changes)), cwd=repo.path)
    assert done.returncode == 2 and refusal in done.stderr, done.stderr
    assert not (tmp_path.parent / "owned").exists() and "failed" not in done.stdout
