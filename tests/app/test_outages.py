"""Redis and the database going away under the receiver: nothing accepted is lost, nothing is faked.

Choice: while Redis is down the receiver answers 503 and records nothing, so GitHub marks the
delivery failed and it can be redelivered (same X-GitHub-Delivery) once Redis is back; the
receiver never touches the database on the webhook path, so a database outage does not stop
deliveries (the workers and /healthz report it).
"""

import json
import shutil
import socket
import subprocess
import time
import uuid

import pytest
from redis import Redis

from appcore.settings import Settings
from bot.signature import sign

SECRET = b"outage-secret"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def private_redis(tmp_path):
    """A Redis of our own on its own port, so that stopping it stops nobody else."""
    binary = shutil.which("redis-server")
    if binary is None:
        pytest.skip("redis-server is not installed here")
    port = free_port()

    def start():
        proc = subprocess.Popen([binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly",
                                 "no", "--dir", str(tmp_path)], stdout=subprocess.DEVNULL)
        for _ in range(100):
            try:
                Redis(port=port).ping()
                return proc
            except Exception:  # noqa: BLE001 - not up yet
                time.sleep(0.05)
        raise RuntimeError("redis-server did not start")

    state = {"proc": start()}
    yield port, state, start
    state["proc"].kill()
    state["proc"].wait()


def deliver(client, delivery):
    body = json.dumps({"action": "opened", "pull_request": {"number": 3, "head": {"sha": "a" * 40},
                                                            "base": {"sha": "b" * 40}},
                       "repository": {"full_name": "o/r", "id": 9}, "installation": {"id": 7}}).encode()
    return client.post("/webhook", data=body, headers={"X-GitHub-Event": "pull_request", "X-GitHub-Delivery": delivery,
                                                        "X-Hub-Signature-256": sign(SECRET, body)})


def test_redis_down_means_503_and_a_redelivery_is_accepted_later(private_redis, tmp_path):
    from bot.app import create_app

    port, state, start = private_redis
    settings = Settings("1", "-----BEGIN RSA PRIVATE KEY-----\n", SECRET, redis_url=f"redis://127.0.0.1:{port}/0",
                        database_url=f"sqlite:///{tmp_path / 'w.db'}", queue="outage")
    client = create_app(settings).test_client()
    assert deliver(client, "first").status_code == 202

    state["proc"].kill()
    state["proc"].wait()
    down = deliver(client, "during-outage")
    assert down.status_code == 503 and "redeliver" in down.get_json()["message"]
    health = client.get("/healthz")
    assert health.status_code == 503 and health.get_json()["redis"].startswith("unreachable")

    state["proc"] = start()  # Redis comes back empty (this one keeps nothing on disk)
    assert deliver(client, "during-outage").status_code == 202  # GitHub's redelivery: same id, now accepted
    assert deliver(client, "during-outage").status_code == 200  # and only once
    redis = Redis(port=port)
    assert redis.llen("rq:queue:outage") == 1


def test_a_database_outage_does_not_stop_deliveries(tmp_path):
    from bot.app import create_app

    db_dir = tmp_path / "db"
    db_dir.mkdir()
    queue = f"outage-{uuid.uuid4().hex[:8]}"
    settings = Settings("1", "-----BEGIN RSA PRIVATE KEY-----\n", SECRET, redis_url="redis://127.0.0.1:6379/9",
                        database_url=f"sqlite:///{db_dir / 'w.db'}", queue=queue)
    client = create_app(settings).test_client()
    shutil.rmtree(db_dir)  # the database is gone
    client.application.extensions["witness"]["store"].engine.dispose()  # and its open connections with it
    assert deliver(client, f"db-down-{uuid.uuid4()}").status_code == 202
    health = client.get("/healthz")
    assert health.status_code == 503 and health.get_json()["database"].startswith("unreachable")
    redis = Redis.from_url("redis://127.0.0.1:6379/9")
    assert redis.llen(f"rq:queue:{queue}") == 1
    for key in redis.scan_iter(f"rq:*{queue}*"):
        redis.delete(key)


def test_the_record_store_going_away_mid_run_still_ends_the_check_run(tmp_path, github_double):
    """The workers lose the database while properties run: the check run ends from what the jobs carry."""
    import os

    from appstack import AppStack, pull_request_event
    from test_app import CONFIG, GOOD, make_pull

    github_double.reset()
    db = tmp_path / "store" / "w.db"
    db.parent.mkdir()
    stack = AppStack(tmp_path, github_double, db_url=f"sqlite:///{db}").start()
    try:
        slow = "import time\ntime.sleep(1)\n" + GOOD
        name, _ = make_pull(github_double, tmp_path, {"src/calc.py": slow}, config=CONFIG.replace("runs: 20", "runs: 3"))
        head = github_double.sha(name, "patch")
        assert stack.send("pull_request", pull_request_event(github_double, name, 7)).status_code == 202
        # the gate job has fanned out once its properties are running (each evaluation takes a second)
        stack.wait_until(lambda: len(github_double.calls_to("GET", "/contents/tests/fixtures")) >= 1,
                         what="a property job to start")
        os.rename(db, db.with_suffix(".gone"))  # new connections find an empty file: no tables, no records
        run = stack.wait_for_check(head, timeout=90)
        assert run["conclusion"] == "action_required"
        assert "record store is unreachable" in run["output"]["summary"]
    finally:
        if db.with_suffix(".gone").exists():
            db.unlink(missing_ok=True)
            os.rename(db.with_suffix(".gone"), db)
        stack.stop()
