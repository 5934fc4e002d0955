"""issue_comment: `/witness` commands on pull requests; permission is checked by the worker."""

from __future__ import annotations

from typing import Any

from appcore import jobspec
from appcore.commands import MAX_COMMANDS, parse
from appcore.jobspec import Job, Routed, safe_id, target


def route(payload: dict[str, Any], delivery: str, app_slug: str):

    if payload["action"] != "created":
        return Routed(note=f"issue_comment.{payload['action']}: only new comments carry commands")
    issue = payload["issue"]
    if not issue.get("pull_request"):
        return Routed(note="issue_comment: not on a pull request")
    comment = payload["comment"]
    author = comment["user"]["login"]
    if comment["user"].get("type") == "Bot" and (not app_slug or author == f"{app_slug}[bot]"):
        return Routed(note="issue_comment: the bot's own comment")
    commands = parse(comment.get("body") or "")
    if not commands:
        return Routed(note="issue_comment: no /witness command")
    t = target(payload, issue["number"])
    kwargs = {"target": t, "comment_id": int(comment["id"]), "author": author,
              "commands": [{"name": c.name, "hours": c.hours, "text": c.text, "runs": c.runs}
                           for c in commands[:MAX_COMMANDS]],
              "ignored": max(0, len(commands) - MAX_COMMANDS), "delivery": delivery}
    return Routed([Job(jobspec.HANDLE_COMMENT, kwargs,
                       safe_id("comment", t["repo_id"], t["pr_number"], comment["id"]))])
