"""Routing: which events and actions become which jobs. Pure: a payload in, plain-data jobs out."""

from __future__ import annotations

from typing import Any

from appcore.jobspec import BadPayload, Routed
from bot.events import check_run, issue_comment, merge_group, pull_request

ACKNOWLEDGED = {"ping", "installation", "installation_repositories", "installation_target", "github_app_authorization"}
HANDLERS = {
    "pull_request": pull_request.route,
    "issue_comment": issue_comment.route,
    "check_run": check_run.route_check_run,
    "check_suite": check_run.route_check_suite,
    "merge_group": merge_group.route,
}


def route(event: str, payload: dict[str, Any], delivery: str, app_slug: str = "") -> Routed:
    if event in ACKNOWLEDGED:
        return Routed(note=f"{event}: acknowledged")
    handler = HANDLERS.get(event)
    if handler is None:
        return Routed(note=f"{event}: not an event witness-gate acts on")
    try:
        return handler(payload, delivery, app_slug)
    except (KeyError, TypeError, AttributeError, ValueError) as exc:
        raise BadPayload(f"{event} payload is missing or has a malformed field: {exc}") from None
