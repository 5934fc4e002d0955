"""Evaluating one property: the judge and the subject in two sandboxes (a Python property), or a runner-protocol
command in one (`isolation: shared`). Each call is one evaluation with a subject of its own (split-cold: booted for it
alone, ahead of it, while the last one ran; the judge forked from a warm parent that holds only the gate and the
standard library); `candidate` may fork the subject warm too (split-warm)."""

from __future__ import annotations

import json
import os
import shutil
import socket
import time
import weakref
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from witness_gate.config.schema import Config
from witness_gate.model.canonical import canonical_bytes
from witness_gate.model.evaluation import ROW_REFUSED, Evaluation
from witness_gate.rules.path_split import path_matches
from witness_gate.sandbox import Limits, Sandbox, settle, stage_root
from witness_gate.sandbox.command import evaluate_command
from witness_gate.sandbox.forks import (
    Ahead,
    ForkServer,
    ask_serving,
    end_process,
    read_until_closed,
    start_serving,
)
from witness_gate.sandbox.processes import Finished, collect_pair
from witness_gate.sandbox.readout import verdict_of_judge
from witness_gate.sandbox.side_settings import SideSettings
from witness_gate.sandbox.sides import Sides, draw_layout, layout_env
from witness_gate.sandbox.staging import mark_fixed
from witness_gate.sandbox.views import Views, split_checkout
from witness_gate.sandbox.warm import WarmStarts
from witness_gate.sandbox.warm_settings import parallel_from_environment, warm_from_environment


@dataclass
class PropertyRunner(WarmStarts, SideSettings):
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
            return evaluate_command(self, scratch, payload)
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
