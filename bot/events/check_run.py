"""check_run and check_suite: GitHub's Re-run and our action buttons."""

from __future__ import annotations

from typing import Any

from appcore import jobspec
from appcore.jobspec import Job, Routed, gate_job, safe_id, target

CHECK_NAME = "witness-gate"


def route_check_run(payload: dict[str, Any], delivery: str, _app_slug: str):

    action = payload["action"]
    run = payload["check_run"]
    if run.get("name") != CHECK_NAME:
        return Routed(note=f"check_run.{action}: not the {CHECK_NAME} check")
    pulls = run.get("pull_requests") or []
    if not pulls:
        return Routed(note=f"check_run.{action}: no pull request is attached to this check run")
    pull = pulls[0]
    t = target(payload, pull["number"], run["head_sha"], pull["base"]["sha"])
    if action == "rerequested":
        return Routed([gate_job(t, delivery, "check_run.rerequested")])
    if action == "requested_action":
        identifier = payload["requested_action"]["identifier"]
        kwargs = {"target": t, "identifier": identifier, "actor": payload["sender"]["login"],
                  "check_run_id": int(run["id"]), "delivery": delivery}
        return Routed([Job(jobspec.HANDLE_ACTION, kwargs,
                           safe_id("action", t["repo_id"], t["pr_number"], identifier, delivery[:12]))])
    return Routed(note=f"check_run.{action}: nothing to do")


def route_check_suite(payload: dict[str, Any], delivery: str, _app_slug: str):

    action = payload["action"]
    suite = payload["check_suite"]
    if action != "rerequested":
        return Routed(note=f"check_suite.{action}: nothing to do")
    pulls = suite.get("pull_requests") or []
    if not pulls:
        return Routed(note="check_suite.rerequested: no pull request is attached")
    pull = pulls[0]
    return Routed([gate_job(target(payload, pull["number"], suite["head_sha"], pull["base"]["sha"]),
                            delivery, "check_suite.rerequested")])
