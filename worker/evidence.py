"""The failures already seen on the same patch, from the store (the pin and the base are gathered through
witness_gate/pipeline/gather.py, over worker/checkout.py::GitHubSource)."""

from __future__ import annotations

from typing import Any

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
