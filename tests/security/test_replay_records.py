"""A hostile record handed to `witness-gate replay`: checked before anything reaches git or the sandbox, and never
planting what a later run reuses."""

import pytest

import test_replay


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
    from witness_gate.cli.replaying import ReplayError, load

    server, _ = serving(b"[" * 200_000 + b"]" * 200_000)  # well under the size cap, far past the parser's depth
    try:
        with pytest.raises(ReplayError, match="nesting too deep"):
            load(f"http://127.0.0.1:{server.server_port}/records/1")
    finally:
        server.shutdown()


def test_a_run_record_that_names_itself_or_too_many_attempts_is_refused_before_it_is_fetched_on():
    import json

    from witness_gate.cli.replaying import MAX_ATTEMPTS, ReplayError, load

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
