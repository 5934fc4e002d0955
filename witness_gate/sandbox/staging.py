"""What the sandbox is given, and as whom it runs: the staged harness copy, checkouts the sandbox uid can
read, trees settled before each evaluation, and the dedicated uid (with an interpreter that uid can read).
"""

from __future__ import annotations

import functools
import importlib.util
import os
import py_compile
import shutil
import stat
import sys
import tempfile
import zlib
from dataclasses import dataclass
from pathlib import Path

from witness_gate.model.canonical import sha256_hex

# all the sandbox sees of the gate's own modules outside the boundary's packages (paths in the package)
HARNESS_FILES = ("__init__.py", "contracts.py", "setup/netshim.py", "model/reasons.py")
# the boundary's packages, staged whole for the judge and the subject (witness_gate/sandbox/__init__.py is the host's:
# the staged copy gets an empty one)
STAGED_PACKAGES = ("sandbox/wire", "sandbox/judge", "sandbox/subject")
# what a repository's own tests need in the judge: the gate's trusted copies (never what the head installed)
JUDGE_PACKAGES = ("pytest", "pluggy", "iniconfig", "packaging", "hypothesis", "attrs", "sortedcontainers")
# and these when the gate's interpreter has them: what test modules commonly import beside pytest (bidict's tests take
# typing_extensions' assert_type)
JUDGE_EXTRAS = ("typing_extensions",)
SETTLED_NS = 946684800 * 10**9  # 2000-01-01: every evaluation sees the same atime and mtime everywhere
DEFAULT_SANDBOX_UID = 64321  # a uid of its own, so process limits count only sandboxed processes
WORKER_UID_BASE, WORKER_UID_SPAN = 0x70000000, 1 << 24  # each worker's evaluations get their own uid
# and each cold subject a uid of its own, drawn: what the kernel counts per uid (processes, pipe pages, watches) is
# then its alone, so no subject can count the others alive beside it
SUBJECT_UID_BASE, SUBJECT_UID_SPAN = 0x60000000, 1 << 24


class SandboxUnavailable(RuntimeError):
    """bubblewrap was asked for but cannot run here."""


def _is_root() -> bool:
    return os.geteuid() == 0


@dataclass(frozen=True)
class Identity:
    """Who the sandboxed process runs as: the dedicated uid when the gate is root, else the caller."""

    uid: int | None
    gid: int | None
    python: str

    @classmethod
    def from_environment(cls, worker: str | None = None) -> "Identity":
        """WITNESS_SANDBOX_UID when set; else a uid of the `worker`'s own, so workers never share a process limit."""
        if not _is_root():
            return cls(None, None, sys.executable)
        uid = int(os.environ.get("WITNESS_SANDBOX_UID") or (worker_uid(worker) if worker else DEFAULT_SANDBOX_UID))
        gid = int(os.environ.get("WITNESS_SANDBOX_GID") or uid)
        # root's interpreter may live where that uid cannot read (pyenv under /root)
        python = os.environ.get("WITNESS_SANDBOX_PYTHON") or _readable_python()
        return cls(uid, gid, python)


def subject_uid() -> int:
    """A uid for one cold subject, drawn (never counted, so it says nothing of which row the subject serves)."""
    import secrets

    return SUBJECT_UID_BASE + secrets.randbelow(SUBJECT_UID_SPAN)


def worker_uid(worker: str) -> int:
    """A stable uid per worker name, in the range systemd leaves unused (0x70000000-0x7FFFFFFF)."""
    return WORKER_UID_BASE + zlib.crc32(worker.encode("utf-8")) % WORKER_UID_SPAN


def _readable_python() -> str:
    real = os.path.realpath(sys.executable)
    if real.startswith("/usr/"):
        return sys.executable
    for candidate in ("/usr/bin/python3", "/usr/local/bin/python3"):
        if os.path.exists(candidate):
            return candidate
    raise SandboxUnavailable(
        "no Python the sandbox uid can read (looked for /usr/bin/python3); install python3 with "
        "apt-get or set WITNESS_SANDBOX_PYTHON"
    )


@functools.lru_cache(maxsize=1)
def stage_root() -> Path:
    """A per-process directory the sandbox uid can traverse, holding the harness copy."""
    root = Path(tempfile.mkdtemp(prefix="witness-stage-"))
    root.chmod(0o755)
    package = Path(__file__).resolve().parent.parent
    target = root / "gate" / "witness_gate"
    target.mkdir(parents=True)
    for name in HARNESS_FILES:
        (target / name).parent.mkdir(exist_ok=True)
        shutil.copyfile(package / name, target / name)
    for folder in {Path(name).parent for name in HARNESS_FILES} | {Path("sandbox")}:
        (target / folder).mkdir(exist_ok=True)
        if folder != Path(".") and not (target / folder / "__init__.py").exists():
            # the host's package modules are not staged: the staged copy gets an empty one
            (target / folder / "__init__.py").write_text(f'"""witness_gate/{folder}, staged: what the sandbox needs."""\n')
    for folder in STAGED_PACKAGES:
        (target / folder).mkdir()
        for source in sorted((package / folder).glob("*.py")):
            shutil.copyfile(source, target / folder / source.name)
    _compile_staged(target)
    for dirpath, dirnames, filenames in os.walk(root / "gate"):
        os.chmod(dirpath, 0o755)
        for name in filenames:
            os.chmod(os.path.join(dirpath, name), 0o644)
    (root / "empty").touch(mode=0o444)  # what a masked /proc file reads as
    import atexit

    atexit.register(shutil.rmtree, root, ignore_errors=True)
    return root


@functools.lru_cache(maxsize=1)
def judge_site() -> Path | None:
    """JUDGE_PACKAGES as the gate's interpreter has them (with their bytecode), beside the staged gate for a judge that
    runs a repository's tests; None when one of them is not installed. Files the sandbox uid can read are linked, the
    rest copied; never settled, so their bytecode stays valid."""
    import importlib.metadata

    try:
        dists = [importlib.metadata.distribution(name) for name in JUDGE_PACKAGES]
    except importlib.metadata.PackageNotFoundError:
        return None
    for name in JUDGE_EXTRAS:
        try:
            dists.append(importlib.metadata.distribution(name))
        except importlib.metadata.PackageNotFoundError:
            pass
    made_of = sha256_hex(" ".join(f"{d.metadata['Name']}=={d.version}" for d in dists).encode())[:16]
    # Hypothesis skips folders named site-packages when it reads local code; one a set of packages, so a stage made
    # before a package was added or upgraded is not taken for this one
    site = stage_root() / "judge" / made_of / "site-packages"
    if site.is_dir():  # made by an earlier process of this stage (a worker's horses share their parent's)
        return site
    final, site = site, Path(tempfile.mkdtemp(prefix="site-", dir=stage_root()))  # made whole, then renamed into place
    for dist in dists:
        tops = {str(f).split("/")[0] for f in dist.files or () if not str(f).startswith("..")}
        for top in sorted(t for t in tops if not t.endswith(".data") and t != "__pycache__"):  # with its metadata:
            # pytest finds Hypothesis's plugin by its entry point
            source = Path(dist.locate_file(top))
            if source.is_dir():
                shutil.copytree(source, site / top, copy_function=_link_or_copy, dirs_exist_ok=True)
            elif source.is_file():
                _link_or_copy(source, site / top)
    for dirpath, _dirnames, _filenames in os.walk(site):
        os.chmod(dirpath, 0o755)
    final.parent.parent.mkdir(mode=0o755, exist_ok=True)
    final.parent.mkdir(mode=0o755, exist_ok=True)
    try:
        site.rename(final)
    except OSError:  # another process of this stage was first: its copy is whole
        shutil.rmtree(site, ignore_errors=True)
    return final


def _link_or_copy(source, target) -> None:
    """A hard link to a file everyone may read already (its bytecode's recorded mtime still matches), else a copy."""
    if os.stat(source).st_mode & 0o004:
        try:
            os.link(source, target)
            return
        except OSError:
            pass
    shutil.copy2(source, target)
    os.chmod(target, 0o644)


def _compile_staged(target: Path) -> None:
    """Bytecode for the staged modules the sandbox imports: checked
    against the source's hash, not its mtime, which settle() moves; so no sandbox compiles them again."""
    sources = [target / name for name in HARNESS_FILES]
    folders = {str(Path(name).parent) for name in HARNESS_FILES} - {"."} | {"sandbox", *STAGED_PACKAGES}
    sources += [path for folder in sorted(folders) for path in (target / folder).glob("*.py")]
    for source in sources:
        py_compile.compile(str(source), cfile=importlib.util.cache_from_source(str(source)), doraise=True,
                           invalidation_mode=py_compile.PycInvalidationMode.CHECKED_HASH)


_NOT_STAGED = shutil.ignore_patterns(".git", "__pycache__", ".artifacts")


def _not_staged(folder: str, names: list[str]) -> set[str]:
    """.git, bytecode caches, records, and anything but folders, files and links (a FIFO is never opened)."""
    skipped = set(_NOT_STAGED(folder, names))
    for name in names:
        mode = os.lstat(os.path.join(folder, name)).st_mode
        if not (stat.S_ISDIR(mode) or stat.S_ISREG(mode) or stat.S_ISLNK(mode)):
            skipped.add(name)
    return skipped


def stage_directory(source: Path) -> Path:
    """A read-only-by-design copy of `source` the sandbox uid can read, without .git; links are copied as links."""
    dest = Path(tempfile.mkdtemp(prefix="witness-checkout-"))
    shutil.copytree(source, dest, dirs_exist_ok=True, symlinks=True, ignore=_not_staged)
    make_readable(dest)
    return dest


def make_readable(tree: Path) -> None:
    """Let the sandbox uid read a checkout; nothing in it becomes writable by others."""
    for dirpath, dirnames, filenames in os.walk(tree):
        os.chmod(dirpath, 0o755)
        for name in filenames:
            path = os.path.join(dirpath, name)
            if not os.path.islink(path):
                mode = os.stat(path).st_mode
                os.chmod(path, 0o755 if mode & 0o111 else 0o644)


Layout = tuple[tuple[str, tuple[str, ...]], ...]  # (folder, the names in it), every folder of a tree
_LAYOUTS: dict[tuple[str, int, int], Layout] = {}  # fixed trees' layouts, by path and root inode
_FIXED: dict[str, None] = {}  # trees that never change once staged (mark_fixed), oldest first
MAX_LAYOUTS = 32


def mark_fixed(path: Path | str) -> None:
    """`path` never changes once staged (a checkout, the gate's copy, a set-up environment): settle() lists
    its layout once per process and reuses it."""
    _FIXED.pop(os.fspath(path), None)
    _FIXED[os.fspath(path)] = None
    while len(_FIXED) > 4 * MAX_LAYOUTS:
        _FIXED.pop(next(iter(_FIXED)))


def settle(path: Path | str) -> None:
    """Give every entry under `path` the same atime and mtime, and a ctime of now, before an evaluation.

    An evaluation then cannot tell from timestamps how long ago the checkout, the harness or the
    environment were staged, so the first of a series looks like every other (nothing is ever followed).
    A tree marked fixed is listed once per process; each entry is then set through its folder's descriptor
    (a large environment costs a syscall an entry, not a listing and a path walk too).
    """
    root = os.fspath(path)
    if root not in _FIXED:
        return _set_times(root, _layout(root))
    top = os.stat(root)
    key = (root, top.st_dev, top.st_ino)
    if key not in _LAYOUTS:
        while len(_LAYOUTS) >= MAX_LAYOUTS:
            _LAYOUTS.pop(next(iter(_LAYOUTS)))
        _LAYOUTS[key] = _layout(root)
    try:
        _set_times(root, _LAYOUTS[key])
    except FileNotFoundError:  # the tree changed after all: list it again
        _LAYOUTS[key] = _layout(root)
        _set_times(root, _LAYOUTS[key])


def _layout(root: str) -> Layout:
    folders, stack = [], [root]
    while stack:
        folder = stack.pop()
        with os.scandir(folder) as entries:
            names = []
            for entry in entries:
                names.append(entry.name)
                if entry.is_dir(follow_symlinks=False):
                    stack.append(entry.path)
        folders.append((folder, tuple(names)))
    return tuple(folders)


def _set_times(root: str, layout: Layout) -> None:
    """After every listing (reading a folder moves its atime): each entry through its folder, then the root."""
    times = (SETTLED_NS, SETTLED_NS)
    for folder, names in layout:
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
        try:
            for name in names:
                os.utime(name, ns=times, dir_fd=fd, follow_symlinks=False)
        finally:
            os.close(fd)
    os.utime(root, ns=times, follow_symlinks=False)
