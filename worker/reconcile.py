"""The reconciler: end runs stuck in progress, unfreeze check runs whose freeze ran out, gate missed heads.

    python -m worker.reconcile [--every SECONDS]

Run once, or every SECONDS (enqueueing the `worker.jobs.reconcile` job each time, so the work
itself happens on a worker). Deliveries can be missed (downtime, a Redis outage GitHub never
redelivered); this finds what they would have started.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from datetime import datetime, timezone
from typing import Any

from rq.job import Callback

from appcore import jobspec
from appcore.settings import Settings
from witness_gate.config.schema import CONFIG_NAME
from worker import checks
from worker.context import Context, complete, context
from worker.people import enqueue_gate
from worker.silencing import rerender_expired

STUCK_AFTER_SECONDS = 3600
PERIOD_SECONDS = 600
GATES_PER_PASS = 50  # a first pass over many repositories spreads its gating over several periods


def reconcile(stuck_after: float | None = None, period: float = PERIOD_SECONDS) -> dict[str, Any]:
    """End runs stuck in progress; re-render heads whose freeze ran out; gate open pull requests whose
    head has no run at all, in repositories whose base has a .witness.yml, each at most once a period."""
    ctx = context()
    limit = stuck_after if stuck_after is not None else float(os.environ.get("WITNESS_STUCK_SECONDS",
                                                                             STUCK_AFTER_SECONDS))
    ended = _end_stuck(ctx, limit)
    unfrozen = rerender_expired(ctx)
    gated = 0
    for installation_id, repo in _installed_repositories(ctx):
        if gated >= GATES_PER_PASS:
            break
        # several reconcilers, or a short --every, never list one repository twice in a period
        if not ctx.redis.set(f"witness:reconciled:{repo}", "1", nx=True, ex=max(1, int(period * 0.9))):
            continue
        gated += _gate_missing(ctx, installation_id, repo, GATES_PER_PASS - gated)
    return {"ended": ended, "unfrozen": len(unfrozen), "gated": gated}


def _end_stuck(ctx: Context, limit: float) -> int:
    now = datetime.now(timezone.utc)
    ended = 0
    for run in ctx.store.recent_runs(1000):
        updated = run.updated_at if run.updated_at.tzinfo else run.updated_at.replace(tzinfo=timezone.utc)
        if run.status == "in_progress" and run.check_run_id and (now - updated).total_seconds() > limit:
            api = ctx.api({"installation_id": run.installation_id, "repo": run.repo})
            reason = f"stuck in progress since {updated:%Y-%m-%d %H:%M:%S} UTC; its job was lost"
            complete(ctx, api, run.id, checks.render_fault(reason, ctx.details_url(run.id)), "hold")
            ended += 1
    return ended


def _gate_missing(ctx: Context, installation_id: int, repo: str, room: int) -> int:
    """Enqueue a gate for each open pull request of `repo` with no run for its head, up to `room`."""
    api = ctx.api({"installation_id": installation_id, "repo": repo})
    known = ctx.store.heads_with_runs(repo)
    configured: dict[str, bool] = {}
    repo_id = None
    gated = 0
    for pull in api.open_pulls():
        if gated >= room or (pull.number, pull.head_sha) in known:
            continue
        if pull.base_sha not in configured:  # no .witness.yml on the base: nothing to gate, nothing to say
            configured[pull.base_sha] = api.file_at(CONFIG_NAME, pull.base_sha) is not None
        if not configured[pull.base_sha]:
            continue
        repo_id = repo_id or api.repo_id()  # one GET of the repository, and only if something is gated
        target = {"repo": repo, "repo_id": repo_id, "installation_id": installation_id,
                  "pr_number": pull.number, "head_sha": pull.head_sha, "base_sha": pull.base_sha}
        enqueue_gate(ctx, target, "reconciler: no run for this head", f"reconcile-{pull.head_sha[:12]}")
        gated += 1
    return gated


def _installed_repositories(ctx: Context) -> list[tuple[int, str]]:
    from worker.github_api import installed_repositories

    return installed_repositories(ctx.settings, ctx.redis)


def enqueue(ctx: Context, period: float = PERIOD_SECONDS) -> str:
    job = ctx.queue.enqueue(jobspec.RECONCILE, kwargs={"period": period}, on_failure=Callback(jobspec.ON_FAILURE))
    return job.id


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m worker.reconcile", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--every", type=float, help="repeat every SECONDS (default: once)")
    args = parser.parse_args(argv)
    ctx = Context(Settings.from_env())
    while True:
        print(f"reconcile: enqueued {enqueue(ctx, args.every or PERIOD_SECONDS)}", flush=True)
        if not args.every:
            return 0
        time.sleep(args.every)


if __name__ == "__main__":
    sys.exit(main())
