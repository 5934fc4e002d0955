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
        for pid in found:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        for pid in found:
            try:
                os.waitpid(pid, 0)
                ended += 1
            except ChildProcessError:
                pass
    return ended


def _children() -> list[int]:
    """This process's children, from the sandbox's own /proc (its pid namespace: a few entries)."""
    me, found = str(os.getpid()), []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as handle:
                stat = handle.read().decode(errors="replace")
        except OSError:
            continue
        if stat[stat.rfind(")") + 2 :].split()[1:2] == [me]:  # the command name may hold ')': fields follow the last
            found.append(int(entry))
    return found
