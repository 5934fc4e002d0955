"""Bringing a finished set-up's environment out of its sandbox, within limits the host sets.

The set-up writes `/env` into a size-capped tmpfs and can reach no host directory at all. When its
command has ended well, the shim (`witness_gate.setup.netshim --tar-to-fd`) ends every other process of
the sandbox and writes `/env` as a tar stream to a pipe. The host reads at most `budget` bytes of it
into one file, then unpacks it with strict rules: regular files, folders and links inside the tree
only, at most MAX_ENTRIES entries, at most MAX_DEPTH folders deep (so nothing later walks a tree too
deep to walk).
"""

from __future__ import annotations

import os
import tarfile
import threading
from pathlib import Path, PurePosixPath

MAX_ENTRIES = 200_000
MAX_DEPTH = 64


class KeepRefused(Exception):
    """The environment cannot be kept: too large, too deep, or holding what an environment may not."""


class Receiver:
    """The host's end of the pipe: drains it into `into`, at most `budget` bytes."""

    def __init__(self, into: Path, budget: int) -> None:
        self.into = into
        self.budget = budget
        self.received = 0
        self.over = False
        self.read_fd, self.write_fd = os.pipe()
        self._thread = threading.Thread(target=self._drain, daemon=True)
        self._thread.start()

    def _drain(self) -> None:
        try:
            with open(self.into, "wb") as out:
                while chunk := os.read(self.read_fd, 1 << 20):
                    self.received += len(chunk)
                    if self.received > self.budget:
                        self.over = True  # closing our end makes the shim's next write fail: it stops
                        return
                    out.write(chunk)
        finally:
            os.close(self.read_fd)

    def finish(self) -> None:
        """After the sandbox ended: close our copy of the write end, so the drain sees the end of the stream."""
        os.close(self.write_fd)
        self._thread.join()


def unpack(archive: Path, target: Path) -> None:
    """Unpack the environment's tar into `target`, refusing anything an environment may not hold."""
    try:
        with tarfile.open(archive, "r:") as tar:
            members = []
            for member in tar:
                if len(members) >= MAX_ENTRIES:
                    raise KeepRefused(f"the environment holds more than {MAX_ENTRIES} entries")
                parts = PurePosixPath(member.name).parts
                if member.name.startswith("/") or ".." in parts:
                    raise KeepRefused(f"{member.name!r} is outside the environment")
                if len(parts) > MAX_DEPTH:
                    raise KeepRefused(f"{member.name[:120]!r}… is more than {MAX_DEPTH} folders deep")
                if not (member.isreg() or member.isdir() or member.issym()):
                    raise KeepRefused(f"{member.name!r} is not a file, a folder or a link (hard links, devices "
                                      "and pipes are not kept)")
                members.append(member)
            tar.extractall(target, members=members, filter="data")
    except (tarfile.TarError, OSError) as exc:
        raise KeepRefused(f"the environment cannot be unpacked: {exc}") from None
