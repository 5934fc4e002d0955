"""What an attempt is judged with besides its own runs, gathered once for both shells through a narrow source of
facts (witness_gate/sources/facts.py: a file at a commit, a commit's files): the CLI's is git (`GitSource`), the
App's is GitHub (worker/checkout.py::GitHubSource). The pinned fixture and the base commit are read from the base side only, so a patch cannot
move its own pin or pick the code its witness is replayed on."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from witness_gate.config.lock import Lock, LockError, parse_fixture
from witness_gate.config.schema import CONFIG_NAME, Config
from witness_gate.model.canonical import CanonicalError, sha256_hex
from witness_gate.pipeline import pytests
from witness_gate.pipeline.baseline import LazyBase
from witness_gate.pipeline.discover import PropertyTarget
from witness_gate.pipeline.session import Pinned
from witness_gate.rules import plan as plans
from witness_gate.sandbox import Sandbox
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


def planned(source: Source, config: Config, changed: list[str], head_sha: str, fork_of: Callable[[], str]
            ) -> tuple[plans.Plan | plans.Refusal, plans.ConfigReview | None]:
    """What the change gets (rules/plan.py), with the facts it needs read here: whether each added oracle file was there
    where the head forked off the base (`fork_of`, asked only when new tests beside a fix are in question), and, when
    the change edits `.witness.yml`, what its new version would mean (the base's still gates)."""
    decided = plans.plan(config, changed, lambda path: source.file_at(path, fork_of()) is not None)
    raw_head = source.file_at(CONFIG_NAME, head_sha) if CONFIG_NAME in changed else None
    return decided, plans.review_head_config(config, raw_head, changed, f"{CONFIG_NAME} (at head {head_sha[:12]})")
