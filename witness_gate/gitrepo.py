"""The few git facts the local gate needs: trees, changed paths, files at a commit, a pristine export."""

from __future__ import annotations

import io
import os
import subprocess
import tarfile
import tempfile
from pathlib import Path


class GitError(RuntimeError):
    """A git command failed; the message says which and why."""


def git(repo: Path, *args: str, env: dict[str, str] | None = None, input: bytes | None = None) -> bytes:
    try:
        done = subprocess.run(
            ["git", "-C", str(repo), *args], capture_output=True, check=False, input=input,
            env={**os.environ, **(env or {})},
        )
    except FileNotFoundError:
        raise GitError("git is not installed") from None
    if done.returncode != 0:
        message = done.stderr.decode("utf-8", errors="replace").strip().splitlines()
        raise GitError(f"git {' '.join(args)}: {message[-1] if message else 'failed'}")
    return done.stdout


def rev_parse(repo: Path, ref: str) -> str:
    return git(repo, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}").decode().strip()


def tree_of(repo: Path, ref: str) -> str:
    return git(repo, "rev-parse", f"{ref}^{{tree}}").decode().strip()


def default_base(repo: Path, head: str) -> str:
    """The merge base with main (or master) when head is elsewhere; else head's parent."""
    head_sha = rev_parse(repo, head)
    for branch in ("main", "master"):
        try:
            tip = rev_parse(repo, branch)
        except GitError:
            continue
        if tip != head_sha:
            return git(repo, "merge-base", branch, head_sha).decode().strip()
    return rev_parse(repo, f"{head_sha}~1")


def changed_paths(repo: Path, base: str, head: str) -> list[str]:
    """Every path the change touches; a rename counts at its old and its new path."""
    out = git(repo, "diff", "--name-status", "-M", "-z", base, head)
    fields = out.decode("utf-8", errors="surrogateescape").split("\0")
    paths: list[str] = []
    i = 0
    while i < len(fields) and fields[i]:
        status = fields[i]
        count = 2 if status[0] in "RC" else 1
        paths.extend(fields[i + 1 : i + 1 + count])
        i += 1 + count
    return sorted(set(paths))


def show(repo: Path, ref: str, path: str) -> bytes | None:
    """A file's bytes at a commit, or None when it does not exist there."""
    try:
        return git(repo, "show", f"{ref}:{path}")
    except GitError:
        return None


def export(repo: Path, ref: str, dest: Path) -> None:
    """Write the tree of `ref` into `dest`, with no .git and nothing else."""
    archive = git(repo, "archive", "--format=tar", ref)
    try:
        with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
            tar.extractall(dest, filter="tar")
    except (OSError, tarfile.TarError) as exc:  # a name too long for this filesystem, say
        raise GitError(f"cannot write the tree of {ref[:12]} to disk: {exc}") from None


def tree_of_directory(repo: Path, directory: Path, *, force: bool = True) -> str:
    """The git tree sha of a directory's content, computed with a throwaway index.

    `force` counts ignored files too (an export has nothing else); without it, .gitignore holds.
    """
    with tempfile.TemporaryDirectory() as tmp:
        env = {"GIT_INDEX_FILE": str(Path(tmp) / "index")}
        flags = ["--all", "--force"] if force else ["--all"]
        git(repo, f"--work-tree={directory}", "add", *flags, ".", env=env)
        return git(repo, "write-tree", env=env).decode().strip()
