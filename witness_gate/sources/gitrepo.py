"""The few git facts the gate needs: trees, changed paths, files at a commit, an exact export, a fetch."""

from __future__ import annotations

import os
import resource
import subprocess
import tarfile
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import IO
from urllib.parse import urlsplit

from witness_gate.rules.path_split import path_matches

# in-tree .gitattributes never shape an export: no export-ignore or export-subst, no eol, ident or filters
NEUTRAL_ATTRIBUTES = "* -export-ignore -export-subst -text -eol -ident -filter -working-tree-encoding\n"
MAX_EXPORT_BYTES = 4 * 1024**3


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
    """The tip of main (or master) that head would merge into, when head is elsewhere; else head's parent."""
    head_sha = rev_parse(repo, head)
    for branch in ("main", "master"):
        try:
            tip = rev_parse(repo, branch)
        except GitError:
            continue
        if tip != head_sha:
            return tip
    return rev_parse(repo, f"{head_sha}~1")


def merge_base(repo: Path, base: str, head: str) -> str:
    """Where head forked from base: changed paths are taken from here (GitHub's three dots)."""
    return git(repo, "merge-base", base, head).decode().strip()


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


def export(repo: Path, treeish: str, dest: Path) -> None:
    """Write the exact tree of `treeish` into `dest`, with no .git and nothing else."""
    with tempfile.TemporaryFile() as archive_file:
        archive(repo, treeish, archive_file)
        archive_file.seek(0)
        try:
            with tarfile.open(fileobj=archive_file) as tar:
                tar.extractall(dest, filter="tar")
        except (OSError, tarfile.TarError) as exc:  # a name too long for this filesystem, say
            raise GitError(f"cannot write the tree of {treeish[:12]} to disk: {exc}") from None


def archive(repo: Path, treeish: str, out: IO[bytes], *, max_bytes: int = MAX_EXPORT_BYTES, prefix: str = "") -> None:
    """A tar of exactly the files of `treeish`, streamed into `out`; past `max_bytes` a GitError.

    `git archive` reads the tree's own .gitattributes (export-ignore drops files, export-subst
    rewrites them), so it runs in a throwaway view of the objects whose info/attributes undoes them.
    """
    common = git(repo, "rev-parse", "--path-format=absolute", "--git-common-dir").decode().strip()
    with tempfile.TemporaryDirectory(prefix="witness-view-") as tmp:
        view = Path(tmp) / "view.git"
        git(Path(tmp), "init", "-q", "--bare", str(view))
        (view / "objects" / "info" / "alternates").write_text(str(Path(common) / "objects") + "\n")
        (view / "info").mkdir(exist_ok=True)
        (view / "info" / "attributes").write_text(NEUTRAL_ATTRIBUTES)
        proc = subprocess.Popen(["git", "-C", str(view), "-c", "core.autocrlf=false", "archive", "--format=tar",
                                 f"--prefix={prefix}", treeish], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        written = 0
        while chunk := proc.stdout.read(1 << 20):
            written += len(chunk)
            if written > max_bytes:
                proc.kill()
                proc.wait()
                raise GitError(f"the tree of {treeish[:12]} is larger than {max_bytes / 2**20:.1f} MiB; the gate "
                               "refuses to export it (move large files out of the repository, e.g. to a release)")
            out.write(chunk)
        message = proc.stderr.read().decode("utf-8", errors="replace").strip().splitlines()
        if proc.wait() != 0:
            raise GitError(f"git archive {treeish[:12]}: {message[-1] if message else 'failed'}")


def overlay(repo: Path, head: str, base: str, oracle_patterns: Iterable[str]) -> str:
    """The tree the gate runs: `head`'s files with its oracle paths replaced by those of `base` (the head's
    implementation, judged by the oracle of the branch it would merge into, not the one it forked from),
    and no submodules (a gitlink names a commit of another repository, which is never fetched)."""
    patterns = tuple(oracle_patterns)

    def entries(ref: str, oracle: bool) -> list[bytes]:
        listing = git(repo, "ls-tree", "-r", "-z", "--full-tree", ref).split(b"\0")
        return [e for e in listing if e and not e.startswith(b"160000 ") and oracle == any(
            path_matches(e.split(b"\t", 1)[1].decode("utf-8", "surrogateescape"), p) for p in patterns)]

    lines = entries(head, False) + entries(base, True)
    with tempfile.TemporaryDirectory() as tmp:
        env = {"GIT_INDEX_FILE": str(Path(tmp) / "index")}
        git(repo, "update-index", "-z", "--index-info", env=env, input=b"".join(e + b"\0" for e in lines))
        return git(repo, "write-tree", env=env).decode().strip()


def fetch(store: Path, url: str, shas: list[str], *, header: str, max_bytes: int, timeout: float = 600) -> None:
    """Fetch exactly these commits (depth 1) from `url` into the bare repository `store`.

    `header` (the credential) reaches git through its environment, scoped to the URL's host: never an
    argument, never a config file. Past `max_bytes` the pack is cut off (RLIMIT_FSIZE) and a GitError says so.
    """
    parts = urlsplit(url)
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update({"GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull, "GIT_TERMINAL_PROMPT": "0",
                "GIT_ALLOW_PROTOCOL": parts.scheme, "GIT_CONFIG_COUNT": "1",
                "GIT_CONFIG_KEY_0": f"http.{parts.scheme}://{parts.netloc}/.extraHeader", "GIT_CONFIG_VALUE_0": header})

    def cap() -> None:  # the pack is one file: no fetch writes more than this to disk
        resource.setrlimit(resource.RLIMIT_FSIZE, (max_bytes, max_bytes))

    refspecs = [f"{sha}:refs/witness/{sha}" for sha in dict.fromkeys(shas)]
    try:
        done = subprocess.run(["git", "-C", str(store), "-c", "credential.helper=", "-c", "fetch.unpackLimit=1",
                               "-c", "transfer.unpackLimit=1", "-c", "gc.auto=0", "-c", "http.lowSpeedLimit=1024",
                               "-c", "http.lowSpeedTime=60", "fetch", "--quiet", "--no-tags", "--depth=1",
                               "--no-write-fetch-head", url, *refspecs], env=env, capture_output=True,
                              preexec_fn=cap, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise GitError(f"git fetch from {url}: no answer within {timeout:.0f}s") from None
    if done.returncode != 0:
        message = done.stderr.decode("utf-8", errors="replace").strip().splitlines()
        last = message[-1] if message else "failed"
        # the pack hit RLIMIT_FSIZE (SIGXFSZ ends index-pack); the HTTP side may say last that its peer went away
        if any("index-pack" in line or "signal 25" in line for line in message):
            for partial in (store / "objects" / "pack").glob("tmp_pack_*"):
                partial.unlink(missing_ok=True)
            last = (f"the commits' objects are larger than {max_bytes / 2**20:.1f} MiB, the most the gate fetches "
                    f"({last}); move large files out of the repository, e.g. to a release")
        raise GitError(f"git fetch {' '.join(s[:12] for s in shas)} from {url}: {last}")


def content_tree(directory: Path) -> str:
    """The git tree sha of what `directory` holds, whether or not it is a git repository: inside one, its
    .gitignore holds and its objects are used; elsewhere every file counts, hashed in a throwaway repository."""
    try:
        git(directory, "rev-parse", "--show-toplevel")
        return tree_of_directory(directory, directory, force=False)
    except GitError:
        pass
    with tempfile.TemporaryDirectory(prefix="witness-tree-") as tmp:
        git(Path(tmp), "init", "-q", "--bare", ".")
        return tree_of_directory(Path(tmp), directory)


def tree_of_directory(repo: Path, directory: Path, *, force: bool = True) -> str:
    """The git tree sha of a directory's content, computed with a throwaway index.

    `force` counts ignored files too (an export has nothing else); without it, .gitignore holds.
    """
    with tempfile.TemporaryDirectory() as tmp:
        env = {"GIT_INDEX_FILE": str(Path(tmp) / "index")}
        flags = ["--all", "--force"] if force else ["--all"]
        git(repo, f"--work-tree={directory}", "add", *flags, ".", env=env)
        return git(repo, "write-tree", env=env).decode().strip()
