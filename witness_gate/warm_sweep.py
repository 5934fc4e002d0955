"""Between two evaluations of a warm series, in the sandbox: nothing of one reaches the next (standard library only).

The harness loads this file by path for warm_parent.py before any dependency is imported, so every
function used here is bound before a dependency's code runs: one that later replaces `os.listdir` does not blind the sweep. It
kills every process the evaluation left, empties /tmp, /scratch and /dev/shm without recursion or long
paths (a tree may be deeper than either), gives each its mode as the sandbox mounted it and no extended
attribute, and checks that nothing the evaluation could set on the warm parent — which every later child
would inherit — has moved: nice, affinity, scheduling policy, I/O priority, OOM score, resource limits.
"""

from __future__ import annotations

import _signal
import ctypes
import fcntl
import gc
import os
import resource
import sys
import time

WRITABLE = ("/tmp", "/scratch", "/dev/shm")  # the tmpfs the sandbox mounts fresh in a cold start
SETTLE_TRIES = 2000
SWEEP_SECONDS = 10  # emptying takes at most this long; a slower sweep ends the series' warm start
DIRECTORY = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW
KEPT_ENTRIES, KEPT_BYTES, KEPT_DEPTH = 4096, 16 << 20, 32  # what imports may leave in the writable roots
SET_NS = 2 * 10**9  # a file's modification time this far from its change time was set, not written
IOPRIO_GET = {"x86_64": 252, "aarch64": 31}.get(os.uname().machine)  # not platform's: 1 ms of imports a start
RLIMITS = tuple(getattr(resource, name) for name in sorted(dir(resource)) if name.startswith("RLIMIT_"))

_kill, _waitpid, _listdir, _getpid, _open, _close = os.kill, os.waitpid, os.listdir, os.getpid, os.open, os.close
_scandir, _unlink, _rmdir, _chmod, _fchmod, _utime = os.scandir, os.unlink, os.rmdir, os.chmod, os.fchmod, os.utime
_stat, _listxattr, _removexattr, _read, _write = os.stat, os.listxattr, os.removexattr, os.read, os.write
_mkdir, _symlink, _readlink = os.mkdir, os.symlink, os.readlink
_getpriority, _getaffinity, _getscheduler, _getparam = (os.getpriority, os.sched_getaffinity,
                                                         os.sched_getscheduler, os.sched_getparam)
_getrlimit, _monotonic, _sleep = resource.getrlimit, time.monotonic, time.sleep
_SYSCALL = ctypes.CDLL(None, use_errno=True).syscall
_PRCTL, _OUT = ctypes.CDLL(None, use_errno=True).prctl, ctypes.c_int()
_OUT_REF = ctypes.byref(_OUT)
_fcntl, _F_GETFD, _F_GETFL = fcntl.fcntl, fcntl.F_GETFD, fcntl.F_GETFL
_freeze_count, _sigpending, _sigtimedwait = gc.get_freeze_count, _signal.sigpending, _signal.sigtimedwait
_tuple, _sorted, _int, _list, _abs, _any, _id = tuple, sorted, int, list, abs, any, id
_digits, _recursion, _SYS_DICT = sys.get_int_max_str_digits, sys.getrecursionlimit, sys.__dict__
# prctl's PR_GET_PDEATHSIG, PR_GET_DUMPABLE, PR_GET_CHILD_SUBREAPER, PR_GET_NO_NEW_PRIVS, PR_GET_TIMERSLACK
_PRCTL_GETS = ((2, True), (3, False), (37, True), (39, False), (30, False))


def fresh() -> tuple[int, ...]:
    """The writable roots' modes as the sandbox mounted them, read before anything ran in it: a tuple of ints,
    which nothing the dependencies' imports reach can change in place."""
    return tuple(_stat(folder).st_mode & 0o7777 for folder in WRITABLE)


def others() -> list[int]:
    """The sandbox's processes other than its init and this one."""
    me = _getpid()
    return [int(e) for e in _listdir("/proc") if e.isdigit() and int(e) not in (1, me)]


def _file(path: str) -> bytes:
    fd = _open(path, os.O_RDONLY)
    try:
        return _read(fd, 4096)
    finally:
        _close(fd)


def _prctl_gets() -> tuple:
    values = []
    for option, out in _PRCTL_GETS:
        got = _PRCTL(option, _OUT_REF, 0, 0, 0) if out else _PRCTL(option, 0, 0, 0, 0)
        values.append(_OUT.value if out else got)
    return _tuple(values)


def _descriptor_flags(fd: int) -> tuple:
    try:
        return _fcntl(fd, _F_GETFD), _fcntl(fd, _F_GETFL)
    except OSError:
        return ()


def fingerprint() -> tuple:
    """What a process of the same uid may set on this one and fork hands to every child, and what code in this
    process may set that a fork hands on otherwise than a cold start has it: its prctl flags (parent-death signal,
    dumpable, child subreaper, no-new-privileges, timer slack), its standard descriptors' flags, what it froze out
    of garbage collection, its POSIX timers (a fork drops them) and the signals waiting on it."""
    ioprio = _SYSCALL(IOPRIO_GET, 1, 0) if IOPRIO_GET else None  # IOPRIO_WHO_PROCESS, this process
    return (("nice", _getpriority(os.PRIO_PROCESS, 0)), ("affinity", _tuple(_sorted(_getaffinity(0)))),
            ("scheduling policy", _getscheduler(0), _getparam(0).sched_priority), ("I/O priority", ioprio),
            ("OOM score", _file("/proc/self/oom_score_adj")), ("resource limits", _tuple(_getrlimit(r) for r in RLIMITS)),
            ("process flags", _prctl_gets()), ("standard descriptors", _tuple(_descriptor_flags(fd) for fd in (0, 1, 2))),
            ("frozen objects", _freeze_count()), ("timers", _file("/proc/self/timers")),
            ("standard streams", _tuple(_id(_SYS_DICT.get(n)) for n in ("stdin", "stdout", "stderr"))),
            ("pending signals", _tuple(_sorted(_int(s) for s in _sigpending()))))


def limits() -> tuple[float, int]:
    """The interpreter's int-digit limit (0: none) and recursion limit, under which a child decodes its fixture."""
    return (_digits() or float("inf"), _recursion())


def limits_lowered(before: tuple[float, int]) -> str:
    """'' unless the imports lowered a limit a cold harness decodes its fixture under before they run (raising one,
    a deep library's own set-up, changes nothing a fixture meets)."""
    now = limits()
    if now[0] < before[0] or now[1] < before[1]:
        return "importing the dependencies lowered the interpreter's int-digit or recursion limit"
    return ""


def moved(before: tuple, by: str = "an evaluation") -> str:
    """'' when the fingerprint is still `before`; else what moved (`by` whom)."""
    now = fingerprint()
    return next((f"{by} changed the warm parent's {b[0]}" for b, n in zip(before, now) if b != n), "")


def drain() -> None:
    """Take every signal waiting on this process (it blocks them all): one an evaluation queued, or a child's
    SIGCHLD, would otherwise count in the next evaluation's SigQ (the uid's queued signals)."""
    while True:
        waiting = _sigpending()
        if not waiting:
            return
        _sigtimedwait(waiting, 0)


def end_processes() -> str:
    """Kill and reap whatever the evaluation left: ''; else why not."""
    for _ in range(SETTLE_TRIES):
        try:
            _kill(-1, _signal.SIGKILL)  # every process of the sandbox but its init and this one
        except ProcessLookupError:
            pass
        while True:
            try:
                if _waitpid(-1, os.WNOHANG)[0] == 0:
                    break
            except ChildProcessError:
                break
        if not others():
            drain()
            return ""
        _sleep(0.001)
    return "processes of an evaluation outlived it"


def sweep(modes: tuple[int, ...], kept: list[tuple] = ()) -> str:
    """End the evaluation's processes, give each writable root back as it was mounted, then put back what the
    dependencies' imports had left there (`kept`, from `snapshot`): ''; else why not."""
    why = end_processes()
    if why:
        return why
    deadline = _monotonic() + SWEEP_SECONDS
    for folder, mode in zip(WRITABLE, modes):
        try:
            _empty(folder, deadline)
            for name in _listxattr(folder):
                _removexattr(folder, name)
            _chmod(folder, mode)
            _utime(folder)
            if _listdir(folder):
                return f"{folder} could not be emptied"
        except (OSError, TimeoutError) as exc:
            return f"{folder} could not be emptied: {getattr(exc, 'strerror', None) or exc}"
    try:
        _restore(kept)
    except OSError as exc:
        return f"what the imports wrote could not be put back: {exc.strerror}"
    return ""


def snapshot() -> list[tuple] | str:
    """What importing the dependencies left in the writable roots (a cache folder under HOME), so that every
    evaluation starts with it as a cold one would have made it; or why it cannot be kept."""
    kept, size, folders = [], 0, [(folder, 0) for folder in WRITABLE]
    while folders:
        folder, depth = folders.pop()
        # newest first, as tmpfs lists a folder: made again in this order, it lists as the imports left it
        for entry in reversed(_list(_scandir(folder))):
            status = entry.stat(follow_symlinks=False)
            mode = status.st_mode
            if _listxattr(entry.path, follow_symlinks=False) or _abs(status.st_ctime_ns - status.st_mtime_ns) > SET_NS:
                # an extended attribute, or times the imports set (a stamp): not what putting it back gives
                return f"importing the dependencies left {entry.path}, which cannot be kept for every evaluation"
            times = (status.st_atime_ns, status.st_mtime_ns)
            if entry.is_symlink():
                kept.append(("link", entry.path, _readlink(entry.path), times))
            elif entry.is_dir(follow_symlinks=False) and depth < KEPT_DEPTH:
                kept.append(("folder", entry.path, mode & 0o7777, times))
                folders.append((entry.path, depth + 1))
            elif entry.is_file(follow_symlinks=False) and status.st_nlink == 1 and size + status.st_size <= KEPT_BYTES \
                    and status.st_blocks * 512 >= status.st_size:  # a second name, or a hole, is not what writing gives
                with open(entry.path, "rb") as handle:
                    data = handle.read(KEPT_BYTES - size + 1)
                size += len(data)
                kept.append(("file", entry.path, mode & 0o7777, data, (status.st_atime_ns, status.st_mtime_ns)))
            else:
                return f"importing the dependencies left {entry.path}, which cannot be kept for every evaluation"
        if len(kept) > KEPT_ENTRIES or size > KEPT_BYTES:
            return "importing the dependencies wrote more to /tmp, /scratch or /dev/shm than can be kept"
    return kept


def roots_as_mounted(modes: tuple[int, ...]) -> str:
    """'' when the imports left each writable root with the mode it was mounted with and no extended attribute:
    the sweep gives it that back before every evaluation, where a cold start keeps what its imports set."""
    if fresh() != modes or _any(_listxattr(folder) for folder in WRITABLE):
        return "importing the dependencies changed /tmp, /scratch or /dev/shm themselves (a mode, an attribute)"
    return ""


def listed(kept: list[tuple]) -> str:
    """'' when every folder of what was kept lists its entries as the imports left them; else which does not."""
    expected: dict[str, list[str]] = {}
    for _kind, path, *_rest in kept:
        folder, _, name = path.rpartition("/")
        expected.setdefault(folder, []).insert(0, name)
    for folder, names in expected.items():
        if _listdir(folder) != names:
            return f"what the imports left in {folder} does not list in its order once put back"
    return ""


def _restore(kept: list[tuple]) -> None:
    for kind, path, *rest in kept:  # a folder comes before what is in it
        if kind == "folder":
            _mkdir(path, 0o700)
        elif kind == "link":
            _symlink(rest[0], path)
        else:
            fd = _open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
            try:
                _write_all(fd, rest[1])
                _fchmod(fd, rest[0])
                _utime(fd, ns=rest[2])  # the times the imports left (a dependency may have noted them)
            finally:
                _close(fd)
    for kind, path, *rest in reversed(kept):  # a folder gets its mode and times once it is filled
        if kind == "folder":
            _chmod(path, rest[0])
        if kind != "file":
            _utime(path, ns=rest[-1], follow_symlinks=False)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[_write(fd, view):]


def _empty(folder: str, deadline: float) -> None:
    """Remove everything under `folder`, one open folder at a time (a tree deeper than the open-file limit too)."""
    fd = _open(folder, DIRECTORY)
    below: list[str] = []  # the names from `folder` down to the folder `fd` is
    try:
        while True:
            if _monotonic() > deadline:
                raise TimeoutError("it took too long")
            _fchmod(fd, 0o700)  # a folder made unwritable or unreadable is the owner's to open up again
            sub = _first_folder(fd)
            if sub is not None:
                _chmod(sub, 0o700, dir_fd=fd)
                child = _open(sub, DIRECTORY, dir_fd=fd)
                _close(fd)
                fd = child
                below.append(sub)
                continue
            if not below:
                return
            parent = _open("..", DIRECTORY, dir_fd=fd)
            _close(fd)
            fd = parent
            _rmdir(below.pop(), dir_fd=fd)
    finally:
        _close(fd)


def _first_folder(fd: int) -> str | None:
    """Unlink every entry of the folder that is not a folder; the name of a folder in it, or None once empty."""
    while True:
        seen = False
        with _scandir(fd) as entries:
            for entry in entries:
                seen = True
                if entry.is_dir(follow_symlinks=False):
                    return entry.name
                _unlink(entry.name, dir_fd=fd)
        if not seen:
            return None
