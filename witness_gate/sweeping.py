"""A file's pytest rows from one pytest start (sandbox/judge/sweep.py): a child of the warm judge parent configures
pytest once and forks each row's session from there, against a cold subject of its own, booted ahead for it alone, as
a test's own session would be. A row is split-cold: its subject ran nothing before it, and records its own layout.

A test's rows stop at its first row that is no pass, as the first run's do (attempt.run_attempt). A row that gave no
verdict is not kept: the test's first run is then made as before, one session a row, and a sweep that broke (a row
past its deadline, a judge gone) leaves every test it did not finish to that."""

from __future__ import annotations

import os
import socket
import time
from collections.abc import Callable
from dataclasses import replace

from witness_gate.canonical import canonical_bytes
from witness_gate.evaluation import Evaluation, verdict_of_judge
from witness_gate.processes import Finished
from witness_gate.runner import exit_code_of
from witness_gate.sandbox.judge.tests import is_test
from witness_gate.sandbox.forks import Ahead, ForkServer, ask_serving, start_serving

Progress = Callable[[int, int], None]


def sweep(runner, selectors: list[str], runs: int, progress: Progress | None = None
          ) -> tuple[dict[str, list[Evaluation]], dict[str, str]]:
    """Up to `runs` first-run rows of each test `selectors` names (one file's), in one pytest session; and, for a test
    whose rows are fewer than that with none failing, why (for people: its first run is then made as before)."""
    return _rows(runner, [(selector, "", runs, True) for selector in selectors], progress)


def series(runner, payload, runs: int, progress: Callable[[int], None] | None = None) -> list[Evaluation] | None:
    """`runs` replays of `payload` (the empty one, or a recorded Hypothesis example) on the runner's test, one after
    another in one pytest session, each against a cold subject of its own; None unless every one gave a verdict (a
    replay is then made as before)."""
    inbox = runner._sides.judge[1] if runner._sides.judge is not None else None
    if not payload:
        fixture = ""
    elif inbox is None:
        return None
    else:
        with runner._lock:
            runner._sides.requests += 1
            name = f"fixture-{runner._sides.requests}.json"
        (inbox / name).write_bytes(canonical_bytes(payload))
        fixture = runner.sandbox.scratch_path(inbox, name)
    try:
        rows, _why = _rows(runner, [(runner.selector, fixture, runs, False)],
                           None if progress is None else lambda done, _total: progress(done))
    finally:
        if fixture:
            (inbox / name).unlink(missing_ok=True)
    made = rows.get(runner.selector, [])
    return made if len(made) == runs else None


def _rows(runner, plan: list[tuple[str, str, int, bool]], progress: Progress | None
          ) -> tuple[dict[str, list[Evaluation]], dict[str, str]]:
    """The rows `plan` asks for, each (selector, fixture, count, stop at the first row that is no pass), in one
    session; a row with no verdict ends its selector's rows, and one past its deadline (or a session gone) all."""
    rows: dict[str, list[Evaluation]] = {selector: [] for selector, *_ in plan}
    why: dict[str, str] = {}
    judge = runner._judge_server() if plan and runner._forks and is_test(plan[0][0]) else None
    if judge is None:
        return rows, why
    sides = runner._sides
    with runner._lock:
        if sides.ahead is None:
            sides.ahead = Ahead(runner._subject_starter(), max(2, runner.parallel))
        ahead = sides.ahead
        sides.requests += 1
        seq = sides.requests
    control = start_serving(judge, {"fixture": "", "seq": seq, "property": plan[0][0], "sweep": True})
    if control is None:
        return rows, why
    done, total, ends = 0, sum(count for _s, _f, count, _stop in plan), False
    try:
        for index, (selector, fixture, count, stop_early) in enumerate(plan):
            for _ in range(count):
                try:
                    subject, judge_end = ahead.take()
                except OSError:
                    return rows, why
                try:
                    row, ends = _ask(runner, judge, control, seq, {"selector": selector, "fixture": fixture},
                                     judge_end, os.dup(subject.stderr.fileno()))
                finally:
                    ahead.done(subject)
                done += 1
                if progress is not None:
                    progress(done, total)
                if row is None:  # past its deadline, over its output cap, or gone: the rest is made as before
                    why.update((s, _MADE_AS_BEFORE.format("it stopped answering")) for s, *_ in plan[index:])
                    return rows, why
                if row.outcome == "transport":  # no verdict here: this test's rows are made as before
                    why[selector] = _MADE_AS_BEFORE.format(f"transport:{row.reason}")
                    break
                rows[selector].append(replace(row, layout=subject.witness_layout))
                if (stop_early and row.outcome != "pass") or ends:
                    break
            if ends:
                return rows, why
    finally:
        control.close()  # the sweep ends when it reads that
    return rows, why


_MADE_AS_BEFORE = ("the first runs of this file's tests in one pytest session gave this test no verdict ({}): its "
                   "first run was made one session a row")


def _ask(runner, judge: ForkServer, control: socket.socket, seq: int, message: dict, judge_end: socket.socket,
         subject_stderr: int) -> tuple[Evaluation | None, bool]:
    """One row: (its evaluation, whether the sweep ended after it); None when it gave no verdict line in time."""
    started = time.monotonic()
    said = ask_serving(control, message, judge_end, subject_stderr,
                       started + runner.timeout_seconds + 1, runner.limits.output_bytes)
    if said is None:
        return None, True
    out, fault = said
    code, ends = exit_code_of(out["verdict"]) if not fault else (None, True)
    if code is None:
        judge.kill(seq)
        return None, True
    seconds = time.monotonic() - started
    judge_done = Finished(out["verdict"], out["judge"], None, code, seconds)
    row = verdict_of_judge(judge_done, Finished(b"", out["subject"], None, 0, seconds), "split-cold")
    return runner._learn(row), ends
