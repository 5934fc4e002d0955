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
import math
import os
import shutil
import stat
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from witness_gate import keep
from witness_gate.canonical import canonical_bytes, sha256_hex
from witness_gate.config import Config
from witness_gate.egress import HOSTS_ENV, EgressProxy, Upstream, index_hosts, upstream_proxy
from witness_gate.files import CACHE_ENV, cache_root, unsafe_cache, write_json_atomic
from witness_gate.sandbox import ENV_MOUNT, Limits, Mount, Sandbox, stage_root

SOCKET_MOUNT = "/run/witness/egress.sock"
CA_BUNDLES = ("/etc/ssl/certs/ca-certificates.crt", "/etc/pki/tls/certs/ca-bundle.crt")
LOG_TAIL = 4000
KEEP_SECONDS = 24 * 3600  # unused environments older than this are removed when a new one is built
SETUP_LIMITS = Limits(memory_bytes=4 * 1024**3, file_bytes=1024**3, open_files=1024, processes=64,
                      output_bytes=4 * 1024**2, space_bytes=4 * 1024**3)  # room to unpack a large wheel in /tmp


class SetupFailed(Exception):
    """The set-up did not finish: `kind` is short (exit:2, timeout, …); `detail` is what it printed."""

    def __init__(self, kind: str, detail: str) -> None:
        self.kind = kind
        self.detail = detail
        super().__init__(f"setup_failed: {kind}")

    def note(self) -> str:
        said = f"setup_failed: the set-up step of .witness.yml ended with {self.kind}; no property ran. {self.hint()}"
        tail = "\n".join(self.detail.strip().splitlines()[-12:])
        return f"{said} Its output ended with:\n{tail}" if tail else said

    def hint(self) -> str:
        """What to do next, by how it ended."""
        if self.kind == "timeout":
            return "It ran past setup.timeout_seconds: raise that on the base branch, or make the set-up faster."
        if self.kind == "output_limit":
            return f"It printed more than {SETUP_LIMITS.output_bytes // 1024**2} MiB: make it quieter (pip -q)."
        if "is not a package index the set-up may reach" in self.detail:
            return f"It asked for a host the egress proxy refuses; the operator's {HOSTS_ENV} decides which it may reach."
        if self.kind in ("cache", "proxy", "sandbox"):
            return "The worker's set-up is at fault, not the pull request: tell its operator."
        return "Fix the set-up or what it installs, then replay."


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
        log, reached = _build(step, checkout, target, sandbox, hosts)
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


def _build(step: SetupStep, checkout: Path, target: Path, sandbox: Sandbox,
           hosts: tuple[str, ...]) -> tuple[str, dict[str, int]]:
    """Run the step; (its output, where it reached) on success, else SetupFailed."""
    upstream = _upstream()
    target.mkdir()
    identity = sandbox.identity
    if identity.uid is not None and sandbox.mode != "bwrap":  # without bubblewrap the set-up writes it itself
        os.chown(target, identity.uid, identity.gid)
    scratch = sandbox.make_scratch()
    sockets = Path(tempfile.mkdtemp(prefix="egress-", dir=stage_root()))
    sockets.chmod(0o711)
    proxy_socket = sockets / "egress.sock"
    socket_mount = Mount(proxy_socket, SOCKET_MOUNT)
    shim = [sandbox.python, "-P", "-s", "-B", sandbox.gate_file("netshim.py")]
    receiver = None
    if sandbox.mode == "bwrap":  # a capped tmpfs, streamed out by the shim when done: no host folder is writable
        receiver = keep.Receiver(target.parent / f"{target.name}.tar.part", SETUP_LIMITS.space_bytes)
        mounts = [Mount(None, ENV_MOUNT, writable=True, size=SETUP_LIMITS.space_bytes), socket_mount]
        shim += ["--tar-to-fd", str(receiver.write_fd)]
        env_seen = ENV_MOUNT
    else:
        mounts, env_seen = [Mount(target, ENV_MOUNT, writable=True), socket_mount], str(target)
    env = {"PATH": f"{env_seen}/bin:/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "WITNESS_ENV": env_seen,
           "PYTHONPATH": env_seen, "PIP_NO_CACHE_DIR": "1"}
    bundle = next((b for b in CA_BUNDLES if os.path.exists(b)), None)
    if bundle:  # public CA certificates (their folder only, not /etc/ssl/private), so TLS to the index verifies
        mounts.append(Mount(Path(bundle).parent, str(Path(bundle).parent)))
        env.update(SSL_CERT_FILE=bundle, PIP_CERT=bundle, REQUESTS_CA_BUNDLE=bundle, NODE_EXTRA_CA_CERTS=bundle)
    argv = [*shim, sandbox.seen(socket_mount), "--", *step.argv(sandbox.python, env_seen)]
    limits = replace(SETUP_LIMITS, cpu_seconds=math.ceil(step.timeout_seconds) + 1)
    try:
        with EgressProxy(proxy_socket, hosts, owner=identity.uid, upstream=upstream) as proxy:
            done = sandbox.run(argv, repo=checkout, scratch=scratch, env=env, mounts=tuple(mounts), limits=limits,
                               timeout=step.timeout_seconds,
                               pass_fds=(receiver.write_fd,) if receiver else ())
            refused = [line for line in proxy.log if line.startswith("refused")]
            reached = dict(Counter(line.split(" ", 1)[1] for line in proxy.log if line.startswith("tunnel ")))
    finally:
        if receiver is not None:
            receiver.finish()
        shutil.rmtree(scratch, ignore_errors=True)
        shutil.rmtree(sockets, ignore_errors=True)
    log = (done.stdout + done.stderr).decode("utf-8", errors="replace")
    if refused:
        log += "\nwitness-gate egress proxy:\n" + "\n".join(refused[:20])
    try:
        if receiver is not None and receiver.over:
            raise SetupFailed("env_too_large", f"{log[-LOG_TAIL // 2:]}\nthe environment is larger than "
                                               f"{SETUP_LIMITS.space_bytes // 1024**2} MiB")
        if done.fault or done.code != 0:
            kind = done.fault or (f"signal:{-done.code}" if done.code < 0 else f"exit:{done.code}")
            raise SetupFailed(kind, log[-LOG_TAIL:])
        if receiver is not None:
            try:
                keep.unpack(receiver.into, target)
            except keep.KeepRefused as exc:
                raise SetupFailed("environment", f"{log[-LOG_TAIL // 2:]}\n{exc}") from None
    except SetupFailed:
        shutil.rmtree(target, ignore_errors=True)
        raise
    finally:
        if receiver is not None:
            receiver.into.unlink(missing_ok=True)
    # unpacked by the gate itself, every entry is new and the gate's: seal them all
    _seal(target, None if receiver is not None else identity.uid)
    return log, dict(sorted(reached.items()))


def _upstream() -> Upstream | None:
    try:
        return upstream_proxy()
    except ValueError as exc:
        raise SetupFailed("proxy", str(exc)) from None


def _seal(target: Path, uid: int | None) -> None:
    """Give the environment to root, read-only for the sandbox uid, before any evaluation runs on it.

    Only what the set-up itself created is touched: a hard link it made to some other file keeps
    that file's owner and mode.
    """
    for dirpath, dirnames, filenames in os.walk(target):
        if uid is not None:
            os.chown(dirpath, 0, 0)
        os.chmod(dirpath, 0o755)
        for name in (*dirnames, *filenames):
            path = os.path.join(dirpath, name)
            st = os.lstat(path)
            if uid is not None and st.st_uid != uid:
                continue
            if uid is not None:
                os.lchown(path, 0, 0)
            if stat.S_ISREG(st.st_mode):
                os.chmod(path, 0o755 if st.st_mode & 0o111 else 0o644)


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
