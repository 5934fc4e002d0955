"""When work ends early: a closed pull request, a failed or lost job. A check run is never left in progress."""

from __future__ import annotations

import math
from datetime import datetime, timezone
from typing import Any

from sqlalchemy.exc import SQLAlchemyError

from worker import checks
from worker.checkout import CheckoutError
from worker.context import Context, complete, completion, context, log
from worker.github_api import GitHubError, RateLimited

MAX_DEFERRALS = 6  # a job GitHub keeps limiting fails after this many re-runs, and its check run says why


def cancel_pull_request(target: dict[str, Any]) -> dict[str, Any]:
    """A closed pull request: pending property jobs find their head gone and skip; open runs end."""
    ctx = context()
    ctx.mark_head(target, "closed", target.get("updated_at") or datetime.now(timezone.utc).strftime(
        "%Y-%m-%dT%H:%M:%SZ"))
    api = ctx.api(target)
    ended = 0
    for run in ctx.store.runs_for_pull(target["repo"], target["pr_number"]):
        if run.status in ("queued", "in_progress") and run.check_run_id:
            complete(ctx, api, run.id, checks.render_ended("closed"), "cancelled")
            ended += 1
    return {"cancelled": ended}


def on_job_failure(job, connection, exc_type, exc_value, traceback) -> None:
    """Any job that fails ends its check run visibly: never left in progress."""
    if defer(job, exc_value):
        return
    kwargs = job.kwargs or {}
    run_id = kwargs.get("run_id") or (job.meta or {}).get("run_id")
    ctx = context()
    if not run_id:
        log.error("job %s failed before a check run existed: %s", job.id, exc_value)
        if (job.meta or {}).get("gating_key"):
            ctx.redis.delete(job.meta["gating_key"])
        return
    try:
        run = ctx.store.get_run(run_id)
    except SQLAlchemyError as exc:
        _end_without_store(ctx, kwargs.get("target") or {}, run_id, exc)
        return
    if run is None:  # the store answers but lost the run (restored from a backup, a new database)
        _end_without_store(ctx, kwargs.get("target") or {}, run_id, LookupError("the run's record is missing"))
        return
    if not run.check_run_id and (job.meta or {}).get("check_run_id"):  # killed before the store had it
        ctx.store.update_run(run_id, check_run_id=int(job.meta["check_run_id"]))
        run = ctx.store.get_run(run_id)
    if run is not None and not run.check_run_id:  # no check run to end: free the head for a replay
        ctx.redis.delete(run.details.get("gating_key", ""))
        ctx.store.update_run(run_id, status="failed", details={**run.details, "fault": str(exc_value)[:500]})
        return
    if run is None or run.status == "completed":
        return
    if job.func_name.endswith("run_property"):
        return  # finish_run still runs (allow_failure) and reports this property as a hold
    reason = f"{exc_type.__name__ if exc_type else 'error'}: {str(exc_value)[:500]}"
    target = kwargs.get("target") or {}
    try:
        api = ctx.api({**target, "installation_id": run.installation_id, "repo": run.repo})
        newer = ctx.current_head(target) if target.get("repo_id") else ""
        if newer and newer != run.head_sha:  # work on a replaced head asks nothing of anyone: it ended, as finish says
            log.warning("run %s: %s failed on a head no longer current: %s", run_id, job.func_name, reason)
            complete(ctx, api, run_id, checks.render_ended(newer), "cancelled" if newer == "closed" else "superseded")
        else:
            complete(ctx, api, run_id, checks.render_fault(reason, ctx.details_url(run_id)), "hold")
    except (GitHubError, CheckoutError) as exc:
        log.error("run %s: could not end its check run: %s", run_id, exc)
        # still in progress in the store, as on GitHub: the reconciler ends it once it is stuck
        ctx.store.update_run(run_id, details={**run.details, "fault": reason,
                                              "at": datetime.now(timezone.utc).isoformat()})


def defer(job, exc_value) -> bool:
    """A rate limit too long to sleep through: RQ runs the job again that much later (its scheduler:
    workers start `--with-scheduler`), and jobs that depend on it wait. False when it cannot be deferred."""
    if not isinstance(exc_value, RateLimited):
        return False
    job.get_meta(refresh=True)  # what the job itself saved (run id, gating key) stays
    deferrals = int(job.meta.get("deferrals", 0))
    if deferrals >= MAX_DEFERRALS:
        return False
    job.meta["deferrals"] = deferrals + 1
    job.retries_left = max(job.retries_left or 0, 1)
    job.retry_intervals = [math.ceil(exc_value.retry_in)]  # RQ's retry, with the wait GitHub asked for
    log.warning("job %s: %s; runs again in %ds (deferral %d of %d)", job.id, exc_value, job.retry_intervals[0],
                deferrals + 1, MAX_DEFERRALS)
    return True


def _end_without_store(ctx: Context, target: dict[str, Any], run_id: str, exc: Exception) -> None:
    """The record store is down: end the check run from what the job carries, once."""
    reason = (f"the record store is unreachable ({type(exc).__name__}: {str(exc).splitlines()[0][:200]}); the "
              "attempts of this head could not be recorded")
    log.error("run %s: %s", run_id, reason)
    if not target.get("check_run_id"):
        return
    with completion(ctx, run_id, "hold") as mine:
        if mine:
            ctx.api(target).update_check_run(target["check_run_id"], checks.render_fault(
                reason, ctx.details_url(run_id)).bodies(ctx.details_url(run_id), run_id)[0])
