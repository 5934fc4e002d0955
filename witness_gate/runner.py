"""The runner protocol, host side: one evaluation in a fresh sandboxed process, one verdict or a transport fault."""

from __future__ import annotations

import hashlib
import json
import math
import os
import secrets
import selectors
import shutil
import signal
import subprocess
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from witness_gate.canonical import canonical_bytes
from witness_gate.sandbox import ENV_MOUNT, VERDICT_MOUNT, Limits, Mount, Sandbox, end_leftovers

MAX_REASON = 200
DETAIL_CHARS = 2000


@dataclass(frozen=True)
class Evaluation:
    """One evaluation: outcome "pass", "fail" or "transport"; reason is the code or the fault kind."""

    outcome: str
    reason: str | None = None
    detail: str = ""  # the tail of stderr, or what went wrong: for people, never for decisions
    seconds: float = 0.0

    @property
    def failure_reason(self) -> str | None:
        """What the shrinker compares: the reason of a failure, or None for anything else."""
        return self.reason if self.outcome == "fail" else None

    def as_row(self) -> dict:
        return {"outcome": self.outcome, "reason": self.reason, "seconds": round(self.seconds, 4)}


def hash_seed(seed: str) -> str:
    """PYTHONHASHSEED derived from the pinned seed, so set and dict orders repeat too."""
    return str(int(hashlib.sha256(seed.encode("utf-8")).hexdigest(), 16) % 4294967295 + 1)


@dataclass
class PropertyRunner:
    """Evaluates one property of one checkout; each call is a fresh process, no cache."""

    repo: Path
    selector: str  # <relpath>::<function>
    seed: str
    sandbox: Sandbox
    timeout_seconds: float = 60
    command: tuple[str, ...] | None = None  # None: the Python harness
    limits: Limits = field(default_factory=Limits)
    environment: Path | None = None  # what the set-up phase installed for this head, seen read-only

    def __call__(self, payload: Any) -> Evaluation:
        return self.evaluate(payload)

    def evaluate(self, payload: Any) -> Evaluation:
        scratch, box = self.sandbox.make_scratch(), self.sandbox.make_verdict_box()
        try:
            return self._evaluate_in(scratch, box, payload)
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
            shutil.rmtree(box, ignore_errors=True)

    def _evaluate_in(self, scratch: Path, box: Path, payload: Any) -> Evaluation:
        (scratch / "fixture.json").write_bytes(canonical_bytes(payload))
        env = {
            "PATH": "/usr/local/bin:/usr/bin:/bin",
            "LANG": "C.UTF-8",
            "PYTHONHASHSEED": hash_seed(self.seed),
            "PYTHONDONTWRITEBYTECODE": "1",
            "WITNESS_PROPERTY": self.selector,
            "WITNESS_FIXTURE": self.sandbox.scratch_path(scratch, "fixture.json"),
            "WITNESS_SEED": self.seed,
        }
        mounts: tuple[Mount, ...] = ()
        if self.environment is not None:
            mounts = (Mount(self.environment, ENV_MOUNT),)
            seen = self.sandbox.seen(mounts[0])
            env.update(WITNESS_ENV=seen, PATH=f"{seen}/bin:{env['PATH']}")
            # the harness puts it on sys.path itself, once its verdict path is hidden: on PYTHONPATH a
            # sitecustomize.py from the set-up would run before the harness and could write the verdict
            if self.command is not None:
                env["PYTHONPATH"] = seen
        if self.command is None:
            verdict_name = f"{secrets.token_hex(16)}.json"  # not a fixed path the code under test could write
            argv = [self.sandbox.python, "-B", "-m", "witness_gate.harness"]
            mounts += (Mount(box, VERDICT_MOUNT, writable=True),)
            env["WITNESS_RESULT"] = f"{self.sandbox.seen(mounts[-1])}/{verdict_name}"
        else:
            argv = list(self.command)
        limits = replace(self.limits, cpu_seconds=math.ceil(self.timeout_seconds) + 1)
        argv, env, cwd = self.sandbox.wrap(argv, repo=self.repo, scratch=scratch, env=env, mounts=mounts,
                                           limits=limits)
        started = time.monotonic()
        try:
            proc = subprocess.Popen(
                argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                stderr=subprocess.PIPE, start_new_session=True, preexec_fn=self.sandbox.preexec(limits),
            )
        except OSError as exc:
            return Evaluation("transport", "start", f"could not start {argv[0]}: {exc.strerror}")
        stdout, stderr, fault = collect(proc, started + self.timeout_seconds, limits.output_bytes)
        seconds = time.monotonic() - started
        detail = stderr.decode("utf-8", errors="replace")[-DETAIL_CHARS:]
        if fault:
            return Evaluation("transport", fault, detail, seconds)
        code = proc.returncode
        if self.sandbox.mode == "bwrap" and code == 1 and detail.startswith("bwrap: "):
            return Evaluation("transport", "sandbox", detail, seconds)  # the sandbox itself failed
        if self.sandbox.mode == "bwrap" and code > 128:
            code = 128 - code  # bubblewrap reports its child's death by signal N as exit 128+N
        if code < 0:
            return Evaluation("transport", f"signal:{_signal_name(-code)}", detail, seconds)
        if self.command is None:
            return _harness_verdict(code, box / verdict_name, stdout, detail, seconds)
        return _protocol_verdict(code, stdout, detail, seconds)


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return str(number)


def _protocol_verdict(code: int, stdout: bytes, detail: str, seconds: float) -> Evaluation:
    if code == 0:
        return Evaluation("pass", None, detail, seconds)
    if code == 1:
        lines = [ln.strip() for ln in stdout.decode("utf-8", errors="replace").splitlines() if ln.strip()]
        reason = lines[-1] if lines and len(lines[-1]) <= MAX_REASON else "exit:1"
        return Evaluation("fail", reason, detail, seconds)
    return Evaluation("transport", f"exit:{code}", detail, seconds)


def _harness_verdict(code: int, result: Path, stdout: bytes, detail: str, seconds: float) -> Evaluation:
    """The harness's exit code must agree with the verdict it wrote, or there is no verdict."""
    try:
        verdict = json.loads(result.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        kind = "no_verdict" if code in (0, 1) else f"exit:{code}"
        return Evaluation("transport", kind, detail or "the property exited before the harness wrote a verdict", seconds)
    outcome = verdict.get("outcome")
    if outcome == "no_verdict":
        return Evaluation("transport", verdict.get("kind", "no_verdict"), verdict.get("detail", detail), seconds)
    if outcome == "pass" and code == 0:
        return Evaluation("pass", None, detail, seconds)
    if outcome == "fail" and code == 1 and isinstance(verdict.get("reason"), str):
        return Evaluation("fail", verdict["reason"], detail, seconds)
    return Evaluation("transport", "no_verdict", f"exit {code} disagrees with the verdict {outcome!r}", seconds)


def collect(proc: subprocess.Popen, deadline: float, cap: int) -> tuple[bytes, bytes, str | None]:
    """Read both pipes until exit; kill the process group at the deadline or past the cap."""
    buffers = {proc.stdout: bytearray(), proc.stderr: bytearray()}
    fault = None
    with selectors.DefaultSelector() as selector:
        for stream in buffers:
            selector.register(stream, selectors.EVENT_READ)
        while selector.get_map():
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                fault = "timeout"
                break
            for key, _ in selector.select(timeout=min(remaining, 0.5)):
                chunk = os.read(key.fileobj.fileno(), 65536)
                if not chunk:
                    selector.unregister(key.fileobj)
                    continue
                buffers[key.fileobj] += chunk
                if len(buffers[key.fileobj]) > cap:
                    fault = "output_limit"
            if fault:
                break
            if proc.poll() is not None and not selector.select(timeout=0):
                break  # exited; a leftover child holding the pipes is killed below
    if fault:
        _kill_group(proc)
    else:
        try:
            proc.wait(timeout=max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            fault = "timeout"
            _kill_group(proc)
    _kill_group(proc)  # nothing the evaluation started outlives it
    proc.stdout.close()
    proc.stderr.close()
    proc.wait()
    end_leftovers()  # orphans that left the group came to us as their subreaper
    return bytes(buffers[proc.stdout]), bytes(buffers[proc.stderr]), fault


def _kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
