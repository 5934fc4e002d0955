"""People's commands and buttons: replay, accept or revoke a freeze, help — each after a permission answer."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from rq.job import Callback

from appcore import jobspec
from appcore.commands import HELP_TEXT
from appcore.jobspec import safe_id
from witness_gate.config import CONFIG_NAME, parse_config
from witness_gate.ledger import Ledger, Outcome
from worker.context import Context, context
from worker.gating import rerender

WRITE = {"admin", "write", "maintain"}


class PeopleClient(Protocol):
    """The GitHub calls people's commands make, and no others."""

    def pull(self, number: int) -> Any: ...
    def permission(self, username: str) -> str: ...
    def react(self, comment_id: int, content: str) -> None: ...
    def comment(self, number: int, body: str) -> None: ...
    def update_check_run(self, check_run_id: int, body: dict[str, Any]) -> None: ...


@dataclass(frozen=True)
class Permission:
    """May this person act here, and why (or why not), from the collaborator-permission endpoint."""

    allowed: bool
    level: str
    reason: str

    @classmethod
    def of(cls, api: PeopleClient, username: str) -> "Permission":
        level = api.permission(username)  # never author_association: private members show as CONTRIBUTOR
        if level in WRITE:
            return cls(True, level, f"@{username} has {level} permission")
        return cls(False, level, f"needs write permission on this repository; yours is `{level}`")


def handle_comment(target: dict[str, Any], comment_id: int, author: str, commands: list[dict[str, Any]],
                   delivery: str) -> dict[str, Any]:
    ctx = context()
    api = ctx.api(target)
    done = []
    for command in commands:
        name = command["name"]
        if name == "help":
            api.comment(target["pr_number"], HELP_TEXT)
        elif name == "unknown":
            api.comment(target["pr_number"], f"@{author} `{command['text']}` is not a witness-gate command.\n\n{HELP_TEXT}")
        else:
            permission = Permission.of(api, author)
            if not permission.allowed:
                api.comment(target["pr_number"], f"@{author} `{command['text']}` {permission.reason}. Nothing was done.")
            elif name == "replay":
                api.react(comment_id, "eyes")
                _enqueue_gate(ctx, target, f"/witness replay by @{author}", delivery)
            else:
                outcome = _freeze_command(ctx, api, target, name, author, command.get("hours"),
                                          acknowledge=lambda: api.react(comment_id, "eyes"))
                if not outcome.ok:
                    api.comment(target["pr_number"], f"@{author} `{command['text']}` refused: {outcome.refusal}.")
        done.append(name)
    return {"commands": done}


def _freeze_command(ctx: Context, api: PeopleClient, target: dict[str, Any], name: str, actor: str,
                    hours: float | None, acknowledge: Callable[[], None] = lambda: None) -> Outcome:
    """Accept or revoke on the pull request's current head, acknowledge it, then update its check run."""
    head = api.pull(target["pr_number"]).head_sha
    runs = [r for r in ctx.store.runs_for_pull(target["repo"], target["pr_number"])
            if r.head_sha == head and r.status == "completed" and r.check_run_id]
    if not runs:
        return Outcome([], f"the current head {head[:12]} has no finished witness-gate run yet")
    run = runs[-1]
    config = parse_config(run.details["config_text"], CONFIG_NAME)
    ledger = Ledger(ctx.store)
    ledger.expire_due()
    if name == "freeze_accept":
        outcome = ledger.accept(repo=run.repo, pr_number=run.pr_number, run_id=run.id, actor=actor,
                                hours=hours if hours is not None else config.expires_in_hours,
                                max_hours=config.max_hours)
    else:
        outcome = ledger.revoke(repo=run.repo, pr_number=run.pr_number, actor=actor)
    if outcome.ok:
        acknowledge()  # the person sees it was taken before the check run catches up
        rerender(ctx, api, run.id)
    return outcome


def handle_action(target: dict[str, Any], identifier: str, actor: str, check_run_id: int, delivery: str) -> dict[str, Any]:
    ctx = context()
    api = ctx.api(target)
    permission = Permission.of(api, actor)
    if not permission.allowed:
        api.comment(target["pr_number"], f"@{actor} the `{identifier}` button {permission.reason}. Nothing was done.")
        return {"refused": actor}
    if identifier == "replay":
        _enqueue_gate(ctx, target, f"Replay button by @{actor}", delivery)
        return {"replayed": True}
    if identifier == "accept_freeze":
        outcome = _freeze_command(ctx, api, target, "freeze_accept", actor, None)
        if not outcome.ok:
            api.comment(target["pr_number"], f"@{actor} the Accept freeze button was refused: {outcome.refusal}.")
        return {"accepted": outcome.ok}
    api.comment(target["pr_number"], f"@{actor} `{identifier}` is not a witness-gate action. Nothing was done.")
    return {"unsupported": identifier}


def _enqueue_gate(ctx: Context, target: dict[str, Any], reason: str, delivery: str) -> None:
    fresh = {**target, "head_sha": "", "base_sha": ""}  # whatever the head is when the job starts
    ctx.queue.enqueue(jobspec.GATE, kwargs={"target": fresh, "reason": reason, "delivery": delivery},
                      job_id=safe_id("gate", target["repo_id"], target["pr_number"], "replay", delivery[:12]),
                      on_failure=Callback(jobspec.ON_FAILURE))
