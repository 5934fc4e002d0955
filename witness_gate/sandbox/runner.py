"""Evaluating one property: the judge and the subject in two sandboxes (a Python property), or a runner-protocol
command in one (`isolation: shared`). Each call is one evaluation with a subject of its own (split-cold: booted for it
alone, ahead of it, while the last one ran; the judge forked from a warm parent that holds only the gate and the
standard library); `candidate` may fork the subject warm too (split-warm)."""

from __future__ import annotations

import hashlib
import json
import math
import os
import secrets
import shutil
import socket
import subprocess
import sys
import threading
import time
import weakref
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable

from witness_gate.config.schema import Config
from witness_gate.model.canonical import canonical_bytes
from witness_gate.model.evaluation import ROW_REFUSED, Evaluation
from witness_gate.rules.path_split import path_matches
from witness_gate.sandbox import ENV_MOUNT, JUDGE_SITE_MOUNT, Limits, Mount, Sandbox, settle, stage_root
from witness_gate.sandbox.forks import (
    READY_SECONDS,
    Ahead,
    ForkServer,
    ask_serving,
    end_process,
    read_until_closed,
    start_serving,
)
from witness_gate.sandbox.judge.tests import PREFIX as PYTEST_PREFIX, is_test
from witness_gate.sandbox.names import imported_names
from witness_gate.sandbox.processes import Finished, collect_pair
from witness_gate.sandbox.readout import verdict_of_judge, verdict_of_process
from witness_gate.sandbox.staging import judge_site, mark_fixed
from witness_gate.sandbox.views import Views, split_checkout
from witness_gate.sandbox.warm_settings import parallel_from_environment, warm_from_environment
from witness_gate.sources.safefs import UnsafePath, read_inside


def hash_seed(seed: str) -> str:
    """PYTHONHASHSEED derived from the pinned seed, so set and dict orders repeat too."""
    return str(int(hashlib.sha256(seed.encode("utf-8")).hexdigest(), 16) % 4294967295 + 1)


def layout_env(layout: int) -> dict[str, str]:
    """A cold subject's own hash seed and address layout (SPEC §10, "What replays vary"): both follow from `layout`, a
    number drawn by the gate for that subject alone and recorded in its row, so a row that failed can be run again
    exactly (`evaluate(payload, layout=...)`). Drawn, not counted: a subject that could work out which row it serves
    could pass the rows that decide. The judge keeps the pinned seed's, and a warm subject too, with no layout."""
    return {"PYTHONHASHSEED": str(layout), "WITNESS_LAYOUT": str(layout)}


def _exit_code_of(verdict_line: bytes) -> tuple[int | None, bool]:
    """(the exit code a judge that wrote this verdict line ends with, whether a series judge ends after it): a
    series judge goes on; None for no verdict."""
    try:
        verdict = json.loads(verdict_line)
    except ValueError:
        return None, True
    if not isinstance(verdict, dict):
        return None, True
    return {"pass": 0, "fail": 1, "transport": 3}.get(verdict.get("outcome")), verdict.get("series") == "ends"


def draw_layout() -> int:
    return secrets.randbelow(LAYOUTS - 1) + 1


LAYOUTS = 1 << 32  # PYTHONHASHSEED's own range
MAX_PROPERTY_BYTES = 1 << 20  # a property file read for its import lines


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


@dataclass
class PropertyRunner:
    """Evaluates one property of one checkout: every call of it has a subject of its own (split-cold); `candidate`
    may fork one from a warm subject (split-warm)."""

    repo: Path
    selector: str  # <relpath>::<function>
    seed: str
    sandbox: Sandbox
    timeout_seconds: float = 60
    command: tuple[str, ...] | None = None  # None: a Python property, judged across the boundary
    limits: Limits = field(default_factory=Limits)
    environment: Path | None = None  # what the set-up phase installed for this head, seen read-only by the subject
    # the judge's third-party packages beyond the gate interpreter's: a trusted set-up's (the base's), never the head's
    judge_environment: Path | None = None
    tests: bool = False  # the run gates pytest tests: its judges get the gate's pytest and Hypothesis
    # replays at once (attempt._replay); without bubblewrap's pid namespace an orphan cannot be told to
    # belong to one evaluation or another, so there they run one after another
    parallel: int = field(default_factory=parallel_from_environment)
    # sides started ahead: a warm judge parent, subjects booted before their evaluation, and a warm subject parent
    # for shrink candidates; off, both sides of every evaluation start for it
    warm: bool = field(default_factory=warm_from_environment)
    replays: int = 5  # a witness's replays (policy.runs)
    # the oracle's paths (patterns as in .witness.yml): the judge sees only these, the subject everything else
    oracle: tuple[str, ...] = Config().oracle_patterns
    views: Views | None = None  # the checkout split once for every runner of a gate run; None: this runner's own
    new_modules: tuple[str, ...] = ()  # top-level names the patch added: the judge's own package of the name wins
    # kept running between evaluations, shared by every runner of one checkout and seed in a gate run (whose end
    # closes them); None: this runner's own, ended with it
    sides: Sides | None = None
    # a Hypothesis test's search seeded anew (the broader sample's seed): told to the judge alone, never the subject
    search_seed: str = ""

    def __post_init__(self) -> None:
        if self.sides is not None and self.views is None:  # shared sides run on the views they started with
            raise ValueError("runners that share their sides share their views too")
        self._own_views: Views | None = None
        self._own_sides = self.sides is None
        self._sides = self.sides if self.sides is not None else Sides()
        if self._own_sides:
            weakref.finalize(self, self._sides.close)  # a runner nobody closed leaves no sandbox running
        if self.sandbox.mode != "bwrap":
            self.parallel = 1
        self._lock = self._sides.lock
        for tree in (self.repo, stage_root() / "gate", *(m.source for m in self._mounts() + self._judge_mounts())):
            mark_fixed(tree)  # staged once, never changed: settled from a layout listed once

    def __call__(self, payload: Any) -> Evaluation:
        return self.evaluate(payload)

    @property
    def note(self) -> str:
        """What a person should know of how this property ran, for the attempt record; else ''."""
        if self.command is not None:
            return ("isolation: shared - properties.command runs the oracle and the implementation in one process, "
                    "so the implementation could reach the verdict; only Python properties are judged apart")
        return ""

    def close(self) -> None:
        """End the sides started ahead (unless they are a gate run's), and the views this runner made for itself."""
        with self._lock:
            self._sides.end_series(self.selector)
        if self._own_sides:
            self._sides.close()  # not under the lock: the thread starting subjects ahead may be waiting on it
        if self._own_views is not None:
            self._own_views.remove()
            self._own_views = None

    def is_oracle(self, relpath: str) -> bool:
        return relpath == self.selector.partition("::")[0] or any(path_matches(relpath, p) for p in self.oracle)

    def _views(self) -> Views:
        with self._lock:
            if self.views is None:
                self.views = self._own_views = split_checkout(self.repo, self.is_oracle)
                weakref.finalize(self, self._own_views.remove)
        return self.views

    @property
    def _forks(self) -> bool:
        """Whether sides may be started ahead (a warm judge, subjects booted early): bubblewrap, warm start on."""
        return self.command is None and self.warm and self.sandbox.mode == "bwrap"

    def evaluate(self, payload: Any, layout: int | None = None, sample: bool = False) -> Evaluation:
        """A row that may decide anything: its subject ran no earlier evaluation (split-cold); `layout`: that of a
        recorded row, to run it again exactly (a subject started for it), else one drawn for it. `sample`: the payload
        is a broader sample's list of inputs, evaluated in turn, past those it fails (`Evaluation.failed`), to the end
        or to one with no verdict (`Evaluation.sample`)."""
        if self.command is None:
            row = self._evaluate_ahead(payload, sample) if self._forks and layout is None else None
            return row if row is not None else self._evaluate_split(payload, layout or draw_layout(), sample)
        scratch = self.sandbox.make_scratch()
        try:
            return self._evaluate_command(scratch, payload)
        finally:
            shutil.rmtree(scratch, ignore_errors=True)

    def evaluate_sample(self, inputs: list) -> Evaluation:
        """A broader sample's inputs in one cold row (see `evaluate`); a runner protocol's command takes one payload
        an evaluation, so its row names no input (`sample` None) and broader.py gives each input a row of its own."""
        if self.command is not None:
            return Evaluation("transport", ROW_REFUSED)
        with self._lock:
            started = self._sides.judge is not None or self._sides.ahead is not None
        if not started:  # a side nothing ran on yet (the base, asked once): one cold row costs less than warm parents
            return self._evaluate_split(inputs, draw_layout(), sample=True)
        return self.evaluate(inputs, sample=True)

    def _evaluate_split(self, payload: Any, layout: int, sample: bool = False) -> Evaluation:
        """The property in a judge, the implementation in a subject of its own, both started cold for this
        evaluation alone, talking over a socket (without bubblewrap, or when nothing could be started ahead)."""
        views = self._views()
        inbox, empty = self.sandbox.make_scratch(), self.sandbox.make_scratch()
        judge_end, subject_end = socket.socketpair()
        try:
            (inbox / "fixture.json").write_bytes(canonical_bytes(payload))
            judge_env, subject_env, mounts = self._side_settings(views, inbox)
            judge_mounts = self._judge_mounts()
            subject_env.update(WITNESS_WIRE=str(subject_end.fileno()), WITNESS_WARM_IMPORTS=self._cold_imports(),
                               **layout_env(layout))
            judge_env.update(WITNESS_WIRE=str(judge_end.fileno()),
                             WITNESS_FIXTURE=self.sandbox.scratch_path(inbox, "fixture.json"),
                             **({"WITNESS_SAMPLE": "1"} if sample else {}))
            for tree in (views.judge, views.subject, stage_root() / "gate", inbox, empty,
                         *(m.source for m in mounts + judge_mounts)):
                settle(tree)
            deadline = time.monotonic() + self.timeout_seconds + 1
            os.chmod(empty, 0o755)  # the subject, a uid of its own, reads its (empty) /input
            subject = self.sandbox.launch(self._side("subject"), repo=views.subject, scratch=empty, env=subject_env,
                                          limits=self._limits(), mounts=mounts, pass_fds=(subject_end.fileno(),),
                                          own_uid=True)
            subject_end.close()
            try:
                judge = self.sandbox.launch(self._side("judge"), repo=views.judge, scratch=inbox, env=judge_env,
                                            limits=self._limits(), mounts=judge_mounts + self._site_mounts(),
                                            pass_fds=(judge_end.fileno(),))
            except BaseException:
                end_process(subject)
                raise
            judge_end.close()
            ended, other = collect_pair(judge, subject, deadline, self.limits.output_bytes)
            return self._learn(replace(verdict_of_judge(self.sandbox.ended(ended), other, "split-cold"), layout=layout))
        finally:
            judge_end.close()
            subject_end.close()
            shutil.rmtree(inbox, ignore_errors=True)
            shutil.rmtree(empty, ignore_errors=True)

    def _evaluate_ahead(self, payload: Any, sample: bool = False) -> Evaluation | None:
        """A cold row at a warm start's cost: a subject booted for this evaluation alone while the last one ran, and a
        judge forked from the warm judge parent (which holds only the gate and the standard library)."""
        with self._lock:
            if self._sides.ahead is None and not self._sides.judge_failed:  # booting while the judge parent starts
                self._sides.ahead = Ahead(self._subject_starter(), max(2, self.parallel))
            ahead = self._sides.ahead
        judge = self._judge_server()
        if judge is None or ahead is None:
            return None
        try:
            subject, judge_end = ahead.take()
        except OSError:
            return None
        try:
            stderr = os.dup(subject.stderr.fileno())
            row = self._fork_judge(judge, payload, judge_end, stderr, "split-cold", sample)
            return replace(row, layout=subject.witness_layout) if row is not None else None
        finally:
            ahead.done(subject)

    def candidate(self, payload: Any) -> Evaluation:
        """A shrink candidate: forked from warm parents of both sides when they can be had (split-warm: a subject that
        ran earlier evaluations, so such a row never decides a pass), else cold."""
        row = self._evaluate_split_warm(payload) if self._forks else None
        return row if row is not None else self.evaluate(payload)

    def _evaluate_split_warm(self, payload: Any) -> Evaluation | None:
        with self._lock:  # one candidate at a time: the warm subject parent serves one child
            judge, server = self._warm_parents(subject=True)
            if server is None:
                return None
            judge_end, subject_end = socket.socketpair()
            subject_r, subject_w = os.pipe()
            try:
                server.fork({}, [subject_end.fileno(), subject_w])
            except OSError:
                judge_end.close()
                os.close(subject_r)
                self._end_subject()
                return None
            finally:
                subject_end.close()
                os.close(subject_w)
            series = self._series_judge(judge)
            row = self._ask_series(judge, series, payload, judge_end, subject_r) if series is not None else \
                self._fork_judge(judge, payload, judge_end, subject_r, "split-warm")
            if row is not None and row.outcome == "transport" and row.reason == "timeout":
                self._end_subject()  # a child that overran: the next candidate's subject starts anew
            return row

    def _series_judge(self, judge: ForkServer) -> socket.socket | None:
        """The judge this property's shrink candidates go to, one after another, started on first use: a child of the
        warm judge parent that puts back what each evaluation changed (judge/main.py, serve_series) instead of being
        forked for each, which costs a candidate about half its time. None when it cannot be had: forked, then."""
        sides = self._sides
        if self.selector in sides.series:
            return sides.series[self.selector][0]
        sides.requests += 1
        mine = start_serving(judge, {"fixture": "", "seq": sides.requests, "property": self.selector, "series": True})
        if mine is None:
            return None
        sides.series[self.selector] = (mine, sides.requests)
        return mine

    def _ask_series(self, judge: ForkServer, series: socket.socket, payload: Any, judge_end: socket.socket,
                    subject_stderr: int) -> Evaluation | None:
        """One shrink candidate evaluated by the series judge; one that overran or broke ends the series."""
        sides = self._sides
        sides.requests += 1
        inbox, name = sides.judge[1], f"fixture-{sides.requests}.json"
        (inbox / name).write_bytes(canonical_bytes(payload))
        started = time.monotonic()
        said = ask_serving(series, {"fixture": self.sandbox.scratch_path(inbox, name)}, judge_end, subject_stderr,
                           started + self.timeout_seconds + 1, self.limits.output_bytes)
        if said is None:
            (inbox / name).unlink(missing_ok=True)
            sides.end_series(self.selector)
            return None
        out, fault = said
        (inbox / name).unlink(missing_ok=True)
        code, ends = _exit_code_of(out["verdict"]) if not fault else (None, True)
        if code is None:  # past its deadline, over its output cap, or gone: the next candidate gets a new one
            ended = sides.end_series(self.selector)
            if ended is not None:
                judge.kill(ended[1])
        elif ends:  # it could not put back what this evaluation changed: it has ended itself
            sides.end_series(self.selector)
        seconds = time.monotonic() - started
        judge_done = Finished(out["verdict"], out["judge"], fault or (None if code is not None else "no_verdict"),
                              code if code is not None else 3, seconds)
        return self._learn(verdict_of_judge(judge_done, Finished(b"", out["subject"], None, 0, seconds),
                                            "split-warm"))

    def _fork_judge(self, judge: ForkServer, payload: Any, judge_end: socket.socket, subject_stderr: int,
                    isolation: str, sample: bool = False) -> Evaluation | None:
        """One evaluation by a child of the warm judge parent, talking to a subject on `judge_end` whose stderr is
        `subject_stderr` (both closed here). None when the parent is gone: the caller evaluates cold."""
        sides = self._sides
        with self._lock:
            sides.requests += 1
            seq = sides.requests
            inbox = sides.judge[1] if sides.judge is not None else None
        if inbox is None:
            judge_end.close()
            os.close(subject_stderr)
            return None
        name = f"fixture-{seq}.json"
        (inbox / name).write_bytes(canonical_bytes(payload))
        verdict_r, verdict_w = os.pipe()
        judge_r, judge_w = os.pipe()
        started = time.monotonic()
        try:
            judge.fork({"fixture": self.sandbox.scratch_path(inbox, name), "seq": seq, "property": self.selector,
                        **({"sample": True} if sample else {}),
                        **({"search_seed": self.search_seed} if self.search_seed else {})},
                       [judge_end.fileno(), verdict_w, judge_w])
        except OSError:
            for fd in (verdict_r, judge_r, subject_stderr):
                os.close(fd)
            with self._lock:
                self._end_judge()
            return None
        finally:
            judge_end.close()
            os.close(verdict_w)
            os.close(judge_w)
        deadline = started + self.timeout_seconds + 1
        out, fault = read_until_closed({"verdict": verdict_r, "judge": judge_r, "subject": subject_stderr}, deadline,
                                       self.limits.output_bytes, until=("verdict", "judge"))
        code = None if fault else judge.exit_code(seq, deadline)
        if code is None:
            judge.kill(seq)  # past its deadline, or over its output cap
        (inbox / name).unlink(missing_ok=True)
        seconds = time.monotonic() - started
        judge_done = Finished(out["verdict"], out["judge"], fault or (None if code is not None else "no_verdict"),
                              code if code is not None else 3, seconds)
        return self._learn(verdict_of_judge(judge_done, Finished(b"", out["subject"], None, 0, seconds), isolation))

    def _learn(self, row: Evaluation) -> Evaluation:
        """What an evaluation imported of the implementation, for a warm subject parent started after it to import
        first (a warm subject may know it is not the first: its rows never let a patch through)."""
        with self._lock:
            self._sides.imports.update(row.imports)
        return row

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

    def _limits(self) -> Limits:
        return replace(self.limits, cpu_seconds=math.ceil(self.timeout_seconds) + 1)

    def _side_settings(self, views: Views, inbox: Path) -> tuple[dict, dict, tuple[Mount, ...]]:
        """(the judge's environment, the subject's, the subject's mounts) of every evaluation of this property."""
        base = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "PYTHONHASHSEED": hash_seed(self.seed),
                "PYTHONBREAKPOINT": "0", "WITNESS_SEED": self.seed}
        mounts = self._mounts()
        subject_env = dict(base)
        if mounts:
            seen = self.sandbox.seen(mounts[0])
            subject_env.update(WITNESS_ENV=seen, PATH=f"{seen}/bin:{base['PATH']}")
        judge_env = {**base, **({"WITNESS_SEARCH_SEED": self.search_seed} if self.search_seed else {}),
                     "WITNESS_PROPERTY": self.selector, "WITNESS_SUBJECT_MODULES": ",".join(views.modules),
                     "WITNESS_NEW_MODULES": ",".join(self.new_modules), "WITNESS_TIMEOUT": str(self.timeout_seconds)}
        if self.judge_environment is not None:
            judge_env["WITNESS_ENV"] = self.sandbox.seen(self._judge_mounts()[0])
        if self._site_mounts():
            judge_env["WITNESS_JUDGE_SITE"] = self.sandbox.seen(self._site_mounts()[0])
            # Hypothesis's CI settings, read when it is imported: no deadline (a sandbox's timing is not the test's),
            # and a failure prints the @reproduce_failure that replays it; a profile the oracle's conftest.py loads wins
            judge_env["CI"] = "true"
        return judge_env, subject_env, mounts

    def _side(self, which: str) -> list[str]:
        return [self.sandbox.python, "-P", "-s", "-B", self.sandbox.gate_file(f"sandbox/{which}/main.py")]

    def _mounts(self) -> tuple[Mount, ...]:
        """The set-up's environment, read-only at /env, when there is one."""
        return (Mount(self.environment, ENV_MOUNT),) if self.environment is not None else ()

    def _judge_mounts(self) -> tuple[Mount, ...]:
        """The trusted set-up's environment, read-only at /env in the judge, when there is one."""
        return (Mount(self.judge_environment, ENV_MOUNT),) if self.judge_environment is not None else ()

    def _site_mounts(self) -> tuple[Mount, ...]:
        """The gate's own pytest and Hypothesis, read-only in the judge, when the run gates pytest tests (never
        settled: they are the gate's installed files, linked)."""
        site = judge_site() if self.tests or is_test(self.selector) else None
        return (Mount(site, JUDGE_SITE_MOUNT),) if site is not None else ()

    def _evaluate_command(self, scratch: Path, payload: Any) -> Evaluation:
        """A runner-protocol command: oracle and implementation in one process, as the command has them."""
        (scratch / "fixture.json").write_bytes(canonical_bytes(payload))
        env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "PYTHONHASHSEED": hash_seed(self.seed),
               "PYTHONBREAKPOINT": "0", "WITNESS_PROPERTY": self.selector,
               "WITNESS_FIXTURE": self.sandbox.scratch_path(scratch, "fixture.json"), "WITNESS_SEED": self.seed}
        mounts = self._mounts()
        if mounts:
            seen = self.sandbox.seen(mounts[0])
            env.update(WITNESS_ENV=seen, PATH=f"{seen}/bin:{env['PATH']}", PYTHONPATH=seen)
        for tree in (self.repo, stage_root() / "gate", scratch, *(m.source for m in mounts)):
            settle(tree)  # the first evaluation of a series looks exactly like every later one
        done = self.sandbox.run(list(self.command), repo=self.repo, scratch=scratch, env=env, mounts=mounts,
                                limits=self._limits(), timeout=self.timeout_seconds)
        row = verdict_of_process(done)
        return Evaluation(row.outcome, row.reason, row.detail, row.seconds, "shared")
