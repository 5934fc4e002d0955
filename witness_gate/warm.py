"""The warm start, host side: one sandbox and one interpreter per series, each evaluation forked from it.

A `WarmParent` is one bubblewrap sandbox running witness_gate/warm_parent.py; it takes one evaluation at a
time (its stdin with the verdict key, stdout and stderr travel as descriptors) and answers with the wait
status once nothing of that evaluation is left in the sandbox. A `WarmSeries` keeps up to `parallel` of
them for one runner and says, in `note`, why the series went back to cold starts when it did.
"""

from __future__ import annotations

import itertools
import os
import secrets
import selectors
import shutil
import signal
import socket
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from witness_gate.processes import Finished, end_leftovers, released
from witness_gate.warm_reading import Reading, pump

READY_SECONDS = 60  # the warm parent's imports get this long, as a cold evaluation's would
# bubblewrap's --die-with-parent follows the thread that started it: warm parents are started from one
# thread that lives as long as the gate, never from a replay's worker thread that ends with its pool;
# one per process, since a forked process (an RQ work horse) has none of its parent's threads
_STARTERS: dict[int, ThreadPoolExecutor] = {}
_STARTERS_LOCK = threading.Lock()


def _starter() -> ThreadPoolExecutor:
    with _STARTERS_LOCK:
        if os.getpid() not in _STARTERS:
            _STARTERS[os.getpid()] = ThreadPoolExecutor(1, thread_name_prefix="witness-warm-start")
        return _STARTERS[os.getpid()]


class WarmParent:
    """One warm sandbox; `run` is called by one thread at a time."""

    def __init__(self, proc, control: socket.socket, inbox: Path, word: str = "") -> None:
        self.proc, self.control, self.inbox = proc, control, inbox
        self.word = word  # the series' word, which every answer of the parent's starts with
        self.why = ""  # set when this parent can take no more evaluations
        self._fixture = b""  # what `inbox`/fixture.json holds (the sandbox sees the inbox read-only)

    def hand(self, fixture: bytes) -> None:
        """The next evaluation's fixture in `inbox`, written over the last one in place (truncating first would cost
        a journal commit an evaluation) unless it holds these bytes already (a witness's replays)."""
        if fixture == self._fixture:
            return
        fd = os.open(self.inbox / "fixture.json", os.O_WRONLY | os.O_CREAT, 0o644)
        try:
            view = memoryview(fixture)
            while view:
                view = view[os.write(fd, view):]
            os.ftruncate(fd, len(fixture))
        finally:
            os.close(fd)
        self._fixture = fixture

    def heard(self, said: bytes) -> str:
        """An answer without the series' word: '' when the parent is gone, `forged` when it does not carry it."""
        text = said.decode("utf-8", errors="replace")
        return text[len(self.word) + 1:] if text.startswith(f"{self.word} ") else ("forged" if text else "")

    @classmethod
    def start(cls, spawn: Callable[[int], object], inbox: Path, timeout: float) -> "WarmParent | str":
        """Start a parent with `spawn(fd)` (fd: its end of the control socket); the parent, or why not."""
        control, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            proc = _starter().submit(spawn, theirs.fileno()).result()
        except OSError as exc:
            control.close()
            return f"the warm sandbox did not start: {exc.strerror}"
        finally:
            theirs.close()
        parent = cls(proc, control, inbox, secrets.token_hex(16))
        control.settimeout(timeout)
        try:
            control.send(parent.word.encode())  # read by the parent before any dependency runs
            said = parent.heard(control.recv(4096))
        except OSError:
            said = ""
        control.settimeout(None)
        if said == "ready":
            return parent
        parent.close()
        if said == "forged":
            return "the warm parent's socket answered without the series' word (code its imports ran took it)"
        return said[5:] if said.startswith("cold ") else "the warm parent ended before it was ready"

    def send(self, key: str, cpu: int, timeout: float, cap: int) -> Reading | None:
        """Hand this parent one evaluation of the fixture in `inbox`: what to follow until its end; None when the
        parent had ended (run it cold)."""
        stdin_r, stdin_w = os.pipe()
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        os.write(stdin_w, f"{key}\n".encode())
        os.close(stdin_w)
        started = time.monotonic()
        try:
            socket.send_fds(self.control, [str(cpu).encode()], [stdin_r, out_w, err_w])
        except OSError:
            self.why = "the warm parent ended between evaluations"
        finally:
            for fd in (stdin_r, out_w, err_w):
                os.close(fd)
        if self.why:
            os.close(out_r), os.close(err_r)
            return None
        return Reading(out_r, err_r, self.control, started, timeout, cap)

    def finish(self, reading: Reading) -> Finished | None:
        """What the evaluation `reading` followed (done) came to; None when this parent ended under it (run it cold)."""
        stdout, stderr, said, fault, seconds = reading.end()
        said = self.heard(said)
        if fault:  # the evaluation's wall clock or output cap: as a cold start, the whole sandbox ends
            self.why = f"an evaluation ended by {fault}"
            self.close()
            return Finished(stdout, stderr, fault, -1, seconds)
        if not said.startswith(("done ", "broken ")):
            self.why = ("the warm parent's socket answered without the series' word" if said == "forged"
                        else "the warm parent ended during an evaluation")
            self.close()
            return None
        parts = said.split(" ", 2)
        if len(parts) < 2 or not parts[1].isdigit():
            self.why = "the warm parent answered out of turn"
            self.close()
            return None
        if parts[0] == "broken":
            self.why = parts[2] if len(parts) > 2 else "the warm parent could not settle"
        return Finished(stdout, stderr, None, os.waitstatus_to_exitcode(int(parts[1])), seconds)

    def run(self, key: str, cpu: int, timeout: float, cap: int) -> Finished | None:
        """One evaluation of the fixture in `inbox`, followed to its end; None when this parent ended (run it cold)."""
        reading = self.send(key, cpu, timeout, cap)
        if reading is None:
            return None
        with selectors.DefaultSelector() as selector:
            reading.follow(selector)
            while not reading.done():
                pump(selector, (reading,))
            return self.finish(reading)

    def close(self) -> None:
        """End the sandbox: the parent exits when its socket closes; anything slower is killed (idempotent)."""
        self.control.close()
        try:
            self.proc.wait(timeout=2)
        except Exception:  # noqa: BLE001 - subprocess.TimeoutExpired: it did not exit, so it is killed
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            self.proc.wait()
        released(self.proc.pid)
        end_leftovers()  # bubblewrap's inner process comes back to us, as after every cold evaluation
        shutil.rmtree(self.inbox, ignore_errors=True)


class WarmSeries:
    """Warm parents for one runner; `note` says why the series runs cold, once it does.

    Evaluations running at once share the parents: another parent is started only while evaluations take
    longer than starting a parent took, so a quick property waits for a parent instead of paying its imports,
    or ahead of time (`spare`) once a failure says replays will follow.
    """

    def __init__(self, start: Callable[[int], WarmParent | str]) -> None:
        self._start, self._idle, self._ready = start, [], threading.Condition()
        self._parents = 0  # started and not yet ended
        self._numbers = itertools.count()  # each start's number, which `start` is given (it picks the parent's core)
        self._start_seconds = self._eval_seconds = 0.0  # the first start's cost, the latest evaluation's
        self._spared = self._closed = False
        self._spares: list[threading.Thread] = []
        self._failed_at = 0.0  # when the series first saw a failure: a shrink and replays follow
        self.note = ""

    def spare_when_due(self, count: int, failed: bool, replays: int) -> None:
        """Once the series has failed, start `count` spares when they would be ready before its replays end:
        when the time since the first failure plus the replays' own, one after another, reaches what starting
        a parent took (a rental rule: a short shrink of a property slow to import never pays for a spare, whose
        start would only take the core the series runs on, while a long one starts them in time)."""
        if failed and not self._failed_at:
            self._failed_at = time.monotonic()
        if self._failed_at and (time.monotonic() - self._failed_at + replays * self._eval_seconds
                                >= self._start_seconds):
            self.spare(count)

    def spare(self, count: int) -> None:
        """Start `count` more parents in the background, once: replays of a witness will want them at once,
        and while the shrink runs their start costs an idle core, not the replays' time."""
        with self._ready:
            if self._spared or self.note or self._closed or count < 1:
                return
            self._spared = True
            self._parents += count
        for _ in range(count):
            self._spares.append(threading.Thread(target=self._start_spare, name="witness-warm-spare", daemon=True))
            self._spares[-1].start()

    def _start_spare(self) -> None:
        try:
            parent = self._start(next(self._numbers))
        except Exception:  # noqa: BLE001 - a spare that cannot start is only a spare: the series goes on
            parent = ""
        if isinstance(parent, str):
            self._ended("")
            return
        with self._ready:
            if not self._closed:
                self._idle.append(parent)
                self._ready.notify()
                return
            self._parents -= 1
        parent.close()

    def _take(self) -> WarmParent | str | None:
        """An idle parent; None when the caller should start one; "cold" once the series has gone cold."""
        with self._ready:
            while not self._idle and not self.note and self._parents and self._eval_seconds <= self._start_seconds:
                self._ready.wait()
            if self.note:
                return "cold"
            if self._idle:
                return self._idle.pop()
            self._parents += 1
            return None

    def run(self, job: Callable[[WarmParent], Finished | None]) -> Finished | None:
        """`job` on a free parent (started when none is free); None: run this evaluation cold."""
        parent = self._take()
        if parent == "cold":
            return None
        if parent is None:
            began = time.monotonic()
            try:
                parent = self._start(next(self._numbers))
            except Exception as exc:  # noqa: BLE001 - whatever went wrong, this evaluation and the rest run cold
                parent = f"the warm sandbox did not start: {type(exc).__name__}"
            self._start_seconds = self._start_seconds or time.monotonic() - began
            if isinstance(parent, str):
                self._ended(parent)
                return None
        try:
            done = job(parent)
        except Exception as exc:  # noqa: BLE001 - the parent is ended and its count given back: no one waits for it
            parent.why = parent.why or f"an evaluation could not be handed over: {type(exc).__name__}"
            parent.close()
            self._ended(parent.why)
            return None
        self.give_back(parent, done)
        return done

    def take_idle(self, most: int) -> list[WarmParent]:
        """Up to `most` parents that are free now (none waited for or started), for evaluations driven by one thread:
        two or more, or the series' only parent when no other is running or starting (a thread per evaluation
        would only take turns on it); else none. Each is handed back with `give_back`."""
        with self._ready:
            if self.note or self._closed or not (len(self._idle) >= 2 or self._parents == len(self._idle) == 1):
                return []
            taken, self._idle = self._idle[:most], self._idle[most:]
            return taken

    def give_back(self, parent: WarmParent, done: Finished | None) -> None:
        """A parent after an evaluation (`done`, None when it ended under it): free again, or ended."""
        if done is not None:
            self._eval_seconds = done.seconds
        if parent.why:
            parent.close()
            self._ended(parent.why if done is None or done.fault is None else "")  # a timeout ends one sandbox
        else:
            with self._ready:
                self._idle.append(parent)
                self._ready.notify()

    def _ended(self, why: str) -> None:
        with self._ready:
            self._parents -= 1
            if why:
                self.note = self.note or f"warm start not used: {why}; evaluations started cold"
            self._ready.notify_all()

    def close(self) -> None:
        with self._ready:
            self._closed = True
        for thread in self._spares:  # a spare still starting ends itself; nothing of the series outlives close
            if thread is not threading.current_thread():
                thread.join()
        with self._ready:
            parents, self._idle = self._idle, []
            self._parents -= len(parents)
        for parent in parents:
            parent.close()
