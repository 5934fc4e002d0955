"""What people and monitors read: /healthz, /records/<id> (JSON or a page), /admin (with the token)."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, abort, jsonify, request
from redis.exceptions import RedisError
from sqlalchemy.exc import SQLAlchemyError

from bot import pages
from bot.answers import answer, wired
from witness_gate.records.ledger import Ledger, apply_freezes
from witness_gate.records.store import Store

views = Blueprint("views", __name__)


@views.get("/healthz")
def healthz() -> tuple[Response, int]:
    checks = {}
    try:
        wired("redis").ping()
        checks["redis"] = "ok"
    except RedisError as exc:
        checks["redis"] = f"unreachable: {exc}"
    try:
        wired("store").ping()
        checks["database"] = "ok"
    except SQLAlchemyError as exc:
        checks["database"] = f"unreachable: {type(exc).__name__}"
    healthy = all(v == "ok" for v in checks.values())
    return jsonify({"status": "ok" if healthy else "degraded", **checks}), 200 if healthy else 503


@views.get("/records/<record_id>")
def record(record_id: str) -> Response:
    store = wired("store")
    if len(record_id) != 32 or any(c not in "0123456789abcdef" for c in record_id):
        abort(404)
    body = find_record(store, record_id)
    if body is None:
        abort(404)
    wants = request.accept_mimetypes.best_match(["application/json", "text/html"], default="application/json")
    if not request.args.get("download") and wants == "text/html":  # a browser, from details_url
        if body["kind"] == "attempt":
            return Response(pages.record_page(body), mimetype="text/html")
        run = store.get_run(record_id)
        return Response(pages.run_page(run, run_standings(store, run)), mimetype="text/html")
    response = jsonify(body)
    if request.args.get("download"):
        response.headers["Content-Disposition"] = f'attachment; filename="witness-{record_id}.json"'
    return response


@views.get("/admin")
def admin() -> Response | tuple[Response, int]:
    settings, store = wired("settings"), wired("store")
    if not settings.admin_token:
        return answer(404, "admin pages are off; set WITNESS_ADMIN_TOKEN to turn them on")
    if not pages.admin_allowed(settings.admin_token, request.headers.get("Authorization"), request.args.get("token")):
        return answer(401, "the admin pages need the admin token (Authorization: Bearer <token>)")
    ledger = Ledger(store)
    ledger.expire_due()
    return Response(pages.admin_page(store.recent_runs(50), store.recent_attempts(100), ledger.freezes()),
                    mimetype="text/html")


def find_record(store: Store, record_id: str) -> dict[str, Any] | None:
    attempt = store.get_attempt(record_id)
    if attempt is not None:
        run = store.get_run(attempt.run_id)
        # as it stands now: a freeze accepted (or ended) since the attempt ran changes its label
        ledger = Ledger(store)
        [found] = apply_freezes([attempt.record], ledger.active(run.repo))
        standing = None
        if found.get("witness_hash"):
            standing = ledger.standing(run.repo, found.get("assertion_id") or "", found["witness_hash"])
        return {"kind": "attempt", "run_id": attempt.run_id, **found, "freeze_standing": standing}
    run = store.get_run(record_id)
    if run is None:
        return None
    return {
        "kind": "gate_run", "record_id": run.id, "repo": run.repo, "pr_number": run.pr_number,
        "head_sha": run.head_sha, "base_sha": run.base_sha, "status": run.status, "label": run.label,
        "conclusion": run.conclusion, "patch_digest": run.patch_digest, "details": run.details,
        "attempts": [{"record_id": a.id, "assertion_id": a.assertion_id, "label": a.label,
                      "freeze_standing": standing} for a, standing in run_standings(store, run)],
    }


def run_standings(store: Store, run) -> list[tuple[Any, dict[str, Any] | None]]:
    """Each attempt of a gate run with where the freeze of its witness stands now (None: there is none): a reviewer
    lands on the run's record, and sees there what was accepted, by whom and until when, or that it ended."""
    ledger = Ledger(store)
    return [(a, ledger.standing(run.repo, a.assertion_id or "", a.record["witness_hash"])
             if a.record.get("witness_hash") else None) for a in store.attempts(run.id)]
