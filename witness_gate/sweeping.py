"""A file's pytest rows from one pytest start (sandbox/judge/sweep.py): a child of the warm judge parent configures
pytest once and forks each row's session from there, against a cold subject of its own, booted ahead for it alone, as
a test's own session would be. A row is split-cold: its subject ran nothing before it, and records its own layout.

A test's rows stop at its first row that is no pass, as the first run's do (attempt.run_attempt). Every row asked for
is kept as it came, a row with no verdict too (past its deadline, its judge gone: transport, as one session a row
records it): one dropped and made again would give the code under test a second try (found by a reviewer). The rows a
sweep that ended did not make are made one session a row."""

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
          ) -> dict[str, list[Evaluation]]:
    """Up to `runs` first-run rows of each test `selectors` names (one file's), from one pytest start, each test's up
    to its first row that is no pass."""
    return _rows(runner, [(selector, "", runs, True) for selector in selectors], progress)


def series(runner, payload, runs: int, progress: Callable[[int], None] | None = None) -> list[Evaluation] | None:
    """Up to `runs` replays of `payload` (the empty one, or a recorded Hypothesis example) on the runner's test, one
    after another from one pytest start, each against a cold subject of its own; None when none could be made."""
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
        rows = _rows(runner, [(runner.selector, fixture, runs, False)],
                     None if progress is None else lambda done, _total: progress(done))
    finally:
        if fixture:
            (inbox / name).unlink(missing_ok=True)
    return rows.get(runner.selector) or None


def _rows(runner, plan: list[tuple[str, str, int, bool]], progress: Progress | None) -> dict[str, list[Evaluation]]:
    """The rows `plan` asks for, each (selector, fixture, count, stop at the first row that is no pass), from one
    pytest start; a sweep that ends (the start could not be forked from, a row past its deadline) makes no more."""
    rows: dict[str, list[Evaluation]] = {selector: [] for selector, *_ in plan}
    judge = runner._judge_server() if plan and runner._forks and is_test(plan[0][0]) else None
    if judge is None:
        return rows
    sides = runner._sides
    with runner._lock:
        if sides.ahead is None:
            sides.ahead = Ahead(runner._subject_starter(), max(2, runner.parallel))
        ahead = sides.ahead
        sides.requests += 1
        seq = sides.requests
    control = start_serving(judge, {"fixture": "", "seq": seq, "property": plan[0][0], "sweep": True})
    if control is None:
        return rows
    done, total = 0, sum(count for _s, _f, count, _stop in plan)
    try:
        for selector, fixture, count, stop_early in plan:
            for _ in range(count):
                try:
                    subject, judge_end = ahead.take()
                except OSError:
                    return rows
                try:
                    row, ends = _ask(runner, judge, control, seq, {"selector": selector, "fixture": fixture},
                                     judge_end, os.dup(subject.stderr.fileno()))
                finally:
                    ahead.done(subject)
                done += 1
                if progress is not None:
                    progress(done, total)
                if row is None:  # it was never asked: the sweep is gone
                    return rows
                rows[selector].append(replace(row, layout=subject.witness_layout))
                if ends:
                    return rows
                if stop_early and row.outcome != "pass":
                    break
    finally:
        control.close()  # the sweep ends when it reads that
    return rows


def _ask(runner, judge: ForkServer, control: socket.socket, seq: int, message: dict, judge_end: socket.socket,
         subject_stderr: int) -> tuple[Evaluation | None, bool]:
    """One row: (its evaluation, whether the sweep ended after it); None when it could not be asked. A row with no
    verdict line by its deadline is transport, as one session a row records it, and the sweep ends."""
    started = time.monotonic()
    said = ask_serving(control, message, judge_end, subject_stderr,
                       started + runner.timeout_seconds + 1, runner.limits.output_bytes)
    if said is None:
        return None, True
    out, fault = said
    code, ends = exit_code_of(out["verdict"]) if not fault else (None, True)
    if code is None:
        judge.kill(seq)
    seconds = time.monotonic() - started
    judge_done = Finished(out["verdict"], out["judge"], fault or (None if code is not None else "no_verdict"),
                          code if code is not None else 3, seconds)
    row = verdict_of_judge(judge_done, Finished(b"", out["subject"], None, 0, seconds), "split-cold")
    return runner._learn(row), ends
