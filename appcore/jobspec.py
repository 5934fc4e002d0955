"""Jobs as plain data: what the receiver enqueues and the worker runs, by dotted path."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")
# every job, by the dotted path RQ imports it from (worker/jobs.py names them all)
GATE = "worker.jobs.gate_pull_request"
RUN_PROPERTY = "worker.jobs.run_property"
FINISH_RUN = "worker.jobs.finish_run"
HANDLE_COMMENT = "worker.jobs.handle_comment"
HANDLE_ACTION = "worker.jobs.handle_action"
CANCEL = "worker.jobs.cancel_pull_request"
RECONCILE = "worker.jobs.reconcile"
ON_FAILURE = "worker.jobs.on_job_failure"


@dataclass(frozen=True)
class Job:
    func: str  # dotted path of the worker function
    kwargs: dict[str, Any]
    job_id: str  # letters, digits, _ and - only (RQ's rule)


@dataclass(frozen=True)
class Routed:
    jobs: list[Job] = field(default_factory=list)
    note: str = ""  # why nothing was enqueued, for the response and the logs
    # (target, sha or "closed", GitHub's time): the newest head to record at once, so older work is superseded
    heads: list[tuple[dict[str, Any], str, str]] = field(default_factory=list)


class BadPayload(ValueError):
    """The payload lacks a field the event needs; the message names it."""


def safe_id(*parts: object) -> str:
    """A job id RQ accepts: letters, digits, _ and - only."""
    return _UNSAFE.sub("-", "-".join(str(p) for p in parts))[:120]


def target(payload: dict[str, Any], number: int, head_sha: str = "", base_sha: str = "") -> dict[str, Any]:
    """What every job needs to find its pull request again."""
    repo = payload["repository"]
    return {
        "repo": repo["full_name"],
        "repo_id": int(repo["id"]),
        "installation_id": int(payload["installation"]["id"]),
        "pr_number": int(number),
        "head_sha": head_sha,
        "base_sha": base_sha,
    }


def gate_job(t: dict[str, Any], delivery: str, reason: str) -> Job:
    return Job(GATE, {"target": t, "reason": reason, "delivery": delivery},
               safe_id("gate", t["repo_id"], t["pr_number"], (t["head_sha"] or "head")[:12], delivery[:12]))


def head_key(t: dict[str, Any]) -> str:
    """Redis hash of a pull request's newest head ("sha", and "at": when GitHub said so)."""
    if t.get("merge_group"):  # each queue entry is a head of its own, never one of its pull request
        return f"witness:head:{t['repo_id']}:{safe_id(t['merge_group'])}"
    return f"witness:head:{t['repo_id']}:{t['pr_number']}"


# Deliveries arrive out of order: a head is recorded only if its event is not older than the one
# recorded (ISO 8601 times compare as strings).
MARK_HEAD_LUA = """
local at = redis.call('HGET', KEYS[1], 'at')
if (not at) or at <= ARGV[1] then
  redis.call('HSET', KEYS[1], 'at', ARGV[1], 'sha', ARGV[2])
  return 1
end
return 0
"""
