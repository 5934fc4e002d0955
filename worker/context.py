"""What every job needs, built once per process from the settings, and completing a check run once."""

from __future__ import annotations

import functools
import logging
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from redis import Redis
from rq import Queue, get_current_job
from rq.serializers import JSONSerializer

from appcore.jobspec import MARK_HEAD_LUA, head_key
from appcore.settings import Settings
from witness_gate.records.store import Store
from witness_gate.sandbox import Identity, Sandbox, bwrap_works
from worker import checks
from worker.github_api import GitHubApi, PyGithubApi

log = logging.getLogger("witness_gate.worker")
COMPLETED_TTL = 7 * 24 * 3600
CLAIM_TTL = 300  # a completer that died mid-way frees the run for the failure path and the reconciler


class Context:
    """What every job needs, built once per process from the environment."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.redis = Redis.from_url(settings.redis_url)
        self.store = Store(settings.database_url)
        self.store.create_schema()
        self.queue = Queue(settings.queue, connection=self.redis, serializer=JSONSerializer)

    def api(self, target: dict[str, Any]) -> GitHubApi:
        return PyGithubApi(self.settings, self.redis, target["installation_id"], target["repo"])

    def details_url(self, run_id: str) -> str:
        return f"{self.settings.public_url}/records/{run_id}"

    def current_head(self, target: dict[str, Any]) -> str:
        value = self.redis.hget(head_key(target), "sha")
        return value.decode() if value else ""

    def mark_head(self, target: dict[str, Any], sha: str, at: str) -> None:
        """Record the newest head unless a newer event already did (GitHub's clock orders them)."""
        self.redis.eval(MARK_HEAD_LUA, 1, head_key(target), at, sha)

    def sandbox(self) -> tuple[Sandbox, tuple[str, ...], str]:
        """The sandbox, and the hold every property gets when there is none to be had."""
        if self.settings.sandbox == "none":
            return Sandbox("none"), (), "WITNESS_SANDBOX=none: properties run without isolation"
        problem = bwrap_works()
        if problem:
            return Sandbox("none"), ("sandbox_unavailable",), (
                f"sandbox_unavailable: {problem}. The worker refuses to run pull request code without it; "
                "install bubblewrap, or set WITNESS_SANDBOX=none only if every pull request is trusted")
        job = get_current_job()
        # one uid per worker: its evaluations run one at a time, so the process limit is per evaluation
        return Sandbox("bwrap", Identity.from_environment(job.worker_name if job else None)), (), ""


@functools.lru_cache(maxsize=1)
def context() -> Context:
    return Context(Settings.from_env())


@contextmanager
def completion(ctx: Context, run_id: str, label: str) -> Iterator[bool]:
    """True for the one completer that may end the run's check run now, False when GitHub has it already
    or another completer is at it. "Completed" is marked only once every PATCH went through; a PATCH
    that failed releases the claim, so the failure path or the reconciler can end the run after all."""
    claim, done = f"witness:completing:{run_id}", f"witness:completed:{run_id}"
    if not ctx.redis.set(claim, label, nx=True, ex=CLAIM_TTL):
        yield False
        return
    if ctx.redis.exists(done):  # checked after claiming: a completer that just finished set it first
        ctx.redis.delete(claim)
        yield False
        return
    try:
        yield True
    except BaseException:
        ctx.redis.delete(claim)
        raise
    ctx.redis.set(done, label, ex=COMPLETED_TTL)
    ctx.redis.delete(claim)


def complete(ctx: Context, api: GitHubApi, run_id: str, output: checks.CheckOutput, label: str) -> None:
    """Complete the run's check run once: whoever comes first (finish, cancel, a failure) says it."""
    with completion(ctx, run_id, label) as mine:
        if not mine:
            return
        run = ctx.store.get_run(run_id)
        if run.details.get("gating_key"):
            ctx.redis.delete(run.details["gating_key"])  # the head may be gated again (a replay)
        for body in output.bodies(ctx.details_url(run_id), run_id):
            api.update_check_run(run.check_run_id, body)
        ctx.store.update_run(run_id, status="completed", label=label, conclusion=output.conclusion)
