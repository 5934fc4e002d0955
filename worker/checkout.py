"""A pristine checkout of exactly one head: its commit fetched with git into a private git directory,
exported byte for byte (whatever its .gitattributes say), verified against the commit's tree."""

from __future__ import annotations

import fcntl
import io
import shutil
import subprocess
import tarfile
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import IO

from witness_gate.records.files import unsafe_cache
from witness_gate.sandbox import make_readable
from witness_gate.sources import gitrepo
from worker.github_api import GitHubApi

MAX_FETCH_BYTES = 2 * 1024**3  # the pack one fetch may write
MAX_TREE_BYTES = 4 * 1024**3  # the files one checkout may hold


class CheckoutError(RuntimeError):
    """The head cannot be fetched or unpacked safely."""


def _store(cache: Path, repo: str) -> Path:
    """The repository's private git directory: fetched objects only (no remote, no credentials in its config)."""
    store = cache / "witness-checkouts" / repo.replace("/", "__") / "objects.git"
    if not (store / "HEAD").exists():
        store.parent.mkdir(mode=0o755, parents=True, exist_ok=True)
        subprocess.run(["git", "init", "-q", "--bare", str(store)], check=True, capture_output=True)
    return store


def unpack(tarball: bytes | IO[bytes], dest: Path) -> None:
    """Extract a tarball of the head (one top folder: `git archive`'s, as GitHub's) into `dest`, refusing
    anything that escapes it.

    A tree's archive holds regular files, directories and symlinks only. A member that is a hard
    link, a device, a FIFO or a socket, a symlink to an absolute path or one whose target leaves
    the tree, or a name that climbs out of it, is refused (CheckoutError naming the member): the
    host never follows a checkout's links or opens its special files (SPEC §9).
    """
    source = io.BytesIO(tarball) if isinstance(tarball, bytes) else tarball
    with tarfile.open(fileobj=source, mode="r:*") as tar:
        members = tar.getmembers()
        tops = {m.name.split("/", 1)[0] for m in members if m.name}
        if len(tops) != 1:
            raise CheckoutError(f"expected one top folder in the tarball, found {len(tops)}")
        top = tops.pop() + "/"
        kept = []
        for member in members:
            if member.type in (tarfile.XGLTYPE, tarfile.XHDTYPE) or member.name.rstrip("/") == top.rstrip("/"):
                continue
            problem = _unsafe_member(member, member.name[len(top):])
            if problem:
                raise CheckoutError(f"tarball member {member.name!r}: {problem}; the gate refuses to unpack it "
                                    "(make it a regular file, or a relative link to a file inside the repository)")
            member.name = member.name[len(top):]
            kept.append(member)
        try:
            tar.extractall(dest, members=kept, filter="data")  # checks again, after links are on disk
        except tarfile.FilterError as exc:
            raise CheckoutError(f"tarball member refused: {exc}") from None
        except (OSError, tarfile.TarError) as exc:  # a name too long for this filesystem, say
            raise CheckoutError(f"the tarball cannot be written to disk: {exc}") from None


def _unsafe_member(member: tarfile.TarInfo, name: str) -> str:
    """Why `member` (at `name` under the top folder) must not be unpacked, or ''."""
    parts = name.split("/")
    if name.startswith("/") or ".." in parts or not name:
        return "a name outside the tree"
    if member.islnk():
        return "a hard link"
    if member.ischr() or member.isblk():
        return "a device"
    if member.isfifo():
        return "a FIFO (named pipe)"
    if member.issym():
        target = member.linkname
        if target.startswith("/"):
            return "a symlink to an absolute path"
        depth = len([p for p in parts[:-1] if p not in ("", ".")])
        for part in target.split("/"):
            if part == "..":
                depth -= 1
                if depth < 0:
                    return "a symlink whose target leaves the tree"
            elif part not in ("", "."):
                depth += 1
        return ""
    if not (member.isfile() or member.isdir()):
        return f"an entry of type {member.type!r}, not a file, directory or symlink"
    return ""


def checkout(api: GitHubApi, repo: str, head_sha: str, expected_tree: str = "", *, cache: Path,
             base_sha: str = "", oracle: Iterable[str] = ()) -> tuple[Path, bool]:
    """(directory, tree matches) for `head_sha`, shared by the jobs of one host through a cache.

    `expected_tree` is the commit's tree when the caller already asked GitHub for it. With `oracle`
    patterns, the paths they match come from `base_sha` (the tip the head would merge into): the
    head's implementation is judged by the base's current oracle, not the one it forked from.
    """
    oracle = tuple(oracle)
    root = cache / "witness-checkouts"
    target = root / repo.replace("/", "__") / (f"{head_sha}-on-{base_sha}" if oracle else head_sha)
    lock_path = target.with_suffix(".lock")
    root.mkdir(mode=0o755, parents=True, exist_ok=True)  # never group-writable, whatever the umask
    target.parent.mkdir(mode=0o755, exist_ok=True)
    for folder in (root, target.parent):
        problem = unsafe_cache(folder)
        if problem:  # a planted "match" marker would pass off any tree as the head's
            raise CheckoutError(problem)
        folder.chmod(0o755)  # the sandbox uid traverses to the checkout; it writes nothing here
    with open(lock_path, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one fetch per head per host, however many jobs
        marker = target / ".witness-tree"
        if marker.exists():
            return target / "tree", marker.read_text() == "match"
        shutil.rmtree(target, ignore_errors=True)
        tree_dir = target / "tree"
        tree_dir.mkdir(parents=True)
        store = _fetched(api, cache, repo, [head_sha, base_sha] if oracle else [head_sha])
        head_tree = gitrepo.tree_of(store, head_sha)  # git checked every object's hash as it arrived
        gated = gitrepo.overlay(store, head_sha, base_sha if oracle else head_sha, oracle)
        _export(store, gated, tree_dir)
        matches = head_tree == (expected_tree or api.commit_tree(head_sha)) and tree_of(store, tree_dir) == gated
        make_readable(target)
        make_readable(tree_dir)
        marker.write_text("match" if matches else "mismatch")
        return tree_dir, matches


def _fetched(api: GitHubApi, cache: Path, repo: str, shas: list[str]) -> Path:
    """The private git directory, holding these commits (fetched once per host: one fetch at a time)."""
    store = _store(cache, repo)
    with open(store.with_suffix(".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # concurrent shallow fetches into one directory trip over each other
        missing = [sha for sha in shas if subprocess.run(["git", "-C", str(store), "cat-file", "-e", f"{sha}^{{commit}}"],
                                                         capture_output=True).returncode != 0]
        if missing:
            api.fetch(store, missing, MAX_FETCH_BYTES)
    return store


def _export(store: Path, tree: str, dest: Path) -> None:
    """The tree's files into `dest`, streamed through a capped file and checked member by member (unpack)."""
    with tempfile.TemporaryFile() as archive:
        try:
            gitrepo.archive(store, tree, archive, max_bytes=MAX_TREE_BYTES, prefix=f"{tree[:12]}/")
        except gitrepo.GitError as exc:
            raise CheckoutError(str(exc)) from None
        archive.seek(0)
        unpack(archive, dest)


def tree_of(store: Path, directory: Path) -> str:
    return gitrepo.tree_of_directory(store, directory)


def changed_paths_locally(api: GitHubApi, repo: str, base_sha: str, head_sha: str, *, cache: Path) -> list[str]:
    """Changed paths from the merge base to the head, for pull requests past GitHub's 3,000-file list."""
    fork_point = api.merge_base(base_sha, head_sha)  # the three dots of GitHub's own list, not the base tip
    store = _fetched(api, cache, repo, [fork_point, head_sha])
    return gitrepo.changed_paths(store, fork_point, head_sha)


class GitHubSource:
    """A repository's facts as GitHub gives them (witness_gate/sources/facts.py's Source): a file at a commit, a
    commit's tree, where a head forked, a pull request's changed paths, and a commit's files through the host's
    checkout cache. `pull`: the pull request's number; None for a merge queue's commit, which lists no files."""

    def __init__(self, api: GitHubApi, repo: str, cache: Path, pull: int | None = None) -> None:
        self.api, self.repo, self.cache, self.pull = api, repo, cache, pull
        self.capped = False  # whether GitHub's list of changed files was cut at 3,000 (then the trees are diffed here)

    def file_at(self, path: str, sha: str) -> bytes | None:
        return self.api.file_at(path, sha)

    def tree_of(self, sha: str) -> str:
        return self.api.commit_tree(sha)

    def merge_base(self, base_sha: str, head_sha: str) -> str:
        return self.api.merge_base(base_sha, head_sha)

    def changed_paths(self, base_sha: str, head_sha: str) -> list[str]:
        if self.pull is None:  # a queue entry lists no files: diff the two trees
            return changed_paths_locally(self.api, self.repo, base_sha, head_sha, cache=self.cache)
        changed, self.capped = self.api.changed_files(self.pull)
        if self.capped:  # GitHub lists at most 3,000 files: diff the two trees here instead
            changed = changed_paths_locally(self.api, self.repo, base_sha, head_sha, cache=self.cache)
        return changed

    def check_out(self, sha: str) -> Path:
        directory, exact = checkout(self.api, self.repo, sha, cache=self.cache)
        if not exact:
            raise RuntimeError("its files are not the commit's tree")
        return directory
