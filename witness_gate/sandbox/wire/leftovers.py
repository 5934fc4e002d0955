"""What a warm parent's children leave behind: every process they start that outlives them comes back to the parent
(a child subreaper) and is killed there, so nothing one evaluation starts runs into the next. Both sides' warm parents
use it; a side started for one evaluation ends with its whole sandbox instead."""

from __future__ import annotations

import os
import signal

PR_SET_CHILD_SUBREAPER = 36


def become_subreaper() -> None:
    """Orphans of this process's descendants are reparented here, not to the sandbox's init."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    except (OSError, AttributeError):
        pass  # then orphans go to the sandbox's init: they end with the sandbox


def end_orphans(keep) -> int:
    """Kill and reap every child of this process but `keep` (the evaluations still running), and what those orphans
    leave in turn. Returns how many."""
    ended = 0
    for _ in range(1000):  # each round takes one generation: a forking orphan's children come back next round
        found = [pid for pid in _children() if pid not in keep]
        if not found:
            break
        kill_all(found)
        ended += reap_all(found)
    return ended


def kill_all(pids) -> None:
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def reap_all(pids) -> int:
    """Wait for each of `pids` (this process's children) to end; how many did."""
    ended = 0
    for pid in pids:
        try:
            os.waitpid(pid, 0)
            ended += 1
        except ChildProcessError:
            pass
    return ended


def _children() -> list[int]:
    """This process's children, from the sandbox's own /proc (its pid namespace: a few entries)."""
    return [pid for pid, _fields in children_stats()]


def children_stats() -> list[tuple[int, list[str]]]:
    """This process's children, each with the fields of its /proc stat after the command name (state, ppid, pgrp,
    session, ...)."""
    me, found = str(os.getpid()), []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as handle:
                stat = handle.read().decode(errors="replace")
        except OSError:
            continue
        fields = stat[stat.rfind(")") + 2 :].split()  # the command name may hold ')': fields follow the last
        if fields[1:2] == [me]:
            found.append((int(entry), fields))
    return found
