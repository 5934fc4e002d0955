"""RQ jobs, enqueued by dotted path with plain-data arguments: gate a head, run one property, finish."""

from __future__ import annotations

import functools
import logging
import shutil
import tempfile
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from redis import Redis
from rq import Queue, get_current_job
from rq.job import Callback, Dependency
from rq.serializers import JSONSerializer
from sqlalchemy.exc import SQLAlchemyError

from bot.commands import HELP_TEXT
from bot.jobspec import MARK_HEAD_LUA, head_key, safe_id
from bot.settings import Settings
from witness_gate import plan as plans, tamper
from witness_gate.attempt import Policy
from witness_gate.canonical import CanonicalError, patch_digest, sha256_hex
from witness_gate.config import CONFIG_NAME, Config, parse_config
from witness_gate.discover import DiscoveryError, discover
from witness_gate.environment import SetupOutcome, SetupStep, default_cache, set_up
from witness_gate.ledger import Ledger, Outcome, apply_freezes
from witness_gate.lock import Lock, LockError, parse_fixture
from witness_gate.sandbox import Identity, Sandbox, bwrap_works
from witness_gate.session import GateRun, Pinned
from witness_gate.store import Store
from witness_gate.verdict import Split, overall_label
from worker import checks
from worker.checkout import CheckoutError, changed_paths_locally, checkout
from worker.github_api import GitHubApi, GitHubError, PyGithubApi

log = logging.getLogger("witness_gate.worker")
WRITE = {"admin", "write", "maintain"}
PROPERTY_JOB_TIMEOUT = 3600
GATING_TTL = 2 * 3600  # a safety net only: completing the run releases the head


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


# -- gating a head -----------------------------------------------------------------------------
def gate_pull_request(target: dict[str, Any], reason: str, delivery: str) -> dict[str, Any]:
    """Create the check run, read config from base, split, refuse or fan out one job per property."""
    ctx = context()
    api = ctx.api(target)
    pull = api.pull(target["pr_number"])
    if pull.state != "open":
        return {"skipped": f"pull request is {pull.state}"}
    if target.get("head_sha") and target["head_sha"] != pull.head_sha:
        return {"skipped": f"{target['head_sha'][:12]} is no longer the head ({pull.head_sha[:12]} is)"}
    head, base = pull.head_sha, pull.base_sha
    ctx.mark_head(target, head, pull.updated_at)  # newer work for this pull request supersedes older work
    gating = f"witness:gating:{target['repo_id']}:{target['pr_number']}:{head}"
    if not ctx.redis.set(gating, delivery, nx=True, ex=GATING_TTL):
        # one effective run per head: a replay while one runs would only repeat its verdict
        return {"skipped": f"{head[:12]} is already being gated"}
    job = get_current_job()
    if job is not None:
        job.meta["gating_key"] = gating  # a failure before the run exists must still release the head
        job.save_meta()
    run = ctx.store.add_run(repo=target["repo"], installation_id=target["installation_id"],
                            pr_number=target["pr_number"], head_sha=head, base_sha=base, status="in_progress",
                            details={"reason": reason, "delivery": delivery, "gating_key": gating,
                                     "repo_id": target["repo_id"]})
    if job is not None:
        job.meta["run_id"] = run.id
        job.save_meta()
    check_id = api.create_check_run(head, {
        "status": "in_progress", "external_id": run.id, "details_url": ctx.details_url(run.id),
        "output": {"title": "witness-gate is running", "summary": f"{checks.MARKER}\nGating {head[:12]} ({reason})."}})
    ctx.store.update_run(run.id, check_run_id=check_id)
    # the check run travels with every job, so a failure can end it even without the record store
    target = {**target, "head_sha": head, "base_sha": base, "check_run_id": check_id}

    raw = api.file_at(CONFIG_NAME, base)
    config = plans.config_of(raw, f"{CONFIG_NAME} (base {base[:12]})", required=True)  # decide (pure) ...
    if isinstance(config, plans.Refusal):
        return _refuse_plan(ctx, api, run.id, config)
    changed, capped = api.changed_files(target["pr_number"])
    if capped:  # GitHub lists at most 3,000 files: diff the two trees here instead
        changed = changed_paths_locally(api, target["repo"], base, head)
    decided = plans.plan(config, changed)  # fails closed: a path outside impl, oracle and ignore is impl
    split = decided.split
    details = {**run.details, "config_text": raw.decode("utf-8"), "changed": len(changed), "capped": capped,
               "split": {"impl_changed": split.impl_changed, "oracle_changed": split.oracle_changed}}
    ctx.store.update_run(run.id, details=details)
    if isinstance(decided, plans.Refusal):  # ... then apply
        return _refuse_plan(ctx, api, run.id, decided, config.conclusions)
    # lines the patch adds to code that can run (implementation and ignored paths) that reach for the
    # harness, and links there: holds, but the evidence runs
    details["tamper"] = tamper_holds(api, base, head, split.code)

    head_tree = api.commit_tree(head)
    directory, matches = checkout(api, target["repo"], head, head_tree)
    details["tamper"] = [*details["tamper"], *tamper.links_in(directory, split.code)]
    ctx.store.update_run(run.id, details=details)
    digest = patch_digest(api.commit_tree(base), head_tree)
    try:
        targets = discover(directory, config.properties_dir, config.contracts)
    except DiscoveryError as exc:
        return _refuse(ctx, api, run.id, "hold", "the properties cannot be read", checks.md_code(str(exc), None))
    if not targets:
        return _refuse(ctx, api, run.id, "hold", "no properties found",
                       f"No `prop_*` functions under `{config.properties_dir}`.")
    details.update(properties=[t.assertion_id for t in targets], patch_mismatch=not matches)
    ctx.store.update_run(run.id, patch_digest=digest, details=details)
    timeout = min(PROPERTY_JOB_TIMEOUT, int(config.timeout_seconds * (3 * config.runs + config.max_evals)) + 120)
    if SetupStep.of(config):  # it may wait for another job's set-up of this head, then fail and build its own
        timeout += int(2 * config.setup_timeout_seconds)
    jobs = [ctx.queue.enqueue("worker.jobs.run_property", kwargs={"run_id": run.id, "target": target,
                                                               "assertion_id": t.assertion_id},
                              job_id=safe_id("prop", run.id, t.assertion_id), job_timeout=timeout,
                              on_failure=Callback("worker.jobs.on_job_failure"))
            for t in targets]
    ctx.queue.enqueue("worker.jobs.finish_run", kwargs={"run_id": run.id, "target": target},
                      job_id=safe_id("finish", run.id), depends_on=Dependency(jobs=jobs, allow_failure=True),
                      on_failure=Callback("worker.jobs.on_job_failure"))
    return {"run_id": run.id, "properties": len(targets)}


def tamper_holds(api: GitHubApi, base: str, head: str, impl_paths: tuple[str, ...]) -> list[str]:
    """The tamper scan of the implementation paths, each file read at base and at head through the API."""

    def read(ref: str) -> Callable[[str], bytes | None]:
        def at(path: str) -> bytes | None:
            try:
                return api.file_at(path, ref)
            except GitHubError:
                raise  # GitHub failed: the job fails and its check run says so, with a Replay button
            except Exception as exc:  # noqa: BLE001 - e.g. a file too large for the contents API
                raise tamper.ReadFailed(f"{path}@{ref[:12]}: {exc}") from exc
        return at

    return tamper.scan_change(impl_paths, read(base), read(head))


def _refuse_plan(ctx: Context, api: GitHubApi, run_id: str, refusal: plans.Refusal,
                 overrides: dict[str, str] | None = None) -> dict[str, Any]:
    _complete(ctx, api, run_id, checks.render_plan_refusal(refusal, overrides), refusal.label)
    return {"run_id": run_id, "label": refusal.label}


def _refuse(ctx: Context, api: GitHubApi, run_id: str, label: str, title: str, summary: str,
            **render: Any) -> dict[str, Any]:
    output = checks.render_refusal(label, title, summary, **render)
    _complete(ctx, api, run_id, output, label)
    return {"run_id": run_id, "label": label}


def _complete(ctx: Context, api: GitHubApi, run_id: str, output: checks.CheckOutput, label: str) -> None:
    """Complete the run's check run once: whoever comes first (finish, cancel, a failure) says it."""
    if not ctx.redis.set(f"witness:completed:{run_id}", label, nx=True, ex=7 * 24 * 3600):
        return
    run = ctx.store.get_run(run_id)
    if run.details.get("gating_key"):
        ctx.redis.delete(run.details["gating_key"])  # the head may be gated again (a replay)
    for body in output.bodies(ctx.details_url(run_id), run_id):
        api.update_check_run(run.check_run_id, body)
    ctx.store.update_run(run_id, status="completed", label=label, conclusion=output.conclusion)


# -- one property ------------------------------------------------------------------------------
class _LogReporter:
    def __init__(self, name: str) -> None:
        self.name = name

    def start(self, target, index, total) -> None:
        log.info("%s: %s", self.name, target.assertion_id)

    def progress(self, phase, done, total) -> None:
        pass

    def say(self, text: str) -> None:
        log.info("%s: %s", self.name, text)

    def finish(self, result) -> None:
        log.info("%s: %s -> %s", self.name, result.target.assertion_id, result.verdict.label)


def run_property(run_id: str, target: dict[str, Any], assertion_id: str) -> dict[str, Any]:
    ctx = context()
    run = ctx.store.get_run(run_id)
    if ctx.current_head(target) != run.head_sha:
        return {"skipped": "superseded"}
    api = ctx.api(target)
    config = parse_config(run.details["config_text"], CONFIG_NAME)
    directory, _matches = checkout(api, target["repo"], run.head_sha)
    [prop] = [t for t in discover(directory, config.properties_dir, config.contracts) if t.assertion_id == assertion_id]
    sandbox, holds, note = ctx.sandbox()
    if run.details.get("patch_mismatch"):
        holds += ("patch_mismatch",)
    flags = tuple(run.details.get("tamper") or ())  # they mark the verdict; the evidence still runs
    reporter = _LogReporter(run_id)
    setup = SetupOutcome()
    if not holds:  # the set-up runs the head's code too: only in the sandbox, only on the exact code
        setup = set_up(config, checkout=directory, patch_digest=run.patch_digest, sandbox=sandbox,
                       cache=default_cache(), say=reporter.say)
    split = Split(**run.details["split"])
    out = Path(tempfile.mkdtemp(prefix="witness-records-"))
    try:
        ledger = Ledger(ctx.store)
        ledger.expire_due()
        gate = GateRun(directory, run.patch_digest, split, Policy.from_config(config), config, sandbox, out,
                       reporter, extra_holds=holds, freezes=ledger.active(run.repo), setup=setup,
                       notes=(note,) if note else (), flags=flags)
        result = gate.gate_one(prop, _pin_from_base(api, run.base_sha, config, prop.assertion_id))
    finally:
        shutil.rmtree(out, ignore_errors=True)
    ctx.store.add_attempt(run_id, result.record)
    return {"assertion_id": assertion_id, "label": result.verdict.label}


def _pin_from_base(api: GitHubApi, base_sha: str, config: Config, assertion_id: str) -> Pinned:
    path = config.fixture_for(assertion_id)
    raw = api.file_at(path, base_sha)
    if raw is None:
        return Pinned(None, None, f"no fixture at {path} on the base branch; add it there, or map "
                                  f"properties.fixtures.{assertion_id} in {CONFIG_NAME}")
    try:
        fixture = parse_fixture(raw, f"{path} (base {base_sha[:12]})")
    except (LockError, CanonicalError) as exc:
        return Pinned(None, None, str(exc))
    return Pinned(Lock(path, sha256_hex(raw), config.generator_version, fixture.seed or config.seed), fixture)


def finish_run(run_id: str, target: dict[str, Any]) -> dict[str, Any]:
    ctx = context()
    run = ctx.store.get_run(run_id)
    api = ctx.api(target)
    newer = ctx.current_head(target)
    if newer != run.head_sha:
        _complete(ctx, api, run_id, checks.render_ended(newer), "superseded")
        return {"run_id": run_id, "label": "superseded"}
    records = {a.assertion_id: a.record for a in ctx.store.attempts(run_id)}
    for name in run.details.get("properties", []):
        records.setdefault(name, {"assertion_id": name, "label": "hold", "hold_reasons": ["transport:worker"],
                                  "notes": ["the job for this property failed or was lost; press Replay"]})
    ledger = Ledger(ctx.store)
    ledger.expire_due()
    attempts = apply_freezes([records[k] for k in sorted(records)], ledger.active(run.repo))
    for attempt in attempts:
        if attempt.get("freeze"):
            ledger.propose(repo=run.repo, pr_number=run.pr_number, run_id=run_id, head_sha=run.head_sha,
                           proposal=attempt["freeze"])
    config = parse_config(run.details["config_text"], CONFIG_NAME)
    output = checks.render_results(attempts, patch_digest=run.patch_digest, details_url=ctx.details_url(run_id),
                                   overrides=config.conclusions)
    label = overall_label([a["label"] for a in attempts])
    _complete(ctx, api, run_id, output, label)
    return {"run_id": run_id, "label": label, "conclusion": output.conclusion}


def rerender(ctx: Context, api: GitHubApi, run_id: str) -> str:
    """After an accept or a revoke: the head's check run says what holds now, at once."""
    run = ctx.store.get_run(run_id)
    ledger = Ledger(ctx.store)
    ledger.expire_due()
    attempts = apply_freezes(sorted((a.record for a in ctx.store.attempts(run_id)), key=lambda r: r["assertion_id"]),
                             ledger.active(run.repo))
    config = parse_config(run.details["config_text"], CONFIG_NAME)
    output = checks.render_results(attempts, patch_digest=run.patch_digest, details_url=ctx.details_url(run_id),
                                   overrides=config.conclusions)
    body = output.bodies(ctx.details_url(run_id), run_id)[0]
    body["output"].pop("annotations")  # they are on the run already; a PATCH would add them again
    api.update_check_run(run.check_run_id, body)
    label = overall_label([a["label"] for a in attempts])
    ctx.store.update_run(run_id, label=label, conclusion=output.conclusion)
    return label


# -- people ------------------------------------------------------------------------------------
def handle_comment(target: dict[str, Any], comment_id: int, author: str, commands: list[dict[str, Any]],
                   delivery: str) -> dict[str, Any]:
    ctx = context()
    api = ctx.api(target)
    done = []
    for command in commands:
        name = command["name"]
        if name == "help":
            api.comment(target["pr_number"], HELP_TEXT)
        elif name == "unknown":
            api.comment(target["pr_number"], f"@{author} `{command['text']}` is not a witness-gate command.\n\n{HELP_TEXT}")
        else:
            permission = api.permission(author)
            if permission not in WRITE:
                api.comment(target["pr_number"], f"@{author} `{command['text']}` needs write permission on this "
                                                  f"repository; yours is `{permission}`. Nothing was done.")
            elif name == "replay":
                api.react(comment_id, "eyes")
                _enqueue_gate(ctx, target, f"/witness replay by @{author}", delivery)
            else:
                outcome = _freeze_command(ctx, api, target, name, author, command.get("hours"),
                                          acknowledge=lambda: api.react(comment_id, "eyes"))
                if not outcome.ok:
                    api.comment(target["pr_number"], f"@{author} `{command['text']}` refused: {outcome.refusal}.")
        done.append(name)
    return {"commands": done}


def _freeze_command(ctx: Context, api: GitHubApi, target: dict[str, Any], name: str, actor: str,
                    hours: float | None, acknowledge: Callable[[], None] = lambda: None) -> Outcome:
    """Accept or revoke on the pull request's current head, acknowledge it, then update its check run."""
    head = api.pull(target["pr_number"]).head_sha
    runs = [r for r in ctx.store.runs_for_pull(target["repo"], target["pr_number"])
            if r.head_sha == head and r.status == "completed" and r.check_run_id]
    if not runs:
        return Outcome([], f"the current head {head[:12]} has no finished witness-gate run yet")
    run = runs[-1]
    config = parse_config(run.details["config_text"], CONFIG_NAME)
    ledger = Ledger(ctx.store)
    ledger.expire_due()
    if name == "freeze_accept":
        outcome = ledger.accept(repo=run.repo, pr_number=run.pr_number, run_id=run.id, actor=actor,
                                hours=hours if hours is not None else config.expires_in_hours,
                                max_hours=config.max_hours)
    else:
        outcome = ledger.revoke(repo=run.repo, pr_number=run.pr_number, actor=actor)
    if outcome.ok:
        acknowledge()  # the person sees it was taken before the check run catches up
        rerender(ctx, api, run.id)
    return outcome


def handle_action(target: dict[str, Any], identifier: str, actor: str, check_run_id: int, delivery: str) -> dict[str, Any]:
    ctx = context()
    api = ctx.api(target)
    permission = api.permission(actor)
    if permission not in WRITE:
        api.comment(target["pr_number"], f"@{actor} the `{identifier}` button needs write permission on this "
                                          f"repository; yours is `{permission}`. Nothing was done.")
        return {"refused": actor}
    if identifier == "replay":
        _enqueue_gate(ctx, target, f"Replay button by @{actor}", delivery)
        return {"replayed": True}
    if identifier == "accept_freeze":
        outcome = _freeze_command(ctx, api, target, "freeze_accept", actor, None)
        if not outcome.ok:
            api.comment(target["pr_number"], f"@{actor} the Accept freeze button was refused: {outcome.refusal}.")
        return {"accepted": outcome.ok}
    api.comment(target["pr_number"], f"@{actor} `{identifier}` is not a witness-gate action. Nothing was done.")
    return {"unsupported": identifier}


def _enqueue_gate(ctx: Context, target: dict[str, Any], reason: str, delivery: str) -> None:
    fresh = {**target, "head_sha": "", "base_sha": ""}  # whatever the head is when the job starts
    ctx.queue.enqueue("worker.jobs.gate_pull_request", kwargs={"target": fresh, "reason": reason, "delivery": delivery},
                      job_id=safe_id("gate", target["repo_id"], target["pr_number"], "replay", delivery[:12]),
                      on_failure=Callback("worker.jobs.on_job_failure"))


def cancel_pull_request(target: dict[str, Any]) -> dict[str, Any]:
    """A closed pull request: pending property jobs find their head gone and skip; open runs end."""
    ctx = context()
    ctx.mark_head(target, "closed", target.get("updated_at") or datetime.now(timezone.utc).strftime(
        "%Y-%m-%dT%H:%M:%SZ"))
    api = ctx.api(target)
    ended = 0
    for run in ctx.store.runs_for_pull(target["repo"], target["pr_number"]):
        if run.status in ("queued", "in_progress") and run.check_run_id:
            _complete(ctx, api, run.id, checks.render_ended("closed"), "cancelled")
            ended += 1
    return {"cancelled": ended}


def on_job_failure(job, connection, exc_type, exc_value, traceback) -> None:
    """Any job that fails ends its check run visibly: never left in progress."""
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
        _complete(ctx, api, run_id, checks.render_fault(reason, ctx.details_url(run_id)), "hold")
    except (GitHubError, CheckoutError) as exc:
        log.error("run %s: could not end its check run: %s", run_id, exc)
        ctx.store.update_run(run_id, status="failed", details={**run.details, "fault": reason,
                                                                "at": datetime.now(timezone.utc).isoformat()})


def _end_without_store(ctx: Context, target: dict[str, Any], run_id: str, exc: Exception) -> None:
    """The record store is down: end the check run from what the job carries, once."""
    reason = (f"the record store is unreachable ({type(exc).__name__}: {str(exc).splitlines()[0][:200]}); the "
              "attempts of this head could not be recorded")
    log.error("run %s: %s", run_id, reason)
    if not target.get("check_run_id") or not ctx.redis.set(f"witness:completed:{run_id}", "hold", nx=True,
                                                             ex=7 * 24 * 3600):
        return
    api = ctx.api(target)
    api.update_check_run(target["check_run_id"],
                         checks.render_fault(reason, ctx.details_url(run_id)).bodies(ctx.details_url(run_id), run_id)[0])


# -- the reconciler ------------------------------------------------------------------------------
STUCK_AFTER_SECONDS = 3600


def reconcile(stuck_after: float | None = None) -> dict[str, Any]:
    """End runs stuck in progress; gate open pull requests whose head has no run at all."""
    import os

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
            _complete(ctx, api, run.id, checks.render_fault(reason, ctx.details_url(run.id)), "hold")
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
