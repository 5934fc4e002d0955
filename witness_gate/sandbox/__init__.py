"""Where an evaluation runs: bubblewrap as a dedicated non-root uid, else a plain subprocess with limits.

Everything the sandboxed process may see is staged where that uid can read it: a copy of the
harness (the files of this package named in HARNESS_FILES, never the bot's checkout), the checkout itself, and a
fresh scratch directory per evaluation that only it can write.
"""

from __future__ import annotations

import functools
import os
import resource
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from witness_gate.sandbox import seccomp
from witness_gate.sandbox.processes import Finished, become_subreaper, end_leftovers, spawn, start_and_collect
from witness_gate.sandbox.staging import (
    DEFAULT_SANDBOX_UID,
    HARNESS_FILES,
    SETTLED_NS,
    WORKER_UID_BASE,
    WORKER_UID_SPAN,
    Identity,
    SandboxUnavailable,
    make_readable,
    settle,
    stage_directory,
    stage_root,
    subject_uid,
    worker_uid,
)

__all__ = [  # the sandbox's public names, as before the staging moved out
    "DEFAULT_SANDBOX_UID", "ENV_MOUNT", "GATE_MOUNT", "HARNESS_FILES", "INPUT_MOUNT", "JUDGE_SITE_MOUNT", "Identity",
    "Limits", "MODES", "Mount", "REPO_MOUNT", "SCRATCH_MOUNT", "SETTLED_NS", "Sandbox", "SandboxUnavailable",
    "WORKER_UID_BASE", "WORKER_UID_SPAN", "bwrap_works", "choose", "make_readable", "settle", "stage_directory",
    "stage_root", "worker_uid",
]

MODES = ("auto", "bwrap", "none")
REPO_MOUNT = "/repo"
SCRATCH_MOUNT = "/scratch"  # HOME: a size-capped tmpfs of its own, like /tmp
INPUT_MOUNT = "/input"  # what the gate hands in (the fixture), read-only
GATE_MOUNT = "/opt/witness-gate"
ENV_MOUNT = "/env"  # the per-head environment the set-up phase built
# the gate's own pytest and Hypothesis, in a judge that runs tests: named as installed packages are, so Hypothesis
# does not read them as the repository's code (it parses that for constants to try)
JUDGE_SITE_MOUNT = "/opt/witness-judge/site-packages"
# host-wide counters in /proc that move with every process (forks, keys of the uid, interrupts, memory):
# read before and after, they tell one evaluation from the next, so each evaluation sees them empty
MASKED_PROC_FILES = ("stat", "vmstat", "key-users", "keys", "loadavg", "interrupts", "softirqs", "schedstat",
                     "meminfo", "diskstats", "zoneinfo", "buddyinfo", "slabinfo", "pagetypeinfo", "locks",
                     "sched_debug", "timer_list", "swaps", "uptime", "partitions", "vmallocinfo")
MASKED_PROC_DIRS = ("pressure", "sys/fs", "sys/kernel/random", "sys/kernel/keys", "sysvipc", "fs", "tty", "irq")
@dataclass(frozen=True)
class Mount:
    """A host path the sandboxed process sees at `target` (read-only unless `writable`)."""

    source: Path | None  # None: a fresh tmpfs of `size` bytes
    target: str
    writable: bool = False
    size: int = 0


@dataclass(frozen=True)
class Limits:
    cpu_seconds: int = 60
    memory_bytes: int = 2 * 1024**3
    file_bytes: int = 64 * 1024**2
    open_files: int = 256
    # per sandbox uid, counted over every sandbox of that uid at once (each evaluation is two; a warm pair, replays at
    # once and an App worker's jobs add theirs); enforced only when the gate runs as root and drops to it
    processes: int = 256
    output_bytes: int = 1024**2  # per stream; more is a transport fault
    space_bytes: int = 256 * 1024**2  # each of /tmp and /scratch, memory-backed: many files cannot fill a disk


@dataclass(frozen=True)
class Sandbox:
    """How to wrap one evaluation's argv; `mode` is "bwrap" or "none"."""

    mode: str
    identity: Identity = field(default_factory=Identity.from_environment)

    @property
    def python(self) -> str:
        return self.identity.python

    def make_scratch(self) -> Path:
        """A fresh directory only the sandboxed process can write."""
        become_subreaper()
        scratch = Path(tempfile.mkdtemp(prefix="eval-", dir=stage_root()))
        if self.identity.uid is not None:
            os.chown(scratch, self.identity.uid, self.identity.gid)
        return scratch

    def gate_file(self, name: str) -> str:
        """Where the sandboxed process finds one of the HARNESS_FILES."""
        gate = GATE_MOUNT if self.mode == "bwrap" else str(stage_root() / "gate")
        return f"{gate}/witness_gate/{name}"

    def run(self, argv: list[str], *, repo: Path, scratch: Path, env: dict[str, str], limits: Limits,
            timeout: float, mounts: tuple[Mount, ...] = (), stdin: bytes = b"",
            pass_fds: tuple[int, ...] = (), evaluation: bool = True) -> Finished:
        """One process in the sandbox, as `wrap` builds it; bubblewrap's own failure is the fault "sandbox". Not an
        `evaluation` (a set-up): the filter lets it lock files."""
        filter_fd = None
        program = seccomp.program(evaluation=evaluation) if self.mode == "bwrap" else None
        if program is not None:
            filter_fd = seccomp.pipe_of(program)
        try:
            argv, env, cwd = self.wrap(argv, repo=repo, scratch=scratch, env=env, mounts=mounts, limits=limits,
                                       seccomp_fd=filter_fd)
            done = start_and_collect(argv, env=env, cwd=cwd, preexec=self.preexec(limits), timeout=timeout,
                                     output_bytes=limits.output_bytes, stdin=stdin,
                                     pass_fds=pass_fds + ((filter_fd,) if filter_fd is not None else ()))
        finally:
            if filter_fd is not None:
                os.close(filter_fd)
        return self.ended(done)

    def ended(self, done: Finished) -> Finished:
        """How the sandboxed process ended, read through bubblewrap: its own failure is the fault "sandbox"."""
        if self.mode != "bwrap" or done.fault:
            return done
        if done.code == 1 and done.stderr.startswith(b"bwrap: "):
            return Finished(done.stdout, done.stderr, "sandbox", done.code, done.seconds)
        if done.code > 128:  # bubblewrap reports its child's death by signal N as exit 128+N
            return Finished(done.stdout, done.stderr, None, 128 - done.code, done.seconds)
        return done

    def launch(self, argv: list[str], *, repo: Path, scratch: Path, env: dict[str, str], limits: Limits,
               mounts: tuple[Mount, ...] = (), pass_fds: tuple[int, ...] = (), quiet: bool = False,
               own_uid: bool = False) -> subprocess.Popen:
        """One side of an evaluation (judge or subject), started and left running: the caller collects it (`quiet`:
        a warm parent, whose own output is read and dropped; `own_uid`: a cold subject, as a uid drawn for it alone
        when the gate has uids to give)."""
        program = seccomp.program() if self.mode == "bwrap" else None
        filter_fd = seccomp.pipe_of(program) if program is not None else None
        try:
            argv, env, cwd = self.wrap(argv, repo=repo, scratch=scratch, env=env, mounts=mounts, limits=limits,
                                       seccomp_fd=filter_fd)
            uid = subject_uid() if own_uid and self.identity.uid is not None else None
            return spawn(argv, cwd=cwd, env=env, preexec=self.preexec(limits, uid), quiet=quiet,
                         pass_fds=pass_fds + ((filter_fd,) if filter_fd is not None else ()))
        finally:
            if filter_fd is not None:
                os.close(filter_fd)

    def wrap(self, argv: list[str], *, repo: Path, scratch: Path, env: dict[str, str],
             mounts: tuple[Mount, ...] = (), limits: Limits | None = None,
             seccomp_fd: int | None = None) -> tuple[list[str], dict[str, str], str]:
        """(argv, environment, working directory) for the process to start.

        `scratch` holds what the gate hands in; under bubblewrap it is read-only at /input, and the
        process writes only to /tmp and /scratch, two tmpfs capped at `limits.space_bytes` each.
        """
        space = str((limits or Limits()).space_bytes)
        gate = str(stage_root() / "gate")
        if self.mode == "none":
            return argv, {**env, "HOME": str(scratch), "TMPDIR": str(scratch)}, str(repo)
        inner = {**env, "HOME": SCRATCH_MOUNT, "TMPDIR": "/tmp"}
        args = [
            "bwrap",
            "--unshare-all",  # user, ipc, pid, net, uts, cgroup: no network at all
            "--unshare-user",
            "--disable-userns",  # no nested namespaces to climb out of
            "--cap-drop", "ALL",
            "--die-with-parent",
            "--new-session",  # no TIOCSTI into the gate's terminal
            "--clearenv",
            "--hostname", "localhost",  # nothing that names the gate: code should not behave otherwise here
            "--ro-bind", "/usr", "/usr",
            "--symlink", "usr/lib", "/lib",
            "--symlink", "usr/lib64", "/lib64",
            "--symlink", "usr/bin", "/bin",
            "--symlink", "usr/sbin", "/sbin",
            "--proc", "/proc",
            *_masks(),
            "--dev", "/dev",  # itself a tmpfs of half the host's memory: remounted read-only below
            "--size", space, "--tmpfs", "/dev/shm",
            "--size", space, "--tmpfs", "/tmp",
        ]
        if seccomp_fd is not None:
            args += ["--seccomp", str(seccomp_fd)]
        for prefix in _interpreter_dirs(self.python):
            args += ["--ro-bind", prefix, prefix]
        args += [
            "--ro-bind", gate, GATE_MOUNT,
            "--ro-bind", str(repo), REPO_MOUNT,
            "--size", space, "--tmpfs", SCRATCH_MOUNT,
            "--ro-bind", str(scratch), INPUT_MOUNT,
        ]
        for mount in mounts:
            if mount.source is None:
                args += ["--size", str(mount.size), "--tmpfs", mount.target]
            else:
                args += ["--bind" if mount.writable else "--ro-bind", str(mount.source), mount.target]
        args += [
            "--chdir", REPO_MOUNT,
            "--remount-ro", "/dev",  # device nodes still work; only /dev/shm, capped, takes files
            "--remount-ro", "/",  # the sandbox's own root too: only the capped tmpfs and writable mounts take writes
        ]
        for key, value in sorted(inner.items()):
            args += ["--setenv", key, value]
        return args + ["--"] + argv, {}, "/"

    def seen(self, mount: Mount) -> str:
        """Where the sandboxed process finds a mount: its target in bubblewrap, the host path without."""
        return mount.target if self.mode == "bwrap" else str(mount.source)

    def scratch_path(self, scratch: Path, name: str) -> str:
        """A file the gate put in `scratch`, as the sandboxed process sees it."""
        return f"{INPUT_MOUNT}/{name}" if self.mode == "bwrap" else str(scratch / name)

    def preexec(self, limits: Limits, uid: int | None = None) -> Callable[[], None]:
        """Set the limits (as root, so hard limits stick), then drop to the sandbox uid (or `uid`, as its own group)."""
        identity = self.identity if uid is None else replace(self.identity, uid=uid, gid=uid)

        def apply() -> None:
            for which, value in (
                (resource.RLIMIT_CPU, limits.cpu_seconds),
                (resource.RLIMIT_AS, limits.memory_bytes),
                (resource.RLIMIT_FSIZE, limits.file_bytes),
                (resource.RLIMIT_NOFILE, limits.open_files),
                (resource.RLIMIT_CORE, 0),
            ):
                resource.setrlimit(which, (value, value))
            if identity.uid is not None:
                resource.setrlimit(resource.RLIMIT_NPROC, (limits.processes, limits.processes))
                os.setgroups([])
                os.setgid(identity.gid)
                os.setuid(identity.uid)

        return apply


@functools.lru_cache(maxsize=1)
def _masks() -> tuple[str, ...]:
    """bubblewrap arguments that blank the host-wide counters of /proc (only those this kernel has)."""
    args: list[str] = []
    empty = str(stage_root() / "empty")
    for name in MASKED_PROC_FILES:
        if os.path.isfile(f"/proc/{name}"):
            args += ["--ro-bind", empty, f"/proc/{name}"]
    for name in MASKED_PROC_DIRS:
        if os.path.isdir(f"/proc/{name}"):
            args += ["--size", "4096", "--tmpfs", f"/proc/{name}"]
    return tuple(args)


def _interpreter_dirs(python: str) -> list[str]:
    """The Python installation the harness needs, bound at its own path (nothing under /usr twice)."""
    dirs = set()
    if python == sys.executable:
        dirs.update({sys.prefix, sys.base_prefix, sys.exec_prefix})
    dirs.add(os.path.dirname(os.path.dirname(os.path.realpath(python))))
    return sorted({os.path.realpath(d) for d in dirs if not os.path.realpath(d).startswith("/usr")})


@functools.lru_cache(maxsize=1)
def bwrap_works() -> str:
    """'' when bubblewrap can start a sandbox here, as the uid it will run as; else why not."""
    if shutil.which("bwrap") is None:
        return "bubblewrap (bwrap) is not installed; apt-get install bubblewrap"
    try:
        sandbox = Sandbox("bwrap")
        scratch = sandbox.make_scratch()
    except (SandboxUnavailable, OSError) as exc:
        return f"cannot prepare the sandbox: {exc}"
    try:
        argv, env, cwd = sandbox.wrap(["/usr/bin/true"], repo=scratch, scratch=scratch, env={})
        done = subprocess.run(argv, env=env, cwd=cwd, capture_output=True, timeout=20, check=False,
                              preexec_fn=sandbox.preexec(Limits()))
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"bubblewrap did not start: {exc}"
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
        end_leftovers()  # bubblewrap's inner process comes back to us, as after every evaluation
    if done.returncode != 0:
        return f"bubblewrap cannot create namespaces here: {done.stderr.decode(errors='replace').strip()}"
    return ""


def choose(mode: str, warn: Callable[[str], None]) -> Sandbox:
    """Resolve --sandbox auto|bwrap|none; auto falls back to a plain subprocess with a warning."""
    if mode not in MODES:
        raise ValueError(f"--sandbox must be one of {', '.join(MODES)}, not {mode!r}")
    if mode == "none":
        return Sandbox("none")
    problem = bwrap_works()
    if not problem:
        return Sandbox("bwrap")
    if mode == "bwrap":
        raise SandboxUnavailable(problem)
    warn(f"warning: {problem}; running properties in a plain subprocess with limits only "
         "(no filesystem or network isolation)")
    return Sandbox("none")
