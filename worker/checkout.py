"""A pristine checkout of exactly one head: the tarball GitHub serves, verified against the commit's tree."""

from __future__ import annotations

import fcntl
import io
import shutil
import subprocess
import tarfile
from pathlib import Path

from witness_gate import gitrepo
from witness_gate.files import cache_root, unsafe_cache
from witness_gate.sandbox import make_readable
from worker.github_api import GitHubApi

CACHE = cache_root() / "witness-checkouts"


class CheckoutError(RuntimeError):
    """The tarball cannot be unpacked safely."""


def _object_store() -> Path:
    """A bare repository used only to hash trees (no remote, no credentials)."""
    store = CACHE / "objects.git"
    if not (store / "HEAD").exists():
        CACHE.mkdir(parents=True, exist_ok=True)
        subprocess.run(["git", "init", "-q", "--bare", str(store)], check=True, capture_output=True)
    return store


def unpack(tarball: bytes, dest: Path) -> None:
    """Extract GitHub's tarball (one top folder) into `dest`, refusing anything that escapes it.

    GitHub's tarballs hold regular files, directories and symlinks only. A member that is a hard
    link, a device, a FIFO or a socket, a symlink to an absolute path or one whose target leaves
    the tree, or a name that climbs out of it, is refused (CheckoutError naming the member): the
    host never follows a checkout's links or opens its special files (SPEC §9).
    """
    with tarfile.open(fileobj=io.BytesIO(tarball), mode="r:*") as tar:
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


def tree_of(directory: Path) -> str:
    return gitrepo.tree_of_directory(_object_store(), directory)


def checkout(api: GitHubApi, repo: str, head_sha: str, expected_tree: str = "") -> tuple[Path, bool]:
    """(directory, tree matches) for `head_sha`, shared by the jobs of one host through a cache.

    `expected_tree` is the commit's tree when the caller already asked GitHub for it.
    """
    target = CACHE / repo.replace("/", "__") / head_sha
    lock_path = target.with_suffix(".lock")
    CACHE.mkdir(mode=0o755, parents=True, exist_ok=True)  # never group-writable, whatever the umask
    target.parent.mkdir(mode=0o755, exist_ok=True)
    for folder in (CACHE, target.parent):
        problem = unsafe_cache(folder)
        if problem:  # a planted "match" marker would pass off any tree as the head's
            raise CheckoutError(problem)
        folder.chmod(0o755)  # the sandbox uid traverses to the checkout; it writes nothing here
    with open(lock_path, "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # one download per head per host, however many jobs
        marker = target / ".witness-tree"
        if marker.exists():
            return target / "tree", marker.read_text() == "match"
        shutil.rmtree(target, ignore_errors=True)
        tree_dir = target / "tree"
        tree_dir.mkdir(parents=True)
        unpack(api.tarball(head_sha), tree_dir)
        matches = tree_of(tree_dir) == (expected_tree or api.commit_tree(head_sha))
        make_readable(target)
        make_readable(tree_dir)
        marker.write_text("match" if matches else "mismatch")
        return tree_dir, matches


def changed_paths_locally(api: GitHubApi, repo: str, base_sha: str, head_sha: str) -> list[str]:
    """Changed paths from the two trees themselves, for pull requests past GitHub's 3,000-file list."""
    head_dir, _ = checkout(api, repo, head_sha)
    base_dir, _ = checkout(api, repo, base_sha)
    store = _object_store()
    base_tree, head_tree = tree_of(base_dir), tree_of(head_dir)  # hashing also stores the objects
    out = subprocess.run(["git", "-C", str(store), "diff-tree", "-r", "-M", "-z", "--name-status", base_tree,
                          head_tree], check=True, capture_output=True).stdout.decode("utf-8", "surrogateescape")
    fields = out.split("\0")
    paths, i = [], 0
    while i < len(fields) and fields[i]:
        count = 2 if fields[i][0] in "RC" else 1
        paths.extend(fields[i + 1 : i + 1 + count])
        i += 1 + count
    return sorted(set(paths))
