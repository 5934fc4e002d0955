"""A file's rows from one pytest start: this process configures pytest once (the oracle's configuration and
conftest.py files), then forks a child for each row, which goes on from there exactly as that test's own pytest session
would (its collection, its tests, the session's end) against a cold subject of its own. A child ends with its row:
nothing one row did reaches another, in the judge or in a subject.

Only a start a fork cannot tell apart is forked from: one that asked nothing of the implementation (else every later
row's subject would have to be told the start's requests again, and a subject can tell a replayed start from a live
one by its timing: found by a reviewer, who turned a regression into a flake so), and that left nothing a fork does
not copy or changes: no thread, no process, no timer, no read of its process id (a conftest.py comparing it at the
session's end), no hook run at a fork. The random module's state at the fork is the child's, as it would be in a
session of its own (a fork reseeds it). Any other start serves its first row itself, as that test's own session, and
takes no more: the gate makes the rest one session a row.

A row's request on the control socket is {"selector": "pytest:<relpath>::<node>", "fixture": <path or "">} with three
descriptors: the socket to its subject, the verdict's pipe and a stderr; a fixture holds a Hypothesis example the gate
recorded (that one example, as @reproduce_failure runs it), none the seeded search. Each verdict line is the one a
single test's judge writes, with "series": "ends" when no more rows are taken.
"""

from __future__ import annotations

import os
import socket
import sys
import tempfile
import time

from witness_gate.sandbox.judge import examples as hypothesis_examples
from witness_gate.sandbox.judge import tests
from witness_gate.sandbox.judge.blame import shadowed_why, test_verdict
from witness_gate.sandbox.judge.verdicts import usable_reason
from witness_gate.sandbox.wire.frames import Channel, dumps, loads


class Counting(Channel):
    """The first subject's channel, counting what the judge asked of it."""

    sent = 0

    def send(self, message: object) -> None:
        self.sent += 1
        super().send(message)


class Start:
    """What pytest's start did that a fork would not carry into a row's child as it is: asked anything of the
    implementation, started a thread, a process or a timer, read the process id from the oracle's code, or registered
    a hook run at a fork."""

    def __init__(self, peer, root: str) -> None:
        import threading

        self.peer, self.root = peer, os.path.realpath(root) + os.sep
        self.threads = threading.active_count()
        self.seen: list[str] = []
        self._put_back = []
        for name in ("getpid", "getppid", "register_at_fork"):
            original = getattr(os, name)
            self._put_back.append((name, original))
            setattr(os, name, self._watching(name, original))

    def _watching(self, name: str, original):
        def watched(*args, **kwargs):
            if self._from_oracle():
                self.seen.append(f"os.{name}")
            return original(*args, **kwargs)
        return watched

    def _from_oracle(self) -> bool:
        frame = sys._getframe(2)
        while frame is not None:
            if os.path.realpath(frame.f_code.co_filename).startswith(self.root):
                return True
            frame = frame.f_back
        return False

    def unfit(self) -> str:
        """Why a row cannot be forked from this start ('' when it can); puts os back as it was."""
        import signal
        import threading

        from witness_gate.sandbox.wire.leftovers import _children

        for name, original in self._put_back:
            setattr(os, name, original)
        if self.peer.channel.sent:
            return "it asked the implementation for something"
        if threading.active_count() != self.threads:
            return "it left a thread running"
        if _children():
            return "it left a process running"
        if any(signal.getitimer(which) != (0.0, 0.0)
               for which in (signal.ITIMER_REAL, signal.ITIMER_VIRTUAL, signal.ITIMER_PROF)):
            return "it set a timer"
        return f"it called {self.seen[0]}" if self.seen else ""


class Rows:
    """The pytest plugin of the sweep: at pytest's collection, the configured process serves rows, a child each."""

    def __init__(self, control: socket.socket, relpath: str, request: tuple[dict, list[int]], peer, start) -> None:
        self.control, self.relpath, self.request = control, relpath, request
        self.peer, self.start = peer, start
        self.reports = tests.Reports()
        self.selector = ""
        self.payload = {}
        self.verdict_fd = -1
        self.child = False  # this process is a row's
        self.ends = ""  # why no more rows are taken after this one

    # -- what pytest reports goes to the row's Reports (in a child; the start's, in this process) -----------------
    def pytest_collectreport(self, report):
        self.reports.pytest_collectreport(report)

    def pytest_exception_interact(self, node, call, report):
        self.reports.pytest_exception_interact(node, call, report)

    def pytest_keyboard_interrupt(self, excinfo):
        self.reports.pytest_keyboard_interrupt(excinfo)

    def pytest_runtest_call(self, item):
        self.reports.pytest_runtest_call(item)

    def pytest_runtest_logreport(self, report):
        self.reports.pytest_runtest_logreport(report)

    def pytest_collection_modifyitems(self, config, items):
        self.reports.pytest_collection_modifyitems(config, items)

    # -- the rows -------------------------------------------------------------------------------------------------
    def pytest_collection(self, session):
        import gc
        import random

        unfit = self.start.unfit()
        if unfit:  # this process is the first row's own session, and the last row it takes
            self.become_row(session, *self.request, fork=False)
            self.ends = f"pytest's start cannot be forked from: {unfit}"
            return None
        _rewritten(os.path.join(os.getcwd(), self.relpath), session.config)
        gc.freeze()  # what pytest's start made is never scanned in a row's child, nor copied into it
        state = random.getstate()  # a fork reseeds random: the child's is the start's, as in its own session
        while self.request is not None:
            message, fds = self.request
            child = os.fork()
            if child == 0:
                self.control.close()
                random.setstate(state)
                self.become_row(session, message, fds)
                return None  # the child goes on as the row's own session: collection, its tests, the end
            for fd in fds:
                os.close(fd)
            os.waitpid(child, 0)
            from witness_gate.sandbox.wire.leftovers import end_orphans

            end_orphans(())  # what the row started ends with it
            self.request = _receive(self.control)
        os._exit(0)

    def become_row(self, session, message: dict, fds: list[int], fork: bool = True) -> None:
        wire, self.verdict_fd, stderr = fds
        _stderr_is(stderr, session.config)
        self.child = True
        self.selector = str(message.get("selector", ""))
        deadline = time.monotonic() + float(os.environ.get("WITNESS_TIMEOUT", "60"))
        if fork:  # a subject of its own, which nothing has asked anything yet
            self.peer.channel = Channel(wire)
        self.peer.channel.deadline = deadline
        os.environ["HYPOTHESIS_STORAGE_DIRECTORY"] = tempfile.mkdtemp(prefix="hypothesis-")
        payload = _payload(str(message.get("fixture") or ""))
        self.reports.examples.uninstall()  # the start's, set up for its first row
        self.reports = tests.Reports()
        self.reports.examples = hypothesis_examples.Examples(payload or None)
        self.reports.examples.install()
        self.payload = payload
        nodeid, named = _nodeid(self.selector)
        self.reports.named = named
        session.config.args[:] = [nodeid]  # collected as the row's own session collects: that test alone
        if self.peer.fault is not None or (payload and not hypothesis_examples.recorded(payload)):
            self.end(None, None)  # nothing of the test runs

    def end(self, code: int | None, stopped: BaseException | None) -> None:
        """The row's verdict line, and the child's end."""
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except BaseException:  # noqa: BLE001 - streams the test closed
            pass
        verdict = self.verdict(code, stopped)
        try:
            os.write(self.verdict_fd, dumps({"outcome": verdict[0], "reason": verdict[1], "detail": verdict[2][-2000:],
                                             "imports": list(verdict[3]), **verdict[4],
                                             **({"series": "ends"} if self.ends else {})}) + b"\n")
        finally:
            os._exit({"pass": 0, "fail": 1}.get(verdict[0], 3))

    def verdict(self, code: int | None, stopped: BaseException | None) -> tuple:
        if self.payload and not hypothesis_examples.recorded(self.payload):
            return "transport", "witness", "a test's payload is empty, or a Hypothesis example the gate recorded", [], {}
        if stopped is not None:
            return ("transport", "pytest", f"pytest stopped: {type(stopped).__name__}: {stopped}"[:tests.MAX_DETAIL],
                    [], {})
        nodeid, named = _nodeid(self.selector)
        ours = set(os.environ.get("WITNESS_SUBJECT_MODULES", "").split(","))
        return test_verdict(self.peer, ours, os.getcwd(),
                            lambda blame: tests.judged(self.reports, int(code or 0), nodeid, named, blame,
                                                       usable_reason))


def _nodeid(selector: str) -> tuple[str, frozenset[str] | None]:
    nodeid = selector[len(tests.PREFIX):]
    relpath, _, node = nodeid.partition("::")
    if node.startswith("*:"):  # every test of the file but those named (each a property of its own)
        return relpath, frozenset(filter(None, node[2:].split(",")))
    return nodeid, None


def _stderr_is(stderr: int, config) -> None:
    """The row's stderr where the test's prints, pytest's own lines and a fault's traceback go, as in its own session:
    standard streams, and the descriptors pytest's capture puts back when it pauses."""
    for target in (1, 2):
        os.dup2(stderr, target)
    try:
        capture = config.pluginmanager.getplugin("capturemanager")._global_capturing
        for saved in (capture.out, capture.err):
            if getattr(saved, "targetfd_save", None) is not None:
                os.dup2(stderr, saved.targetfd_save)
        capture.readouterr()  # what an earlier row left in the capture's files
    except Exception:  # noqa: BLE001 - no capture (-s), or another pytest: the standard streams are enough
        pass
    os.close(stderr)
    import faulthandler

    if faulthandler.is_enabled():
        faulthandler.enable(file=sys.stderr)


def _answer(fds: list[int], verdict: tuple, ends: bool) -> None:
    wire, verdict_fd, stderr = fds
    outcome, reason, detail, imports, said = verdict
    line = {"outcome": outcome, "reason": reason, "detail": detail[-2000:], "imports": list(imports), **said,
            **({"series": "ends"} if ends else {})}
    try:
        os.write(verdict_fd, dumps(line) + b"\n")
    except OSError:
        pass
    for fd in (wire, verdict_fd, stderr):
        os.close(fd)


def _receive(control: socket.socket) -> tuple[dict, list[int]] | None:
    try:
        data, fds, _flags, _address = socket.recv_fds(control, 1 << 16, 3)
        message = loads(data) if data else None
    except Exception:  # noqa: BLE001 - the gate hung up or said nothing usable
        return None
    if not isinstance(message, dict) or len(fds) != 3:
        for fd in fds:
            os.close(fd)
        return None
    return message, fds


def _payload(fixture: str):
    """The row's payload: a recorded example from its fixture file (the gate's inbox), else none."""
    if not fixture:
        return {}
    try:
        with open(fixture, "rb") as handle:
            return loads(handle.read())
    except Exception:  # noqa: BLE001 - the gate's own file, unreadable: the row gives no verdict
        return {"unreadable": fixture[:200]}


_REWRITTEN: dict = {}


def _rewrite_once() -> None:
    """pytest's assertion rewriting of a test module, kept by the file's real path (the judge's view is read-only, so
    no rewritten module is cached on disk; it never changes in a gate run)."""
    try:
        from _pytest.assertion import rewrite
    except ImportError:
        return
    original = rewrite._rewrite_test

    def rewrite_test(fn, config):
        key = os.path.realpath(str(fn))
        if key not in _REWRITTEN:
            _REWRITTEN[key] = original(fn, config)
        return _REWRITTEN[key]

    rewrite._rewrite_test = rewrite_test


def _rewritten(path: str, config) -> None:
    """The test module rewritten here, once, for every row's child (compiled, never run: the oracle's file)."""
    try:
        from pathlib import Path

        from _pytest.assertion import rewrite

        rewrite._rewrite_test(Path(path), config)
    except Exception:  # noqa: BLE001 - each row meets the same problem in its own collection
        pass


def serve(control_fd: int, selector: str) -> None:
    """The rows of the file `selector` names (`pytest:<relpath>::...`). Never returns."""
    from witness_gate.sandbox.judge.imports import SubjectModules, judge_held
    from witness_gate.sandbox.judge.peer import Peer
    from witness_gate.sandbox.wire.importpath import seed_random
    from witness_gate.sandbox.wire.leftovers import become_subreaper

    become_subreaper()  # what a row starts and leaves comes back here, and ends with it
    control = socket.socket(fileno=control_fd)
    relpath = selector[len(tests.PREFIX):].partition("::")[0]
    request = _receive(control)
    if request is None:
        os._exit(0)
    env = os.environ
    quiet = os.open(os.devnull, os.O_WRONLY)
    os.dup2(quiet, 1)  # what pytest's start prints goes nowhere: each row's stderr is its own
    os.dup2(quiet, 2)
    channel = Counting(request[1][0])
    channel.deadline = time.monotonic() + float(env.get("WITNESS_TIMEOUT", "60"))
    peer = Peer(channel)
    finder = SubjectModules(peer, env.get("WITNESS_SUBJECT_MODULES", "").split(","), os.getcwd(),
                            env.get("WITNESS_NEW_MODULES", "").split(","))
    sys.meta_path.insert(0, finder)
    shadowed = judge_held(finder)
    if shadowed:
        _answer(request[1], ("transport", "shadowed", shadowed_why(shadowed), [], {}), ends=True)
        os._exit(0)
    import pytest

    Rows.pytest_collection = pytest.hookimpl(tryfirst=True)(Rows.pytest_collection)
    _rewrite_once()
    seed_random(env.get("WITNESS_SEED", ""))
    rows = Rows(control, relpath, request, peer, Start(peer, os.getcwd()))
    rows.selector = str(request[0].get("selector", ""))  # the first row's, as its own session would be set up
    rows.reports.named = _nodeid(rows.selector)[1]
    rows.payload = _payload(str(request[0].get("fixture") or ""))
    rows.reports.examples = hypothesis_examples.Examples(rows.payload or None)
    rows.reports.examples.install()
    code, stopped = None, None
    try:
        # the first row's node id, as its own session's: what runs if this start serves that row itself
        first = _nodeid(rows.selector)[0]
        code = int(pytest.main(tests.arguments(first, env.get("WITNESS_SEED", "")), plugins=[rows]))
    except BaseException as exc:  # noqa: BLE001 - pytest's own failure, or a SystemExit of the code it ran
        stopped = exc
    if not rows.child:  # pytest ended before its collection (a conftest.py that cannot be imported, one that collects
        # for itself): that is the first row's own session, and the last row this start serves
        verdict = rows.verdict(code, stopped)
        os.dup2(request[1][2], 1)
        _answer(request[1], verdict, ends=True)
        os._exit(0)
    rows.end(code, stopped)
