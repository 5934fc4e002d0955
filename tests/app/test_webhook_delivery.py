"""The receiver remembers a delivery only once its jobs are enqueued, so GitHub's redelivery of a failed one is taken."""

import json
import os
import uuid

import pytest
from redis import Redis
from redis.exceptions import ResponseError

from appcore.settings import Settings
from bot.signature import sign
from ghdouble.webhooks import app_payload

SECRET = b"delivery-secret"


def deliver(client, payload, delivery):
    body = json.dumps(payload).encode()
    return client.post("/webhook", data=body, headers={"X-GitHub-Event": "pull_request", "X-GitHub-Delivery": delivery,
                                                        "X-Hub-Signature-256": sign(SECRET, body)})


@pytest.fixture
def redis_url():
    url = os.environ.get("WITNESS_TEST_REDIS_URL", "redis://127.0.0.1:6379/9")
    try:
        Redis.from_url(url).ping()
    except Exception:  # noqa: BLE001 - no Redis here
        pytest.skip("no Redis to test against")
    return url


def test_a_delivery_whose_jobs_could_not_be_enqueued_is_taken_when_github_redelivers_it(redis_url, tmp_path):
    from bot.app import create_app

    admin = Redis.from_url(redis_url)
    user, password, queue = f"no-push-{uuid.uuid4().hex[:8]}", uuid.uuid4().hex, f"delivery-{uuid.uuid4().hex[:8]}"
    # a real Redis that refuses the queue's push half-way through a delivery: the fault between "seen" and "enqueued"
    try:
        admin.execute_command("ACL", "SETUSER", user, "on", f">{password}", "~*", "&*", "+@all", "-rpush", "-lpush")
    except ResponseError:
        pytest.skip("this Redis has no ACLs")
    host, db = redis_url.split("//", 1)[1].split("/", 1)
    limited = f"redis://{user}:{password}@{host}/{db}"
    common = dict(database_url=f"sqlite:///{tmp_path / 'w.db'}", queue=queue)
    failing = create_app(Settings("1", "-----BEGIN RSA PRIVATE KEY-----\n", SECRET, redis_url=limited, **common))
    working = create_app(Settings("1", "-----BEGIN RSA PRIVATE KEY-----\n", SECRET, redis_url=redis_url, **common))
    payload, delivery = app_payload("pull_request.opened"), f"redelivered-{uuid.uuid4()}"
    try:
        down = deliver(failing.test_client(), payload, delivery)
        assert down.status_code == 503 and "redeliver" in down.get_json()["message"]
        assert admin.llen(f"rq:queue:{queue}") == 0
        again = deliver(working.test_client(), payload, delivery)  # GitHub's redelivery: the same id
        assert again.status_code == 202, again.get_json()
        assert admin.llen(f"rq:queue:{queue}") == 1
        assert deliver(working.test_client(), payload, delivery).status_code == 200  # and only once
    finally:
        admin.execute_command("ACL", "DELUSER", user)
        for key in admin.scan_iter(f"rq:*{queue}*"):
            admin.delete(key)
        admin.delete(f"witness:delivery:{delivery}")
