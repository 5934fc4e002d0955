"""Evaluating one property: the judge and the subject in two sandboxes (a Python property), or a runner-protocol
command in one (`isolation: shared`). Each call is one evaluation; `candidate` may fork both sides warm."""

from __future__ import annotations

import hashlib
import math
import os
import shutil
import socket
import threading
import time
import weakref
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from witness_gate.canonical import canonical_bytes
from witness_gate.config import Config
from witness_gate.evaluation import Evaluation, verdict_of_judge, verdict_of_process
from witness_gate.labels import path_matches
from witness_gate.processes import Finished, collect_pair
from witness_gate.sandbox import ENV_MOUNT, Limits, Mount, Sandbox, settle, stage_root
from witness_gate.sandbox.forks import ForkServer, read_until_closed
from witness_gate.sandbox.views import Views, split_checkout
from witness_gate.staging import mark_fixed
from witness_gate.warm_settings import parallel_from_environment, warm_from_environment


def hash_seed(seed: str) -> str:
    """PYTHONHASHSEED derived from the pinned seed, so set and dict orders repeat too."""
    return str(int(hashlib.sha256(seed.encode("utf-8")).hexdigest(), 16) % 4294967295 + 1)


@dataclass
class PropertyRunner:
    """Evaluates one property of one checkout; every call of it is cold (judge and subject started anew)."""

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
    # replays at once (attempt._replay); without bubblewrap's pid namespace an orphan cannot be told to
    # belong to one evaluation or another, so there they run one after another
    parallel: int = field(default_factory=parallel_from_environment)
    warm: bool = field(default_factory=warm_from_environment)  # shrink candidates forked from warm parents
    replays: int = 5  # a witness's replays (policy.runs)
    # the oracle's paths (patterns as in .witness.yml): the judge sees only these, the subject everything else
    oracle: tuple[str, ...] = Config().oracle_patterns
    views: Views | None = None  # the checkout split once for every runner of a gate run; None: this runner's own
    new_modules: tuple[str, ...] = ()  # top-level names the patch added: the judge's own package of the name wins

    def __post_init__(self) -> None:
        self._own_views: Views | None = None
        self._warm_pair = None  # (judge, subject, the judge's inbox, the subject's): forks for shrink candidates
        self._fixtures = 0
        self._imports: set[str] = set()  # the implementation's modules the property imports: a warm subject's
        self._standard: set[str] = set()  # the standard library's modules the property imports: a warm judge's
        if self.sandbox.mode != "bwrap":
            self.parallel = 1
        self._lock = threading.RLock()
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
        """End the warm parents, and the views this runner made for itself."""
        self._end_warm_pair()
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

    def evaluate(self, payload: Any) -> Evaluation:
        if self.command is None:
            return self._evaluate_split(payload)
        scratch = self.sandbox.make_scratch()
        try:
            return self._evaluate_command(scratch, payload)
        finally:
            shutil.rmtree(scratch, ignore_errors=True)

    def _evaluate_split(self, payload: Any) -> Evaluation:
        """The property in a judge, the implementation in a subject of its own, started cold, talking over a socket."""
        views = self._views()
        inbox, empty = self.sandbox.make_scratch(), self.sandbox.make_scratch()
        judge_end, subject_end = socket.socketpair()
        try:
            (inbox / "fixture.json").write_bytes(canonical_bytes(payload))
            judge_env, subject_env, mounts = self._side_settings(views, inbox)
            judge_mounts = self._judge_mounts()
            limits = replace(self.limits, cpu_seconds=math.ceil(self.timeout_seconds) + 1)
            subject_env["WITNESS_WIRE"] = str(subject_end.fileno())
            judge_env.update(WITNESS_WIRE=str(judge_end.fileno()),
                             WITNESS_FIXTURE=self.sandbox.scratch_path(inbox, "fixture.json"))
            for tree in (views.judge, views.subject, stage_root() / "gate", inbox, empty,
                         *(m.source for m in mounts + judge_mounts)):
                settle(tree)
            deadline = time.monotonic() + self.timeout_seconds + 1
            subject = self.sandbox.launch(self._side("subject"), repo=views.subject, scratch=empty, env=subject_env,
                                          limits=limits, mounts=mounts, pass_fds=(subject_end.fileno(),))
            subject_end.close()
            try:
                judge = self.sandbox.launch(self._side("judge"), repo=views.judge, scratch=inbox, env=judge_env,
                                            limits=limits, mounts=judge_mounts, pass_fds=(judge_end.fileno(),))
            except BaseException:
                subject.kill()
                raise
            judge_end.close()
            ended, other = collect_pair(judge, subject, deadline, self.limits.output_bytes)
            row = verdict_of_judge(self.sandbox.ended(ended), other, "split-cold")
            self._imports.update(row.imports)
            self._standard.update(row.standard)
            return row
        finally:
            judge_end.close()
            subject_end.close()
            shutil.rmtree(inbox, ignore_errors=True)
            shutil.rmtree(empty, ignore_errors=True)

    def candidate(self, payload: Any) -> Evaluation:
        """A shrink candidate: forked from warm parents of both sides when they can be had (split-warm: a subject that
        ran earlier evaluations, so such a row never decides a pass), else cold."""
        if self.command is None and self.warm and self.sandbox.mode == "bwrap":
            row = self._evaluate_split_warm(payload)
            if row is not None:
                return row
        return self.evaluate(payload)

    def _evaluate_split_warm(self, payload: Any) -> Evaluation | None:
        with self._lock:
            pair = self._warm_pair or self._start_warm_pair()
            if pair is None:
                return None
            judge, subject, inbox, _ = pair
            self._fixtures += 1
            name = f"fixture-{self._fixtures}.json"
            (inbox / name).write_bytes(canonical_bytes(payload))
            judge_end, subject_end = socket.socketpair()
            verdict_r, verdict_w = os.pipe()
            judge_r, judge_w = os.pipe()
            subject_r, subject_w = os.pipe()
            started = time.monotonic()
            try:
                subject.fork({}, [subject_end.fileno(), subject_w])
                judge.fork({"fixture": self.sandbox.scratch_path(inbox, name)},
                           [judge_end.fileno(), verdict_w, judge_w])
            except OSError:
                for fd in (verdict_r, judge_r, subject_r):
                    os.close(fd)
                self._end_warm_pair()
                return None
            finally:
                for end in (judge_end, subject_end):
                    end.close()
                for fd in (verdict_w, judge_w, subject_w):
                    os.close(fd)
            deadline = started + self.timeout_seconds + 1
            out, fault = read_until_closed({"verdict": verdict_r, "judge": judge_r, "subject": subject_r}, deadline,
                                           self.limits.output_bytes, until=("verdict", "judge"))
            code = None if fault else judge.exit_code(deadline)
            (inbox / name).unlink(missing_ok=True)
            seconds = time.monotonic() - started
            if code is None:  # a child that overran or went silent: the pair goes, the next candidate starts anew
                self._end_warm_pair()
            judge_done = Finished(out["verdict"], out["judge"], fault or (None if code is not None else "no_verdict"),
                                  code if code is not None else 3, seconds)
            return verdict_of_judge(judge_done, Finished(b"", out["subject"], None, 0, seconds), "split-warm")

    def _start_warm_pair(self):
        views = self._views()
        inbox, empty = self.sandbox.make_scratch(), self.sandbox.make_scratch()  # the fixtures are the judge's only
        limits = replace(self.limits, cpu_seconds=math.ceil(self.timeout_seconds) + 1)
        judge_env, subject_env, mounts = self._side_settings(views, inbox)
        subject_env["WITNESS_WARM_IMPORTS"] = ",".join(sorted(self._imports))
        judge_env["WITNESS_WARM_IMPORTS"] = ",".join(sorted(self._standard))
        for tree in (views.judge, views.subject, stage_root() / "gate", inbox,
                     *(m.source for m in mounts + self._judge_mounts())):
            settle(tree)

        def side(which: str, repo: Path, scratch: Path, env: dict, mounts: tuple):
            return lambda fd: self.sandbox.launch([*self._side(which), "--warm"], repo=repo, scratch=scratch,
                                                  env={**env, "WITNESS_CONTROL": str(fd)}, limits=limits,
                                                  mounts=mounts, pass_fds=(fd,), quiet=True)
        started = []
        try:
            started.append(ForkServer(side("subject", views.subject, empty, subject_env, mounts)))
            started.append(ForkServer(side("judge", views.judge, inbox, judge_env, self._judge_mounts())))
        except Exception:  # noqa: BLE001 - whatever stopped a warm start, the evaluations run cold
            for server in started:
                server.close()
            for folder in (inbox, empty):
                shutil.rmtree(folder, ignore_errors=True)
            return None
        self._warm_pair = (started[1], started[0], inbox, empty)
        return self._warm_pair

    def _end_warm_pair(self) -> None:
        if self._warm_pair is not None:
            judge, subject, *folders = self._warm_pair
            self._warm_pair = None
            judge.close()
            subject.close()
            for folder in folders:
                shutil.rmtree(folder, ignore_errors=True)

    def _side_settings(self, views: Views, inbox: Path) -> tuple[dict, dict, tuple[Mount, ...]]:
        """(the judge's environment, the subject's, the subject's mounts) of every evaluation of this property."""
        base = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "PYTHONHASHSEED": hash_seed(self.seed),
                "PYTHONBREAKPOINT": "0", "WITNESS_SEED": self.seed}
        mounts = self._mounts()
        subject_env = dict(base)
        if mounts:
            seen = self.sandbox.seen(mounts[0])
            subject_env.update(WITNESS_ENV=seen, PATH=f"{seen}/bin:{base['PATH']}")
        judge_env = {**base, "WITNESS_PROPERTY": self.selector, "WITNESS_SUBJECT_MODULES": ",".join(views.modules),
                     "WITNESS_NEW_MODULES": ",".join(self.new_modules), "WITNESS_TIMEOUT": str(self.timeout_seconds)}
        if self.judge_environment is not None:
            judge_env["WITNESS_ENV"] = self.sandbox.seen(self._judge_mounts()[0])
        return judge_env, subject_env, mounts

    def _side(self, which: str) -> list[str]:
        return [self.sandbox.python, "-P", "-s", "-B", self.sandbox.gate_file(f"sandbox/{which}/main.py")]

    def _mounts(self) -> tuple[Mount, ...]:
        """The set-up's environment, read-only at /env, when there is one."""
        return (Mount(self.environment, ENV_MOUNT),) if self.environment is not None else ()

    def _judge_mounts(self) -> tuple[Mount, ...]:
        """The trusted set-up's environment, read-only at /env in the judge, when there is one."""
        return (Mount(self.judge_environment, ENV_MOUNT),) if self.judge_environment is not None else ()

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
        limits = replace(self.limits, cpu_seconds=math.ceil(self.timeout_seconds) + 1)
        done = self.sandbox.run(list(self.command), repo=self.repo, scratch=scratch, env=env, mounts=mounts,
                                limits=limits, timeout=self.timeout_seconds)
        row = verdict_of_process(done)
        return Evaluation(row.outcome, row.reason, row.detail, row.seconds, "shared")
