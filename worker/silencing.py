"""Time and people move check runs: after an accept, a revoke or an expiry, every open head whose label the
freezes in force now change is re-rendered at once, in every pull request of the repository."""

from __future__ import annotations

from witness_gate.records.ledger import Ledger, apply_freezes
from witness_gate.rules.verdict import overall_label
from worker.context import Context
from worker.rendering import rerender


def rerender_silenced(ctx: Context, repo: str) -> list[str]:
    """Re-render the open heads of `repo` whose label the ledger now changes; the ids of the runs it moved."""
    ledger = Ledger(ctx.store)
    ledger.expire_due()
    active = ledger.active(repo)
    moved = []
    for run in ctx.store.open_heads(repo):
        records = sorted((a.record for a in ctx.store.attempts(run.id)), key=lambda r: r["assertion_id"])
        if overall_label([a["label"] for a in apply_freezes(records, active)]) != run.label:
            rerender(ctx, ctx.api({"installation_id": run.installation_id, "repo": run.repo}), run.id)
            moved.append(run.id)
    return moved


def rerender_expired(ctx: Context) -> list[str]:
    """The reconciler's pass over frozen heads: a freeze whose time is up no longer holds any check run."""
    moved = []
    for repo in ctx.store.repos_with_label("frozen"):  # rerender_silenced notices the clock for each
        moved += rerender_silenced(ctx, repo)
    return moved
