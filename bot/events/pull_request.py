"""pull_request: gate a new head; a closed pull request cancels what is pending."""

from __future__ import annotations

from typing import Any

from appcore import jobspec
from appcore.jobspec import Job, Routed, gate_job, safe_id, target

GATED = {"opened", "synchronize", "reopened", "ready_for_review"}


def route(payload: dict[str, Any], delivery: str, _app_slug: str):

    action = payload["action"]
    pull = payload["pull_request"]
    t = target(payload, pull["number"], pull["head"]["sha"], pull["base"]["sha"])
    t["updated_at"] = str(pull.get("updated_at") or "")  # orders deliveries that arrive out of order
    # a new push supersedes work on older heads, and closing ends it, at once
    # a pull request moved onto another base is judged against it: the head's check run was the old base's,
    # which the author chose (a branch where the failure already is makes it pre_existing, then retarget)
    if action in GATED or (action == "edited" and "base" in (payload.get("changes") or {})):
        return Routed([gate_job(t, delivery, f"pull_request.{action}")], heads=[(t, t["head_sha"], t["updated_at"])])
    if action == "closed":
        return Routed([Job(jobspec.CANCEL, {"target": t},
                           safe_id("cancel", t["repo_id"], t["pr_number"], delivery[:12]))],
                      heads=[(t, "closed", t["updated_at"])])
    return Routed(note=f"pull_request.{action}: nothing to gate")
