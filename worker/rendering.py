"""A run's check run rendered from its attempts and the freezes in force: at its end, and again whenever
the ledger or the clock changes what holds (worker.silencing)."""

from __future__ import annotations

from typing import Any

from witness_gate.config.schema import CONFIG_NAME, parse_config
from witness_gate.records.ledger import Ledger, apply_freezes
from witness_gate.rules.verdict import overall_label
from worker import checks
from worker.clients import CheckRunClient
from worker.context import Context


def render(ctx: Context, run: Any, attempts: list[dict[str, Any]]) -> checks.CheckOutput:
    """The check run of a run's attempts, under its base's conclusions, with the new .witness.yml beside it."""
    config = parse_config(run.details["config_text"], CONFIG_NAME)
    output = checks.render_results(attempts, patch_digest=run.patch_digest, details_url=ctx.details_url(run.id),
                                   overrides=config.conclusions)
    return checks.with_head_config(output, run.details.get("head_config"))


def rerender(ctx: Context, api: CheckRunClient, run_id: str) -> str:
    """After an accept or a revoke: the head's check run says what holds now, at once."""
    run = ctx.store.get_run(run_id)
    ledger = Ledger(ctx.store)
    ledger.expire_due()
    attempts = apply_freezes(sorted((a.record for a in ctx.store.attempts(run_id)), key=lambda r: r["assertion_id"]),
                             ledger.active(run.repo))
    output = render(ctx, run, attempts)
    body = output.bodies(ctx.details_url(run_id), run_id)[0]
    body["output"].pop("annotations")  # they are on the run already; a PATCH would add them again
    api.update_check_run(run.check_run_id, body)
    label = overall_label([a["label"] for a in attempts])
    ctx.store.update_run(run_id, label=label, conclusion=output.conclusion)
    return label
