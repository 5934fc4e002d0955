"""Frames: a 4-byte big-endian length, then that many bytes of JSON; capped, and each read and write has a deadline."""

from __future__ import annotations

import os
import select
import struct
import time

MAX_FRAME = 32 << 20  # bytes of one message: a payload larger than this is no property's input
# how long a side keeps reading before it sleeps in poll: the peer's answer usually comes within it, and waking a
# sleeping process costs more (about 70 us a round trip on a small VM against about 25 us); it yields between reads, so
# on a busy machine it never holds the core the peer, or a sandbox starting beside it, needs
SPIN_SECONDS = 0.0002
_LENGTH = struct.Struct(">I")


class WireFault(Exception):
    """The boundary failed: a transport fault, never a verdict. `kind` names it (closed, timeout, too_large,
    malformed, unexpected)."""

    def __init__(self, kind: str, detail: str = "") -> None:
        super().__init__(f"{kind}: {detail}" if detail else kind)
        self.kind = kind
        self.detail = detail


def _refuse_constant(name: str):
    raise ValueError(f"{name} is not JSON")


class _Strict:
    """The decoder's settings, as the C scanner reads them (json's own package would import re: 7 ms a start)."""

    strict = True
    object_hook = object_pairs_hook = None
    parse_float, parse_int, parse_constant = float, int, staticmethod(_refuse_constant)
    memo: dict = {}


def _unencodable(value):
    raise TypeError(f"a {type(value).__name__} is not JSON")


def _marked(value):
    """What the fingerprint writes for a value JSON has no form for: its contents when it has some, else its identity."""
    if isinstance(value, (set, frozenset)):
        return ["<set>", *value]
    if isinstance(value, (bytes, bytearray)):
        return "<bytes>" + value.hex()
    return f"<{type(value).__name__} {id(value)}>"


try:
    from _json import encode_basestring_ascii, make_encoder, make_scanner

    _encode = make_encoder(None, _unencodable, encode_basestring_ascii, None, ":", ",", False, False, False)
    _print = make_encoder(None, _marked, encode_basestring_ascii, None, ":", ",", False, False, True)
    _scan = make_scanner(_Strict())
except ImportError:  # an interpreter without the C accelerator
    import json

    _encode = json.JSONEncoder(separators=(",", ":"), allow_nan=False).iterencode
    _print = json.JSONEncoder(separators=(",", ":"), default=_marked).iterencode
    _scan = json.JSONDecoder(parse_constant=_refuse_constant).scan_once


def fingerprint(value) -> str | None:
    """A quick text of a value's contents, at C speed, to tell whether a call changed it (a tuple and a list of the
    same items print alike: only a difference counts); None when it cannot be made (a key JSON has no form for)."""
    try:
        return "".join(_print(value, 0))
    except (TypeError, ValueError, RecursionError):
        return None


def items_text(text: str) -> list[str] | None:
    """The text of each item of a JSON array as `dumps` wrote it (no spaces), or None when it is not one."""
    if not (text.startswith("[") and text.endswith("]")):
        return None
    try:
        spans, at = [], 1
        while at < len(text) - 1:
            _, end = _scan(text, at)
            spans.append(text[at:end])
            at = end + 1
            if text[end] not in ",]":
                return None
        return spans
    except (ValueError, StopIteration, RecursionError, IndexError):
        return None


def dumps(message: object) -> bytes:
    """The frame's body: ASCII JSON (a lone surrogate in a string is escaped, never an encoding error)."""
    return "".join(_encode(message, 0)).encode("ascii")


def loads(body: bytes) -> object:
    try:
        text = body.decode("utf-8")
        value, end = _scan(text, 0)
        if text[end:].strip(" \t\n\r"):
            raise ValueError("text after the value")
        return value
    except (ValueError, StopIteration, RecursionError, MemoryError) as exc:  # bad UTF-8 or JSON, too deep, too long
        raise WireFault("malformed", f"a frame is not JSON ({type(exc).__name__})") from None


class Channel:
    """One end of the boundary's socket (a descriptor): whole messages in and out, each by `deadline`
    (time.monotonic). Raw reads and writes with poll: no socket module to import at every start."""

    def __init__(self, fd: int, max_frame: int = MAX_FRAME) -> None:
        self.fd = fd
        self.max_frame = max_frame
        self.deadline = float("inf")
        self._pending = b""  # what a read brought beyond the last message
        self.body = b""  # the last message received, as it came
        os.set_blocking(fd, False)

    def send(self, message: object) -> None:
        body = dumps(message)
        if len(body) > self.max_frame:
            raise WireFault("too_large", f"a message of {len(body)} bytes is over the cap of {self.max_frame}")
        data = memoryview(_LENGTH.pack(len(body)) + body)
        while data:
            try:
                data = data[os.write(self.fd, data):]
            except BlockingIOError:
                self._wait(select.POLLOUT, "the peer did not read in time")
            except OSError as exc:
                raise WireFault("closed", f"the peer is gone ({exc.strerror or exc})") from None

    def receive(self) -> object:
        data = self._pending
        if len(data) < 4:
            data = self._fill(data, 4)
        size = _LENGTH.unpack_from(data)[0]
        if size > self.max_frame:
            raise WireFault("too_large", f"a frame of {size} bytes is over the cap of {self.max_frame}")
        if len(data) < 4 + size:
            data = self._fill(data, 4 + size)
        self._pending = data[4 + size:]
        self.body = data[4:4 + size]
        return loads(self.body)

    def _wait(self, event: int, late: str) -> None:
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise WireFault("timeout", late)
        poller = select.poll()
        poller.register(self.fd, event)
        if not poller.poll(min(left, 3600.0) * 1000):
            raise WireFault("timeout", late)

    def _fill(self, data: bytes, count: int) -> bytes:
        """`data` and what reads of up to 64 KiB bring after it, until it holds `count` bytes (a message and its length
        usually arrive in one read); a short spin before each sleep in poll."""
        data, spin_until = bytearray(data), 0.0
        while len(data) < count:
            try:
                chunk = os.read(self.fd, max(count - len(data), 1 << 16))
            except BlockingIOError:
                now = time.perf_counter()
                if not spin_until:
                    spin_until = now + SPIN_SECONDS
                if now > spin_until:
                    self._wait(select.POLLIN, "the peer did not answer in time")
                else:
                    os.sched_yield()
                continue
            except OSError as exc:
                raise WireFault("closed", f"the peer is gone ({exc.strerror or exc})") from None
            if not chunk:
                raise WireFault("closed", "the peer ended the connection")
            data += chunk
        return bytes(data)
