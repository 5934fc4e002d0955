"""One run of the set-up step in the sandbox: where it may write, its only way out (the egress proxy),
and the environment it leaves, streamed out of a capped tmpfs and unpacked strictly by the gate."""

from __future__ import annotations

import math
import os
import shutil
import stat
import tempfile
from collections import Counter
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Protocol

from witness_gate.sandbox import ENV_MOUNT, Limits, Mount, Sandbox, stage_root
from witness_gate.setup import keep
from witness_gate.setup.egress import HOSTS_ENV, EgressProxy, Upstream, upstream_proxy

SOCKET_MOUNT = "/run/witness/egress.sock"
CA_BUNDLES = ("/etc/ssl/certs/ca-certificates.crt", "/etc/pki/tls/certs/ca-bundle.crt")
LOG_TAIL = 4000
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


class Step(Protocol):
    timeout_seconds: float

    def argv(self, python: str, env_seen: str) -> list[str]: ...


@dataclass
class _Writes:
    """Where the set-up writes its environment, as the sandbox sees it, and how it reaches the host."""

    mounts: list[Mount]
    env_seen: str
    receiver: keep.Receiver | None  # bubblewrap: the shim streams a tar of the tmpfs on this pipe
    shim_args: list[str]


def build(step: Step, checkout: Path, target: Path, sandbox: Sandbox,
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
    writes = _writes(sandbox, target, socket_mount)
    env = _environment(writes)
    shim = [sandbox.python, "-P", "-s", "-B", sandbox.gate_file("setup/netshim.py"), *writes.shim_args]
    argv = [*shim, sandbox.seen(socket_mount), "--", *step.argv(sandbox.python, writes.env_seen)]
    limits = replace(SETUP_LIMITS, cpu_seconds=math.ceil(step.timeout_seconds) + 1)
    receiver = writes.receiver
    try:
        with EgressProxy(proxy_socket, hosts, owner=identity.uid, upstream=upstream) as proxy:
            done = sandbox.run(argv, repo=checkout, scratch=scratch, env=env, mounts=tuple(writes.mounts),
                               limits=limits, timeout=step.timeout_seconds,
                               pass_fds=(receiver.write_fd,) if receiver else (), evaluation=False)
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
    _keep(done, log, receiver, target)
    # unpacked by the gate itself, every entry is new and the gate's: seal them all
    _seal(target, None if receiver is not None else identity.uid)
    return log, dict(sorted(reached.items()))


def _writes(sandbox: Sandbox, target: Path, socket_mount: Mount) -> _Writes:
    if sandbox.mode == "bwrap":  # a capped tmpfs, streamed out by the shim when done: no host folder is writable
        receiver = keep.Receiver(target.parent / f"{target.name}.tar.part", SETUP_LIMITS.space_bytes)
        return _Writes([Mount(None, ENV_MOUNT, writable=True, size=SETUP_LIMITS.space_bytes), socket_mount],
                       ENV_MOUNT, receiver, ["--tar-to-fd", str(receiver.write_fd)])
    return _Writes([Mount(target, ENV_MOUNT, writable=True), socket_mount], str(target), None, [])


def _environment(writes: _Writes) -> dict[str, str]:
    seen = writes.env_seen
    env = {"PATH": f"{seen}/bin:/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "WITNESS_ENV": seen,
           "PYTHONPATH": seen, "PIP_NO_CACHE_DIR": "1"}
    bundle = next((b for b in CA_BUNDLES if os.path.exists(b)), None)
    if bundle:  # public CA certificates (their folder only, not /etc/ssl/private), so TLS to the index verifies
        writes.mounts.append(Mount(Path(bundle).parent, str(Path(bundle).parent)))
        env.update(SSL_CERT_FILE=bundle, PIP_CERT=bundle, REQUESTS_CA_BUNDLE=bundle, NODE_EXTRA_CA_CERTS=bundle)
    return env


def _keep(done, log: str, receiver: keep.Receiver | None, target: Path) -> None:
    """A finished step's environment is unpacked into `target`; anything else removes it and fails."""
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
