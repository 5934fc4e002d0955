"""`rq worker --worker-class worker.preload.Worker`: the jobs' modules are imported once, in the worker.

RQ forks a work-horse per job and imports the job's function there; imported here first, every horse
inherits the modules instead of importing them again (about half a second a job). Only modules and the staged
copy of the gate: no connection, engine or client is made before the fork.
"""

import logging

from rq import Worker as _RQWorker

import worker.jobs  # noqa: F401 - the point: loaded before any horse is forked
from witness_gate.sandbox.staging import judge_site, stage_root

# the sandbox's staged copy of the gate, made once here: a horse ends with os._exit, so one it made for itself would
# never be removed (a folder a job, for as long as the worker runs); this one goes when the worker exits. The judge's
# pytest and Hypothesis beside it too, so every horse finds them made
stage_root()
judge_site()

log = logging.getLogger("witness_gate.worker")


class Worker(_RQWorker):
    """RQ's worker in a module that preloads the jobs, and that runs a job's failure callback when its work
    horse was killed too: RQ runs it only for a job that raised, so a gate job killed before it fanned out
    (its check run created, no property job to finish it) would leave its check run in progress."""

    def handle_work_horse_killed(self, job, retpid, ret_val, rusage):
        super().handle_work_horse_killed(job, retpid, ret_val, rusage)
        callback = job.failure_callback
        if callback is None:
            return
        try:
            job.get_meta(refresh=True)  # what the horse saved (its run, its check run) before it was killed
            killed = RuntimeError(f"the work horse was killed (wait status {ret_val})")
            callback(job, self.connection, RuntimeError, killed, None)
        except Exception:  # noqa: BLE001 - the job is failed as RQ fails it; the reconciler ends what is left
            log.exception("job %s: the failure callback of a killed work horse failed", job.id)
