"""Time and people move check runs: after an accept, a revoke or an expiry, every open head whose label the
freezes in force now change is re-rendered at once, in every pull request of the repository; one a freeze would
newly silence is gated again beside it (a freeze stands only where its checks ran: records/ledger.py apply_freezes)."""

from __future__ import annotations

from uuid import uuid4

from witness_gate.records.ledger import Ledger, apply_freezes, silenced_anew
from witness_gate.rules.verdict import overall_label
from worker.context import Context
from worker.rendering import rerender


def rerender_silenced(ctx: Context, repo: str, accepted: bool = False) -> list[str]:
    """Re-render the open heads of `repo` whose label the ledger now changes; the ids of the runs it moved. After an
    accept (`accepted`), each open head the freezes in force would newly silence is gated again beside them."""
    ledger = Ledger(ctx.store)
    ledger.expire_due()
    active = ledger.active(repo)
    moved = []
    for run in ctx.store.open_heads(repo):
        records = sorted((a.record for a in ctx.store.attempts(run.id)), key=lambda r: r["assertion_id"])
        if accepted and silenced_anew(records, active) and not run.details.get("merge_group"):
            gate_again(ctx, run)
        if overall_label([a["label"] for a in apply_freezes(records, active)]) != run.label:
            rerender(ctx, ctx.api({"installation_id": run.installation_id, "repo": run.repo}), run.id)
            moved.append(run.id)
    return moved


GATED_AGAIN = "a freeze accepted: gated again beside it"


def gate_again(ctx: Context, run) -> None:
    """The head of `run` gated again, with the freezes in force then, against its base as it is then (as Re-run
    does); its check run follows. Its delivery is random: a job id keeps its first 12 characters."""
    from worker.people import enqueue_gate

    target = {"repo": run.repo, "repo_id": run.details.get("repo_id"), "installation_id": run.installation_id,
              "pr_number": run.pr_number}
    enqueue_gate(ctx, target, GATED_AGAIN, uuid4().hex, head_sha=run.head_sha)


def gate_again_if_silenced(ctx: Context, run, records: list[dict], freezes) -> bool:
    """After a run that was in progress when a freeze was accepted (so the accept could not gate it again): its head
    gated again beside the freeze, once (a run that is itself such a gate never asks again: no loop)."""
    if run.details.get("merge_group") or run.details.get("reason") == GATED_AGAIN or not silenced_anew(records,
                                                                                                       freezes):
        return False
    gate_again(ctx, run)
    return True


def rerender_expired(ctx: Context) -> list[str]:
    """The reconciler's pass over frozen heads: a freeze whose time is up no longer holds any check run."""
    moved = []
    for repo in ctx.store.repos_with_label("frozen"):  # rerender_silenced notices the clock for each
        moved += rerender_silenced(ctx, repo)
    return moved
