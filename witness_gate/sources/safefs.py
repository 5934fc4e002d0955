"""Reading a checkout from the host without following it anywhere (SPEC §9).

A checkout is untrusted: any of its paths may be a symlink to a host file (`/etc/shadow`, a key),
a link that climbs out of the tree, a FIFO that blocks whoever opens it, or a device. The host
reads a checkout only through this module, which

- resolves a path one component at a time *inside* the tree: a link to an absolute path, or one
  whose target climbs above the root, is refused without looking at the host at all (so the
  refusal says nothing about whether the target exists); relative links that stay inside are fine;
- refuses anything that is not a regular file (directories, FIFOs, sockets, devices) before
  opening it, then opens with O_NOFOLLOW | O_NONBLOCK and checks the open file is regular, so a
  FIFO can never block the gate;
- walks directories with `os.walk(followlinks=False)`, never into a linked directory.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterator
from pathlib import Path

MAX_LINKS = 40  # as the kernel's own limit on symlinks in one lookup
HOW = ("the gate never follows a link out of the checkout or opens a special file: make it a regular file "
       "(or a relative link to a file inside the repository)")


class UnsafePath(ValueError):
    """A checkout path the host refuses to follow or open; `problem` is short, `str()` says what to do."""

    def __init__(self, relpath: str, problem: str) -> None:
        self.relpath = relpath
        self.problem = problem
        super().__init__(f"{relpath}: {problem}; {HOW}")

    @property
    def reason(self) -> str:
        """The hold reason: `unsafe_path:<relpath>`."""
        return f"unsafe_path:{self.relpath}"


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a regular file"


def resolve_inside(root: str | Path, relpath: str | Path) -> tuple[str, os.stat_result]:
    """(real path, lstat) of `relpath` under `root`, following only relative links that stay inside.

    Raises UnsafePath for a link to an absolute path, a link or `..` that leaves the tree, a link
    loop or a dangling link; FileNotFoundError when `relpath` itself does not exist.
    """
    shown = Path(relpath).as_posix()
    if os.path.isabs(relpath):
        raise UnsafePath(shown, "an absolute path, not a path inside the checkout")
    base = os.path.realpath(root)
    pending = [p for p in shown.split("/") if p not in ("", ".")]
    done: list[str] = []
    links = 0
    followed = False  # a component came from a link: missing is then a dangling link
    st = os.lstat(base)
    while pending:
        name = pending.pop(0)
        if name == "..":
            if not done:
                raise UnsafePath(shown, "a symlink whose target leaves the checkout" if followed
                                 else "a path that leaves the checkout")
            done.pop()
            continue
        path = os.path.join(base, *done, name)
        try:
            st = os.lstat(path)
        except FileNotFoundError:
            if followed:
                raise UnsafePath(shown, "a symlink to a missing file") from None
            raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), shown) from None
        except NotADirectoryError:
            raise FileNotFoundError(errno.ENOTDIR, os.strerror(errno.ENOTDIR), shown) from None
        if stat.S_ISLNK(st.st_mode):
            links += 1
            if links > MAX_LINKS:
                raise UnsafePath(shown, "a symlink loop")
            target = os.readlink(path)
            if os.path.isabs(target):
                raise UnsafePath(shown, "a symlink to an absolute path")
            pending = [p for p in target.split("/") if p not in ("", ".")] + pending
            followed = True
            continue
        if pending and not stat.S_ISDIR(st.st_mode):
            raise FileNotFoundError(errno.ENOTDIR, os.strerror(errno.ENOTDIR), shown)
        done.append(name)
    return os.path.join(base, *done), st


def read_inside(root: str | Path, relpath: str | Path, *, max_bytes: int) -> bytes:
    """The bytes of the regular file `relpath` under `root`, never following it out of the tree.

    UnsafePath for links out, special files, directories and files over `max_bytes`;
    FileNotFoundError (or another OSError) when there is no such file or it cannot be read.
    """
    shown = Path(relpath).as_posix()
    real, st = resolve_inside(root, relpath)
    if not stat.S_ISREG(st.st_mode):
        raise UnsafePath(shown, _kind(st.st_mode))  # refused before open: opening a device can act
    fd = os.open(real, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        opened = os.fstat(fd)
        if not stat.S_ISREG(opened.st_mode):  # swapped between lstat and open
            raise UnsafePath(shown, _kind(opened.st_mode))
        if opened.st_size > max_bytes:
            raise UnsafePath(shown, f"larger than {max_bytes} bytes")
        chunks, size = [], 0
        while size <= max_bytes:
            chunk = os.read(fd, min(1 << 20, max_bytes + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > max_bytes:
            raise UnsafePath(shown, f"larger than {max_bytes} bytes")
        return b"".join(chunks)
    finally:
        os.close(fd)


def resolve_dir(root: str | Path, relpath: str | Path) -> str:
    """The real path of the directory `relpath` under `root` (UnsafePath / FileNotFoundError / NotADirectoryError)."""
    real, st = resolve_inside(root, relpath)
    if not stat.S_ISDIR(st.st_mode):
        if stat.S_ISREG(st.st_mode):
            raise NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR), Path(relpath).as_posix())
        raise UnsafePath(Path(relpath).as_posix(), _kind(st.st_mode))
    return real


def walk_files(root: str | Path, subdir: str | Path, suffix: str) -> Iterator[str]:
    """Every non-directory entry named `*<suffix>` under `subdir`, as a path relative to `root`, sorted.

    Links and special files are listed too (never followed, never opened), so the caller can
    refuse each by name with `read_inside`; linked directories are not entered.
    """
    base = os.path.realpath(root)
    top = resolve_dir(root, subdir)
    found = []
    for dirpath, dirnames, filenames in os.walk(top, followlinks=False):
        dirnames.sort()
        names = list(filenames)
        # os.walk counts a link to a directory as a directory (and does not enter it): list it too
        names += [d for d in dirnames if os.path.islink(os.path.join(dirpath, d))]
        for name in names:
            if name.endswith(suffix):
                found.append(Path(os.path.relpath(os.path.join(dirpath, name), base)).as_posix())
    return iter(sorted(found))


def read_user_file(path: str | Path, *, max_bytes: int, root: str | Path | None = None) -> tuple[bytes, str]:
    """(bytes, path relative to `root`) of a file a person named on the command line.

    The same rules as a checkout's files, relative to `root` (the working directory by default):
    an absolute path must lie inside it.
    """
    root = Path(root) if root is not None else Path.cwd()
    rel = Path(path)
    if rel.is_absolute():
        normal = os.path.normpath(str(rel))
        for base in (os.path.abspath(root), os.path.realpath(root)):
            if normal == base or normal.startswith(base.rstrip("/") + "/"):
                rel = Path(os.path.relpath(normal, base))
                break
        else:
            raise UnsafePath(str(path), f"outside the working directory {root}; run from the repository that "
                             "holds it and name it by a relative path")
    return read_inside(root, rel, max_bytes=max_bytes), rel.as_posix()
