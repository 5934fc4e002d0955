"""The narrow source of facts the gather reads about a repository (`Source`), and its git adapter for the CLI
(`GitSource`); the App's GitHub adapter is worker/checkout.py::GitHubSource."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import Protocol

from witness_gate.sandbox import make_readable
from witness_gate.sources import gitrepo


class Source(Protocol):
    """The facts the gather reads about a repository."""

    def file_at(self, path: str, sha: str) -> bytes | None:
        """A file's bytes at a commit, or None when it is not there."""

    def tree_of(self, sha: str) -> str:
        """A commit's tree id."""

    def merge_base(self, base_sha: str, head_sha: str) -> str:
        """Where the head forked off the base."""

    def changed_paths(self, base_sha: str, head_sha: str) -> list[str]:
        """The paths the head changes since it forked off the base (GitHub's three dots)."""

    def check_out(self, sha: str) -> Path:
        """The commit's files in a folder the sandbox can read (OSError, RuntimeError or ValueError when it cannot)."""


class GitSource:
    """A local repository's facts (`witness-gate run`): git show and git archive; `close` removes its checkouts."""

    def __init__(self, repo: Path) -> None:
        self.repo = repo
        self.folders: list[Path] = []

    def file_at(self, path: str, sha: str) -> bytes | None:
        return gitrepo.show(self.repo, sha, path)

    def tree_of(self, sha: str) -> str:
        return gitrepo.tree_of(self.repo, sha)

    def merge_base(self, base_sha: str, head_sha: str) -> str:
        return gitrepo.merge_base(self.repo, base_sha, head_sha)

    def changed_paths(self, base_sha: str, head_sha: str) -> list[str]:
        return gitrepo.changed_paths(self.repo, self.merge_base(base_sha, head_sha), head_sha)

    def check_out(self, sha: str) -> Path:
        # a folder of its own, readable by the sandbox's uid all the way down (none inside another's 0700 folder)
        folder = Path(tempfile.mkdtemp(prefix=f"witness-base-{sha[:12]}-"))
        self.folders.append(folder)
        gitrepo.export(self.repo, sha, folder)
        make_readable(folder)
        return folder

    def close(self) -> None:
        for folder in self.folders:
            shutil.rmtree(folder, ignore_errors=True)
