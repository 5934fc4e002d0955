"""check_run and check_suite: GitHub's Re-run and our action buttons, each for the run it was pressed on."""

from __future__ import annotations

from typing import Any

from appcore import jobspec
from appcore.jobspec import Job, Routed, safe_id, target

CHECK_NAME = "witness-gate"
RERUN = "rerun"  # GitHub's Re-run, handled like a button: after the same permission check


def route_check_run(payload: dict[str, Any], delivery: str, _app_slug: str):

    action = payload["action"]
    run = payload["check_run"]
    if run.get("name") != CHECK_NAME:
        return Routed(note=f"check_run.{action}: not the {CHECK_NAME} check")
    if action not in ("rerequested", "requested_action"):
        return Routed(note=f"check_run.{action}: nothing to do")
    identifier = RERUN if action == "rerequested" else str(payload["requested_action"]["identifier"])
    return Routed([button_job(payload, run["pull_requests"], run["head_sha"], identifier, delivery,
                              check_run_id=int(run["id"]), external_id=str(run.get("external_id") or ""))])


def route_check_suite(payload: dict[str, Any], delivery: str, _app_slug: str):

    action = payload["action"]
    if action != "rerequested":
        return Routed(note=f"check_suite.{action}: nothing to do")
    suite = payload["check_suite"]
    return Routed([button_job(payload, suite["pull_requests"], suite["head_sha"], RERUN, delivery)])


def button_job(payload: dict[str, Any], pulls: list[dict[str, Any]], head_sha: str, identifier: str,
               delivery: str, check_run_id: int = 0, external_id: str = "") -> Job:
    """The worker's job for a press on a check run or suite; with no pull request listed (a head in a
    fork), pr_number is 0 and the worker finds it from our record of the run."""
    pull = pulls[0] if pulls else None
    t = target(payload, int(pull["number"]) if pull else 0, str(head_sha), str(pull["base"]["sha"]) if pull else "")
    kwargs = {"target": t, "identifier": identifier, "actor": payload["sender"]["login"],
              "check_run_id": check_run_id, "external_id": external_id, "delivery": delivery}
    return Job(jobspec.HANDLE_ACTION, kwargs, safe_id("action", t["repo_id"], t["pr_number"] or t["head_sha"][:12],
                                                      identifier, delivery[:12]))
