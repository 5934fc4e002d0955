"""What one property's attempt is judged with, besides its own runs: the base's pinned fixture, and the
failures already seen on the same patch."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from witness_gate.baseline import LazyBase
from witness_gate.canonical import CanonicalError, sha256_hex
from witness_gate.config import CONFIG_NAME, Config
from witness_gate.lock import Lock, LockError, parse_fixture
from witness_gate.environment import set_up
from witness_gate.sandbox import Sandbox
from witness_gate.session import Pinned
from worker.checkout import checkout
from worker.clients import PropertyClient
from worker.context import Context


def failed_before(ctx: Context, run: Any) -> dict[str, str]:
    """Properties that failed in an earlier run of this same patch on this pull request: never forgotten."""
    found: dict[str, str] = {}
    for earlier in ctx.store.runs_for_pull(run.repo, run.pr_number):
        if earlier.id == run.id or earlier.patch_digest != run.patch_digest or not run.patch_digest:
            continue
        for attempt in ctx.store.attempts(earlier.id):
            if attempt.record.get("reason") is not None:
                found.setdefault(attempt.assertion_id, f"run {earlier.id[:12]}")
    return found


def pin_from_base(api: PropertyClient, base_sha: str, config: Config, assertion_id: str) -> Pinned:
    """The property's fixture as the base has it (a patch cannot move its own pin), or why there is none."""
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


def base_of(ctx: Context, api: PropertyClient, run: Any, config: Config, sandbox: Sandbox,
            say: Callable[[str], None]) -> LazyBase | None:
    """The base commit a failing witness is replayed on, fetched and set up only if one fails; none when the
    oracle changed (the change is judged an oracle defect whatever the base does)."""
    if run.details["split"]["oracle_changed"]:
        return None

    def check_out() -> Path:
        directory, exact = checkout(api, run.repo, run.base_sha, cache=ctx.settings.cache)
        if not exact:
            raise RuntimeError("its files are not the commit's tree")
        return directory

    return LazyBase(run.base_sha, check_out, lambda path: set_up(
        config, checkout=path, patch_digest=f"base:{run.base_sha}", sandbox=sandbox,
        cache=ctx.settings.cache / "witness-envs", say=say))
