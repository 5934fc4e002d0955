"""Shared fixtures: the services a run owns, git repositories built in the test, and the CLI run as a real process.
The suite is in folders by behaviour (model/, rules/, config/, shrink/, pipeline/, sandbox/, setup/, records/, cli/,
app/, security/, published/, house/); helpers are in support/."""

import json
import os
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# the tests paste `witness-gate …` commands as a reviewer would: the console script beside this interpreter answers
# them, whether the suite runs through scripts/test.sh (which puts .venv/bin on PATH) or as `.venv/bin/python -m pytest`
if (Path(sys.executable).parent / "witness-gate").exists():
    os.environ["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
# helpers live in tests/support/; a few test modules share their set-ups with others (`from test_app import gate`):
# every folder of the suite is on the path, so a test module's imports never depend on which file ran first
_TESTS = Path(__file__).resolve().parent
sys.path[:0] = [str(_TESTS / "support"), str(_TESTS)] + sorted(
    str(folder) for folder in _TESTS.iterdir() if folder.is_dir() and any(folder.glob("test_*.py")))

_SERVICES: dict = {}


def pytest_configure(config):
    """Every run owns its services: a Redis of its own on a free port, and a fresh PostgreSQL database
    when WITNESS_TEST_DATABASE_URL names a server, so two runs on one machine never touch each other's data."""
    import shutil
    import tempfile
    import time
    import uuid

    if getattr(config.option, "numprocesses", None) and not hasattr(config, "workerinput"):
        return  # under pytest-xdist each worker owns its services; the controller runs no test
    # a TMPDIR of this run's own: the staged checkouts and sandboxes' folders its tests leave go with it
    _SERVICES["tmp"] = tempfile.mkdtemp(prefix="witness-tests-")
    os.chmod(_SERVICES["tmp"], 0o755)  # the sandbox uid traverses it to the staged copies
    os.environ["TMPDIR"] = _SERVICES["tmp"]
    tempfile.tempdir = None  # read again from TMPDIR
    worker = getattr(config, "workerinput", {}).get("workerid")
    if worker and os.geteuid() == 0 and not os.environ.get("WITNESS_SANDBOX_UID"):
        from witness_gate.sandbox.staging import worker_uid

        # two workers' sandboxes under one uid would share a process limit and see each other's leftovers
        os.environ["WITNESS_SANDBOX_UID"] = str(worker_uid(f"pytest-{worker}-{os.getpid()}"))
    if not os.environ.get("WITNESS_TEST_REDIS_URL") and shutil.which("redis-server"):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        folder = tempfile.mkdtemp(prefix="witness-test-redis-")
        # daemonized before any evaluation makes this process a subreaper: a child of ours would be
        # ended by the gate's end_leftovers() after the first evaluation run in this process
        subprocess.run(["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly",
                        "no", "--dir", folder, "--daemonize", "yes", "--pidfile", f"{folder}/redis.pid"],
                       check=True, stdout=subprocess.DEVNULL)
        for _ in range(200):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                time.sleep(0.05)
        _SERVICES["redis"] = folder
        os.environ["WITNESS_TEST_REDIS_URL"] = f"redis://127.0.0.1:{port}/9"
    url = os.environ.get("WITNESS_TEST_DATABASE_URL", "")
    if url.startswith("postgresql") and "witness_run_" not in url:
        from sqlalchemy import create_engine, text

        name = f"witness_run_{uuid.uuid4().hex[:12]}"
        server = create_engine(url, isolation_level="AUTOCOMMIT")
        with server.connect() as conn:
            conn.execute(text(f'CREATE DATABASE "{name}"'))
        server.dispose()
        _SERVICES["database"] = (url, name)
        os.environ["WITNESS_TEST_DATABASE_URL"] = url.rsplit("/", 1)[0] + "/" + name


def pytest_unconfigure(config):
    import shutil
    import tempfile

    if "redis" in _SERVICES:
        import signal

        folder = _SERVICES.pop("redis")
        try:
            os.kill(int(Path(folder, "redis.pid").read_text()), signal.SIGTERM)
        except (OSError, ValueError):
            pass
        shutil.rmtree(folder, ignore_errors=True)
    if "database" in _SERVICES:
        from sqlalchemy import create_engine, text

        url, name = _SERVICES.pop("database")
        server = create_engine(url, isolation_level="AUTOCOMMIT")
        with server.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        server.dispose()
    if "tmp" in _SERVICES:
        shutil.rmtree(_SERVICES.pop("tmp"), ignore_errors=True)
        tempfile.tempdir = None


class GitRepo:
    def __init__(self, path: Path) -> None:
        self.path = path
        path.mkdir(parents=True, exist_ok=True)
        self.git("init", "-q", "-b", "main")
        self.git("config", "user.name", "Test")
        self.git("config", "user.email", "test@example.invalid")

    def git(self, *args: str) -> str:
        return subprocess.run(["git", "-C", str(self.path), *args], check=True, capture_output=True,
                              text=True).stdout.strip()

    def write(self, files: dict) -> None:
        for rel, content in files.items():
            target = self.path / rel
            if content is None:
                target.unlink()
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, (dict, list)):
                content = json.dumps(content, indent=1)
            target.write_text(content)

    def commit(self, files: dict, message: str = "change") -> str:
        self.write(files)
        self.git("add", "-A")
        self.git("commit", "-q", "-m", message)
        return self.git("rev-parse", "HEAD")


@pytest.fixture(scope="session", autouse=True)
def record_key(tmp_path_factory):
    """Records written by `check`/`run` are sealed with a key outside the checkout: one per test run, never ~/.config."""
    path = tmp_path_factory.mktemp("record-key") / "record.key"
    before = os.environ.get("WITNESS_RECORD_KEY_FILE")
    os.environ["WITNESS_RECORD_KEY_FILE"] = str(path)
    yield path
    if before is None:
        os.environ.pop("WITNESS_RECORD_KEY_FILE", None)
    else:
        os.environ["WITNESS_RECORD_KEY_FILE"] = before


@pytest.fixture
def git_repo(tmp_path):
    return GitRepo(tmp_path / "repo")


def run_cli(*args: str, cwd: Path, timeout: float = 300) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "witness_gate", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=timeout)


@pytest.fixture(scope="session")
def github_double():
    """One GitHub double for the whole run; tests reset it."""
    from ghdouble.double import GitHubDouble

    double = GitHubDouble().start()
    yield double
    double.stop()


@pytest.fixture(scope="module")
def stack(tmp_path_factory, github_double, request):
    """The App as in production (gunicorn, rq workers, Redis, a database), one per test module.

    A module sets ADMIN_TOKEN to turn the admin pages on.
    """
    from appstack import AppStack

    app = AppStack(tmp_path_factory.mktemp("app"), github_double,
                   admin_token=getattr(request.module, "ADMIN_TOKEN", "")).start()
    yield app
    app.stop()


@pytest.fixture
def double(github_double):
    """The shared GitHub double, emptied; a test fails if it saw a request GitHub would refuse."""
    github_double.reset()
    yield github_double
    assert github_double.problems == [], "the double saw requests GitHub would refuse"


class TcpServer:
    """A TCP server on a free port that hands each connection to `handle` in a thread of its own."""

    def __init__(self, handle, host: str = "0.0.0.0") -> None:
        self.server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.server.bind((host, 0))
        self.server.listen(16)
        self.port = self.server.getsockname()[1]
        self.reached = []  # the address of every connection, in order
        self.handle = handle
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                conn, addr = self.server.accept()
            except OSError:
                return
            self.reached.append(addr)
            threading.Thread(target=self.handle, args=(conn,), daemon=True).start()

    def close(self) -> None:
        self.server.close()


@pytest.fixture(scope="module")
def listener():
    """A TCP listener on every host address; it records whoever reaches it."""
    server = TcpServer(lambda conn: conn.close())
    yield server.port, server.reached
    server.close()


def host_ip() -> str:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("10.255.255.255", 1))  # no packet is sent: this only picks a route
            return probe.getsockname()[0]
        except OSError:
            return socket.gethostbyname(socket.gethostname())
