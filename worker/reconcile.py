"""The reconciler: gate open pull requests whose head has no witness-gate run, end runs stuck in progress.

    python -m worker.reconcile [--every SECONDS]

Run once, or every SECONDS (enqueueing the `worker.jobs.reconcile` job each time, so the work
itself happens on a worker). Deliveries can be missed (downtime, a Redis outage GitHub never
redelivered); this finds what they would have started.
"""

from __future__ import annotations

import argparse
import sys
import time

from rq.job import Callback

from bot.settings import Settings
from worker.jobs import Context


def enqueue(ctx: Context) -> str:
    job = ctx.queue.enqueue("worker.jobs.reconcile", on_failure=Callback("worker.jobs.on_job_failure"))
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
