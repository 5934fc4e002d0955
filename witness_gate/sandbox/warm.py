"""Starting the sides a runner keeps warm: the judge parent every evaluation forks from, the warm subject parent of
shrink candidates, and cold subjects booted ahead, each importing first what is fixed before the first one starts.

A part of `PropertyRunner` (witness_gate/sandbox/runner.py), which holds the settings these read: its sides and their
lock, its views of the checkout, each side's environment, mounts and limits."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

from witness_gate.sandbox import settle, stage_root
from witness_gate.sandbox.forks import READY_SECONDS, ForkServer
from witness_gate.sandbox.judge.tests import PREFIX as PYTEST_PREFIX
from witness_gate.sandbox.names import imported_names
from witness_gate.sandbox.sides import draw_layout, layout_env
from witness_gate.sources.safefs import UnsafePath, read_inside

MAX_PROPERTY_BYTES = 1 << 20  # a property file read for its import lines


class WarmStarts:
    """The warm judge parent, the warm subject parent and the cold subjects started ahead of a `PropertyRunner`."""

    def _judge_server(self) -> ForkServer | None:
        """The warm judge parent, started on first use; None when it cannot be had."""
        return self._warm_parents(subject=False)[0]

    def _warm_parents(self, subject: bool) -> tuple[ForkServer | None, ForkServer | None]:
        """The warm judge parent and, when `subject`, the warm subject parent (again after one that overran): each
        started on first use, the two at once; None for one that cannot be had (no subject without a judge)."""
        with self._lock:
            starting = []
            sides = self._sides
            if sides.judge is None and not sides.judge_failed:
                views = self._views()
                inbox = self.sandbox.make_scratch()
                judge_env, _, _ = self._side_settings(views, inbox)
                del judge_env["WITNESS_PROPERTY"]  # each request names its property: one parent serves them all
                # fixed before it starts, never learned: a parent that changed with the evaluations would make the
                # first one slower than the next, and a subject could time that (found by a reviewer)
                judge_env["WITNESS_WARM_IMPORTS"] = self._first_imports()[1]
                starting.append(("judge", inbox, self._start_parent("judge", views.judge, inbox, judge_env,
                                                                    self._judge_mounts() + self._site_mounts())))
            if subject and sides.subject is None and not (sides.judge_failed or sides.subject_failed):
                views = self._views()
                empty = self.sandbox.make_scratch()  # the fixtures are the judge's only
                _, subject_env, mounts = self._side_settings(views, empty)
                subject_env["WITNESS_WARM_IMPORTS"] = ",".join(sorted(sides.imports))
                starting.append(("subject", empty, self._start_parent("subject", views.subject, empty, subject_env,
                                                                      mounts)))
            for which, scratch, started in starting:
                try:
                    server = started.result()
                except Exception:  # noqa: BLE001 - whatever stopped a warm start, the evaluations run cold
                    shutil.rmtree(scratch, ignore_errors=True)
                    server = None
                setattr(sides, which, (server, scratch) if server is not None else None)
                setattr(sides, f"{which}_failed", server is None)
            judge = sides.judge[0] if sides.judge is not None else None
            warm_subject = sides.subject[0] if subject and judge and sides.subject is not None else None
            return judge, warm_subject

    def _start_parent(self, which: str, repo: Path, scratch: Path, env: dict, mounts: tuple) -> Future:
        """A warm parent, starting on this runner's starting threads: bubblewrap's --die-with-parent ends a sandbox
        with the thread that started it, and the first evaluation may come from a replay thread that ends first."""
        for tree in (repo, stage_root() / "gate", scratch, *(m.source for m in mounts)):
            settle(tree)
        if self._sides.starter is None:
            self._sides.starter = ThreadPoolExecutor(2, thread_name_prefix="witness-start")  # both sides at once
        ready = min(READY_SECONDS, max(1.0, self.timeout_seconds))  # an import longer than an evaluation: cold
        return self._sides.starter.submit(ForkServer, lambda fd: self.sandbox.launch(
            [*self._side(which), "--warm"], repo=repo, scratch=scratch, env={**env, "WITNESS_CONTROL": str(fd)},
            limits=self._limits(), mounts=mounts, pass_fds=(fd,), quiet=True), ready)

    def _subject_starter(self) -> Callable[[int], subprocess.Popen]:
        """How `Ahead` starts a cold subject: it imports what earlier evaluations asked for, then waits for its one
        judge. It holds the sides, never this runner: the runners that share them come and go."""
        views, sides, sandbox, limits = self._views(), self._sides, self.sandbox, self._limits()
        side = self._side("subject")
        with self._lock:
            if sides.empty is None:
                sides.empty = sandbox.make_scratch()  # every such subject's /input: read-only, and empty
                os.chmod(sides.empty, 0o755)  # each subject is a uid of its own
            empty = sides.empty
        imports = self._cold_imports()
        _, env, mounts = self._side_settings(views, empty)

        def start(wire: int) -> subprocess.Popen:
            layout = draw_layout()
            for tree in (views.subject, stage_root() / "gate", empty, *(m.source for m in mounts)):
                settle(tree)
            proc = sandbox.launch(side, repo=views.subject, scratch=empty, limits=limits, mounts=mounts, pass_fds=(wire,),
                                  env={**env, "WITNESS_WIRE": str(wire), "WITNESS_WARM_IMPORTS": imports,
                                       **layout_env(layout)}, own_uid=True)
            proc.witness_layout = layout  # the row it serves records it
            return proc

        return start

    def _cold_imports(self) -> str:
        """What every cold subject of these sides imports first."""
        return self._first_imports()[0]

    def _first_imports(self) -> tuple[str, str]:
        """(the implementation's modules, the standard library's) the first property's file names in its import
        lines: what every cold subject and the warm judge parent of these sides import first, fixed before the first
        of them starts and the same for all."""
        with self._lock:
            if self._sides.first_imports is None:
                views = self._views()
                relpath = self.selector.removeprefix(PYTEST_PREFIX).partition("::")[0]
                try:
                    text = read_inside(views.judge, relpath, max_bytes=MAX_PROPERTY_BYTES).decode("utf-8", "replace")
                except (OSError, UnsafePath):
                    text = ""  # the evaluation meets what is wrong with it
                self._sides.first_imports = (",".join(imported_names(text, views.modules)),
                                             ",".join(imported_names(text, sys.stdlib_module_names)))
            return self._sides.first_imports

    def _end_judge(self) -> None:
        self._sides.end("judge")

    def _end_subject(self) -> None:
        self._sides.end("subject")
