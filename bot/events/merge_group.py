"""merge_group: a merge queue asks for checks on its merge commit; gate that commit against its base."""

from __future__ import annotations

import re
from typing import Any

from appcore.jobspec import Routed, gate_job, target

# GitHub names a queue entry's branch after the pull request it tests: gh-readonly-queue/<base>/pr-<n>-<sha>
QUEUE_REF = re.compile(r"^refs/heads/gh-readonly-queue/.+/pr-(\d+)-[0-9a-f]{40}$")


def route(payload: dict[str, Any], delivery: str, _app_slug: str):

    action = payload["action"]
    if action != "checks_requested":
        return Routed(note=f"merge_group.{action}: nothing to gate")
    group = payload["merge_group"]
    queued = QUEUE_REF.match(str(group["head_ref"]))
    # no pull request owns the merge commit (0), so its run never stands for the queued pull request's head
    t = target(payload, 0, str(group["head_sha"]), str(group["base_sha"]))
    t["merge_group"] = str(group["head_ref"])  # nothing to read back: the heads come from the event
    entry = f" of #{queued.group(1)}" if queued else ""
    return Routed([gate_job(t, delivery, f"merge_group.checks_requested{entry}")])
