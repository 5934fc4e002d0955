"""The runner protocol, host side: one evaluation in a fresh sandboxed process, one verdict or a transport fault."""

from __future__ import annotations

import hashlib
import json
import math
import secrets
import shutil
import threading
import weakref
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from witness_gate.canonical import canonical_bytes
from witness_gate.evaluation import Evaluation, verdict_of_process as _verdict
from witness_gate.processes import Finished
from witness_gate.sandbox import ENV_MOUNT, Limits, Mount, Sandbox, settle, stage_root
from witness_gate.staging import mark_fixed
from witness_gate.warm import READY_SECONDS, WarmParent, WarmSeries
from witness_gate.warm_reading import at_once
from witness_gate.warm_imports import reached
from witness_gate.warm_settings import cores_from_here, parallel_from_environment, warm_from_environment

def hash_seed(seed: str) -> str:
    """PYTHONHASHSEED derived from the pinned seed, so set and dict orders repeat too."""
    return str(int(hashlib.sha256(seed.encode("utf-8")).hexdigest(), 16) % 4294967295 + 1)


@dataclass
class PropertyRunner:
    """Evaluates one property of one checkout; each call is a fresh process, cold or forked from a warm parent."""

    repo: Path
    selector: str  # <relpath>::<function>
    seed: str
    sandbox: Sandbox
    timeout_seconds: float = 60
    command: tuple[str, ...] | None = None  # None: the Python harness
    limits: Limits = field(default_factory=Limits)
    environment: Path | None = None  # what the set-up phase installed for this head, seen read-only
    # replays at once (attempt._replay); without bubblewrap's pid namespace an orphan cannot be told to
    # belong to one evaluation or another, so there they run one after another
    parallel: int = field(default_factory=parallel_from_environment)
    warm: bool = field(default_factory=warm_from_environment)  # fork each evaluation from a warm parent
    replays: int = 5  # a witness's replays (policy.runs): when spare warm parents are worth their start
    _series: WarmSeries | None = field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.sandbox.mode != "bwrap":
            self.parallel = 1
        self._lock = threading.Lock()
        # a series that may run parents at once binds each to a core of its own once its imports ran: the fork, the
        # sweep and the children's start and exit stay on one CPU (no cross-CPU TLB flush), and two lanes of replays
        # at once never share one; each child gets the gate's cores back, as a cold evaluation has them
        self._cores = cores_from_here() if self.parallel > 1 and self.warm else ()
        for tree in (self.repo, stage_root() / "gate", *(m.source for m in self._mounts())):
            mark_fixed(tree)  # staged once, never changed: settled from a layout listed once

    def __call__(self, payload: Any) -> Evaluation:
        return self.evaluate(payload)

    @property
    def note(self) -> str:
        """Why a warm start that was asked for was not used, for the attempt record; else ''."""
        if self.warm and self._cold_reason():
            return f"warm start not used: {self._cold_reason()}; evaluations started cold"
        return self._series.note if self.warm and self._series else ""

    def _cold_reason(self) -> str:
        if self.sandbox.mode != "bwrap":
            return "it needs bubblewrap (a pid namespace and tmpfs of its own)"
        if self.command is not None:
            return "it needs the Python harness, and properties.command is set"
        return ""

    def close(self) -> None:
        """End the warm parents of this series (a runner that is collected ends them too)."""
        if self._series is not None:
            self._series.close()

    def evaluate(self, payload: Any) -> Evaluation:
        if self.warm and not self._cold_reason():
            row = self._evaluate_warm(payload)
            if row is not None:
                return row
        scratch = self.sandbox.make_scratch()
        try:
            return self._evaluate_in(scratch, payload)
        finally:
            shutil.rmtree(scratch, ignore_errors=True)

    def _plan(self, scratch: Path) -> tuple[dict[str, str], tuple[Mount, ...], str, list[str]]:
        """(environment, mounts, verdict key, argv) of one evaluation whose input is in `scratch`."""
        env = {
            "PATH": "/usr/local/bin:/usr/bin:/bin",
            "LANG": "C.UTF-8",
            "PYTHONHASHSEED": hash_seed(self.seed),
            "PYTHONBREAKPOINT": "0",  # breakpoint() does nothing: a debugger runs commands in the harness's frame too
            "WITNESS_PROPERTY": self.selector,
            "WITNESS_FIXTURE": self.sandbox.scratch_path(scratch, "fixture.json"),
            "WITNESS_SEED": self.seed,
        }
        mounts = self._mounts()
        if mounts:
            seen = self.sandbox.seen(mounts[0])
            env.update(WITNESS_ENV=seen, PATH=f"{seen}/bin:{env['PATH']}")
            # the harness puts it on sys.path itself, after the standard library and the repository; on
            # PYTHONPATH a sitecustomize.py from the set-up would run before the harness
            if self.command is not None:
                env["PYTHONPATH"] = seen
        if self.command is not None:
            return env, mounts, "", list(self.command)
        # told on stdin only: no file or argv names it
        return env, mounts, f"witness-verdict-{secrets.token_hex(16)}", self.sandbox.harness_argv()

    def _mounts(self) -> tuple[Mount, ...]:
        """The set-up's environment, read-only at /env, when there is one."""
        return (Mount(self.environment, ENV_MOUNT),) if self.environment is not None else ()

    def _settle(self, scratch: Path, mounts: tuple[Mount, ...]) -> None:
        for tree in (self.repo, stage_root() / "gate", scratch, *(m.source for m in mounts)):
            settle(tree)  # the first evaluation of a series looks exactly like every later one

    def _evaluate_in(self, scratch: Path, payload: Any) -> Evaluation:
        (scratch / "fixture.json").write_bytes(canonical_bytes(payload))
        env, mounts, key, argv = self._plan(scratch)
        self._settle(scratch, mounts)
        limits = replace(self.limits, cpu_seconds=math.ceil(self.timeout_seconds) + 1)
        done = self.sandbox.run(argv, repo=self.repo, scratch=scratch, env=env, mounts=mounts, limits=limits,
                                timeout=self.timeout_seconds, stdin=f"{key}\n".encode() if key else b"")
        return _verdict(done, key)

    def _evaluate_warm(self, payload: Any) -> Evaluation | None:
        """One evaluation forked from a warm parent of this series; None: run it cold."""
        with self._lock:
            if self._series is None:
                start = weakref.WeakMethod(self._start_warm)  # the series must not keep its runner alive
                self._series = WarmSeries(lambda number: start()(number))
                weakref.finalize(self, self._series.close)
        key = f"witness-verdict-{secrets.token_hex(16)}"
        cpu = math.ceil(self.timeout_seconds) + 1

        def job(parent: WarmParent) -> Finished | None:
            parent.hand(canonical_bytes(payload))
            self._settle(parent.inbox, self._mounts())
            return parent.run(key, cpu, self.timeout_seconds, self.limits.output_bytes)

        done = self._series.run(job)
        if done is None:
            return None
        row = _verdict(done, key)
        if self.parallel > 1:  # a failure is shrunk and then replayed, at once: spare parents, once they pay
            self._series.spare_when_due(self.parallel - 1, row.outcome == "fail", self.replays)
        return row

    def evaluate_at_once(self, payload: Any, runs: int, landed=lambda count: None) -> list[Evaluation] | None:
        """`runs` evaluations of one payload (a witness's replays) on the series' free warm parents at once, all
        followed from this thread: no thread per replay, nor the interpreter's lock passed between them; `landed`
        is told how many rows there are as each lands. None when the series has no such parents free (WarmSeries.take_idle:
        the caller runs them in threads); one a parent could not take runs as usual."""
        if not self.warm or self._series is None or self.parallel < 2:
            return None
        parents = self._series.take_idle(min(self.parallel, runs))
        if not parents:
            return None
        fixture, cpu, rows, held = canonical_bytes(payload), math.ceil(self.timeout_seconds) + 1, [], set(parents)

        def send(parent: WarmParent):
            key = f"witness-verdict-{secrets.token_hex(16)}"
            parent.hand(fixture)
            self._settle(parent.inbox, self._mounts())
            reading = parent.send(key, cpu, self.timeout_seconds, self.limits.output_bytes)
            if reading is None:
                held.discard(parent)
                self._series.give_back(parent, None)
                return None
            return reading, key

        def finish(parent: WarmParent, reading, key: str) -> bool:
            done = parent.finish(reading)
            if done is not None:
                rows.append(_verdict(done, key))
                landed(len(rows))
            if done is None or parent.why:  # ended under it or by it: this lane stops, the rest go on
                held.discard(parent)
                self._series.give_back(parent, done)
                return False
            return True

        try:
            at_once(parents, runs, send, finish)
        except BaseException as exc:
            for parent in held:
                parent.why = parent.why or f"an evaluation could not be handed over: {type(exc).__name__}"
            raise
        finally:
            for parent in held:
                self._series.give_back(parent, None)
        while len(rows) < runs:
            rows.append(self.evaluate(payload))
            landed(len(rows))
        return rows

    def _start_warm(self, number: int = 0) -> WarmParent | str:
        inbox = self.sandbox.make_scratch()
        env, mounts, _, argv = self._plan(inbox)
        outside, files = reached(self.repo, self.selector.partition("::")[0])
        env.update(WITNESS_WARM_IMPORTS=",".join(outside), WITNESS_WARM_COMPILE=json.dumps(files))
        # the evaluation's CPU limit, soft and hard, as a cold import sees it (a library may take a budget from
        # either); the parent's own CPU over the series (its imports, a fork and a sweep an evaluation) counts
        # against it too, and a parent that reaches it ends: that evaluation runs again cold, the series too
        limits = replace(self.limits, cpu_seconds=math.ceil(self.timeout_seconds) + 1)
        if self._cores:  # once imported, the parent (its forks, sweeps, children's exits) keeps to one core of its own
            env.update(WITNESS_WARM_CORE=str(self._cores[number % len(self._cores)]),
                       WITNESS_WARM_CORES=",".join(map(str, sorted(self._cores))))  # each evaluation: a cold start's
        self._settle(inbox, mounts)  # its imports see the trees as every evaluation does

        def spawn(fd: int):
            return self.sandbox.start([*argv, "--warm"], repo=self.repo, scratch=inbox,
                                      env={**env, "WITNESS_WARM_FD": str(fd)}, mounts=mounts, limits=limits,
                                      pass_fds=(fd,))

        made = WarmParent.start(spawn, inbox, max(READY_SECONDS, self.timeout_seconds))
        if isinstance(made, str):
            shutil.rmtree(inbox, ignore_errors=True)
        return made
