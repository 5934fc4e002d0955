"""The gate with no server: `check` on a working directory and `run` on two commits of a git repository."""

from __future__ import annotations

import fnmatch
import secrets
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from pathlib import Path

from witness_gate.config.lock import Lock, LockError, load_pinned
from witness_gate.config.schema import CONFIG_NAME, Config, ConfigError, parse_config
from witness_gate.model.canonical import CanonicalError, patch_digest
from witness_gate.model.evidence import Policy
from witness_gate.pipeline import pytests
from witness_gate.pipeline.discover import PropertyTarget, properties_of
from witness_gate.pipeline.gather import Change, Commits, base_of, gathered, pin_from_base, planned
from witness_gate.pipeline.session import GateRun, Pinned, PropertyResult, Reporter
from witness_gate.records.sinks import keep_change
from witness_gate.rules import plan as plans
from witness_gate.rules.verdict import FreezeMatch, Split
from witness_gate.sandbox import Sandbox, make_readable, stage_directory
from witness_gate.setup.environment import SetupOutcome, default_cache, set_up
from witness_gate.sources import gitrepo, safefs
from witness_gate.sources.facts import GitSource


class InputError(ValueError):
    """Bad input the user can fix; the message says what, where and what to do."""


def load_config_file(directory: Path) -> Config:
    path = directory / CONFIG_NAME
    try:  # a checkout's file: never follow a link out of it or open a FIFO (witness_gate.sources.safefs)
        raw = safefs.read_inside(directory, CONFIG_NAME, max_bytes=1024 * 1024)
    except FileNotFoundError:
        return Config()
    except (safefs.UnsafePath, OSError) as exc:
        raise InputError(f"{path}: cannot read it ({exc})") from None
    return parse_config(raw, str(path))


@dataclass
class Outcome:
    """What a gate run produced, for the report and the exit code."""

    results: list[PropertyResult]
    header: str
    skipped: str = ""  # why nothing ran, when nothing had to
    refused: str = ""  # why nothing ran, when the change itself is refused
    config_review: plans.ConfigReview | None = None  # the head's new .witness.yml, when the change edits it


def working_tree(repo: Path) -> tuple[str, str]:
    """(HEAD's tree, the working directory's content tree); HEAD's is "" outside a git repository, where
    the content tree is still the exact code under test (article 001's sequence works in any directory)."""
    try:
        work_tree = gitrepo.content_tree(repo)
    except gitrepo.GitError:
        return "", ""
    try:
        return gitrepo.tree_of(repo, "HEAD"), work_tree
    except gitrepo.GitError:
        return "", work_tree


def _now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _head_sha(repo: Path) -> str:
    try:
        return gitrepo.rev_parse(repo, "HEAD")
    except gitrepo.GitError:
        return ""  # not a git repository: the content tree alone names the code


def working_patch_digest(repo: Path) -> str:
    """Digest of HEAD's tree against the working directory's: the exact code under test."""
    head_tree, work_tree = working_tree(repo)
    return patch_digest(head_tree, work_tree) if work_tree else ""


def check(
    repo: Path, lock: Lock, properties_dir: str, *, config: Config, policy: Policy, sandbox: Sandbox,
    out_dir: Path, reporter: Reporter, seed: str | None = None, freezes: tuple[FreezeMatch, ...] = (),
) -> Outcome:
    """Article 001's `check`: every property under `properties_dir` on the locked fixture."""
    try:
        fixture = load_pinned(lock, repo)
    except (LockError, CanonicalError) as exc:
        raise InputError(str(exc)) from None
    if seed:
        lock = Lock(lock.path, lock.fixture_digest, lock.generator_version, seed)
    head_tree, work_tree = working_tree(repo)
    digest = patch_digest(head_tree, work_tree) if work_tree else ""
    # a commit names the code only when the working files are that commit's (uncommitted changes: the tree alone)
    source = {"head_sha": _head_sha(repo) if head_tree == work_tree else "", "head_tree": work_tree, "tree": work_tree}
    checkout = stage_directory(repo)  # the sandbox reads a copy, never the working tree itself
    cache = Path(tempfile.mkdtemp(prefix="witness-envs-"))  # a working tree has no stable identity to cache by
    try:
        targets = _discover(checkout, properties_dir, config, sandbox)  # a command's listing runs on the copy
        setup = set_up(config, checkout=checkout, patch_digest=digest, sandbox=sandbox, cache=cache,
                       say=reporter.say)
        run = GateRun(checkout, digest, Split(impl_changed=True, oracle_changed=False), policy, config,
                      sandbox, out_dir, reporter, setup=setup, freezes=freezes, source=source)
        results = run.gate(targets, lambda target: Pinned(*pytests.pinned(lock.seed, config.generator_version))
                           if target.node else Pinned(lock, fixture))
    finally:
        shutil.rmtree(checkout, ignore_errors=True)
        shutil.rmtree(cache, ignore_errors=True)
    header = f"witness-gate check: {len(targets)} properties on {lock.path} (seed {lock.seed}, sandbox {sandbox.mode})"
    return Outcome(results, header)


def _discover(repo: Path, properties_dir: str, config: Config, sandbox: Sandbox) -> list[PropertyTarget]:
    try:
        targets = properties_of(repo, replace(config, properties_dir=properties_dir), sandbox)
    except ValueError as exc:
        raise InputError(str(exc)) from None
    if not targets:
        raise InputError(f"{properties_dir}: no prop_* functions found; a property is a top-level "
                         "function named prop_<something>(payload)")
    return targets


def _commits(repo: Path, base: str | None, head: str) -> tuple[Commits, bytes | None]:
    """The change's commits, and the base's .witness.yml (None: the embedded defaults apply)."""
    try:
        head_sha = gitrepo.rev_parse(repo, head)
        base_sha = gitrepo.rev_parse(repo, base) if base else gitrepo.default_base(repo, head_sha)
        facts = GitSource(repo)
        return Commits(facts, base_sha, head_sha), facts.file_at(CONFIG_NAME, base_sha)
    except gitrepo.GitError as exc:
        raise InputError(f"{repo}: {exc}") from None


def run(
    repo: Path, base: str | None, head: str, *, sandbox: Sandbox | Callable[[], Sandbox], out_dir: Path,
    reporter: Reporter, runs: int | None = None, seed: str | None = None, freezes: tuple[FreezeMatch, ...] = (),
    only: tuple[str, ...] = (),
) -> Outcome:
    """The whole gate between two commits: config, fixtures and the oracle from base, the implementation
    from head; changed paths from where head forked off base (GitHub's three dots), as the App has them. `only`:
    shell-style patterns of the assertion ids to gate (a look at a few properties; the others are not gated)."""
    c, raw_config = _commits(repo, base, head)
    # decide (pure), then apply: with no .witness.yml on the base the embedded defaults apply
    config = plans.config_of(raw_config, f"{CONFIG_NAME} (at base {c.base_sha[:12]})", required=False)
    if isinstance(config, plans.Refusal):
        raise ConfigError(list(config.problems), config.line)
    try:  # fails closed: a path outside impl, oracle and ignore is impl
        decided, review = planned(c, config)
        change = None if isinstance(decided, plans.Refusal) else gathered(c, config, decided)
    except gitrepo.GitError as exc:
        raise InputError(f"{repo}: {exc}") from None
    split = decided.split
    header = (f"witness-gate run: {repo} base {c.base_sha[:12]} -> head {c.head_sha[:12]}; {len(c.changed)} "
              f"changed paths (impl changed: {split.impl_changed}, oracle changed: {split.oracle_changed})")
    if isinstance(decided, plans.Refusal):
        keep_change(out_dir, {"record_id": secrets.token_hex(16), "created_at": _now(), "label": decided.label,
                              "reason": decided.reason, "head_sha": c.head_sha, "base_sha": c.base_sha,
                              "changed": c.changed, "oracle_files": list(decided.files),
                              "split": {"impl_changed": split.impl_changed, "oracle_changed": split.oracle_changed}})
        if decided.label == "mixed_edit":
            return Outcome([], header, refused=decided.reason, config_review=review)
        return Outcome([], header, skipped=decided.reason, config_review=review)
    sandbox = sandbox() if callable(sandbox) else sandbox
    if decided.new_tests:
        header += f"; {len(decided.new_tests)} new oracle files beside it, not judged (policy.new_tests)"
    results, header = _gate(repo, change, config, c.source, sandbox=sandbox, out_dir=out_dir, reporter=reporter,
                            policy=Policy.from_config(config, runs), seed=seed, freezes=freezes, header=header,
                            only=only)
    return Outcome(results, header, config_review=review)


def _gate(repo: Path, change: Change, config: Config, facts: GitSource, *, sandbox: Sandbox, out_dir: Path,
          reporter: Reporter, policy: Policy, seed: str | None, freezes: tuple[FreezeMatch, ...],
          header: str, only: tuple[str, ...] = ()) -> tuple[list[PropertyResult], str]:
    """Apply the plan: export what the gate runs, set it up, and gate every property (the base on demand)."""
    checkout = Path(tempfile.mkdtemp(prefix="witness-checkout-"))
    base = base_of(facts, change.base_sha, config, oracle_changed=change.split.oracle_changed, sandbox=sandbox,
                   cache=default_cache(), say=reporter.say)
    try:
        # the base's oracle over the head (new tests beside a fix are not among it: the base has none of them)
        gated = gitrepo.overlay(repo, change.head_sha, change.base_sha, change.judged_by)  # ARCHITECTURE.md
        if change.judged_by:
            header += f"; oracle from base {change.base_sha[:12]}"
        gitrepo.export(repo, gated, checkout)
        holds = ("patch_mismatch",) if gitrepo.tree_of_directory(repo, checkout) != gated else ()
        make_readable(checkout)
        targets = _discover(checkout, config.properties_dir, config, sandbox)
        if only:
            chosen = [t for t in targets if any(fnmatch.fnmatchcase(t.assertion_id, p) for p in only)]
            if not chosen:
                raise InputError(f"--only {' '.join(only)}: no property's assertion id matches; there are "
                                 f"{len(targets)}, e.g. {', '.join(t.assertion_id for t in targets[:3])}")
            header += f"; only {len(chosen)} of {len(targets)} properties (--only): no verdict on the others"
            targets = chosen
        setup = SetupOutcome()
        if not holds:  # the set-up runs code of the head too: only on the exact code under test
            setup = set_up(config, checkout=checkout, patch_digest=change.patch_digest, sandbox=sandbox,
                           cache=default_cache(), say=reporter.say)
        gate = GateRun(checkout, change.patch_digest, change.split, policy, config, sandbox, out_dir, reporter,
                       extra_holds=holds, setup=setup, freezes=freezes, new_modules=change.new_modules,
                       source=change.provenance(tree=gated), base=base, notes=change.notes())
        results = gate.gate(targets, pin_from_base(facts, change.base_sha, config, seed))
    finally:
        shutil.rmtree(checkout, ignore_errors=True)
        facts.close()
    return results, header + f"; patch {change.patch_digest[:12]}; sandbox {sandbox.mode}"
