"""The reconciler: gate open pull requests whose head has no witness-gate run, end runs stuck in progress.

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
from worker import checks
from worker.context import Context, complete, context
from worker.people import _enqueue_gate

STUCK_AFTER_SECONDS = 3600


def reconcile(stuck_after: float | None = None) -> dict[str, Any]:
    """End runs stuck in progress; gate open pull requests whose head has no run at all."""
    ctx = context()
    limit = stuck_after if stuck_after is not None else float(os.environ.get("WITNESS_STUCK_SECONDS",
                                                                             STUCK_AFTER_SECONDS))
    now = datetime.now(timezone.utc)
    ended = 0
    for run in ctx.store.recent_runs(1000):
        updated = run.updated_at if run.updated_at.tzinfo else run.updated_at.replace(tzinfo=timezone.utc)
        if run.status == "in_progress" and run.check_run_id and (now - updated).total_seconds() > limit:
            api = ctx.api({"installation_id": run.installation_id, "repo": run.repo})
            reason = f"stuck in progress since {updated:%Y-%m-%d %H:%M:%S} UTC; its job was lost"
            complete(ctx, api, run.id, checks.render_fault(reason, ctx.details_url(run.id)), "hold")
            ended += 1
    gated = 0
    known = {(r.repo, r.pr_number, r.head_sha) for r in ctx.store.recent_runs(10_000)}
    for installation_id, repo in _installed_repositories(ctx):
        api = ctx.api({"installation_id": installation_id, "repo": repo})
        for pull in api.open_pulls():
            if (repo, pull.number, pull.head_sha) in known:
                continue
            target = {"repo": repo, "repo_id": api.repo_id(), "installation_id": installation_id,
                      "pr_number": pull.number, "head_sha": pull.head_sha, "base_sha": pull.base_sha}
            _enqueue_gate(ctx, target, "reconciler: no run for this head", f"reconcile-{pull.head_sha[:12]}")
            gated += 1
    return {"ended": ended, "gated": gated}


def _installed_repositories(ctx: Context) -> list[tuple[int, str]]:
    from worker.github_api import installed_repositories

    return installed_repositories(ctx.settings, ctx.redis)


def enqueue(ctx: Context) -> str:
    job = ctx.queue.enqueue(jobspec.RECONCILE, on_failure=Callback(jobspec.ON_FAILURE))
    return job.id


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m worker.reconcile", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--every", type=float, help="repeat every SECONDS (default: once)")
    args = parser.parse_args(argv)
    ctx = Context(Settings.from_env())
    while True:
        print(f"reconcile: enqueued {enqueue(ctx)}", flush=True)
        if not args.every:
            return 0
        time.sleep(args.every)


if __name__ == "__main__":
    sys.exit(main())
