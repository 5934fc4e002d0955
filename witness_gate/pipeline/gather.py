"""What an attempt is judged with besides its own runs, gathered once for both shells through a narrow source of
facts (witness_gate/sources/facts.py: a file at a commit, a commit's tree, a commit's files): the CLI's is git
(`GitSource`), the App's is GitHub (worker/checkout.py::GitHubSource). The plan, then the change's facts (`Change`,
carried whole to every property's gate), then each property's pin and the base on demand. The pinned fixture and the
base commit are read from the base side only, so a patch cannot move its own pin or pick the code its witness is
replayed on."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from witness_gate.config.lock import Lock, LockError, parse_fixture
from witness_gate.config.schema import CONFIG_NAME, Config
from witness_gate.model.canonical import CanonicalError, patch_digest, sha256_hex
from witness_gate.pipeline import pytests
from witness_gate.pipeline.baseline import LazyBase
from witness_gate.pipeline.discover import PropertyTarget
from witness_gate.pipeline.session import Pinned
from witness_gate.rules import plan as plans
from witness_gate.rules.verdict import Split
from witness_gate.sandbox import Sandbox
from witness_gate.sandbox.names import new_top_modules
from witness_gate.setup.environment import set_up
from witness_gate.sources.facts import Source


def pin_from_base(source: Source, base_sha: str, config: Config, seed: str | None = None
                  ) -> Callable[[PropertyTarget], Pinned]:
    """Each property's pinned fixture as the base has it (a pytest test has none: the empty payload and the seed),
    or why there is none. `seed`: the run's own (`run --seed`), over the fixture's and the configuration's."""

    def pinned(target: PropertyTarget) -> Pinned:
        if target.node:
            return Pinned(*pytests.pinned(seed or config.seed, config.generator_version))
        path = config.fixture_for(target.assertion_id)
        raw = source.file_at(path, base_sha)
        if raw is None:
            return Pinned(None, None, f"no fixture at {path} on the base commit {base_sha[:12]}; add it there, or "
                                      f"map properties.fixtures.{target.assertion_id} in {CONFIG_NAME}")
        try:
            fixture = parse_fixture(raw, f"{path} (at base {base_sha[:12]})")
        except (LockError, CanonicalError) as exc:
            return Pinned(None, None, str(exc))
        return Pinned(Lock(path, sha256_hex(raw), config.generator_version, seed or fixture.seed or config.seed),
                      fixture)

    return pinned


def base_of(source: Source, base_sha: str, config: Config, *, oracle_changed: bool, sandbox: Sandbox, cache: Path,
            say: Callable[[str], None]) -> LazyBase | None:
    """The base commit a failing witness is replayed on, checked out and set up only once one fails; none when the
    oracle changed (the change is judged an oracle defect whatever the base does)."""
    if oracle_changed:
        return None
    return LazyBase(base_sha, lambda: source.check_out(base_sha), lambda path: set_up(
        config, checkout=path, patch_digest=f"base:{base_sha}", sandbox=sandbox, cache=cache, say=say))


class Commits:
    """A change's two commits and what lies between them, each read through the source once and only when asked: the
    paths the head changes since it forked off the base (GitHub's three dots), and where it forked."""

    def __init__(self, source: Source, base_sha: str, head_sha: str) -> None:
        self.source, self.base_sha, self.head_sha = source, base_sha, head_sha

    @cached_property
    def changed(self) -> list[str]:
        return self.source.changed_paths(self.base_sha, self.head_sha)

    @cached_property
    def fork(self) -> str:
        return self.source.merge_base(self.base_sha, self.head_sha)


def planned(commits: Commits, config: Config) -> tuple[plans.Plan | plans.Refusal, plans.ConfigReview | None]:
    """What the change gets (rules/plan.py), with the facts it needs read here: whether each added oracle file was there
    where the head forked off the base (asked only when new tests beside a fix are in question), and, when the change
    edits `.witness.yml`, what its new version would mean (the base's still gates)."""
    source, changed, head_sha = commits.source, commits.changed, commits.head_sha
    decided = plans.plan(config, changed, lambda path: source.file_at(path, commits.fork) is not None)
    raw_head = source.file_at(CONFIG_NAME, head_sha) if CONFIG_NAME in changed else None
    return decided, plans.review_head_config(config, raw_head, changed, f"{CONFIG_NAME} (at head {head_sha[:12]})")


@dataclass(frozen=True)
class Change:
    """The facts of one gated change that every property's gate needs, gathered once before anything runs and carried
    whole: the CLI hands it on, the App keeps it in its run's details between the head's job and each property's. A new
    pre-run fact is a field here, filled in `gathered`."""

    head_sha: str
    base_sha: str
    head_tree: str
    patch_digest: str  # base tree against head tree: the exact code under test
    split: Split
    new_tests: tuple[str, ...] = ()  # oracle files the change only adds beside a fix: shown, not judged
    judged_by: tuple[str, ...] = ()  # oracle paths laid over the head from the base (its current oracle)
    new_modules: tuple[str, ...] = ()  # top-level modules the patch adds (sandbox/names.py): never the judge's
    fork_sha: str = ""  # where the head forked off the base: the changed paths, hence the split, count from here

    def provenance(self, **more: Any) -> dict[str, Any]:
        """Where the code under test came from, for the record (what `replay` checks a directory against)."""
        return {"head_sha": self.head_sha, "head_tree": self.head_tree, "base_sha": self.base_sha,
                "fork_sha": self.fork_sha, **more,
                "oracle_paths": list(self.judged_by)}

    def notes(self) -> tuple[str, ...]:
        """What a person should know about the whole change, beside every property's result."""
        return (plans.new_tests_note(self.new_tests),) if self.new_tests else ()

    def as_details(self) -> dict[str, Any]:
        return {"head_sha": self.head_sha, "base_sha": self.base_sha, "head_tree": self.head_tree,
                "patch_digest": self.patch_digest, "impl_changed": self.split.impl_changed,
                "oracle_changed": self.split.oracle_changed, "new_tests": list(self.new_tests),
                "judged_by": list(self.judged_by), "new_modules": list(self.new_modules), "fork_sha": self.fork_sha}

    @classmethod
    def from_details(cls, details: dict[str, Any]) -> "Change":
        return cls(details["head_sha"], details["base_sha"], details["head_tree"], details["patch_digest"],
                   Split(bool(details["impl_changed"]), bool(details["oracle_changed"])),
                   tuple(details["new_tests"]), tuple(details["judged_by"]), tuple(details["new_modules"]),
                   details["fork_sha"])


def gathered(commits: Commits, config: Config, decided: plans.Plan) -> Change:
    """The facts of a change the plan gates: a top-level module the head adds is one where it forked off the base
    lacks; when the base moved on since, or new tests come beside a fix, the base's current oracle is laid over the
    head."""
    source, fork, base_sha = commits.source, commits.fork, commits.base_sha
    head_tree = source.tree_of(commits.head_sha)
    split = decided.split
    judged_by = plans.oracle_from_base(config, split.oracle_changed) if fork != base_sha or decided.new_tests else ()
    return Change(commits.head_sha, base_sha, head_tree, patch_digest(source.tree_of(base_sha), head_tree),
                  Split(split.impl_changed, split.oracle_changed), decided.new_tests, judged_by,
                  new_top_modules(split.code, lambda path: source.file_at(path, fork) is not None), fork)
