"""What the gate reads of one warm evaluation as it comes: its stdout and stderr to their end and its parent's answer,
within its wall clock and output cap; one thread can follow several at once (replays on several warm parents)."""

from __future__ import annotations

import os
import selectors
import socket
import time
from collections.abc import Iterable

from witness_gate.processes import read_into

_READ = selectors.EVENT_READ


class Reading:
    """One evaluation in flight: `done()` once the parent answered and both streams ended, the parent closed its
    socket without an answer, or a fault (its wall clock, its output cap) ended it."""

    def __init__(self, out_r: int, err_r: int, control: socket.socket, started: float, timeout: float,
                 cap: int) -> None:
        self.out_r, self.err_r, self.control = out_r, err_r, control
        self.buffers = {out_r: bytearray(), err_r: bytearray()}  # a stream is open while the selector follows it
        self.started, self.deadline, self.cap = started, started + timeout, cap
        self.said, self.answered, self.fault = b"", False, None
        self._selector: selectors.BaseSelector | None = None

    def follow(self, selector: selectors.BaseSelector) -> None:
        """Wait for this evaluation's streams and answer on `selector` (each key's data says whose and which)."""
        self._selector = selector
        for fd in self.buffers:
            selector.register(fd, _READ, (self, fd))
        selector.register(self.control, _READ, (self, None))

    def _open(self) -> list[int]:
        followed = self._selector.get_map()
        return [fd for fd in self.buffers if fd in followed]

    def done(self) -> bool:
        return self.fault is not None or (self.answered and (not self.said or not self._open()))

    def ready(self, key: selectors.SelectorKey) -> None:
        """Read what one of its descriptors has (the key's data: this reading, and the stream or None for the
        parent's socket)."""
        if key.data[1] is None:
            try:
                self.said = self.control.recv(4096)
            except OSError:  # a parent that died with a request unread resets the socket: it is gone
                self.said = b""
            self.answered = True
            self._selector.unregister(self.control)
            return
        if read_into(self._selector, key, self.buffers, self.cap):
            self.fault = "output_limit"

    def end(self) -> tuple[bytes, bytes, bytes, str | None, float]:
        """(stdout, stderr, the parent's answer, fault, seconds); its descriptors are closed and followed no more."""
        for fd in self._open():
            self._selector.unregister(fd)
        if not self.answered:
            self._selector.unregister(self.control)
        os.close(self.out_r), os.close(self.err_r)
        return (bytes(self.buffers[self.out_r]), bytes(self.buffers[self.err_r]), self.said, self.fault,
                time.monotonic() - self.started)


def pump(selector: selectors.BaseSelector, readings: Iterable[Reading]) -> None:
    """One wait on `selector` (at most half a second, at most until the nearest deadline), every ready descriptor
    read; then a reading past its deadline gets the fault `timeout`."""
    readings = [r for r in readings if not r.done()]
    if not readings:
        return
    remaining = min(r.deadline for r in readings) - time.monotonic()
    # a look even past a deadline: what ended while this thread was busy elsewhere (closing another lane's
    # sandbox) is read before any deadline is judged
    for key, _ in selector.select(timeout=min(max(remaining, 0.0), 0.5)):
        reading = key.data[0]
        if not reading.done():
            reading.ready(key)
    now = time.monotonic()
    for reading in readings:
        if not reading.done() and now >= reading.deadline:
            reading.fault = "timeout"


def at_once(lanes: list, runs: int, send, finish) -> int:
    """Up to `runs` evaluations on `lanes` (warm parents), one at a time on each and all followed from this thread:
    `send(lane)` starts one (its Reading and a token) or returns None when the lane can take no more; `finish(lane,
    reading, token)` takes one that is done and says whether its lane goes on. Returns how many it started."""
    started, flying = 0, {}
    with selectors.DefaultSelector() as selector:

        def begin(lane) -> None:
            nonlocal started
            sent = send(lane) if started < runs else None
            if sent is not None:
                sent[0].follow(selector)
                flying[lane] = sent
                started += 1

        try:
            for lane in lanes:
                begin(lane)
            while flying:
                pump(selector, [reading for reading, _ in flying.values()])
                for lane, (reading, token) in list(flying.items()):
                    if reading.done():
                        del flying[lane]
                        if finish(lane, reading, token):
                            begin(lane)
        finally:
            for reading, _ in flying.values():  # only when something raised: nothing is left followed or open
                reading.end()
    return started
