"""`rq worker --worker-class worker.preload.Worker`: the jobs' modules are imported once, in the worker.

RQ forks a work-horse per job and imports the job's function there; imported here first, every horse
inherits the modules instead of importing them again (about half a second a job). Only modules: no
connection, engine or client is made before the fork.
"""

from rq import Worker as _RQWorker

import worker.jobs  # noqa: F401 - the point: loaded before any horse is forked


class Worker(_RQWorker):
    """RQ's worker, unchanged, in a module that preloads the jobs."""
