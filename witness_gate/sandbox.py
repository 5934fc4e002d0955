"""Where an evaluation runs: bubblewrap when it is there, else a plain subprocess with limits."""

from __future__ import annotations

import functools
import os
import resource
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import witness_gate

MODES = ("auto", "bwrap", "none")
PACKAGE_PARENT = str(Path(witness_gate.__file__).resolve().parent.parent)
REPO_MOUNT = "/repo"
SCRATCH_MOUNT = "/scratch"
GATE_MOUNT = "/opt/witness-gate"


class SandboxUnavailable(RuntimeError):
    """bubblewrap was asked for but cannot run here."""


@dataclass(frozen=True)
class Limits:
    cpu_seconds: int = 60
    memory_bytes: int = 2 * 1024**3
    file_bytes: int = 64 * 1024**2
    open_files: int = 256
    output_bytes: int = 1024**2  # per stream; more is a transport fault


@dataclass(frozen=True)
class Sandbox:
    """How to wrap one evaluation's argv; `mode` is "bwrap" or "none"."""

    mode: str

    def wrap(self, argv: list[str], *, repo: Path, scratch: Path, env: dict[str, str]) -> tuple[list[str], dict[str, str], str]:
        """(argv, environment, working directory) for the process to start."""
        if self.mode == "none":
            inner = {**env, "PYTHONPATH": PACKAGE_PARENT, "HOME": str(scratch), "TMPDIR": str(scratch)}
            return argv, inner, str(repo)
        inner = {**env, "PYTHONPATH": GATE_MOUNT, "HOME": SCRATCH_MOUNT, "TMPDIR": "/tmp"}
        args = [
            "bwrap",
            "--unshare-all",  # user, ipc, pid, net, uts, cgroup: no network at all
            "--die-with-parent",
            "--new-session",
            "--clearenv",
            "--ro-bind", "/usr", "/usr",
            "--symlink", "usr/lib", "/lib",
            "--symlink", "usr/lib64", "/lib64",
            "--symlink", "usr/bin", "/bin",
            "--symlink", "usr/sbin", "/sbin",
            "--proc", "/proc",
            "--dev", "/dev",
            "--tmpfs", "/tmp",
        ]
        for prefix in _interpreter_dirs():
            args += ["--ro-bind", prefix, prefix]
        args += [
            "--ro-bind", PACKAGE_PARENT + "/witness_gate", GATE_MOUNT + "/witness_gate",
            "--ro-bind", str(repo), REPO_MOUNT,
            "--bind", str(scratch), SCRATCH_MOUNT,
            "--chdir", REPO_MOUNT,
        ]
        for key, value in sorted(inner.items()):
            args += ["--setenv", key, value]
        return args + ["--"] + argv, {}, "/"

    def scratch_path(self, scratch: Path, name: str) -> str:
        """A scratch file's path as the sandboxed process sees it."""
        return f"{SCRATCH_MOUNT}/{name}" if self.mode == "bwrap" else str(scratch / name)


def _interpreter_dirs() -> list[str]:
    """The Python installation(s) the harness needs, bound at their own paths."""
    dirs = []
    for prefix in {sys.prefix, sys.base_prefix, sys.exec_prefix}:
        real = os.path.realpath(prefix)
        if not real.startswith("/usr") and real not in dirs:
            dirs.append(real)
    return sorted(dirs)


@functools.lru_cache(maxsize=1)
def bwrap_works() -> str:
    """'' when bubblewrap can start a sandbox here, else why not."""
    if shutil.which("bwrap") is None:
        return "bubblewrap (bwrap) is not installed; apt-get install bubblewrap"
    probe = ["bwrap", "--unshare-all", "--die-with-parent", "--ro-bind", "/usr", "/usr",
             "--symlink", "usr/bin", "/bin", "--symlink", "usr/lib", "/lib",
             "--symlink", "usr/lib64", "/lib64", "--", "/usr/bin/true"]
    try:
        done = subprocess.run(probe, capture_output=True, timeout=20, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"bubblewrap did not start: {exc}"
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


def limit_child(limits: Limits) -> Callable[[], None]:
    """A preexec function that applies the resource limits in the child."""

    def apply() -> None:
        for which, value in (
            (resource.RLIMIT_CPU, limits.cpu_seconds),
            (resource.RLIMIT_AS, limits.memory_bytes),
            (resource.RLIMIT_FSIZE, limits.file_bytes),
            (resource.RLIMIT_NOFILE, limits.open_files),
            (resource.RLIMIT_CORE, 0),
        ):
            resource.setrlimit(which, (value, value))

    return apply
