"""One pytest session for the first runs of a file's tests: pytest is configured and the file collected once, and each
row (one test, one run) is judged against a subject of its own, booted for it alone, as a row of a test's own pytest
session is. What a row imported is dropped before the next (the test module, the oracle's helpers, every proxy), so
the next row's collection imports them again against its own subject; an object an earlier subject gave, kept where
the drop cannot reach (a conftest.py's globals), is a transport fault of the row that uses it (peer.LIVE), never a
request to the wrong process. Anything this cannot do as a test's own session would ends the sweep, and the gate runs
the rest of the file's rows one session each, as before.

A row's request on the control socket is {"selector": "pytest:<relpath>::<node>", "fixture": <path or "">} with three
descriptors: the socket to its subject, the verdict's pipe and a stderr; a fixture holds a Hypothesis example the gate
recorded (a witness's replay: that one example, as @reproduce_failure runs it), none the seeded search. Each verdict
line is the one a single test's judge writes, with "series": "ends" when the sweep ends after it.
"""

from __future__ import annotations

import os
import socket
import sys
import tempfile
import time

from witness_gate.sandbox.judge import examples as hypothesis_examples
from witness_gate.sandbox.judge import peer as peers
from witness_gate.sandbox.judge import tests
from witness_gate.sandbox.judge.blame import shadowed_why, test_verdict
from witness_gate.sandbox.judge.verdicts import usable_reason
from witness_gate.sandbox.wire.frames import Channel, dumps, loads


class Row:
    """One test's one run: its subject's peer, pytest's reports of it, and where its verdict goes."""

    def __init__(self, message: dict, fds: list[int]) -> None:
        self.selector = str(message.get("selector", ""))
        self.wire, self.verdict_fd, stderr = fds
        os.dup2(stderr, 1)  # what the test prints, and pytest's own lines, are this row's stderr
        os.dup2(stderr, 2)
        os.close(stderr)
        channel = Channel(self.wire)
        channel.deadline = time.monotonic() + float(os.environ.get("WITNESS_TIMEOUT", "60"))
        self.peer = peers.Peer(channel)
        peers.LIVE[0] = self.peer
        self.reports = tests.Reports()
        self.payload = _payload(str(message.get("fixture") or ""))
        self.reports.examples = hypothesis_examples.Examples(self.payload or None)
        self.reports.examples.install()
        self.answered = False

    def answer(self, verdict: tuple, ends: bool) -> None:
        outcome, reason, detail, imports, said = verdict
        sys.stdout.flush()
        sys.stderr.flush()
        line = {"outcome": outcome, "reason": reason, "detail": detail[-2000:], "imports": list(imports), **said,
                **({"series": "ends"} if ends else {})}
        try:
            os.write(self.verdict_fd, dumps(line) + b"\n")
        except OSError:
            pass
        self.reports.examples.uninstall()
        for fd in (self.verdict_fd, self.wire):
            os.close(fd)
        self.answered = True


class Sweep:
    """The pytest plugin that serves a file's rows, one after another, in the one session."""

    def __init__(self, control: socket.socket, relpath: str, row: Row) -> None:
        self.control, self.relpath, self.row = control, relpath, row
        self.root = os.getcwd()
        self.ours = set(os.environ.get("WITNESS_SUBJECT_MODULES", "").split(","))
        self.items: list = []
        self.config = None  # the session's: the conftest.py modules it holds as plugins stay imported
        # what the first row's subject was asked to do (calls, writes) before the test module's collection: done by
        # a conftest.py as pytest started, which no later row's subject sees, so such a sweep ends after its first row
        self.acted_first: int | None = None
        self.quiet = os.open(os.devnull, os.O_WRONLY)

    # -- what pytest reports goes to the row running -----------------------------------------------------------
    def pytest_collectreport(self, report):
        self.row.reports.pytest_collectreport(report)

    def pytest_collectstart(self, collector):
        if self.acted_first is None and type(collector).__name__ == "Module":
            self.acted_first = self.row.peer.acted

    def pytest_collection_modifyitems(self, config, items):
        self.items = list(items)

    def pytest_exception_interact(self, node, call, report):
        self.row.reports.pytest_exception_interact(node, call, report)

    def pytest_keyboard_interrupt(self, excinfo):
        self.row.reports.pytest_keyboard_interrupt(excinfo)

    def pytest_runtest_call(self, item):
        self.row.reports.pytest_runtest_call(item)

    def pytest_runtest_logreport(self, report):
        self.row.reports.pytest_runtest_logreport(report)

    # -- the rows ------------------------------------------------------------------------------------------------
    def pytest_runtestloop(self, session):
        from witness_gate.sandbox.judge.state import State

        self.config = session.config
        before = State()
        items = self.items
        while True:
            if self.row.reports.failed:  # the file could not be collected here: the row says so, and the sweep ends
                self.finish(ends=True)
                return True
            if self.row.payload and not hypothesis_examples.recorded(self.row.payload):
                self.row.answer(("transport", "witness", "a test's payload is empty, or a Hypothesis example the gate "
                                 "recorded", [], {}), ends=True)
                return True
            self.run(tests.chosen(items, self.row.selector))
            carry_on = before.restore() and not self.acted_first
            self.drop()
            self.finish(ends=not carry_on)
            if not carry_on or not self.next():
                return True
            items = self.collect(session)

    def run(self, chosen: list) -> None:
        reports = self.row.reports
        witness = reports.examples.replay
        if witness is not None:  # one case, its recorded example set up to be run as @reproduce_failure runs it
            chosen = [item for item in chosen if item.nodeid == witness.get("case")]
            reports.unusable = (hypothesis_examples.replayable(witness, hypothesis_examples.function_of(chosen[0]))
                                if chosen else f"no test {witness.get('case')!r} was collected")
            if reports.unusable:
                chosen = []
        reports.items = [item.nodeid for item in chosen]
        reports.functions = {item.nodeid: hypothesis_examples.function_of(item) for item in chosen}
        from witness_gate.sandbox.wire.importpath import seed_random

        seed_random(os.environ.get("WITNESS_SEED", ""))
        for index, item in enumerate(chosen):
            nextitem = chosen[index + 1] if index + 1 < len(chosen) else None  # None: every fixture ends with the row
            item.ihook.pytest_runtest_protocol(item=item, nextitem=nextitem)

    def finish(self, ends: bool) -> None:
        row = self.row
        if row.answered:
            return
        reports = row.reports
        nodeid = row.selector[len(tests.PREFIX):]
        named = None
        relpath, _, node = nodeid.partition("::")
        if node.startswith("*:"):
            nodeid, named = relpath, frozenset(filter(None, node[2:].split(",")))
        code = 1 if reports.failed or reports.interrupted is not None else 0
        verdict = test_verdict(row.peer, self.ours, self.root,
                               lambda blame: tests.judged(reports, code, nodeid, named, blame, usable_reason))
        row.answer(verdict, ends)
        os.dup2(self.quiet, 1)  # the row's stderr ends here: the gate reads it to its end
        os.dup2(self.quiet, 2)

    def drop(self) -> None:
        """What the row's collection imported, so the next row's imports it again against its own subject: every
        proxy of the implementation and every module of the judge's view of the checkout but a conftest.py pytest
        holds as a plugin."""
        from witness_gate.sandbox.judge.imports import ProxyModule

        plugins = {id(plugin) for plugin in self.config.pluginmanager.get_plugins()}
        prefix = os.path.realpath(self.root) + os.sep
        for name, module in list(sys.modules.items()):
            if isinstance(module, ProxyModule):
                del sys.modules[name]
                continue
            where = getattr(module, "__file__", None)
            if isinstance(where, str) and os.path.realpath(where).startswith(prefix) and id(module) not in plugins:
                del sys.modules[name]

    def next(self) -> bool:
        """The next row's request, and its subject on the import system; False when the gate hung up."""
        try:
            data, fds, _flags, _address = socket.recv_fds(self.control, 1 << 16, 3)
            message = loads(data) if data else None
        except Exception:  # noqa: BLE001 - the gate hung up or said nothing usable
            message, fds = None, []
        if not isinstance(message, dict) or len(fds) != 3:
            return False
        self.row = Row(message, fds)
        for finder in sys.meta_path:
            if type(finder).__name__ == "SubjectModules":
                finder.peer = self.row.peer
        return True

    def collect(self, session) -> list:
        """The file collected again, its module imported again: the items of this row."""
        import pytest

        module = next((item.getparent(pytest.Module) for item in self.items), None)
        if module is None:
            return []
        fresh = pytest.Module.from_parent(module.parent, path=module.path)
        items = list(session.genitems(fresh))
        # as collection ends: the conftest.py files' and plugins' say on the items (markers, order, deselection)
        session.config.hook.pytest_collection_modifyitems(session=session, config=session.config, items=items)
        return items


def _payload(fixture: str):
    """The row's payload: a recorded example from its fixture file (the gate's inbox), else none."""
    if not fixture:
        return {}
    try:
        with open(fixture, "rb") as handle:
            return loads(handle.read())
    except Exception:  # noqa: BLE001 - the gate's own file, unreadable: the row gives no verdict
        return {"unreadable": fixture[:200]}


def _rewrite_once() -> None:
    """pytest's assertion rewriting of a test module, done once for every row (it would be each row's largest cost:
    the judge's view is read-only, so no rewritten module is ever cached on disk, and it never changes in a gate run)."""
    try:
        from _pytest.assertion import rewrite
    except ImportError:
        return
    made: dict = {}
    original = rewrite._rewrite_test

    def rewrite_test(fn, config):
        key = str(fn)
        if key not in made:
            made[key] = original(fn, config)
        return made[key]

    rewrite._rewrite_test = rewrite_test


def serve(control_fd: int, selector: str) -> None:
    """A sweep of the file `selector` names (`pytest:<relpath>::...`). Never returns."""
    from witness_gate.sandbox.judge.imports import SubjectModules, judge_held
    from witness_gate.sandbox.wire.leftovers import become_subreaper

    become_subreaper()  # what a row starts and leaves comes back here, and ends with it (State.restore)
    control = socket.socket(fileno=control_fd)
    relpath = selector[len(tests.PREFIX):].partition("::")[0]
    sweep = Sweep(control, relpath, None)  # type: ignore[arg-type]
    if not sweep.next():
        os._exit(0)
    env = os.environ
    finder = SubjectModules(sweep.row.peer, env.get("WITNESS_SUBJECT_MODULES", "").split(","), sweep.root,
                            env.get("WITNESS_NEW_MODULES", "").split(","))
    sys.meta_path.insert(0, finder)
    shadowed = judge_held(finder)
    if shadowed:
        sweep.row.answer(("transport", "shadowed", shadowed_why(shadowed), [], {}), ends=True)
        os._exit(0)
    import pytest

    Sweep.pytest_runtestloop = pytest.hookimpl(tryfirst=True)(Sweep.pytest_runtestloop)
    _rewrite_once()
    os.environ["HYPOTHESIS_STORAGE_DIRECTORY"] = tempfile.mkdtemp(prefix="hypothesis-")
    try:
        # no capture of descriptors and no fault handler: both keep a copy of the first row's stderr for the whole
        # session, and the gate reads each row's to its end
        pytest.main([*tests.arguments(relpath, env.get("WITNESS_SEED", "")), "--capture=sys", "-p", "no:faulthandler"],
                    plugins=[sweep])
    except BaseException:  # noqa: BLE001 - pytest's own failure, or a SystemExit of the code it ran: the row says so
        pass
    sweep.finish(ends=True)  # a row pytest stopped in (KeyboardInterrupt, pytest.exit) is judged as its session would
    os._exit(0)
