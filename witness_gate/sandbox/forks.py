"""Warm sides: a sandboxed parent that imports once and forks one child an evaluation, handed its descriptors over a
control socket. A warm subject has run earlier evaluations, so its rows only serve shrink candidates (the runner's
`candidate`); nothing it says can let a patch through."""

from __future__ import annotations

import json
import os
import selectors
import socket
import subprocess
import time
from collections.abc import Callable

from witness_gate.processes import _kill_group, released

READY_SECONDS = 30.0


class ForkServer:
    """One warm parent (judge or subject side); `start(fd)` launches it with the control socket's other end."""

    def __init__(self, start: Callable[[int], subprocess.Popen], ready_seconds: float = READY_SECONDS) -> None:
        self.control, theirs = socket.socketpair()
        try:
            self.proc = start(theirs.fileno())
        finally:
            theirs.close()
        self.control.settimeout(ready_seconds)
        try:
            ready = self.control.recv(6) == b"ready\n"
        except OSError:
            ready = False
        if not ready:  # what it said is drained and dropped (processes.spawn, quiet): its evaluations run cold
            self.close()
            raise OSError("a warm parent did not start")

    def fork(self, message: dict, fds: list[int]) -> None:
        socket.send_fds(self.control, [json.dumps(message).encode()], fds)

    def exit_code(self, deadline: float) -> int | None:
        """The judge parent's report of how its child ended, or None past the deadline."""
        self.control.settimeout(max(0.01, deadline - time.monotonic()))
        try:
            line = b""
            while not line.endswith(b"\n") and len(line) < 32:
                chunk = self.control.recv(32 - len(line))
                if not chunk:
                    return None
                line += chunk
            return int(line)
        except (OSError, ValueError):
            return None

    def close(self) -> None:
        _kill_group(self.proc)
        self.control.close()
        for stream in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            if stream is not None:
                stream.close()
        self.proc.wait()
        released(self.proc.pid)


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
