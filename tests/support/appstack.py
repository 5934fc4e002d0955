"""The App as it runs in production, for end-to-end tests: gunicorn, rq workers, Redis, a database, the GitHub double."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

import requests
from redis import Redis

from bot.signature import sign
from ghdouble.double import GitHubDouble
from witness_gate.records.store import Store

ROOT = Path(__file__).resolve().parents[2]
REDIS_URL = os.environ.get("WITNESS_TEST_REDIS_URL", "redis://127.0.0.1:6379/9")
SECRET = "It's a Secret to Everybody"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def database_url(tmp: Path) -> str:
    """PostgreSQL when the environment names one (CI), else SQLite in the test's folder."""
    return os.environ.get("WITNESS_TEST_DATABASE_URL") or f"sqlite:///{tmp / 'witness.db'}"


class AppStack:
    def __init__(self, tmp: Path, double: GitHubDouble, workers: int = 2, admin_token: str = "",
                 db_url: str = "") -> None:
        self.tmp = tmp
        self.double = double
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.queue = f"witness-test-{uuid.uuid4().hex[:8]}"
        self.db_url = db_url or database_url(tmp)
        # checkouts live where the sandbox uid can traverse, as under /tmp in production
        self.cache = tempfile.mkdtemp(prefix="witness-cache-")
        os.chmod(self.cache, 0o755)
        self.tmpdir = tempfile.mkdtemp(prefix="witness-tmp-")  # the processes' own TMPDIR: what they leave shows
        os.chmod(self.tmpdir, 0o755)
        key = tmp / "app.pem"
        key.write_text(double.private_key_pem)
        self.env = {
            **os.environ,
            "PYTHONPATH": str(ROOT),
            "GITHUB_APP_ID": str(double.app_id),
            "GITHUB_PRIVATE_KEY_PATH": str(key),
            "GITHUB_WEBHOOK_SECRET": SECRET,
            "GITHUB_API_URL": double.url,
            "GITHUB_APP_SLUG": double.app_slug,
            "REDIS_URL": REDIS_URL,
            "DATABASE_URL": self.db_url,
            "WITNESS_PUBLIC_URL": self.url,
            "WITNESS_QUEUE": self.queue,
            "WITNESS_CACHE": self.cache,
            "TMPDIR": self.tmpdir,
            "WITNESS_ADMIN_TOKEN": admin_token,
            # GitHub faults are retried quickly in tests; production waits a second, then doubles
            "WITNESS_GITHUB_BACKOFF": "0.05",
            "WITNESS_GITHUB_TIMEOUT": "2",
            # a loaded CI machine once dropped one request to the double besides the 3 injected faults: a spare
            # try keeps that from using up the last one (production keeps 4)
            "WITNESS_GITHUB_ATTEMPTS": "6",
        }
        self.env.pop("WITNESS_SANDBOX_UID", None)  # each worker derives a uid of its own, as in production
        self.redis = Redis.from_url(REDIS_URL)
        self.store = Store(self.db_url)
        self.procs: list[subprocess.Popen] = []
        self.workers = workers

    def start(self) -> "AppStack":
        self.redis.flushdb()
        self.store.drop_schema()
        self.store.create_schema()
        logs = self.tmp / "logs"
        logs.mkdir(exist_ok=True)
        self.procs.append(subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "--bind", f"127.0.0.1:{self.port}", "--workers", "2",
             "--timeout", "30", "bot.app:create_app()"],
            cwd=ROOT, env=self.env, stdout=open(logs / "web.log", "w"), stderr=subprocess.STDOUT))
        for i in range(self.workers):
            self.procs.append(subprocess.Popen(
                [sys.executable, "-m", "rq.cli", "worker", self.queue, "--url", REDIS_URL, "--serializer", "json",
                 "--name", f"{self.queue}-{i}", "--worker-ttl", "30", "--with-scheduler",
                 "--worker-class", "worker.preload.Worker"],
                cwd=ROOT, env=self.env, stdout=open(logs / f"worker-{i}.log", "w"), stderr=subprocess.STDOUT))
        deadline = time.time() + 30
        while time.time() < deadline:
            try:
                if requests.get(f"{self.url}/healthz", timeout=1).status_code == 200:
                    return self
            except requests.RequestException:
                time.sleep(0.2)
        raise RuntimeError("the receiver did not start:\n" + self.logs())

    def restart_workers(self) -> None:
        """Start rq workers again after a test killed some (the receiver keeps running)."""
        alive = [p for p in self.procs if p.poll() is None]
        dead = [p for p in self.procs if p.poll() is not None]
        self.procs = alive
        for i, _ in enumerate(dead):
            self.procs.append(subprocess.Popen(
                [sys.executable, "-m", "rq.cli", "worker", self.queue, "--url", REDIS_URL, "--serializer", "json",
                 "--name", f"{self.queue}-r{i}-{uuid.uuid4().hex[:4]}", "--worker-ttl", "30", "--with-scheduler",
                 "--worker-class", "worker.preload.Worker"],
                cwd=ROOT, env=self.env, stdout=open(self.tmp / "logs" / f"worker-r{i}.log", "w"),
                stderr=subprocess.STDOUT))

    def stop(self) -> None:
        for proc in self.procs:
            proc.terminate()
        for proc in self.procs:
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
        self.redis.flushdb()
        self.store.drop_schema()
        self.store.engine.dispose()
        shutil.rmtree(self.cache, ignore_errors=True)
        shutil.rmtree(self.tmpdir, ignore_errors=True)

    def logs(self) -> str:
        return "\n".join(f"--- {p.name}\n{p.read_text()[-4000:]}" for p in sorted((self.tmp / "logs").glob("*.log")))

    def send(self, event: str, payload: dict[str, Any], *, delivery: str | None = None,
             secret: str = SECRET, body: bytes | None = None) -> requests.Response:
        raw = body if body is not None else json.dumps(payload).encode()
        headers = {"X-GitHub-Event": event, "X-GitHub-Delivery": delivery or str(uuid.uuid4()),
                   "X-Hub-Signature-256": sign(secret.encode(), raw), "Content-Type": "application/json"}
        return requests.post(f"{self.url}/webhook", data=raw, headers=headers, timeout=10)

    def wait_for_check(self, head_sha: str, *, timeout: float = 120, count: int = 1) -> dict[str, Any]:
        """The newest completed witness-gate check run for `head_sha` once `count` have completed."""
        deadline = time.time() + timeout
        while time.time() < deadline:
            done = [r for r in self.double.runs_for(head_sha) if r["status"] == "completed"]
            if len(done) >= count:
                return done[-1]
            time.sleep(0.2)
        raise AssertionError(f"no completed check run for {head_sha[:12]} in {timeout}s; runs: "
                             f"{self.double.runs_for(head_sha)}\n{self.logs()}")

    def wait_until(self, predicate, timeout: float = 60, what: str = "condition") -> None:
        deadline = time.time() + timeout
        while time.time() < deadline:
            if predicate():
                return
            time.sleep(0.2)
        raise AssertionError(f"timed out waiting for {what}\n{self.logs()}")


# -- payloads: GitHub's own examples, adjusted to the double (ghdouble/webhooks.py) -------------------
from ghdouble.webhooks import (check_run_event, check_suite_event, comment_event, merge_group_event,  # noqa: E402
                               pull_request_event)

__all__ = ["AppStack", "check_run_event", "check_suite_event", "comment_event", "merge_group_event",
           "pull_request_event"]
