"""Presses on a witness-gate check run — Replay, Accept freeze, GitHub's Re-run — each acting on the run it was pressed on."""

from __future__ import annotations

from typing import Any

from witness_gate.records.store import Store
from worker import checks
from worker.clients import ButtonClient
from worker.context import Context, context
from worker.people import Permission, current_run, enqueue_gate, freeze_command

RERUN = "rerun"  # GitHub's Re-run of the check run or of its suite (bot/events/check_run.py)
NAMES = {"replay": "Replay", "accept_freeze": "Accept freeze", RERUN: "Re-run"}
RECENT = 2000  # how far back a run is looked for when GitHub names no pull request (a fork's head)


def handle_action(target: dict[str, Any], identifier: str, actor: str, check_run_id: int, delivery: str,
                  external_id: str = "") -> dict[str, Any]:
    ctx = context()
    return press(ctx, ctx.api(target), target, identifier, actor, check_run_id, delivery, external_id)


def press(ctx: Context, api: ButtonClient, target: dict[str, Any], identifier: str, actor: str, check_run_id: int,
          delivery: str, external_id: str = "") -> dict[str, Any]:
    """Find the pressed run and its pull request, ask for permission, then act on that run."""
    run = own_run(ctx.store, target, external_id, check_run_id)
    number = target["pr_number"] or (run.pr_number if run is not None else 0)
    queued = str(run.details.get("merge_group") or "") if run is not None else ""
    target = {**target, "pr_number": number, **({"merge_group": queued} if queued else {})}
    button = NAMES.get(identifier, f"`{identifier}`")
    if not number and not queued:
        unfound(api, target, check_run_id, button)
        return {"unfound": target["head_sha"]}
    permission = Permission.of(api, actor)
    if not permission.allowed:
        tell(api, target, check_run_id, f"@{actor} the {button} button {permission.reason}. Nothing was done.")
        return {"refused": actor}
    if identifier not in NAMES:
        tell(api, target, check_run_id, f"@{actor} {button} is not a witness-gate action. Nothing was done.")
        return {"unsupported": identifier}
    head = "" if queued else newest_head(ctx, api, target)
    if identifier == "accept_freeze":
        return accept(ctx, api, target, run, actor, head)
    if run is None:  # no record of this check run: the pull request's head, as before there were records
        enqueue_gate(ctx, target, f"{button} by @{actor}", delivery)
        return {"replayed": "current head"}
    if head and run.head_sha != head:
        tell(api, target, check_run_id, f"@{actor} this check run is for {run.head_sha[:12]}, which is no longer the "
             f"head of this pull request ({_head_text(head)}): nothing was gated. Press {button} on the newest "
             "witness-gate check run, or comment `/witness replay`.")
        return {"superseded": run.head_sha}
    # a queue's merge commit keeps its base; a pull request's head is gated against its base as it is now
    enqueue_gate(ctx, target, f"{button} by @{actor}", delivery, head_sha=run.head_sha,
                 base_sha=run.base_sha if queued else "")
    return {"replayed": run.head_sha}


def accept(ctx: Context, api: ButtonClient, target: dict[str, Any], run: Any | None, actor: str,
           head: str) -> dict[str, Any]:
    """Accept the pressed run's own proposal (the current head's when there is no record of the run)."""
    outcome = freeze_command(ctx, api, run if run is not None else current_run(ctx, api, target), "freeze_accept",
                             actor, None)
    if not outcome.ok:
        tell(api, target, run.check_run_id if run is not None else 0,
             f"@{actor} the Accept freeze button was refused: {outcome.refusal}.")
    elif run is not None and head and run.head_sha != head:
        tell(api, target, run.check_run_id, f"@{actor} accepted the freeze proposed on {run.head_sha[:12]}, an older "
             f"head of this pull request ({_head_text(head)}); it silences later attempts only where they flake "
             "the same way on the same witness.")
    return {"accepted": outcome.ok}


def own_run(store: Store, target: dict[str, Any], external_id: str, check_run_id: int) -> Any | None:
    """Our record of the pressed run: by its external_id (the record id we gave it), else by its check run or head."""
    if external_id:
        run = store.get_run(external_id)
        if run is not None and run.repo == target["repo"]:
            return run
    if target["pr_number"]:
        candidates = store.runs_for_pull(target["repo"], target["pr_number"])
    else:  # GitHub names no pull request for a head in a fork: look among the repository's recent runs
        candidates = [r for r in store.recent_runs(RECENT) if r.repo == target["repo"]]
    found = [r for r in candidates if (r.check_run_id == check_run_id if check_run_id
                                       else r.head_sha == target["head_sha"])]
    return max(found, key=lambda r: r.created_at) if found else None


def newest_head(ctx: Context, api: ButtonClient, target: dict[str, Any]) -> str:
    """The pull request's head as the receiver last recorded it from GitHub's events, else as GitHub says now."""
    return ctx.current_head(target) or api.pull(target["pr_number"]).head_sha


def _head_text(head: str) -> str:
    return "it is closed" if head == "closed" else f"the head is now {head[:12]}"


def tell(api: ButtonClient, target: dict[str, Any], check_run_id: int, text: str) -> None:
    """A reply on the pull request; a merge queue's run has none, so its check run says it."""
    if target["pr_number"]:
        api.comment(target["pr_number"], text)
    elif check_run_id:
        api.update_check_run(check_run_id, {"output": {"title": "witness-gate: nothing was done",
                                                       "summary": f"{checks.MARKER}\n{text}"}})


def unfound(api: ButtonClient, target: dict[str, Any], check_run_id: int, button: str) -> None:
    """Say where people look that the press found no pull request, instead of dropping it."""
    summary = (f"{checks.MARKER}\n{button} on {target['head_sha'][:12]} did nothing: GitHub named no pull request "
               "for this head (it is in a fork) and witness-gate has no record of this check run. Comment "
               "`/witness replay` on the pull request, or push a new commit.")
    body = {"output": {"title": "witness-gate cannot find this head's pull request", "summary": summary}}
    if check_run_id:
        api.update_check_run(check_run_id, body)
    else:  # a suite's Re-run: GitHub waits for the App to create the check run itself
        api.create_check_run(target["head_sha"], {**body, "status": "completed", "conclusion": "action_required"})
