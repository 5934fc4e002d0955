"""The set-up phase: build a per-head environment (e.g. the target's dependencies) before any evaluation.

Phase one runs the `.witness.yml` set-up (from the base branch) in the same sandbox as the
properties, with two differences: the environment directory is writable, and the only way out is
the host's egress proxy, which reaches the package index and nothing else. No secret is ever in
its environment. Phase two — every evaluation — sees that directory read-only at /env and has no
network at all. A head's environment is built once and reused by every property and replay.
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from witness_gate.config.schema import Config
from witness_gate.model.canonical import canonical_bytes, sha256_hex
from witness_gate.records.files import CACHE_ENV, cache_root, unsafe_cache, write_json_atomic
from witness_gate.sandbox import Sandbox
from witness_gate.setup.egress import index_hosts
from witness_gate.setup.sandboxed import LOG_TAIL, SETUP_LIMITS, SetupFailed, build

__all__ = ["SETUP_LIMITS", "Environment", "SetupFailed", "SetupOutcome", "SetupStep", "prepare", "set_up"]

KEEP_SECONDS = 24 * 3600  # unused environments older than this are removed when a new one is built


@dataclass(frozen=True)
class SetupStep:
    """What to run, as written in `.witness.yml`; None from `of` when there is no set-up."""

    requirements: str | None
    command: tuple[str, ...] | None
    timeout_seconds: float

    @classmethod
    def of(cls, config: Config) -> "SetupStep | None":
        if not config.setup_requirements and not config.setup_command:
            return None
        return cls(config.setup_requirements, config.setup_command, config.setup_timeout_seconds)

    def argv(self, python: str, env_seen: str) -> list[str]:
        if self.command:
            return list(self.command)
        return [python, "-P", "-s", "-m", "pip", "install", "--no-input", "--disable-pip-version-check",
                "--no-warn-script-location", "--target", env_seen, "-r", str(self.requirements)]

    def describe(self) -> str:
        return " ".join(self.command) if self.command else f"pip install -r {self.requirements}"


@dataclass(frozen=True)
class Environment:
    """A finished set-up: the directory evaluations see read-only, and how it came to be."""

    path: Path
    key: str
    seconds: float
    reused: bool
    log: str
    reached: dict[str, int]  # host:port -> tunnels the set-up opened through the egress proxy

    def as_record(self) -> dict:
        return {"key": self.key, "seconds": round(self.seconds, 3), "reused": self.reused, "reached": self.reached}


@dataclass(frozen=True)
class SetupOutcome:
    """What the set-up phase means for the evaluations: an environment, or holds and why."""

    environment: Environment | None = None
    holds: tuple[str, ...] = ()
    note: str = ""
    record: dict | None = None  # what the attempt record keeps of it: the environment, or how it failed


def set_up(config: Config, *, checkout: Path, patch_digest: str, sandbox: Sandbox, cache: Path,
           say: Callable[[str], None] = lambda _text: None) -> SetupOutcome:
    """Run the head's set-up if `.witness.yml` has one; a failure holds every property with `setup_failed`."""
    step = SetupStep.of(config)
    if step is None:
        return SetupOutcome()
    say(f"set-up: {step.describe()} (once per head, up to {step.timeout_seconds:g} s)")
    try:
        env = prepare(step, checkout=checkout, patch_digest=patch_digest, sandbox=sandbox, cache=cache)
    except SetupFailed as exc:
        return SetupOutcome(None, ("setup_failed",), exc.note(),
                            {"step": step.describe(), "failed": exc.kind, "output": exc.detail[-LOG_TAIL:]})
    how = "reused" if env.reused else f"built in {env.seconds:.1f} s"
    reached = ", ".join(f"{where} x{n}" for where, n in env.reached.items()) or "no network"
    return SetupOutcome(env, (), f"set-up: {step.describe()} ({how}, environment {env.key[:12]}; reached {reached})",
                        {"step": step.describe(), **env.as_record()})


def environment_key(step: SetupStep, patch_digest: str, sandbox: Sandbox, hosts: tuple[str, ...]) -> str:
    """Everything that could change what the set-up installs: the code, the step, the interpreter, the index."""
    return sha256_hex(canonical_bytes({
        "patch_digest": patch_digest, "requirements": step.requirements, "command": list(step.command or ()),
        "python": sandbox.python, "mode": sandbox.mode, "hosts": list(hosts),
    }))


def default_cache() -> Path:
    return cache_root() / "witness-envs"


def prepare(step: SetupStep, *, checkout: Path, patch_digest: str, sandbox: Sandbox, cache: Path,
            hosts: tuple[str, ...] | None = None) -> Environment:
    """The head's environment: reused when built before, else built now (one builder at a time)."""
    hosts = index_hosts() if hosts is None else hosts
    key = environment_key(step, patch_digest, sandbox, hosts)
    cache.mkdir(mode=0o755, parents=True, exist_ok=True)  # never group-writable, whatever the umask
    _check_private(cache, sandbox)
    target, marker = cache / key, cache / f"{key}.json"
    with open(cache / f"{key}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # a second worker on this host waits for the first build
        if marker.exists() and target.is_dir():
            os.utime(marker)
            done = json.loads(marker.read_text(encoding="utf-8"))
            return Environment(target, key, done["seconds"], True, done.get("log", ""), done.get("reached", {}))
        shutil.rmtree(target, ignore_errors=True)
        _prune(cache, current=key)
        started = time.monotonic()
        log, reached = build(step, checkout, target, sandbox, hosts)
        seconds = time.monotonic() - started
        write_json_atomic(marker, {"key": key, "seconds": seconds, "log": log[-LOG_TAIL:],
                                   "step": step.describe(), "reached": reached})
        return Environment(target, key, seconds, False, log, reached)


def _check_private(cache: Path, sandbox: Sandbox) -> None:
    """Nobody else may plant an environment under a key they can predict; the sandbox uid must reach it."""
    problem = unsafe_cache(cache)
    if problem:
        raise SetupFailed("cache", problem)
    if cache.stat().st_mode & 0o005 != 0o005:
        cache.chmod(0o755)  # the sandbox uid reads its own environment's bind source
    if sandbox.identity.uid is not None:
        closed = [str(p) for p in cache.resolve().parents if not p.stat().st_mode & 0o001]
        if closed:
            raise SetupFailed("cache", f"the sandbox uid cannot pass through {closed[0]} to reach {cache}; "
                                       f"point {CACHE_ENV} at a directory under one it can, such as /var/cache")


def _prune(cache: Path, current: str) -> None:
    """Remove environments, built or failed, that nobody used for KEEP_SECONDS.

    Every attempt leaves a lock file; a built environment also has a marker, touched at each use.
    """
    now = time.time()
    for lock_path in cache.glob("*.lock"):
        key = lock_path.stem
        if key == current:
            continue
        marker = cache / f"{key}.json"
        try:
            last_use = (marker if marker.exists() else lock_path).stat().st_mtime
        except FileNotFoundError:
            continue
        if now - last_use < KEEP_SECONDS:
            continue
        with open(lock_path, "a") as lock:  # "a": opening must not look like a use
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                continue  # somebody is using it right now
            marker.unlink(missing_ok=True)
            shutil.rmtree(cache / key, ignore_errors=True)
            lock_path.unlink(missing_ok=True)
