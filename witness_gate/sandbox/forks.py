"""Sides started ahead of their evaluations. A warm parent (`ForkServer`) imports once and forks one child an
evaluation, handed its descriptors over a control socket: a warm judge may decide any row, a warm subject only shrink
candidates and blocks it confirms (the runner's `candidate`). `Ahead` starts cold subjects before they are needed, each
to serve one evaluation: a row from one is cold, since it ran no earlier evaluation."""

from __future__ import annotations

import json
import os
import selectors
import socket
import subprocess
import threading
import time
from collections.abc import Callable

from witness_gate.sandbox.processes import _kill_group, end_leftovers, released

READY_SECONDS = 30.0


class ForkServer:
    """One warm parent (judge or subject side); `start(fd)` launches it with the control socket's other end. The
    control socket keeps messages apart (SOCK_SEQPACKET): a request with its descriptors, a report, each one packet."""

    def __init__(self, start: Callable[[int], subprocess.Popen], ready_seconds: float = READY_SECONDS) -> None:
        self.control, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            self.proc = start(theirs.fileno())
        finally:
            theirs.close()
        self._codes: dict[int, int] = {}  # children's exit codes read but not yet asked for, by sequence number
        self._turn = threading.Condition()  # one thread reads the parent's reports at a time, for every waiter
        self._reading = False
        self._sending = threading.Lock()
        self.control.settimeout(ready_seconds)
        try:
            ready = self.control.recv(6) == b"ready\n"
        except OSError:
            ready = False
        if not ready:  # what it said is drained and dropped (processes.spawn, quiet): its evaluations run cold
            self.close()
            raise OSError("a warm parent did not start")
        self.control.settimeout(None)

    def fork(self, message: dict, fds: list[int]) -> None:
        with self._sending:
            socket.send_fds(self.control, [json.dumps(message).encode()], fds)

    def kill(self, seq: int) -> None:
        """End the child of request `seq` (past its deadline); its exit is still reported."""
        try:
            with self._sending:
                self.control.send(json.dumps({"kill": seq}).encode())
        except OSError:
            pass

    def exit_code(self, seq: int, deadline: float) -> int | None:
        """How the judge parent's child of request `seq` ended, or None past the deadline (or from a broken parent).
        Whichever waiting thread reads a report keeps it for the thread it belongs to."""
        with self._turn:
            while seq not in self._codes:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return None
                if self._reading:
                    self._turn.wait(remaining)
                    continue
                self._reading = True
                self._turn.release()
                try:
                    report = _report(self.control, remaining)
                finally:
                    self._turn.acquire()
                    self._reading = False
                    self._turn.notify_all()
                if report is None:
                    return None
                self._codes[report[0]] = report[1]
            return self._codes.pop(seq)

    def close(self) -> None:
        self.control.close()
        end_process(self.proc)


def _report(control: socket.socket, timeout: float) -> tuple[int, int] | None:
    """One "<seq> <code>" packet from a parent, or None (late, closed, or not a report)."""
    ready = selectors.DefaultSelector()
    try:
        ready.register(control, selectors.EVENT_READ)
        if not ready.select(timeout):
            return None
        packet = control.recv(64)
        seq, code = packet.split()
        return int(seq), int(code)
    except (OSError, ValueError):
        return None
    finally:
        ready.close()


class Ahead:
    """Cold sides started before they are asked for: `take()` gives one that has served nothing, with the gate's
    end of its socket; a thread of its own starts the next ones while that one works, and ends the used ones handed
    back with `done()`. `start(fd)` launches one with its end of a new socket pair. Every side is started from that
    one thread, which lives as long as this: bubblewrap's --die-with-parent kills a sandbox when the thread that
    started it ends (a replay thread of a series run at once would take its subjects with it)."""

    def __init__(self, start: Callable[[int], subprocess.Popen], count: int) -> None:
        self.start, self.count = start, count
        self._turn = threading.Condition()
        self._waiting: list[tuple[subprocess.Popen, socket.socket]] = []
        self._used: list[subprocess.Popen] = []
        self._closed = False
        self._asked = 0  # takers waiting now: as many more are started
        self._failed: BaseException | None = None
        self._thread = threading.Thread(target=self._keep, name="witness-ahead", daemon=True)
        self._thread.start()

    def take(self, timeout: float = 60.0) -> tuple[subprocess.Popen, socket.socket]:
        with self._turn:
            self._asked += 1
            self._turn.notify_all()
            try:
                if not self._turn.wait_for(lambda: self._waiting or self._failed or self._closed, timeout):
                    raise OSError("no subject could be started ahead in time")
                if not self._waiting:
                    raise OSError(f"a subject could not be started ahead: {self._failed or 'closed'}")
                return self._waiting.pop(0)
            finally:
                self._asked -= 1
                self._turn.notify_all()

    def done(self, proc: subprocess.Popen) -> None:
        """A used side, ended by the thread (after the row is read, off its way)."""
        with self._turn:
            self._used.append(proc)
            self._turn.notify_all()

    def _keep(self) -> None:
        while True:
            with self._turn:
                while not self._closed and not self._used and (self._full() or self._failed):
                    self._turn.wait()
                if self._closed:
                    return
                short = not self._full() and not self._failed  # starting comes first: a taker may be waiting
                used, self._used = ([], self._used) if short else (self._used, [])
            if not short:
                for proc in used:
                    end_process(proc)
                continue
            try:
                started = self._launch()
            except BaseException as exc:  # noqa: BLE001 - take() says it
                with self._turn:
                    self._failed = exc
                    self._turn.notify_all()
                continue
            with self._turn:
                late = self._closed  # closed while it started (by the runner's end, on this very thread)
                if not late:
                    self._waiting.append(started)
                self._turn.notify_all()
            if late:
                started[1].close()
                end_process(started[0])

    def _full(self) -> bool:
        return len(self._waiting) >= self.count + self._asked

    def _launch(self) -> tuple[subprocess.Popen, socket.socket]:
        mine, theirs = socket.socketpair()
        try:
            return self.start(theirs.fileno()), mine
        except BaseException:
            mine.close()
            raise
        finally:
            theirs.close()

    def close(self) -> None:
        with self._turn:
            self._closed = True
            self._turn.notify_all()
        if threading.current_thread() is not self._thread:  # a runner collected on this thread ends it from here
            self._thread.join()
        with self._turn:
            waiting, self._waiting = self._waiting, []
            used, self._used = self._used, []
        for proc, end in waiting:
            end.close()
        for proc in [p for p, _ in waiting] + used:
            end_process(proc)


def start_serving(judge: ForkServer, message: dict) -> socket.socket | None:
    """A child of the warm judge parent that serves requests one after another on the socket returned (a series of
    shrink candidates); None when the parent is gone."""
    mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    unused_r, unused_w = os.pipe()
    quiet = os.open(os.devnull, os.O_WRONLY)
    try:
        judge.fork(message, [theirs.fileno(), unused_w, quiet])
    except OSError:
        mine.close()
        return None
    finally:
        theirs.close()
        for fd in (unused_r, unused_w, quiet):
            os.close(fd)
    return mine


def ask_serving(serving: socket.socket, message: dict, judge_end: socket.socket, subject_stderr: int, deadline: float,
                cap: int) -> tuple[dict[str, bytes], str | None] | None:
    """One request to a serving child, with the socket to its subject, and what it said (verdict, its stderr, the
    subject's stderr) by `deadline`, each stream up to `cap`; None when it could not be asked. Closes the ends given."""
    verdict_r, verdict_w = os.pipe()
    judge_r, judge_w = os.pipe()
    try:
        socket.send_fds(serving, [json.dumps(message).encode()], [judge_end.fileno(), verdict_w, judge_w])
    except OSError:
        for fd in (verdict_r, judge_r, subject_stderr):
            os.close(fd)
        return None
    finally:
        judge_end.close()
        os.close(verdict_w)
        os.close(judge_w)
    return read_until_closed({"verdict": verdict_r, "judge": judge_r, "subject": subject_stderr}, deadline, cap,
                             until=("verdict", "judge"))


def end_process(proc: subprocess.Popen) -> None:
    """Kill a side's process group, close its pipes and reap it."""
    _kill_group(proc)
    for stream in (proc.stdin, proc.stdout, proc.stderr):
        if stream is not None:
            stream.close()
    proc.wait()
    released(proc.pid)
    end_leftovers()  # its inner process, orphaned to us as the outer one ended


def read_until_closed(fds: dict[str, int], deadline: float, cap: int, until: tuple[str, ...] = ()
                      ) -> tuple[dict[str, bytes], str | None]:
    """Read the descriptors until those named in `until` (default: all) reached their end, by the deadline and under
    the cap; the others give what they had by then. Closes them all. A fault names what stopped it."""
    out = {name: bytearray() for name in fds}
    waited = set(until or fds)
    fault = None
    with selectors.DefaultSelector() as selector:
        for name, fd in fds.items():
            selector.register(fd, selectors.EVENT_READ, name)
        while waited & {key.data for key in selector.get_map().values()}:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                fault = "timeout"
                break
            for key, _ in selector.select(timeout=min(remaining, 0.5)):
                if _read(key, out, selector) > cap:
                    fault = "output_limit"
            if fault:
                break
        for key, _ in selector.select(timeout=0) if not fault else ():
            _read(key, out, selector)  # what the others had written by then
    for fd in fds.values():
        os.close(fd)
    return {name: bytes(data) for name, data in out.items()}, fault


def _read(key, out: dict, selector) -> int:
    chunk = os.read(key.fd, 65536)
    if not chunk:
        selector.unregister(key.fd)
        return 0
    out[key.data] += chunk
    return len(out[key.data])
