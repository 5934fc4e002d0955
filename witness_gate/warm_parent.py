"""The warm parent, inside the sandbox: one interpreter per series that forks each evaluation (standard library only).

Started as `python -P -s -B <gate>/witness_gate/harness.py --warm`, with the evaluation's own environment
plus WITNESS_WARM_FD (a SOCK_SEQPACKET socket to the gate), WITNESS_WARM_IMPORTS (the modules to import
now, none of them the repository's) and WITNESS_WARM_COMPILE (the repository files to compile, never run).
It imports those from the standard library and the set-up's environment, refusing every name the repository
provides, says `ready` (or `cold <why>`, when the imports did what a cold start would see otherwise), then for each request — the evaluation's stdin, stdout and stderr as
descriptors — forks one child that becomes the harness exactly as a cold start runs it, waits for it, has
warm_sweep.py put the sandbox back as the next evaluation must find it, and answers `done <wait status>`
(or `broken <wait status> <why>`). It never reads a verdict key: each arrives on its child's stdin.
"""

from __future__ import annotations

import ctypes
import gc
import importlib
import importlib.machinery
import json
import os
import random
import resource
import signal
import socket
import sys

import _signal

PR_SET_PDEATHSIG, PR_SET_DUMPABLE, PR_SET_CHILD_SUBREAPER = 1, 4, 36

_LIBC = ctypes.CDLL(None, use_errno=True)  # loaded once in the parent, not in every child
# fork(2) itself, holding the interpreter lock: no os.register_at_fork hook a dependency registered runs,
# in this process or in the child, where one would run before the harness has taken its key from stdin
_RAW_FORK = ctypes.PyDLL(None, use_errno=True).fork


SWEEP = None  # witness_gate/warm_sweep.py, given to serve() by the harness, loaded by path before any import
# what the parent and each child call once dependencies have been imported is bound now, before they are
_listdir, _recv_fds, _waitpid, _close, _loads = os.listdir, socket.recv_fds, os.waitpid, os.close, json.loads
_dup2, _closerange, _setsid, _setrlimit, _chdir = os.dup2, os.closerange, os.setsid, resource.setrlimit, os.chdir
# the C function: signal.pthread_sigmask would make an enum of each of the 60-odd signals in every child
_exit, _sigmask, _random_state = os._exit, _signal.pthread_sigmask, random.getstate
_gc_unfreeze, _gc_enable = gc.unfreeze, gc.enable
_FUNCTION, _MODULE = type(lambda: None), type(sys)
_FILL_CACHE = importlib.machinery.FileFinder._fill_cache.__code__  # the import system listing a folder
CLOSE_RANGE = 436  # the same number on x86_64 and aarch64
ALL_FDS = 0x7FFFFFFF  # close_range's bound: not the soft open-file limit, which a dependency may have lowered


def _fork() -> int:
    pid = _RAW_FORK()
    if pid < 0:
        raise OSError(ctypes.get_errno(), "fork failed")
    return pid


def _prctl(option: int, value: int) -> None:
    _LIBC.prctl(option, value, 0, 0, 0)


def provided(root: str) -> set[str]:
    """Top-level names the checkout offers at its root and src/ (which come before installed packages)."""
    names = set()
    for folder in (root, os.path.join(root, "src")):
        try:
            entries = os.listdir(folder)
        except OSError:
            continue
        names.update(entry.split(".", 1)[0] for entry in entries)
    return names


class _Asked:
    """First on sys.meta_path while the parent imports, with the repository on sys.path as a cold start has
    it: refuses and notes every name asked for that the repository provides (an optional `import` a
    dependency makes, which would run the repository's code in the parent)."""

    def __init__(self, shadowed: set[str]) -> None:
        self.shadowed, self.asked = shadowed, []

    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in self.shadowed:
            self.asked.append(name)
            raise ModuleNotFoundError(f"{name} is the repository's: not imported in the warm parent")
        return None


def _import(name: str) -> None:
    """As the evaluation's `import a.b` (`a.b`) or `from a import b` (`a>b`) would: a name the package
    already has as an attribute is that attribute (the check `from` makes, cold too), else its submodule."""
    module, _, attribute = name.partition(">")
    try:
        if attribute and hasattr(importlib.import_module(module), attribute):
            return
        importlib.import_module(f"{module}.{attribute}" if attribute else module)
    except BaseException:  # noqa: BLE001 - the evaluation imports it again and meets the same failure
        pass


class _Watch:
    """An audit hook, added before the imports and doing nothing once they are done (a hook cannot be
    removed: every child carries it, idle): notes the first thing the imports did that a cold start, with
    the repository on sys.path and the key already read, would not have seen the same."""

    def __init__(self) -> None:
        self.real_root, self.on, self.busy, self.seen = "/", False, False, ""

    def __call__(self, event: str, args: tuple) -> None:
        if not self.on or self.seen or self.busy:
            return
        self.busy = True  # realpath below may raise events of its own
        try:
            self.seen = self._judge(event, args)
        finally:
            self.busy = False

    def _judge(self, event: str, args: tuple) -> str:
        if event == "sys.addaudithook":  # a hook that would run in every child before the key is read
            return "added an audit hook"
        if event == "open" and isinstance(args[0], (str, bytes)):
            where = os.path.realpath(os.fsdecode(args[0])) + os.sep  # relative: the working directory, /repo
            return f"read the repository's {os.fsdecode(args[0])}" if where.startswith(self.real_root) else ""
        if event in ("os.listdir", "os.scandir") and _caller(3) is not _FILL_CACHE:
            return "listed a folder (a scan of the import path finds the repository's files only cold)"
        return ""


WATCH = _Watch()  # added by serve, before any dependency runs


def _caller(depth: int):
    """The code of the frame `depth` above this one (the hook's caller's caller ...), or None."""
    frame = sys._getframe(depth)
    return frame.f_code if frame is not None else None


def warm_imports(names: list[str], root: str, path: list[str]) -> str:
    """Import `names` (never the repository's); '' when the result is what a cold start imports too.

    `path` is each evaluation's (harness_imports.path_plan): the gate's copy first, the standard library, the
    repository, installed packages, then the set-up's environment and the folders its .pth files name.
    """
    saved = list(sys.path)
    before = (set(sys.modules), set(_listdir("/proc/self/fd")), _random_state(), list(sys.path_hooks))
    real_root = os.path.realpath(root) + os.sep
    # the repository's folders stay where a cold start has them, so that a dependency probing the path
    # (a stat, PathFinder.find_spec) sees what it would see cold; _Asked refuses importing from them
    sys.path[:] = path
    shadowed = provided(root)
    asked = _Asked(shadowed)
    sys.meta_path.insert(0, asked)
    WATCH.real_root, WATCH.on = real_root, True
    for name in names:  # in the order the property's module imports them
        if name.split(">")[0].split(".")[0] not in shadowed:
            _import(name)
    WATCH.on = False
    kept_finder = asked in sys.meta_path
    if kept_finder:
        sys.meta_path.remove(asked)
    moved_path, sys.path[:] = sys.path != path, saved
    for path in list(sys.path_importer_cache):  # a finder a dependency made for a folder of the repository
        if (os.path.realpath(path) + os.sep).startswith(real_root):
            del sys.path_importer_cache[path]
    for name in sorted(set(sys.modules) - before[0]):
        module = sys.modules[name]
        if isinstance(module, _MODULE) and type(module) is not _MODULE:  # a lazy module: its code would run
            return f"the set-up environment imports {name} as a module that loads itself later"  # unwatched
        plain = type(module) is _MODULE  # not an object put there (typing.io is a class): its file is read
        where = os.path.realpath(plain and module.__dict__.get("__file__") or "/")  # no __getattr__ runs
        if name.split(".")[0] in shadowed or where.startswith(real_root):
            return f"the set-up environment imports {name}, which the repository also provides"
    if asked.asked:
        return f"the set-up environment asks for {asked.asked[0]}, which the repository provides"
    if not kept_finder:
        return "importing the dependencies rearranged the import system"
    if moved_path:  # each child takes the path read before the imports: a folder a package added would be lost
        return "importing the dependencies changed sys.path"
    return _changed(before[1:], real_root)


def _changed(before: tuple, real_root: str) -> str:
    """What else the imports left that a cold start would not (''): run in the parent, seen by every child."""
    held, drawn, hooks = before
    if WATCH.seen:
        return f"importing the dependencies {WATCH.seen}"
    ran = _repository_code(real_root)
    if ran:  # a plugin loader that ran a file of the checkout, in the parent every child comes from
        return f"the set-up environment ran the repository's {ran}"
    if sys.path_hooks != hooks:  # a cold start inserts the repository's hook first, then imports
        return "importing the dependencies changed sys.path_hooks"
    if _random_state() != drawn:  # a cold start seeds first, so those draws come from the pinned seed
        return "importing the dependencies drew from the random module"
    threading = getattr(sys.modules.get("threading"), "__dict__", {})
    if sys.gettrace() or sys.getprofile() or threading.get("_trace_hook") or threading.get("_profile_hook"):
        # it would run in every child before the key is read
        return "importing the dependencies set a trace or profile function"
    if any(signal.getitimer(t)[0] for t in (signal.ITIMER_REAL, signal.ITIMER_VIRTUAL, signal.ITIMER_PROF)):
        return "importing the dependencies armed a timer (a fork does not inherit it)"
    if gc.callbacks:  # it would run in the parent, between evaluations
        return "importing the dependencies registered a garbage-collection callback"
    if len(_listdir("/proc/self/task")) != 1:
        return "importing the dependencies started a thread"
    if set(_listdir("/proc/self/fd")) - held:  # each evaluation closes every descriptor but its three
        return "importing the dependencies opened a file it keeps"
    if SWEEP.others():
        return "importing the dependencies started a process"
    if _shared_writable():
        return "importing the dependencies mapped memory every evaluation would share"
    if _LIBC.syscall(CLOSE_RANGE, ALL_FDS, ALL_FDS, 0) != 0:  # else each child would close 2**31 numbers one by one
        return "importing the dependencies left close_range refused"
    return ""


def _repository_code(real_root: str) -> str:
    """The file of a function or module the repository's code made here, if any ran ('' when none did)."""
    places: dict[str, bool] = {}
    for thing in gc.get_objects():
        kind = type(thing)
        if kind is _FUNCTION:
            name = thing.__code__.co_filename
        elif kind is _MODULE and isinstance(thing.__dict__.get("__file__"), str):
            name = thing.__dict__["__file__"]  # a module run by path, kept outside sys.modules
        else:
            continue
        if name not in places:  # a relative name was read from the working directory, the checkout
            places[name] = not name.startswith("<") and (
                not name.startswith("/") or (os.path.realpath(name) + os.sep).startswith(real_root))
        if places[name]:
            return name
    return ""


def _shared_writable() -> bool:
    """A shared mapping that may be made writable (mw), even one mapped read-only: children would write
    it together (glibc's read-only gconv cache cannot be, and is no channel)."""
    shared = False
    with open("/proc/self/smaps", encoding="ascii", errors="replace") as smaps:
        for line in smaps:
            if line.startswith("VmFlags:"):
                flags = line.split()[1:]
                shared = shared or ("sh" in flags and "mw" in flags)
    return shared


def _become_the_harness(fds: list[int], cpu: int, control: int, root: str, mask, collecting: bool) -> None:
    """In the child: the descriptors, session, limits, signal mask, garbage collection and working directory
    of a cold start (its argv is set once, in serve); nothing of the parent's channel, `control`."""
    _sigmask(_signal.SIG_SETMASK, mask)  # signals sent to the parent stay pending there: a child has none
    _gc_unfreeze()
    if collecting:
        _gc_enable()
    _close(control)
    for target, fd in enumerate(fds):
        _dup2(fd, target)
    _closerange(3, ALL_FDS)
    _chdir(root)  # where the harness was started: a dependency's chdir in the parent does not move the property
    _setsid()
    _prctl(PR_SET_PDEATHSIG, 9)  # as bubblewrap's --die-with-parent leaves a cold harness
    _prctl(PR_SET_DUMPABLE, 1)
    _prctl(PR_SET_CHILD_SUBREAPER, 0)
    _setrlimit(resource.RLIMIT_CPU, (cpu, cpu))  # counted from this fork, as from a fresh process


def compile_reached(files: list[str], prop: str, root: str, precompile) -> None:
    """Compile the repository files the property (`prop`, its relpath) reaches under the names its
    evaluations' loaders use: the property's own as given, the rest by their path in the checkout."""
    for number, relpath in enumerate(files):
        precompile(prop if number == 0 else os.path.join(root, relpath))


def serve(main, path: list[str], precompile, sweep) -> None:
    """Warm up, then fork one harness per request until the gate closes the socket (never returns).

    `main` is the harness's, for each child; `path` each evaluation's import path (see warm_imports)."""
    global SWEEP
    SWEEP = sweep
    sys.addaudithook(WATCH)  # first of all: it sees a dependency add a hook of its own
    sys.argv[1:] = []  # the argv of a cold harness, for the imports and every child
    sys.orig_argv[:] = [a for a in sys.orig_argv if a != "--warm"]
    try:  # OpenSSL looks up an HMAC's digest on first use: done here once, not in every child
        __import__("_hashlib").hmac_digest(b"", b"", "sha256")
    except (ImportError, ValueError):
        pass
    control = socket.socket(fileno=int(os.environ.pop("WITNESS_WARM_FD")))
    control_fd, root = control.fileno(), os.getcwd()  # read before any dependency runs
    names = [n for n in os.environ.pop("WITNESS_WARM_IMPORTS", "").split(",") if n]
    files = json.loads(os.environ.pop("WITNESS_WARM_COMPILE", "[]"))
    prop = os.environ.get("WITNESS_PROPERTY", "").partition("::")[0]  # read before any dependency runs
    modes = SWEEP.fresh()  # before anything can have changed them
    _prctl(PR_SET_DUMPABLE, 0)  # an evaluation cannot trace this process or read its memory
    _prctl(PR_SET_CHILD_SUBREAPER, 1)  # what an evaluation leaves comes back here to be reaped
    why = warm_imports(names, root, path)
    # from here no Python signal handler a dependency set runs in the parent, where every later child would
    # inherit what it changed: an evaluation's kill of its parent (or of -1) waits there, blocked, for ever
    mask = tuple(_sigmask(_signal.SIG_BLOCK, signal.valid_signals()))
    compile_reached(files, prop, root, precompile)
    _LIBC.malloc_trim(0)  # what compiling took and gave back leaves the address space every child inherits
    # what the imports wrote (a cache under HOME) is kept and put back before every evaluation, the first too
    kept = SWEEP.snapshot() if not why else []
    why = why or (kept if isinstance(kept, str) else SWEEP.sweep(modes, kept))
    fingerprint = SWEEP.fingerprint()
    control.send(f"cold {why}".encode() if why else b"ready")
    if why:
        _exit(0)
    collecting = gc.isenabled()
    gc.disable()  # no garbage of a dependency's is collected here, so none of its finalizers runs between
    gc.freeze()  # evaluations; each child collects again, as the imports left it
    while True:
        message, fds, _flags, _addr = _recv_fds(control, 4096, 3)
        if not message or len(fds) != 3:
            _exit(0)
        cpu = int(_loads(message)["cpu"])
        pid = _fork()
        if pid == 0:
            try:  # whatever fails here ends this child alone, with no verdict and none of the parent's teardown
                _become_the_harness(fds, cpu, control_fd, root, mask, collecting)
                main()
            finally:
                _exit(70)
        for fd in fds:
            _close(fd)
        status = _waitpid(pid, 0)[1]
        why = SWEEP.sweep(modes, kept) or SWEEP.moved(fingerprint)
        control.send(f"done {status}".encode() if not why else f"broken {status} {why}".encode())
        if why:
            _exit(0)
