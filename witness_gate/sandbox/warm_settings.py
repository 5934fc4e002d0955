"""How evaluations of one series are started, read once where a runner is built: how many replays run at
once (WITNESS_PARALLEL) and whether sides are started ahead of their evaluations (WITNESS_WARM): a warm judge parent,
subjects booted before they are needed, and warm parents of both sides for shrink candidates."""

from __future__ import annotations

import os
from collections.abc import Mapping

from witness_gate.sandbox.staging import SandboxUnavailable

PARALLEL_ENV = "WITNESS_PARALLEL"
WARM_ENV = "WITNESS_WARM"
WARM_DEFAULT = True  # WITNESS_WARM=off starts both sides of every evaluation for it (docs/SECURITY.md, "The boundary")


class SettingError(SandboxUnavailable):
    """A sandbox setting in the environment cannot be read (reported as an unusable sandbox is: exit 2)."""


def cores() -> int:
    """The cores this process may run on (its affinity), which a container or taskset may limit."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def parallel_from_environment(environ: Mapping[str, str] | None = None) -> int:
    """WITNESS_PARALLEL, a whole number of at least 1; unset, the cores this process is given."""
    raw = (os.environ if environ is None else environ).get(PARALLEL_ENV, "").strip()
    if not raw:
        return cores()
    if not raw.isdigit() or int(raw) < 1:
        raise SettingError(f"{PARALLEL_ENV} must be a whole number of at least 1 (replays run at once), not "
                           f"{raw!r}; unset it to use the {cores()} cores this process may run on")
    return int(raw)


def warm_from_environment(environ: Mapping[str, str] | None = None) -> bool:
    """WITNESS_WARM: on or off; unset, WARM_DEFAULT."""
    raw = (os.environ if environ is None else environ).get(WARM_ENV, "").strip().lower()
    if not raw:
        return WARM_DEFAULT
    if raw not in ("on", "off", "1", "0"):
        raise SettingError(f"{WARM_ENV} must be on or off (fork shrink candidates from warm parents), "
                           f"not {raw!r}")
    return raw in ("on", "1")
