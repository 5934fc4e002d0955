"""The receiver: `create_app()` wires settings, Redis, the record store and the routes. Nothing else."""

from __future__ import annotations

import json
import logging
from typing import Any

from flask import Flask, Response, abort, jsonify, request
from redis import Redis
from redis.exceptions import RedisError
from rq import Queue
from rq.serializers import JSONSerializer
from sqlalchemy.exc import SQLAlchemyError

from appcore import jobspec
from bot import pages, signature
from bot.events import route
from appcore.jobspec import MARK_HEAD_LUA, BadPayload, head_key
from appcore.settings import Settings
from witness_gate.ledger import Ledger, apply_freezes
from witness_gate.store import Store

MAX_BODY = 25 * 1024 * 1024  # GitHub never sends more
DELIVERY_TTL = 7 * 24 * 3600  # a manual redelivery keeps its id; a week covers it
log = logging.getLogger("witness_gate.bot")


def create_app(settings: Settings | None = None, *, redis: Redis | None = None, store: Store | None = None) -> Flask:
    settings = settings or Settings.from_env()
    redis = redis or Redis.from_url(settings.redis_url)
    store = store or Store(settings.database_url)
    store.create_schema()
    queue = Queue(settings.queue, connection=redis, serializer=JSONSerializer)

    app = Flask("witness_gate")
    app.config["MAX_CONTENT_LENGTH"] = MAX_BODY
    app.extensions["witness"] = {"settings": settings, "redis": redis, "store": store, "queue": queue}

    @app.post("/webhook")
    def webhook() -> tuple[Response, int]:
        body = request.get_data(cache=False)  # raises 413 past MAX_CONTENT_LENGTH, before any parsing
        if not signature.verify(settings.webhook_secret, body, request.headers.get("X-Hub-Signature-256")):
            return _answer(401, "bad or missing X-Hub-Signature-256")
        event = request.headers.get("X-GitHub-Event", "")
        delivery = request.headers.get("X-GitHub-Delivery", "")
        if not event or not delivery:
            return _answer(400, "X-GitHub-Event and X-GitHub-Delivery are required")
        try:
            payload = json.loads(body)
        except (ValueError, UnicodeDecodeError):
            return _answer(400, "the body is not JSON")
        if not isinstance(payload, dict):
            return _answer(400, "the body is not a JSON object")
        try:
            routed = route(event, payload, delivery, settings.app_slug)
        except BadPayload as exc:
            log.warning("delivery %s: %s", delivery, exc)
            return _answer(400, str(exc))
        if not routed.jobs:
            return _answer(200, routed.note)
        try:
            if not redis.set(f"witness:delivery:{delivery}", event, nx=True, ex=DELIVERY_TTL):
                return _answer(200, f"delivery {delivery} was seen before; nothing enqueued")
            with redis.pipeline() as pipe:  # one round trip for everything else: GitHub waits on us
                for job in routed.jobs:  # RQ wants the pipeline fresh, so its commands go first
                    queue.enqueue(job.func, kwargs=job.kwargs, job_id=job.job_id,
                                  description=f"{event} {delivery}", failure_ttl=7 * 24 * 3600,
                                  on_failure=_failure_callback(job.func), pipeline=pipe)
                for job in routed.jobs:
                    t = job.kwargs.get("target", {})
                    if event == "pull_request" and t.get("head_sha"):
                        # a new push supersedes work on older heads, and closing ends it, at once
                        closed = job.func.endswith("cancel_pull_request")
                        pipe.eval(MARK_HEAD_LUA, 1, head_key(t), t.get("updated_at", ""),
                                  "closed" if closed else t["head_sha"])
                pipe.execute()
        except RedisError as exc:
            log.error("delivery %s: Redis unavailable: %s", delivery, exc)
            return _answer(503, "the queue is unavailable; redeliver this webhook later")
        return _answer(202, f"enqueued {', '.join(j.job_id for j in routed.jobs)}")

    @app.get("/healthz")
    def healthz() -> tuple[Response, int]:
        checks = {}
        try:
            redis.ping()
            checks["redis"] = "ok"
        except RedisError as exc:
            checks["redis"] = f"unreachable: {exc}"
        try:
            store.ping()
            checks["database"] = "ok"
        except SQLAlchemyError as exc:
            checks["database"] = f"unreachable: {type(exc).__name__}"
        healthy = all(v == "ok" for v in checks.values())
        return jsonify({"status": "ok" if healthy else "degraded", **checks}), 200 if healthy else 503

    @app.get("/records/<record_id>")
    def record(record_id: str) -> Response:
        if len(record_id) != 32 or any(c not in "0123456789abcdef" for c in record_id):
            abort(404)
        body = _find_record(store, record_id)
        if body is None:
            abort(404)
        wants = request.accept_mimetypes.best_match(["application/json", "text/html"], default="application/json")
        if not request.args.get("download") and wants == "text/html":  # a browser, from details_url
            if body["kind"] == "attempt":
                return Response(pages.record_page(body), mimetype="text/html")
            return Response(pages.run_page(store.get_run(record_id), store.attempts(record_id)), mimetype="text/html")
        response = jsonify(body)
        if request.args.get("download"):
            response.headers["Content-Disposition"] = f'attachment; filename="witness-{record_id}.json"'
        return response

    @app.get("/admin")
    def admin() -> Response | tuple[Response, int]:
        if not settings.admin_token:
            return _answer(404, "admin pages are off; set WITNESS_ADMIN_TOKEN to turn them on")
        if not pages.admin_allowed(settings.admin_token, request.headers.get("Authorization"), request.args.get("token")):
            return _answer(401, "the admin pages need the admin token (Authorization: Bearer <token>)")
        ledger = Ledger(store)
        ledger.expire_due()
        return Response(pages.admin_page(store.recent_runs(50), store.recent_attempts(100), ledger.freezes()),
                        mimetype="text/html")

    @app.errorhandler(413)
    def too_large(_exc) -> tuple[Response, int]:
        return _answer(413, f"the body is over {MAX_BODY} bytes")

    @app.errorhandler(404)
    def not_found(_exc) -> tuple[Response, int]:
        return _answer(404, "no such record or route")

    @app.errorhandler(405)
    def wrong_method(_exc) -> tuple[Response, int]:
        return _answer(405, "method not allowed here")

    return app


def _failure_callback(func: str):
    from rq.job import Callback

    # every job that can leave a check run in progress ends it when it fails
    return Callback(jobspec.ON_FAILURE) if func.startswith("worker.jobs.") else None


def _find_record(store: Store, record_id: str) -> dict[str, Any] | None:
    attempt = store.get_attempt(record_id)
    if attempt is not None:
        run = store.get_run(attempt.run_id)
        # as it stands now: a freeze accepted (or ended) since the attempt ran changes its label
        [record] = apply_freezes([attempt.record], Ledger(store).active(run.repo))
        return {"kind": "attempt", "run_id": attempt.run_id, **record}
    run = store.get_run(record_id)
    if run is None:
        return None
    return {
        "kind": "gate_run", "record_id": run.id, "repo": run.repo, "pr_number": run.pr_number,
        "head_sha": run.head_sha, "base_sha": run.base_sha, "status": run.status, "label": run.label,
        "conclusion": run.conclusion, "patch_digest": run.patch_digest, "details": run.details,
        "attempts": [{"record_id": a.id, "assertion_id": a.assertion_id, "label": a.label}
                     for a in store.attempts(run.id)],
    }


def _answer(status: int, message: str) -> tuple[Response, int]:
    return jsonify({"status": status, "message": message}), status
