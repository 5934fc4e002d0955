"""Gating one head: gather (pull request, base config, changed paths, checkout), decide (witness_gate.rules.plan,
then one job per property and the verdict), apply (the check run)."""

from __future__ import annotations

import hashlib
from typing import Any

from rq import get_current_job
from rq.job import Callback, Dependency

from appcore import jobspec
from appcore.jobspec import safe_id
from witness_gate.config.schema import CONFIG_NAME, Config, parse_config
from witness_gate.model.evidence import Policy
from witness_gate.pipeline.discover import DiscoveryError, properties_of, property_named
from witness_gate.pipeline.gather import Change, Commits, base_of, gathered, pin_from_base, planned
from witness_gate.pipeline.session import GateRun
from witness_gate.records.ledger import Ledger, apply_freezes
from witness_gate.records.sinks import StoreSink
from witness_gate.rules import plan as plans
from witness_gate.rules.verdict import overall_label
from witness_gate.setup.environment import SetupOutcome, SetupStep, set_up
from worker import checks
from worker.checkout import GitHubSource, checkout
from worker.clients import CheckRunClient, FinishClient, GateClient, PropertyClient
from worker.context import Context, complete, context, log
from worker.rendering import render
from worker.silencing import gate_again_if_silenced

PROPERTY_JOB_TIMEOUT = 3600
GATING_TTL = 2 * 3600  # a safety net only: completing the run releases the head


# -- gating a head -----------------------------------------------------------------------------
def gate_pull_request(target: dict[str, Any], reason: str, delivery: str) -> dict[str, Any]:
    ctx = context()
    return gate_head(ctx, ctx.api(target), target, reason, delivery)


def gate_head(ctx: Context, api: GateClient, target: dict[str, Any], reason: str, delivery: str) -> dict[str, Any]:
    """Read config from base, create the check run, split, refuse or fan out one job per property."""
    heads = _heads(ctx, api, target)
    if isinstance(heads, dict):
        return heads
    head, base, updated = heads
    facts = GitHubSource(api, target["repo"], ctx.settings.cache,
                         None if target.get("merge_group") else target["pr_number"])
    raw = facts.file_at(CONFIG_NAME, base)
    if raw is None:  # the repository never opted in: no check run and no comment on any of its heads
        return {"skipped": f"no {CONFIG_NAME} on the base {base[:12]}"}
    started = _start(ctx, api, target, (head, base, updated), reason, delivery)
    if isinstance(started, dict):
        return started
    run, target = started
    config = plans.config_of(raw, f"{CONFIG_NAME} (base {base[:12]})", required=True)  # decide (pure) ...
    if isinstance(config, plans.Refusal):
        return _refuse_plan(ctx, api, run.id, config)
    # fails closed: a path outside impl, oracle and ignore is impl; new tests beside a fix are asked about; an edited
    # .witness.yml: the base's still gates, the new one is checked and shown beside the result
    commits = Commits(facts, base, head)
    decided, review = planned(commits, config)
    split = decided.split
    details = {**run.details, "config_text": raw.decode("utf-8"), "changed": len(commits.changed),
               "capped": facts.capped,
               "split": {"impl_changed": split.impl_changed, "oracle_changed": split.oracle_changed},
               "head_config": review.as_dict() if review else None}
    ctx.store.update_run(run.id, details=details)
    if isinstance(decided, plans.Refusal):  # ... then apply
        return _refuse_plan(ctx, api, run.id, decided, config.conclusions, details["head_config"])
    change = gathered(commits, config, decided)
    details["change"] = change.as_details()  # what every property's job gates with
    ctx.store.update_run(run.id, details=details)
    directory, matches = checkout(api, target["repo"], head, change.head_tree, cache=ctx.settings.cache,
                                  base_sha=base, oracle=change.judged_by)
    sandbox, unavailable, _note = ctx.sandbox()  # a command's listing runs in it, never without one
    try:
        targets = properties_of(directory, config, None if unavailable else sandbox)
    except DiscoveryError as exc:
        return _refuse(ctx, api, run.id, "hold", "the properties cannot be read", checks.md_code(str(exc), None))
    if not targets:
        return _refuse(ctx, api, run.id, "hold", "no properties found",
                       f"No `prop_*` functions under `{config.properties_dir}`.")
    details.update(properties=[t.assertion_id for t in targets], patch_mismatch=not matches)
    ctx.store.update_run(run.id, patch_digest=change.patch_digest, details=details)
    _fan_out(ctx, run.id, target, config, [t.assertion_id for t in targets])
    return {"run_id": run.id, "properties": len(targets)}


def _heads(ctx: Context, api: GateClient, target: dict[str, Any]) -> tuple[str, str, str] | dict[str, Any]:
    """(head, base, GitHub's time) to gate, or why not. The event's head wins over a read of the pull request,
    which right after a push may still show the previous one; only a newer event's head supersedes it."""
    if target.get("merge_group"):  # a merge queue's commit: no pull request to read
        return target["head_sha"], target["base_sha"], ""
    pull = api.pull(target["pr_number"])
    if pull.state != "open":
        return {"skipped": f"pull request is {pull.state}"}
    if not target.get("head_sha"):  # a replay: whatever the head is now
        return pull.head_sha, pull.base_sha, pull.updated_at
    newest = ctx.current_head(target)
    if newest and newest != target["head_sha"]:
        return {"skipped": f"{target['head_sha'][:12]} is no longer the head ({newest[:12]} is)"}
    return target["head_sha"], target.get("base_sha") or pull.base_sha, target.get("updated_at") or pull.updated_at


def _start(ctx: Context, api: GateClient, target: dict[str, Any], heads: tuple[str, str, str], reason: str,
           delivery: str) -> tuple[Any, dict[str, Any]] | dict[str, Any]:
    """The head marked newest, with a run and an in-progress check run; or why it is skipped."""
    head, base, updated = heads
    ctx.mark_head(target, head, updated)  # newer work for this pull request supersedes older work
    gating = f"witness:gating:{target['repo_id']}:{target['pr_number']}:{head}:{base}"  # a new base is new work
    job = get_current_job()
    # a rate limit deferred this very job (worker.failures.defer): it resumes its own run, not a new one
    resumed = job is not None and job.meta.get("deferrals") and ctx.redis.get(gating) == delivery.encode()
    if not ctx.redis.set(gating, delivery, nx=True, ex=GATING_TTL) and not resumed:
        # one effective run per head: a replay while one runs would only repeat its verdict
        return {"skipped": f"{head[:12]} is already being gated"}
    if job is not None:
        job.meta["gating_key"] = gating  # a failure before the run exists must still release the head
        job.save_meta()
    run = ctx.store.get_run(job.meta["run_id"]) if resumed and job.meta.get("run_id") else None
    run = run or ctx.store.add_run(repo=target["repo"], installation_id=target["installation_id"],
                                   pr_number=target["pr_number"], head_sha=head, base_sha=base, status="in_progress",
                                   details={"reason": reason, "delivery": delivery, "gating_key": gating,
                                            "repo_id": target["repo_id"], "merge_group": target.get("merge_group", "")})
    if job is not None:
        job.meta["run_id"] = run.id
        job.save_meta()
    check_id = run.check_run_id or api.create_check_run(head, {
        "status": "in_progress", "external_id": run.id, "details_url": ctx.details_url(run.id),
        "output": {"title": "witness-gate is running", "summary": f"{checks.MARKER}\nGating {head[:12]} ({reason})."}})
    if job is not None:  # at once, in Redis: a work horse killed before the store has it can still end it
        job.meta["check_run_id"] = check_id
        job.save_meta()
    ctx.store.update_run(run.id, check_run_id=check_id)
    # the check run travels with every job, so a failure can end it even without the record store
    return run, {**target, "head_sha": head, "base_sha": base, "check_run_id": check_id}


def _fan_out(ctx: Context, run_id: str, target: dict[str, Any], config: Config, assertion_ids: list[str]) -> None:
    """One job per property, and the job that finishes the run once they all ended (however)."""
    runs = target.get("runs") or config.runs  # `/witness replay N` asks for N replays of each witness
    timeout = min(PROPERTY_JOB_TIMEOUT, int(config.timeout_seconds * (3 * runs + config.max_evals)) + 120)
    if SetupStep.of(config):  # it may wait for another job's set-up of this head, then fail and build its own
        timeout += int(2 * config.setup_timeout_seconds)
    jobs = [ctx.queue.enqueue(jobspec.RUN_PROPERTY, kwargs={"run_id": run_id, "target": target,
                                                             "assertion_id": name},
                              job_id=safe_id("prop", run_id, name), job_timeout=timeout,
                              on_failure=Callback(jobspec.ON_FAILURE))
            for name in assertion_ids]
    ctx.queue.enqueue(jobspec.FINISH_RUN, kwargs={"run_id": run_id, "target": target},
                      job_id=safe_id("finish", run_id), depends_on=Dependency(jobs=jobs, allow_failure=True),
                      on_failure=Callback(jobspec.ON_FAILURE))


def _refuse_plan(ctx: Context, api: CheckRunClient, run_id: str, refusal: plans.Refusal,
                 overrides: dict[str, str] | None = None, head_config: dict | None = None) -> dict[str, Any]:
    output = checks.with_head_config(checks.render_plan_refusal(refusal, overrides), head_config)
    complete(ctx, api, run_id, output, refusal.label)
    return {"run_id": run_id, "label": refusal.label}


def _refuse(ctx: Context, api: CheckRunClient, run_id: str, label: str, title: str, summary: str,
            **render: Any) -> dict[str, Any]:
    output = checks.render_refusal(label, title, summary, **render)
    complete(ctx, api, run_id, output, label)
    return {"run_id": run_id, "label": label}


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
    return gate_property(ctx, ctx.api(target), run_id, target, assertion_id)


def gate_property(ctx: Context, api: PropertyClient, run_id: str, target: dict[str, Any],
                  assertion_id: str) -> dict[str, Any]:
    """One property of a run: its checkout, the set-up, the attempt; the record goes to the store."""
    run = ctx.store.get_run(run_id)
    if ctx.current_head(target) != run.head_sha:
        return {"skipped": "superseded"}
    config = parse_config(run.details["config_text"], CONFIG_NAME)
    facts = GitHubSource(api, target["repo"], ctx.settings.cache)
    change = _change_of(run, facts, config)
    directory, _matches = checkout(api, target["repo"], run.head_sha, cache=ctx.settings.cache, base_sha=run.base_sha,
                                   oracle=change.judged_by)
    prop = property_named(directory, config, assertion_id)  # a command's names were listed by gate_head
    sandbox, holds, note = ctx.sandbox()
    if run.details.get("patch_mismatch"):
        holds += ("patch_mismatch",)
    reporter = _LogReporter(run_id)
    setup = SetupOutcome()
    if not holds:  # the set-up runs the head's code too: only in the sandbox, only on the exact code
        setup = set_up(config, checkout=directory, patch_digest=change.patch_digest, sandbox=sandbox,
                       cache=ctx.settings.cache / "witness-envs", say=reporter.say)
    ledger = Ledger(ctx.store)
    ledger.expire_due()
    policy = Policy.from_config(config, target.get("runs"))  # `/witness replay N`: N replays of each witness
    gate = GateRun(directory, change.patch_digest, change.split, policy, config, sandbox, None,
                   reporter, extra_holds=holds, freezes=ledger.active(run.repo), setup=setup,
                   notes=((note,) if note else ()) + change.notes(), new_modules=change.new_modules,
                   sink=StoreSink(ctx.store, run_id),  # the record goes straight to the store
                   source=change.provenance(),
                   base=base_of(facts, run.base_sha, config, oracle_changed=change.split.oracle_changed,
                                sandbox=sandbox, cache=ctx.settings.cache / "witness-envs", say=reporter.say),
                   sample_secret=sample_secret(ctx.settings))
    result = gate.gate_one(prop, pin_from_base(facts, run.base_sha, config)(prop))
    return {"assertion_id": assertion_id, "label": result.verdict.label}


def _change_of(run, facts: GitHubSource, config: Config) -> Change:
    """The change gate_head gathered once for every property's job; a run a worker of an earlier version started kept
    none (its jobs outlive a deploy), and is gathered again here from the same two commits, as gate_head would."""
    if "change" in run.details:
        return Change.from_details(run.details["change"])
    commits = Commits(facts, run.base_sha, run.head_sha)
    decided, _review = planned(commits, config)
    if isinstance(decided, plans.Refusal):  # the run fanned out, so its plan ran properties then
        raise RuntimeError(f"the run {run.id} no longer plans any property: {decided.title}")
    return gathered(commits, config, decided)


def sample_secret(settings) -> bytes:
    """The broader sample's secret: the App's private key's (never in a sandbox), so every worker draws the same sample
    for the same patch; an App not yet registered has only its webhook secret."""
    key = settings.private_key.encode("utf-8") if settings.private_key else settings.webhook_secret
    return hashlib.sha256(b"witness-gate broader sample\0" + key).digest()


def finish_run(run_id: str, target: dict[str, Any]) -> dict[str, Any]:
    ctx = context()
    return finish(ctx, ctx.api(target), run_id, target)


def finish(ctx: Context, api: FinishClient, run_id: str, target: dict[str, Any]) -> dict[str, Any]:
    """Once every property's job ended: the attempts under the freezes in force, rendered and completed once."""
    run = ctx.store.get_run(run_id)
    newer = ctx.current_head(target)
    if newer != run.head_sha:
        complete(ctx, api, run_id, checks.render_ended(newer), "superseded")
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
    output = render(ctx, run, attempts)
    label = overall_label([a["label"] for a in attempts])
    complete(ctx, api, run_id, output, label)
    # a freeze accepted while this run was in progress would silence it: its checks run only in a gate run
    gate_again_if_silenced(ctx, run, [records[k] for k in sorted(records)], ledger.active(run.repo))
    if target.get("answer_runs") and run.pr_number:  # `/witness replay N` is answered in one comment
        api.comment(run.pr_number, checks.replay_answer(attempts, target["runs"], ctx.details_url(run_id)))
    return {"run_id": run_id, "label": label, "conclusion": output.conclusion}
