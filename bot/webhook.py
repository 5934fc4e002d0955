"""POST /webhook: verify, record and enqueue — nothing else, within GitHub's ten seconds."""

from __future__ import annotations

import json
import logging

from flask import Blueprint, Response, request
from redis.exceptions import RedisError

from appcore import jobspec
from appcore.jobspec import MARK_HEAD_LUA, BadPayload, head_key
from bot import signature
from bot.answers import answer, wired
from bot.events import route

DELIVERY_TTL = 7 * 24 * 3600  # a manual redelivery keeps its id; a week covers it
CLAIM_TTL = 60  # a delivery being enqueued: a copy arriving meanwhile waits for GitHub's redelivery
log = logging.getLogger("witness_gate.bot")
webhook = Blueprint("webhook", __name__)


@webhook.post("/webhook")
def receive() -> tuple[Response, int]:
    settings, redis, queue = wired("settings"), wired("redis"), wired("queue")
    body = request.get_data(cache=False)  # raises 413 past MAX_CONTENT_LENGTH, before any parsing
    if not signature.verify(settings.webhook_secret, body, request.headers.get("X-Hub-Signature-256")):
        return answer(401, "bad or missing X-Hub-Signature-256")
    event = request.headers.get("X-GitHub-Event", "")
    delivery = request.headers.get("X-GitHub-Delivery", "")
    if not event or not delivery:
        return answer(400, "X-GitHub-Event and X-GitHub-Delivery are required")
    try:
        payload = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        return answer(400, "the body is not JSON")
    if not isinstance(payload, dict):
        return answer(400, "the body is not a JSON object")
    try:
        routed = route(event, payload, delivery, settings.app_slug)
    except BadPayload as exc:
        log.warning("delivery %s: %s", delivery, exc)
        return answer(400, str(exc))
    if not routed.jobs:
        return answer(200, routed.note)
    seen = f"witness:delivery:{delivery}"
    try:
        if not redis.set(seen, "enqueueing", nx=True, ex=CLAIM_TTL):
            return answer(200, f"delivery {delivery} was seen before; nothing enqueued")
        with redis.pipeline() as pipe:  # one transaction: the jobs, the heads and the delivery, or none of them
            for job in routed.jobs:  # RQ wants the pipeline fresh, so its commands go first
                queue.enqueue(job.func, kwargs=job.kwargs, job_id=job.job_id, description=f"{event} {delivery}",
                              failure_ttl=7 * 24 * 3600, on_failure=_failure_callback(job.func), pipeline=pipe)
            for target, sha, at in routed.heads:
                pipe.eval(MARK_HEAD_LUA, 1, head_key(target), at, sha)
            pipe.set(seen, event, ex=DELIVERY_TTL)  # remembered only with its jobs, so a redelivery is taken
            pipe.execute()
    except RedisError as exc:
        log.error("delivery %s: not enqueued: %s", delivery, exc)
        _release(redis, seen)
        return answer(503, "the queue is unavailable; redeliver this webhook later")
    return answer(202, f"enqueued {', '.join(j.job_id for j in routed.jobs)}")


def _release(redis, seen: str) -> None:
    """Forget a delivery that was not enqueued, so GitHub's redelivery is taken (else its claim expires)."""
    try:
        redis.delete(seen)
    except RedisError:
        pass


def _failure_callback(func: str):
    from rq.job import Callback

    # every job that can leave a check run in progress ends it when it fails
    return Callback(jobspec.ON_FAILURE) if func.startswith("worker.jobs.") else None
