"""The judge's harness: evaluates one property on one payload, with the implementation behind the boundary.

Started as `python -P -s -B <gate>/witness_gate/sandbox/judge/main.py` with WITNESS_PROPERTY (`<relpath>::<function>`),
WITNESS_FIXTURE (canonical JSON of the payload), WITNESS_SEED, WITNESS_WIRE (the socket's descriptor),
WITNESS_SUBJECT_MODULES (the implementation's top-level names), WITNESS_NEW_MODULES (those the patch added),
WITNESS_TIMEOUT, WITNESS_SAMPLE ("1": the payload is a broader sample's list of inputs) and WITNESS_SEARCH_SEED (a
test's Hypothesis search seeded anew; the subject is never told it). The working directory is the
judge's view of the checkout: the oracle's files only. Everything in this process is trusted; the subject's answers are
data. The verdict is one JSON line on the descriptor stdout was at the start: the property's own output goes to
stderr, so nothing a property prints (an implementation's string among it) can be read as a verdict.
Exit 0 pass, 1 fail, 3 no verdict.
"""

from __future__ import annotations

import os
import sys

GATE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
EXIT_PASS, EXIT_FAIL, EXIT_NO_VERDICT = 0, 1, 3


def main() -> None:
    """A cold judge: this process evaluates once."""
    verdict_fd = os.dup(1)
    os.dup2(2, 1)  # the property's prints, and anything it relays, go to stderr
    _prepare()
    env = os.environ
    evaluate(int(env.get("WITNESS_WIRE", "-1")), verdict_fd, env.get("WITNESS_FIXTURE", ""))


def warm() -> None:
    """A warm judge: imports once, then forks one child an evaluation, several at once if asked. Each fork request on
    WITNESS_CONTROL carries the child's descriptors (the socket, the verdict's pipe, a stderr), its sequence number,
    its property (one parent serves every property of a gate run) and the path of its fixture; the parent reports
    "<seq> <exit code>" when the child ends, and kills it on {"kill": seq}. This process holds only the gate and the
    standard library (and, for a repository's tests, the gate's pytest and Hypothesis), all imported before the first
    child and never more: nothing of the oracle or the implementation runs in it."""
    os.dup2(2, 1)
    _prepare()
    import gc
    import select
    import socket

    _import_standard([*WIRE_MODULES, *os.environ.get("WITNESS_WARM_IMPORTS", "").split(",")])
    from witness_gate.sandbox.judge.evaluation import import_test_runner, precompile

    if os.environ.get("WITNESS_JUDGE_SITE"):
        import_test_runner()

    from witness_gate.sandbox.judge.imports import subject_names
    from witness_gate.sandbox.wire.frames import loads
    from witness_gate.sandbox.wire.leftovers import become_subreaper, end_orphans

    subject_names(tuple(os.environ.get("WITNESS_SUBJECT_MODULES", "").split(",")), os.getcwd())  # for every child

    become_subreaper()
    control = socket.socket(fileno=int(os.environ["WITNESS_CONTROL"]))
    control.sendall(b"ready\n")
    poller = select.poll()
    poller.register(control.fileno(), select.POLLIN)
    children: dict[int, tuple[int, int]] = {}  # pidfd -> (pid, seq)
    while True:
        for fd, _event in poller.poll():
            if fd in children:  # a child ended: reaped, and its exit reported
                pid, seq = children.pop(fd)
                poller.unregister(fd)
                os.close(fd)
                _, status = os.waitpid(pid, 0)
                end_orphans({child for child, _ in children.values()})  # what it left running ends with it
                control.sendall(f"{seq} {os.waitstatus_to_exitcode(status)}\n".encode())
                continue
            data, fds, _flags, _address = socket.recv_fds(control, 1 << 16, 3)
            message = loads(data) if data else None
            if isinstance(message, dict) and "kill" in message:  # an evaluation past its deadline
                for pid, seq in children.values():
                    if seq == message["kill"]:
                        os.kill(pid, 9)
                continue
            if not isinstance(message, dict) or len(fds) != 3:
                os._exit(0)
            prop = str(message.get("property", ""))
            precompile(prop.partition("::")[0])
            gc.freeze()  # what this parent made is never scanned in a child: its pages stay shared, not copied
            child = os.fork()
            if child == 0:
                _child(control, children, fds, message, prop)  # never returns
            for passed in fds:
                os.close(passed)
            pidfd = os.pidfd_open(child)
            children[pidfd] = (child, message["seq"])
            poller.register(pidfd, select.POLLIN)


def _child(control, children: dict, fds: list[int], message: dict, prop: str) -> None:
    """A warm judge's child, forked for one request: the parent's control socket and pidfds closed, its output on the
    request's stderr, its environment a cold judge's for this request alone; then one evaluation, or a series."""
    control.close()
    for pidfd in children:
        os.close(pidfd)
    os.dup2(fds[2], 1)
    os.dup2(fds[2], 2)
    _say_notes()
    os.environ.update(WITNESS_FIXTURE=message["fixture"], WITNESS_PROPERTY=prop)  # as a cold judge's
    for name in ("WITNESS_SAMPLE", "WITNESS_SEARCH_SEED"):  # this request's, never the parent's starter's
        os.environ.pop(name, None)
    if message.get("sample") is True:
        os.environ["WITNESS_SAMPLE"] = "1"
    if message.get("search_seed"):
        os.environ["WITNESS_SEARCH_SEED"] = str(message["search_seed"])
    for name in ("WITNESS_CONTROL", "WITNESS_WARM_IMPORTS"):
        os.environ.pop(name, None)
    if message.get("series"):  # a property's shrink candidates, one after another
        os.close(fds[1])
        serve_series(fds[0], prop)
    evaluate(fds[0], fds[1], message["fixture"])


# what the judge imports on its own when the subject's answers need it (a Fraction, a date, an enum, an exception's
# traceback): a warm parent has them all from the start, so no answer finds one new in the first evaluation only
WIRE_MODULES = ("datetime", "decimal", "fractions", "enum", "collections", "traceback", "json")


def _import_standard(names) -> None:
    """Standard-library modules imported once, before the first child: the wire's, and those the first property's
    file names. Never more afterwards: every child forks from the same parent."""
    import importlib

    for name in filter(None, names):
        if name.partition(".")[0] in sys.stdlib_module_names and name not in sys.modules:  # nothing of the checkout
            try:
                importlib.import_module(name)
            except Exception:  # noqa: BLE001 - each evaluation meets the same failure itself
                pass


def _prepare() -> None:
    """What every evaluation needs before its property: the gate's modules and the import path."""
    sys.path[:0] = [GATE]
    import witness_gate  # noqa: F401 - the gate's package, first on the path: the property's `contract`
    from witness_gate.sandbox.wire.importpath import arrange_path
    from witness_gate.sandbox.judge import (  # noqa: F401
        asserts, blame, classes, evaluation, handles, imports, inplace, peer, state, tests, verdicts,
    )
    from witness_gate.sandbox.wire import frames, importpath  # noqa: F401

    for line in arrange_path(os.getcwd(), os.environ.get("WITNESS_ENV", "")):  # a trusted set-up's packages, last
        NOTES.append(f"witness judge: not run from the set-up's .pth files: {line}")
    if os.environ.get("WITNESS_JUDGE_SITE"):  # the gate's own pytest and Hypothesis, after a trusted set-up's
        sys.path.append(os.environ["WITNESS_JUDGE_SITE"])
    _say_notes()


NOTES: list[str] = []  # what the start has to tell a person: every evaluation's stderr says it (a warm child's too)


def _say_notes() -> None:
    for note in NOTES:
        print(note, file=sys.stderr)


def evaluate(wire: int, verdict_fd: int, fixture: str) -> None:
    """One evaluation of WITNESS_PROPERTY on the payload in `fixture`; ends the process with its verdict."""
    from witness_gate.sandbox.judge.evaluation import judge

    outcome = _report(verdict_fd, judge(wire, fixture, os.environ.get("WITNESS_PROPERTY", "")))
    os._exit({"pass": EXIT_PASS, "fail": EXIT_FAIL}.get(outcome, EXIT_NO_VERDICT))


def _report(verdict_fd: int, verdict: tuple, **more) -> str:
    """Write the verdict line, after what the property printed (for people); returns the outcome."""
    _flush()
    _write_verdict(verdict_fd, verdict, **more)
    return verdict[0]


def _flush() -> None:
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BaseException:  # noqa: BLE001 - a stream the property closed or replaced
            pass


def _write_verdict(verdict_fd: int, verdict: tuple, **more) -> None:
    from witness_gate.sandbox.wire.frames import dumps

    outcome, reason, detail, imports, said = verdict  # `said`: a test's Hypothesis witness, and whether it was unsteady
    os.write(verdict_fd, dumps({"outcome": outcome, "reason": reason, "detail": detail[-2000:],
                                "imports": list(imports), **said, **more}) + b"\n")


def serve_series(control_fd: int, selector: str) -> None:
    """A warm judge for one property's shrink candidates: an evaluation a request on `control_fd` (its fixture's path,
    with the socket to its own subject, the verdict's pipe and a stderr), each on this thread as a cold judge's is,
    after which what it changed in this process is put back (judge/state.py); one that changed what cannot be put back ends
    the series. Never returns. Its rows are split-warm, as every shrink candidate's: they steer a shrink and decide
    nothing else."""
    import socket

    from witness_gate.sandbox.wire.frames import loads

    from witness_gate.sandbox.wire.leftovers import become_subreaper

    become_subreaper()  # what an evaluation starts and leaves comes back here, and ends with it (State.restore)
    control = socket.socket(fileno=control_fd)
    quiet = os.open(os.devnull, os.O_WRONLY)
    from witness_gate.sandbox.judge.evaluation import judge
    from witness_gate.sandbox.judge.state import State

    before = State()
    while True:
        try:
            data, fds, _flags, _address = socket.recv_fds(control, 1 << 16, 3)
            message = loads(data) if data else None
        except Exception:  # noqa: BLE001 - the gate hung up or said nothing usable
            message, fds = None, []
        if not isinstance(message, dict) or len(fds) != 3:
            os._exit(0)
        wire, verdict_fd, stderr = fds
        os.dup2(stderr, 1)
        os.dup2(stderr, 2)
        os.close(stderr)
        verdict = judge(wire, str(message.get("fixture", "")), selector)  # on this thread, as a cold judge's
        _flush()
        carry_on = before.restore()  # else the verdict says the series ends, and it does
        _write_verdict(verdict_fd, verdict, **({} if carry_on else {"series": "ends"}))
        for fd in (verdict_fd, wire):
            os.close(fd)
        os.dup2(quiet, 1)  # the candidate's stderr ends here: the gate reads it to its end
        os.dup2(quiet, 2)
        if not carry_on:
            os._exit(0)



if __name__ == "__main__":
    warm() if sys.argv[1:] == ["--warm"] else main()
