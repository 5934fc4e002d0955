"""Starting one sandboxed process, reading its output under caps and a deadline, and leaving nothing behind.

Evaluations and the set-up both start their process through `start_and_collect`; the gate is a child
subreaper, so whatever the process leaves (bubblewrap's orphaned inner process, a daemon) comes back
to it and is killed and reaped.
"""

from __future__ import annotations

import ctypes
import functools
import os
import selectors
import signal
import subprocess
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from witness_gate.sandbox.wire.leftovers import children_stats, kill_all, reap_all

PR_SET_CHILD_SUBREAPER = 36
# the processes started here that are still running: evaluations in other threads are not leftovers
_RUNNING: set[int] = set()
_SPAWNING = threading.RLock()  # a child exists before it is in _RUNNING: listing children waits for that


@dataclass(frozen=True)
class Finished:
    """How a process ended: `fault` is None, "timeout", "output_limit" or "start"; `code` < 0 is a signal."""

    stdout: bytes
    stderr: bytes
    fault: str | None
    code: int
    seconds: float


def start_and_collect(argv: list[str], *, env: dict[str, str], cwd: str, preexec: Callable[[], None],
                      timeout: float, output_bytes: int, stdin: bytes = b"", pass_fds: tuple[int, ...] = ()
                      ) -> Finished:
    """Run `argv` with `stdin` written to it, until it exits, the deadline passes or a stream passes the cap."""
    become_subreaper()
    started = time.monotonic()
    try:
        proc = spawn(argv, cwd=cwd, env=env, preexec=preexec, pass_fds=pass_fds)
    except OSError as exc:
        return Finished(b"", f"could not start {argv[0]}: {exc.strerror}".encode(), "start", -1, 0.0)
    try:
        if stdin:
            proc.stdin.write(stdin)  # a few bytes: the pipe's buffer takes them without blocking
        proc.stdin.close()
    except OSError:
        pass  # it exited already; its exit says why
    try:
        stdout, stderr, fault = collect(proc, started + timeout, output_bytes)
    finally:
        released(proc.pid)
    end_leftovers()  # orphans that left the group came to us as their subreaper
    return Finished(stdout, stderr, fault, proc.returncode, time.monotonic() - started)


def spawn(argv: list[str], *, cwd: str, env: dict[str, str], preexec: Callable[[], None],
          pass_fds: tuple[int, ...] = (), quiet: bool = False) -> subprocess.Popen:
    """Start a process in a session of its own, with pipes, marked running until `released`. `quiet`: its stdin
    at its end at once, and what it writes read and dropped — pipes all the same, as an evaluation's are (a
    standard stream that can seek, /dev/null, is one a program can tell from a pipe)."""
    become_subreaper()
    with _SPAWNING:
        proc = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, start_new_session=True, preexec_fn=preexec, pass_fds=pass_fds)
        _RUNNING.add(proc.pid)
    if quiet:  # two pipes, as an evaluation has: a program may ask whether its stdout and stderr are one file
        proc.stdin.close()
        for stream in (proc.stdout, proc.stderr):
            threading.Thread(target=_drop, args=(stream,), name="witness-quiet", daemon=True).start()
    return proc


def _drop(stream) -> None:
    """Read `stream` to its end and forget it."""
    try:
        with stream:
            while stream.read1(1 << 16):
                pass
    except (ValueError, OSError):  # closed under it by the process's end (forks.end_process)
        pass


def released(pid: int) -> None:
    """`pid` has been waited for: from now on anything of that number is a leftover."""
    with _SPAWNING:
        _RUNNING.discard(pid)


def collect(proc: subprocess.Popen, deadline: float, cap: int) -> tuple[bytes, bytes, str | None]:
    """Read both pipes until exit; kill the process group at the deadline or past the cap."""
    buffers = {proc.stdout: bytearray(), proc.stderr: bytearray()}
    fault = None
    with selectors.DefaultSelector() as selector:
        for stream in buffers:
            selector.register(stream, selectors.EVENT_READ)
        while selector.get_map():
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                fault = "timeout"
                break
            for key, _ in selector.select(timeout=min(remaining, 0.5)):
                if read_into(selector, key, buffers, cap):
                    fault = "output_limit"
            if fault:
                break
            if proc.poll() is not None and not selector.select(timeout=0):
                break  # exited; a leftover child holding the pipes is killed below
    if fault:
        _kill_group(proc)
    else:
        try:
            proc.wait(timeout=max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            fault = "timeout"
            _kill_group(proc)
    _kill_group(proc)  # nothing the process started outlives it
    proc.stdout.close()
    proc.stderr.close()
    proc.wait()
    return bytes(buffers[proc.stdout]), bytes(buffers[proc.stderr]), fault


def collect_pair(main: subprocess.Popen, other: subprocess.Popen, deadline: float, cap: int
                 ) -> tuple[Finished, Finished]:
    """Follow two processes that talk to each other until `main` ends (the deadline, or its output past the cap);
    then `other` is ended too. `other` writing past the cap is ended at once, and `main` goes on without it."""
    started = time.monotonic()
    streams = {main.stdout: bytearray(), main.stderr: bytearray(), other.stdout: bytearray(), other.stderr: bytearray()}
    faults: dict[subprocess.Popen, str | None] = {main: None, other: None}
    for proc in (main, other):
        try:
            proc.stdin.close()
        except OSError:
            pass
    try:
        with selectors.DefaultSelector() as selector:
            for stream in streams:
                selector.register(stream, selectors.EVENT_READ)
            mine = {main.stdout, main.stderr}
            while any(key.fileobj in mine for key in selector.get_map().values()) or main.poll() is None:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    faults[main] = "timeout"
                    break
                for key, _ in selector.select(timeout=min(remaining, 0.5)):
                    owner = main if key.fileobj in mine else other
                    if read_into(selector, key, streams, cap) and faults[owner] is None:
                        faults[owner] = "output_limit"
                        _kill_group(owner)
                        for stream in ((main.stdout, main.stderr) if owner is main else (other.stdout, other.stderr)):
                            if stream in {k.fileobj for k in selector.get_map().values()}:
                                selector.unregister(stream)
                if faults[main]:
                    break
                if main.poll() is not None and not any(key.fileobj in mine for key, _ in selector.select(timeout=0)):
                    break
    finally:
        for proc in (main, other):
            _kill_group(proc)
            proc.stdout.close()
            proc.stderr.close()
            proc.wait()
            released(proc.pid)
        end_leftovers()
    seconds = time.monotonic() - started
    return tuple(Finished(bytes(streams[p.stdout]), bytes(streams[p.stderr]), faults[p], p.returncode, seconds)
                 for p in (main, other))


def read_into(selector: selectors.BaseSelector, key: selectors.SelectorKey, buffers: dict, cap: int) -> bool:
    """One read from a ready stream into its buffer (keyed by the stream); True once it is past `cap`."""
    chunk = os.read(key.fd, 65536)
    if not chunk:
        selector.unregister(key.fileobj)
        return False
    buffers[key.fileobj] += chunk
    return len(buffers[key.fileobj]) > cap


def _kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


@functools.lru_cache(maxsize=1)
def become_subreaper() -> bool:
    """Make orphaned descendants of evaluations our children, so they can be killed and reaped.

    bubblewrap's outer process exits before reaping its inner one, and a property may daemonize;
    either way the orphan would otherwise go to PID 1, which in a container may never reap it
    (and zombies of the sandbox uid count against its process limit).
    """
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _children() -> list[int]:
    """Children in a session other than ours: what spawn started (each in a session of its own) and what
    came back to us from it. A child in our own session (git, run by another thread) is never a leftover."""
    session = str(os.getsid(0))
    return [pid for pid, fields in children_stats() if fields[3:4] != [session]]


def end_leftovers(keep: set[int] = frozenset()) -> int:
    """Kill and reap every child but `keep` and those still running: whatever an evaluation left behind.

    Returns how many. Under bubblewrap the only orphans are the inner processes of sandboxes whose outer
    process has exited, so an evaluation running in another thread is never touched.
    """
    with _SPAWNING:  # killed under the lock, so a child just spawned is in _RUNNING; reaped outside it
        doomed = [pid for pid in _children() if pid not in keep and pid not in _RUNNING]
        kill_all(doomed)
    return reap_all(doomed)
