"""What the runners of one checkout and seed keep running between their evaluations (`Sides`), and each cold
subject's own hash seed and address layout."""

from __future__ import annotations

import hashlib
import secrets
import shutil
import socket
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from witness_gate.sandbox.forks import Ahead, ForkServer


def hash_seed(seed: str) -> str:
    """PYTHONHASHSEED derived from the pinned seed, so set and dict orders repeat too."""
    return str(int(hashlib.sha256(seed.encode("utf-8")).hexdigest(), 16) % 4294967295 + 1)


def layout_env(layout: int) -> dict[str, str]:
    """A cold subject's own hash seed and address layout (SPEC §10, "What replays vary"): both follow from `layout`, a
    number drawn by the gate for that subject alone and recorded in its row, so a row that failed can be run again
    exactly (`evaluate(payload, layout=...)`). Drawn, not counted: a subject that could work out which row it serves
    could pass the rows that decide. The judge keeps the pinned seed's, and a warm subject too, with no layout."""
    return {"PYTHONHASHSEED": str(layout), "WITNESS_LAYOUT": str(layout)}


def draw_layout() -> int:
    return secrets.randbelow(LAYOUTS - 1) + 1


LAYOUTS = 1 << 32  # PYTHONHASHSEED's own range


@dataclass
class Sides:
    """What the runners of one checkout and seed keep running between their evaluations: a warm judge parent (it
    evaluates any of their properties), a warm subject parent for shrink candidates, cold subjects booted ahead, each
    with its scratch folder; and what their evaluations imported, for the sides started after them. Ended by `close`:
    a gate run's at its end (`Session`), else its one runner's."""

    judge: tuple[ForkServer, Path] | None = None  # the warm judge parent and its inbox (the fixtures)
    subject: tuple[ForkServer, Path] | None = None  # the warm subject parent: shrink candidates only
    ahead: Ahead | None = None  # cold subjects started before their evaluation
    empty: Path | None = None  # their /input
    starter: ThreadPoolExecutor | None = None  # the threads that start the warm parents
    lock: threading.RLock = field(default_factory=threading.RLock)
    judge_failed: bool = False  # a judge parent that would not start is not tried again
    subject_failed: bool = False  # nor a subject parent: a head whose import never ends would cost every candidate
    imports: set[str] = field(default_factory=set)  # the implementation's modules properties imported: a warm subject's
    # (a cold subject's, a warm judge's) first imports, the same for every one: fixed before the first starts, from the
    # first property's text, for a list that grew with the evaluations would tell a subject it is not the first
    first_imports: tuple[str, str] | None = None
    requests: int = 0  # fork requests to the judge parent, each with its own number and fixture
    # a series judge a property's shrink candidates are sent to, one after another: (its socket, its request number)
    series: dict[str, tuple[socket.socket, int]] = field(default_factory=dict)

    def end(self, which: str) -> None:
        side = getattr(self, which)
        if side is not None:
            setattr(self, which, None)
            side[0].close()
            shutil.rmtree(side[1], ignore_errors=True)

    def end_series(self, selector: str) -> tuple[socket.socket, int] | None:
        """Hang up on a property's series judge (it ends when it reads that); returns what it was."""
        found = self.series.pop(selector, None)
        if found is not None:
            found[0].close()
        return found

    def close(self) -> None:
        for selector in list(self.series):
            self.end_series(selector)
        self.end("judge")
        self.end("subject")
        ahead, self.ahead = self.ahead, None
        if ahead is not None:
            ahead.close()
        if self.empty is not None:
            shutil.rmtree(self.empty, ignore_errors=True)
            self.empty = None
        if self.starter is not None:
            self.starter.shutdown(wait=False)  # it may be the very thread a collected runner ends on
            self.starter = None
