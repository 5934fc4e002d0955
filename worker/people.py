"""People's commands: replay, accept or revoke a freeze, help — each after a permission answer, in one reply."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from rq.job import Callback

from appcore import jobspec
from appcore.commands import HELP_TEXT, MAX_COMMANDS
from appcore.jobspec import safe_id
from witness_gate.config.schema import CONFIG_NAME, Config, parse_config
from witness_gate.records.ledger import Ledger, Outcome
from worker.clients import PeopleClient
from worker.context import Context, context
from worker.rendering import rerender
from worker.silencing import rerender_silenced

WRITE = {"admin", "write", "maintain"}


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
                   delivery: str, ignored: int = 0) -> dict[str, Any]:
    ctx = context()
    return answer_comment(ctx, ctx.api(target), target, comment_id, author, commands, delivery, ignored)


def answer_comment(ctx: Context, api: PeopleClient, target: dict[str, Any], comment_id: int, author: str,
                   commands: list[dict[str, Any]], delivery: str, ignored: int = 0) -> dict[str, Any]:
    """Act on a comment's commands (the receiver passes at most three), then say everything in one reply."""
    lines: list[str] = []
    reacted: list[bool] = []
    show_help = False
    permission: Permission | None = None

    def acknowledge() -> None:  # one 👀 for the comment, before the check run catches up
        if not reacted:
            reacted.append(True)
            api.react(comment_id, "eyes")

    for command in commands:
        name, text = command["name"], command["text"]
        if name in ("help", "unknown"):
            show_help = True
            if name == "unknown":
                lines.append(f"`{text}` is not a witness-gate command.")
            continue
        permission = permission or Permission.of(api, author)
        if not permission.allowed:
            lines.append(f"`{text}` {permission.reason}. Nothing was done.")
        elif name == "replay" and not configured(api, target):
            lines.append(f"`{text}`: this repository has no `.witness.yml` on the base branch, so there is "
                         "nothing to gate; add one there to turn witness-gate on.")
        elif name == "replay" and command.get("runs") is not None:
            refused = replays_refused(ctx, api, target, command["runs"])
            if refused:
                lines.append(f"`{text}` refused: {refused}. Nothing was done.")
            else:
                acknowledge()  # the answer comes as one comment once the head was gated again
                enqueue_gate(ctx, {**target, "runs": command["runs"], "answer_runs": True},
                             f"/witness replay {command['runs']} by @{author}", delivery)
        elif name == "replay":
            acknowledge()
            enqueue_gate(ctx, target, f"/witness replay by @{author}", delivery)
        else:
            outcome = freeze_command(ctx, api, current_run(ctx, api, target), name, author, command.get("hours"),
                                     acknowledge)
            if not outcome.ok:
                lines.append(f"`{text}` refused: {outcome.refusal}.")
    if ignored:
        lines.append(f"Only the first {MAX_COMMANDS} commands of a comment are acted on; {ignored} more "
                     "were not. Put each in a comment of its own.")
    reply = reply_text(author, lines, show_help)
    if reply:
        api.comment(target["pr_number"], reply)
    return {"commands": [c["name"] for c in commands], "ignored": ignored, "replied": bool(reply)}


def configured(api: PeopleClient, target: dict[str, Any]) -> bool:
    """Whether the pull request's base has a .witness.yml: without one the gate never runs (no check run)."""
    return api.file_at(CONFIG_NAME, api.pull(target["pr_number"]).base_sha) is not None


def replays_refused(ctx: Context, api: PeopleClient, target: dict[str, Any], runs: int) -> str:
    """Why `/witness replay N` cannot run N replays here ("" when it can): the base's policy.max_runs caps it."""
    if runs < 1:
        return "say how many replays, 1 or more"
    run = current_run(ctx, api, target)
    config = parse_config(run.details["config_text"], CONFIG_NAME) if not isinstance(run, str) else Config()
    if runs > config.max_runs:
        return f"{runs} replays is more than this repository allows (policy.max_runs: {config.max_runs})"
    if runs < config.runs:  # N runs the whole attempt: fewer would let a rare failure pass, or hide behind a freeze
        return (f"{runs} replays is fewer than every gate of this repository runs (policy.runs: {config.runs}); "
                f"ask for {config.runs} to {config.max_runs}")
    return ""


def reply_text(author: str, lines: list[str], show_help: bool) -> str:
    """One reply for a whole comment: what was refused or not understood, then the commands once if asked."""
    if not lines and not show_help:
        return ""
    return "\n\n".join([f"@{author} " + (lines[0] if lines else "here are the witness-gate commands."),
                        *lines[1:], *([HELP_TEXT] if show_help else [])])


def current_run(ctx: Context, api: PeopleClient, target: dict[str, Any]) -> Any | str:
    """The newest finished run of the pull request's current head; or why there is none."""
    head = api.pull(target["pr_number"]).head_sha
    runs = [r for r in ctx.store.runs_for_pull(target["repo"], target["pr_number"])
            if r.head_sha == head and r.status == "completed" and r.check_run_id]
    return runs[-1] if runs else f"the current head {head[:12]} has no finished witness-gate run yet"


def freeze_command(ctx: Context, api: PeopleClient, run: Any | str, name: str, actor: str, hours: float | None,
                   acknowledge: Callable[[], None] = lambda: None) -> Outcome:
    """Accept or revoke on `run` (or refuse with why there is none), acknowledge it, then update its check run."""
    if isinstance(run, str):
        return Outcome([], run)
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
        # every open head the freeze would silence is gated again beside it; one it no longer silences re-rendered
        rerender_silenced(ctx, run.repo, accepted=name == "freeze_accept")
    return outcome


def enqueue_gate(ctx: Context, target: dict[str, Any], reason: str, delivery: str, head_sha: str = "",
                 base_sha: str = "") -> None:
    """Gate `head_sha` again (by default whatever the head is when the job starts), against the base then."""
    fresh = {**target, "head_sha": head_sha, "base_sha": base_sha}
    ctx.queue.enqueue(jobspec.GATE, kwargs={"target": fresh, "reason": reason, "delivery": delivery},
                      job_id=safe_id("gate", target["repo_id"], target["pr_number"], "replay", delivery[:12]),
                      on_failure=Callback(jobspec.ON_FAILURE))


