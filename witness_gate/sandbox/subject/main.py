"""The subject's entry: `python -P -s -B <gate>/witness_gate/sandbox/subject/main.py [--warm]`, in the subject's
sandbox, with WITNESS_SEED and WITNESS_ENV (the head's set-up); the working directory is the subject's view of the
checkout (no oracle file, no fixture). Both import WITNESS_WARM_IMPORTS first: cold, the implementation's modules the
property's file names, the same list for every cold subject of a run; warm, those earlier evaluations asked for.
Cold, it then serves one judge on WITNESS_WIRE until that judge hangs up: it may be started before its evaluation,
but it serves no other. Warm, it forks one server an evaluation, each handed its socket and stderr on WITNESS_CONTROL;
its rows are split-warm, which never let a patch through (the gate's runner decides)."""

import os
import sys

GATE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


def _prepare():
    sys.path[:0] = [GATE]
    from witness_gate.sandbox.wire.importpath import arrange_path
    from witness_gate.sandbox.subject.server import main

    os.dup2(2, 1)  # the implementation's prints are for people, on stderr
    for line in arrange_path(os.getcwd(), os.environ.get("WITNESS_ENV", "")):
        print(f"witness subject: not run from the set-up's .pth files: {line}", file=sys.stderr)
    sys.path.remove(GATE)  # the repository's modules are the implementation's; the server is already loaded
    return main


def _import_first() -> None:
    import importlib

    for name in filter(None, os.environ.get("WITNESS_WARM_IMPORTS", "").split(",")):
        try:
            importlib.import_module(name)
        except BaseException:  # noqa: BLE001 - the evaluation that asks meets the same failure itself
            pass


def _shift_layout() -> None:
    """A layout of its own before the implementation loads: for each small-object size class, 0-7 objects made and
    kept, chosen by WITNESS_LAYOUT, so what the implementation makes later sits at other addresses than in a subject of
    another layout (its id()s differ in their low bits, and objects hashed by identity fall into other set orders)."""
    state = int(os.environ.get("WITNESS_LAYOUT") or 0)
    if not state:
        return
    for size in range(0, 512, 16):
        state = (state * 6364136223846793005 + 1442695040888963407) % (1 << 64)
        _KEPT.extend(bytes(size) for _ in range((state >> 33) % 8))


_KEPT: list = []


def cold() -> None:
    serve = _prepare()
    _shift_layout()
    _import_first()
    serve(int(os.environ["WITNESS_WIRE"]), os.getcwd(), os.environ.get("WITNESS_SEED", ""))
    os._exit(0)


def warm() -> None:
    import gc
    import signal
    import socket

    serve = _prepare()
    from witness_gate.sandbox.wire.leftovers import become_subreaper, end_orphans  # loaded before the implementation

    _import_first()
    become_subreaper()
    control = socket.socket(fileno=int(os.environ["WITNESS_CONTROL"]))
    control.sendall(b"ready\n")
    last = 0
    while True:
        _data, fds, _flags, _address = socket.recv_fds(control, 64, 2)
        if len(fds) != 2:
            os._exit(0)
        if last:  # the previous evaluation's server is done: its judge has hung up
            try:
                os.kill(last, signal.SIGKILL)
                os.waitpid(last, 0)
            except OSError:
                pass
            end_orphans(())  # and whatever it left running
        gc.freeze()  # what this parent made is never scanned in a child: its pages stay shared, not copied
        last = os.fork()
        if last == 0:
            control.close()
            os.dup2(fds[1], 1)
            os.dup2(fds[1], 2)
            serve(fds[0], os.getcwd(), os.environ.get("WITNESS_SEED", ""))
            os._exit(0)
        for fd in fds:
            os.close(fd)


if __name__ == "__main__":
    warm() if sys.argv[1:] == ["--warm"] else cold()
