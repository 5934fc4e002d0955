"""The warm parent, inside the sandbox: one interpreter per series that forks each evaluation (standard library only).

Started as `python -P -s -B <gate>/witness_gate/harness.py --warm`, with the evaluation's own environment
and CPU limit (its hard limit the series'), plus WITNESS_WARM_FD (a SOCK_SEQPACKET socket to the gate),
WITNESS_WARM_IMPORTS (the modules to import now, none of them the repository's) and WITNESS_WARM_COMPILE (the
repository files to compile, never run) and, for a series that replays at once, WITNESS_WARM_CORE (the core the
parent binds itself to once its imports ran) and WITNESS_WARM_CORES (a cold start's cores, which each child gets
back). It imports those from the standard library and the set-up's
environment as the property's module would (from code of its path, in a module of its name), refusing every
name the repository provides; says `ready`, or `cold <why>` when warm_checks.py finds the imports did what a
cold start would see otherwise; then forks one child ahead of each request (the evaluation's CPU seconds; its
stdin, stdout and stderr as descriptors), which takes the request itself and becomes the harness exactly as a
cold start runs it, waits for it, has warm_sweep.py put the sandbox back as the next evaluation must find it,
and answers `done <wait status>` (or `broken <wait status> <why>`). It never reads a verdict key: each arrives on its child's stdin. Once the
imports ran, the parent calls only C functions bound before them, and touches what they left through exact
types only (warm_checks.py), so no code of theirs runs here again.
"""

from __future__ import annotations

import _signal
import _socket
import ctypes
import gc
import importlib.machinery
import json
import os
import random
import resource
import sys

PR_SET_PDEATHSIG, PR_SET_DUMPABLE, PR_SET_CHILD_SUBREAPER = 1, 4, 36

_LIBC = ctypes.CDLL(None, use_errno=True)  # loaded once in the parent, not in every child
_PRCTL, _MALLOC_TRIM = _LIBC.prctl, _LIBC.malloc_trim  # looked up now: CDLL's __getattr__ is Python's
# fork(2) itself, holding the interpreter lock: no os.register_at_fork hook a dependency registered runs,
# in this process or in the child, where one would run before the harness has taken its key from stdin
_RAW_FORK = ctypes.PyDLL(None, use_errno=True).fork
_C_PROFILE, _C_TRACE = ctypes.pythonapi.PyEval_SetProfile, ctypes.pythonapi.PyEval_SetTrace
_C_PROFILE.argtypes = _C_TRACE.argtypes = (ctypes.c_void_p, ctypes.c_void_p)
_C_PROFILE.restype = _C_TRACE.restype = None


SWEEP = CHECKS = None  # warm_sweep.py and warm_checks.py, given to serve() by the harness, loaded by path first
# what the parent and each child call once dependencies have been imported is bound now, before they are: C
# functions, called on the control socket as such (a dependency may patch socket.socket's methods)
_recvmsg, _send = _socket.socket.recvmsg, _socket.socket.send
_SCM = (_socket.SOL_SOCKET, _socket.SCM_RIGHTS, _socket.CMSG_LEN(3 * 4))
_waitpid, _close, _dup2, _closerange, _setsid = os.waitpid, os.close, os.dup2, os.closerange, os.setsid
_pipe, _read, _write, _getcwd, _setaffinity = os.pipe, os.read, os.write, os.getcwd, os.sched_setaffinity
_setrlimit, _chdir, _RLIMIT_CPU, _getframe = resource.setrlimit, os.chdir, resource.RLIMIT_CPU, sys._getframe
_MODULES, _SIG_BLOCK, _SIG_SETMASK = sys.modules, _signal.SIG_BLOCK, _signal.SIG_SETMASK
_setprofile, _settrace, _getprofile, _gettrace = sys.setprofile, sys.settrace, sys.getprofile, sys.gettrace
# the C function: signal.pthread_sigmask would make an enum of each of the 60-odd signals in every child
_exit, _sigmask, _SIGNALS = os._exit, _signal.pthread_sigmask, tuple(sorted(_signal.valid_signals()))
_gc_unfreeze, _gc_enable, _gc_disable, _gc_freeze, _gc_isenabled = (gc.unfreeze, gc.enable, gc.disable, gc.freeze,
                                                                      gc.isenabled)
_MODULE, _DICT, _type, _int, _len, _enumerate, _all, _compile, _exec = (type(sys), dict, type, int, len, enumerate,
                                                                        all, compile, exec)
_list, _posixpath, _set, _range = list, os.path, set, range
_SETUP_ANNOTATIONS = bytes([__import__("opcode").opmap["SETUP_ANNOTATIONS"]])
_FUTURE = __import__("__future__")
_FDS = __import__("array").array("i")  # its frombytes, for the descriptors a request carries
_SYS_DICT, _zip = sys.__dict__, zip
_FILE_FINDER = importlib.machinery.FileFinder  # with the interpreter's own loaders, for _nowhere's fresh look
_LOADERS = importlib._bootstrap_external._get_supported_file_loaders()
_SEARCH: list = []  # the evaluation's import path but the repository's folders (warm_imports)
# what the import system caches for a folder: its own finders, or None (no finder); a dependency's object is neither
_PLAIN_FINDERS = (_FILE_FINDER, __import__("zipimport").zipimporter, type(None))
_FINDERS = (tuple(sys.meta_path), tuple(sys.path_hooks))  # as the interpreter started (this file loads before imports)
_KEPT: list = []  # the stand-in property module the imports ran in (warm_imports), serve's frame
_OWN: list = []  # the dicts of the gate's modules loaded by path (harness_imports, warm_sweep, warm_checks, this)
_EXACT: list = []
ALL_FDS = 0x7FFFFFFF  # close_range's bound: not the soft open-file limit, which a dependency may have lowered


def _fork() -> int:
    pid = _RAW_FORK()
    if pid < 0:
        raise OSError(ctypes.get_errno(), "fork failed")
    return pid


def _prctl(option: int, value: int) -> None:
    _PRCTL(option, value, 0, 0, 0)


def _request(control: _socket.socket, frombytes=type(_FDS).frombytes, make=type(_FDS), tolist=type(_FDS).tolist):
    """(cpu seconds, the three descriptors) of the next request; None once the gate closed the socket."""
    message, ancillary, _flags, _addr = _recvmsg(control, 64, _SCM[2])
    fds = make("i")
    for level, kind, data in ancillary:
        if level == _SCM[0] and kind == _SCM[1]:
            frombytes(fds, data[:_len(data) - _len(data) % 4])
    fds = tolist(fds)
    if not message or _len(fds) != 3 or not message.isdigit():
        return None
    return _int(message), fds


def _import(name: str, namespace: dict, where: str) -> str:
    """As the property module's own `import a.b` (`a.b`), `import a as c` (`a=c`), `from a import b` (`a>b`) or
    `from a import b as c` (`a>b=c`), run from code compiled under its path and in a module of its name: a
    dependency that looks at who imports it (the frame's file, the importer's module) finds the property module,
    as it does cold. '' when it ran; "missing" when it found nothing to import (a module not installed, no code
    run, nothing left; or a name the module it imported does not have), which each child meets the same way;
    else "raised"."""
    rest, _, alias = name.partition("=")
    module, _, attribute = rest.partition(">")
    if not _all(part.isidentifier() for part in (*module.split("."), *([attribute] if attribute else []),
                                                 *([alias] if alias else []))):
        return "raised"
    statement = f"from {module} import {attribute}" if attribute else f"import {module}"
    ahead = _set(_MODULES)
    try:
        _exec(_compile(f"{statement} as {alias}" if alias else statement, where, "exec"), namespace)
    except ImportError as exc:  # a C-level match: nothing of a dependency's runs to tell
        parts = module.split(".")
        if not (_raised_by_the_import_system(exc, where) and _finders_as_started()):
            return "raised"  # a dependency's module or finder took part: it may answer otherwise in each child
        if _type(exc) is ModuleNotFoundError and _type(exc.name) is str and exc.name in {
                ".".join(parts[:n]) for n in _range(1, _len(parts) + 1)} and _set(_MODULES) == ahead \
                and _plain_packages(module) and _nowhere(module):
            return "missing"
        imported = _MODULES.get(module)
        if _type(exc) is ImportError and attribute and exc.name == module and _type(imported) is _MODULE \
                and _type(imported.__dict__) is _DICT and "__getattr__" not in imported.__dict__ \
                and _plain_packages(f"{module}.{attribute}") and _nowhere(f"{module}.{attribute}"):
            return "missing"  # the module imported, as it does in each child; the name is not in it, nor a submodule
        return "raised"
    except BaseException:  # noqa: BLE001 - the evaluation imports it again and meets the same failure
        return "raised"
    return ""


def _nowhere(name: str) -> bool:
    """Whether no folder of the path but the repository's holds `name`, each part in the folder the one before it
    is, as fresh finders of the gate's own read them: not what a dependency's finder, a package's `__path__` or a
    finder cached for a folder answered (any of which may decline once and find it in each child)."""
    folders, parts = _list(_SEARCH), name.split(".")
    for depth in _range(_len(parts)):
        full = ".".join(parts[:depth + 1])
        spec = next((found for found in (_FILE_FINDER(folder, *_LOADERS).find_spec(full) for folder in folders)
                     if found is not None), None)
        if spec is None:
            return True
        folders = _list(spec.submodule_search_locations or ())
        package = _MODULES.get(full)  # and the folders the imported package searches (a dependency may add one)
        where = package.__dict__.get("__path__") if _type(package) is _MODULE else None
        if _type(where) is _list:
            folders += [folder for folder in where if _type(folder) is str and folder not in folders]
    return False


def _dev_null_stdin() -> None:
    fd = os.open(os.devnull, os.O_RDONLY)
    _dup2(fd, 0)
    _close(fd)


def _finders_as_started() -> bool:
    """Whether sys.meta_path and sys.path_hooks hold the finders and hooks the interpreter started with, the very
    objects, in a list (read through sys's dict, by exact type: nothing of a dependency's runs here): a finder of a
    dependency's that declined once leaves no frame on the traceback of the ModuleNotFoundError it caused."""
    cache = _SYS_DICT.get("path_importer_cache")
    return _all(_type(now) is _list and _len(now) == _len(then) and _all(a is b for a, b in _zip(now, then))
                for now, then in ((_SYS_DICT.get("meta_path"), _FINDERS[0]), (_SYS_DICT.get("path_hooks"), _FINDERS[1]))
                ) and _type(cache) is _DICT and _all(_type(cache.get(folder)) in _PLAIN_FINDERS for folder in _SEARCH)


def _plain_packages(name: str) -> bool:
    """Whether every package `name` is in (imported) searches an exact list of exact strs, as the import system's
    own: a `__path__` whose iteration is a dependency's code may yield nothing once and more in each child."""
    parts = name.split(".")
    for depth in _range(1, _len(parts)):
        package = _MODULES.get(".".join(parts[:depth]))
        space = package.__dict__ if _type(package) is _MODULE else None
        where = space.get("__path__") if _type(space) is _DICT else None
        if _type(where) is not _list or not _all(_type(folder) is str for folder in where):
            return False
        cache = _SYS_DICT.get("path_importer_cache")  # and the finders cached for its folders are the system's
        if _type(cache) is not _DICT or not _all(_type(cache.get(folder)) in _PLAIN_FINDERS for folder in where):
            return False
    return True


def _raised_by_the_import_system(exc: BaseException, where: str) -> bool:
    """Whether no code but the statement's own (`where`) and the import system's is on `exc`'s traceback: no
    module or finder of a dependency's ran and raised it (a module that ran, changed something and then said it
    is missing would leave that for each child's retry)."""
    tb = exc.__traceback__.tb_next  # past _import's own frame, where it was caught
    while tb is not None:
        name = tb.tb_frame.f_code.co_filename
        if name != where and not (_type(name) is str and name.startswith("<frozen importlib")):
            return False
        tb = tb.tb_next
    return True


def warm_imports(names: list[str], root: str, path: list[str], prop: str, property_module, made_first: dict,
                 gate_package) -> tuple[str, tuple, bool]:
    """Import `names` (never the repository's) as the property module `prop` (its relpath) does: (why the series
    starts cold, '' when the result is what a cold start imports too; what the checks compare with; whether the
    imports left garbage collection on, as each child gets it back).

    `path` is each evaluation's (harness_imports.path_plan): the gate's copy first, the standard library, the
    repository, installed packages, then the set-up's environment and the folders its .pth files name.
    """
    saved = list(sys.path)
    before = CHECKS.snapshot(*_OWN, exact=_EXACT)
    real_root = CHECKS.real(root) + os.sep
    # the repository's folders stay where a cold start has them, so that a dependency probing the path
    # (a stat, PathFinder.find_spec) sees what it would see cold; Asked, the finder of each, refuses importing there
    sys.path[:] = path
    shadowed = CHECKS.provided(root)
    asked: list[str] = []  # what the imports asked for that the repository provides
    portions: list[str] = []  # what they found a namespace portion of there
    finders = {folder: CHECKS.Asked(folder, asked, portions) for folder in path if (
        CHECKS.real(folder) + os.sep).startswith(real_root)}  # where the path's search reaches the repository, and
    # only there (sys.meta_path untouched)
    sys.path_importer_cache.update(finders)
    _KEPT.append(finders)  # never freed here either: a weak callback a dependency tied to one runs no code of ours
    _SEARCH[:] = [folder for folder in path if folder not in finders]
    try:  # as harness.main imports it before it makes the property's module (harness_imports.gate_package)
        gate_package()
    except Exception as exc:  # noqa: BLE001 - each evaluation meets the same failure, cold
        return f"the gate's package did not import: {type(exc).__name__}", before, _gc_isenabled()
    # the property module as the harness makes it (harness_imports._load: its spec, loader and file), in
    # sys.modules while its first imports run
    try:
        importer = property_module(prop)
    except ImportError:
        return "the property's file is not a Python module", before, _gc_isenabled()
    name = importer.__spec__.name
    importer.__dict__.update(made_first)  # what the property's module has bound when its first import runs, cold
    made = _DICT(importer.__dict__)
    _MODULES[name] = importer
    CHECKS.WATCH.real_root, CHECKS.WATCH.own, CHECKS.WATCH.on = real_root, CHECKS.real(prop), True
    bound: dict = {}  # each name as its import statement bound it (a later library may rebind it in its importer)
    raised = ""
    for wanted in names:  # in the order the property's module imports them
        rest, _, alias = wanted.partition("=")
        if rest.partition(">")[0].split(".")[0] not in shadowed:
            failed = _import(wanted, importer.__dict__, prop)
            binds = alias or rest.partition(">")[2] or rest.split(".")[0]  # `from a import b`: b; `import a.b`: a
            bound[binds] = importer.__dict__.get(binds, bound)
            if failed:
                if failed == "raised":  # its code ran and failed: a retry in a child would find what it left
                    raised = f"importing the dependencies raised at {rest.replace('>', ' import ')}, which a " \
                             "cold start meets on its first attempt, with nothing an earlier one left"
                break  # cold, the property's module stops there (or an `except ImportError` goes on, as a child)
    traced = _gettrace() is not None or _getprofile() is not None  # a Python one: the series starts cold
    _C_PROFILE(None, None)  # and one set through the C API, with no object to see, is dropped
    _C_TRACE(None, None)
    _settrace(CHECKS.STRAY)  # from here to `ready`, only the gate's own Python code may run
    collecting = _gc_isenabled()
    _gc_disable()  # no finalizer of a dependency's runs here from now on (each child collects again)
    # before the watch is off: a thread still running could act unwatched, and a module whose class was
    # swapped would run code at the first attribute looked up in it
    why = ("importing the dependencies set a trace or profile function" if traced else ""
           ) or CHECKS.threads() or CHECKS.plain_modules() or CHECKS.stray()
    if not why and _getcwd() != root:  # cold, the property runs where its dependency went; each child goes to root
        why = "importing the dependencies changed the working directory"
    CHECKS.WATCH.on = False
    _KEPT.append(importer)  # never freed here: a finalizer a dependency tied to its importer never runs, as cold
    if not why and (CHECKS.held(importer.__dict__, importer)
                    or CHECKS.held(importer, _MODULES, _getframe(), _KEPT) or CHECKS.weakly_held(importer)):
        why = "the set-up environment keeps the module that imports it, which the property module is cold"
    extra = "" if why else CHECKS.set_in(importer, made, bound)
    if extra:
        why = (f"the set-up environment set {extra} in the module that imports it (the property's module, cold), "
               "or bound it to what its import statement did not")
    why = why or CHECKS.import_system(finders, path, real_root, root)
    if why:
        return why, before, collecting
    sys.path[:] = saved
    # the stand-in stays where the property's module goes in sys.modules, before what it imports, as cold: each
    # child's own property module takes its place there
    why = CHECKS.modules(before[0], shadowed, real_root, importer, name)
    if asked:
        why = why or f"the set-up environment asks for {asked[0]}, which the repository provides"
    if portions:  # cold, a package may extend its path with it (pkgutil's way, or by its own search)
        why = why or f"the set-up environment imports {portions[0]}, of which the repository has a namespace portion"
    why = why or raised
    return why or CHECKS.changed(before, real_root, importer), before, collecting


def _waiting(control: int, took_w: int, root: str, cores: tuple) -> None:
    """In the child forked ahead of its request, before it: what becoming the harness takes that no request
    decides, done while the gate still writes the fixture — the descriptors of a cold start but the gate's socket
    and the pipe to the parent, its working directory and session, the cores a cold start runs on (`cores`, when the
    parent bound itself to one), no profile or trace function (one set through the C API has no object
    final() could see). Garbage collection comes back once the key is read (_collecting_after): no finalizer of a
    dependency's runs before."""
    _setprofile(None)
    _settrace(None)
    if cores:
        _setaffinity(0, cores)
    _gc_unfreeze()
    low, high = (control, took_w) if control < took_w else (took_w, control)
    _closerange(3, low)
    _closerange(low + 1, high)
    _closerange(high + 1, ALL_FDS)
    _chdir(root)  # where the harness was started: a dependency's chdir in the parent does not move the property
    _setsid()
    _prctl(PR_SET_PDEATHSIG, 9)  # as bubblewrap's --die-with-parent leaves a cold harness
    _prctl(PR_SET_CHILD_SUBREAPER, 0)


def _become_the_harness(fds: list[int], cpu: int, control: int, mask) -> None:
    """In the child, once it has its request: the descriptors, signal mask, dumpability and CPU limit of a cold
    start (its argv is set once, in serve); nothing of the parent's channel, `control`, or of the pipe to it."""
    _sigmask(_SIG_SETMASK, mask)  # signals sent to the parent stay pending there: a child has none
    _close(control)
    for target, fd in _enumerate(fds):
        _dup2(fd, target)
    _closerange(3, ALL_FDS)
    _prctl(PR_SET_DUMPABLE, 1)  # only now: until its request nothing of the sandbox may trace it
    _setrlimit(_RLIMIT_CPU, (cpu, cpu))  # counted from this fork, as from a fresh process


def _collecting_after(read, collecting: bool):
    """The harness's key reader, after the collection counts are reset, then garbage collection as the imports
    left it."""
    def read_then_collect() -> str:
        # every evaluation's collection counts start here from the same place, gen 0's at 0, whatever the parent
        # did before its fork (its spare frame objects, which a child's first calls may or may not take, differ)
        _gc_freeze()
        _gc_unfreeze()
        key = read()
        if collecting:
            _gc_enable()
        return key

    return read_then_collect


def _arranger(use, hook, plan: tuple, root: str, known: tuple):
    """The harness's `arrange` for a child, made while it waits for its request: the import path read before the
    imports, made the child's now, with a repository hook of its own (`known`: the repository's folders' real paths,
    resolved before the imports); `arrange` gives the .pth lines not followed."""
    skipped = use(root, (_list(plan[0]), _list(plan[1]), hook(root, known)))

    def arrange(root: str, environment: str) -> list[str]:
        return skipped

    return arrange


def _reap_until(pid: int) -> int:
    """The wait status of `pid`, reaping every other process that ends meanwhile: the sandbox's init, as
    bubblewrap's is for a cold start, so an orphan the evaluation left that died is gone, not a zombie."""
    while True:
        reaped, status = _waitpid(-1, 0)
        if reaped == pid:
            return status


def _taken(control, control_fd: int, took_r: int, took_w: int, root: str, mask, cores: tuple, arguments) -> dict:
    """In the child forked ahead of a request: get ready (`arguments()` makes main's arguments), take the request,
    tell the parent so, become the harness and hand them back; whatever fails here ends this child alone, with no
    verdict and none of the parent's teardown."""
    try:
        _close(took_r)
        _waiting(control_fd, took_w, root, cores)
        made = arguments()
        request = _request(control)
        if request is not None:
            _write(took_w, b"!")  # the parent answers for this request once this process has ended
            _close(took_w)
            cpu, fds = request
            _become_the_harness(fds, cpu, control_fd, mask)
            return made
    except BaseException:  # noqa: BLE001 - see above
        pass
    _exit(70)


def _made_first(compiled) -> dict:
    """What the property's module (`compiled`: harness_imports.COMPILED's entry) binds before its first import runs,
    cold: its docstring, and an empty `__annotations__` when it annotates a name at module level."""
    if not compiled:
        return {}
    code, made = compiled[1], {}
    if code.co_names[:1] == ("__doc__",) and _type(code.co_consts[0]) is str:
        made["__doc__"] = code.co_consts[0]
    if code.co_code[2:3] == _SETUP_ANNOTATIONS:  # after RESUME: the module's first instruction
        made["__annotations__"] = {}
    for name in _FUTURE.all_feature_names:  # `from __future__ import x` binds x, and leaves its flag on the code
        feature = getattr(_FUTURE, name)
        if feature.compiler_flag and code.co_flags & feature.compiler_flag and name in code.co_names:
            made[name] = feature
    return made


def compile_reached(files: list[str], prop: str, root: str, precompile) -> None:
    """Compile the repository files the property (`prop`, its relpath) reaches under the names its
    evaluations' loaders use: the property's own as given, the rest by their path in the checkout."""
    for number, relpath in enumerate(files):
        precompile(prop if number == 0 else os.path.join(root, relpath), as_cold=number == 0)


def serve(settings: tuple, plan: tuple, imports, sweep, checks, read_key, cold: frozenset) -> dict:
    """Warm up, then fork one harness per request until the gate closes the socket: returns only in each child,
    once it is the harness, with the arguments of the harness's `main` for its evaluation.

    Those are `settings` (the WITNESS_* variables as pairs) and `plan` (each evaluation's import path and the
    .pth lines not followed, see warm_imports), and `read_key` what it reads its key with; `imports`
    harness_imports.py, which compiles the checkout, makes the property's module and the repository's path hook
    (made anew in each child: nothing of the parent's reaches it); `cold` the modules a cold harness has."""
    global SWEEP, CHECKS
    SWEEP, CHECKS = sweep, checks
    # this frame outlives its return in each child, with its locals: freeing the checks' snapshot there would write
    # to every page it spans (about 400 more copied pages an evaluation); made first, so that each child finds the
    # interpreter's spare frame objects as every other child does
    _KEPT.append(_getframe())
    _OWN[:] = [imports.__dict__, sweep.__dict__, checks.__dict__, globals()]
    CHECKS.trust(*_OWN)  # before any dependency runs: the code the parent runs after them is this, by identity
    _EXACT[:] = [imports.COMPILED]  # what a child runs for the checkout's files
    sys.addaudithook(CHECKS.WATCH)  # first of all: it sees a dependency add a hook of its own
    sys.argv[1:] = []  # the argv of a cold harness, for the imports and every child
    sys.orig_argv[:] = [a for a in sys.orig_argv if a != "--warm"]
    try:  # OpenSSL looks up an HMAC's digest on first use: done here once, not in every child
        __import__("_hashlib").hmac_digest(b"", b"", "sha256")
    except (ImportError, ValueError):
        pass
    control = _socket.socket(fileno=int(os.environ.pop("WITNESS_WARM_FD")))  # (socket.py: 2 ms of imports a start)
    # the series' word, the gate's first message, read before any dependency runs: every answer carries it, so code
    # that runs while the imports do, and finds the socket, cannot answer for the parent without reaching into it
    word = _recvmsg(control, 64, 0)[0] + b" "
    control_fd, root = control.fileno(), os.getcwd()  # read before any dependency runs
    names = [n for n in os.environ.pop("WITNESS_WARM_IMPORTS", "").split(",") if n]
    # the core this parent binds itself to once its imports ran (a series that replays at once: runner._start_warm), and
    # the cores a cold evaluation runs on, which each child gets back
    core = os.environ.pop("WITNESS_WARM_CORE", "")
    cores = tuple(int(c) for c in os.environ.pop("WITNESS_WARM_CORES", "").split(",") if c.isdigit()) \
        if core.isdigit() else ()
    files = json.loads(os.environ.pop("WITNESS_WARM_COMPILE", "[]"))
    prop = os.environ.get("WITNESS_PROPERTY", "").partition("::")[0]  # read before any dependency runs
    modes = SWEEP.fresh()  # before anything can have changed them
    _prctl(PR_SET_DUMPABLE, 0)  # an evaluation cannot trace this process or read its memory
    # compiled before any dependency is imported: no loader, codec or hook of theirs takes part
    ahead = _set(_MODULES)
    compile_reached(files, prop, root, imports.precompile)
    cold = cold | (_set(_MODULES) - ahead)  # what compiling the property's module imported (unicodedata, a codec)
    # a cold harness compiles the property's module before any dependency runs; a child that had to compile it
    # after them could meet another codec, warnings filter or digit limit
    not_compiled = "" if prop in imports.COMPILED else "the property's module does not compile before its imports"
    _MALLOC_TRIM(0)  # what compiling took and gave back leaves the address space every child inherits
    random.seed(os.environ.get("WITNESS_SEED", ""))  # as a cold start seeds before the property module runs
    use_path, repository_hook = imports.use_path, imports._repository_hook  # bound before any import
    known = imports.resolved(root)  # a tuple of str pairs: nothing an import reaches changes it
    _posixpath.expandvars("$_"), _posixpath.expandvars(b"$_")  # its patterns, made now and not by an import
    for name in [n for n in _MODULES if n not in cold]:  # the parent's own (socket, ctypes, ...): bound here, and
        del _MODULES[name]  # a dependency that imports one or asks whether it was runs as under a cold harness
    _dev_null_stdin()  # a cold harness's fd 0 once its key is read, when the property's imports run
    early, bounds = SWEEP.fingerprint(), SWEEP.limits()
    why, before, collecting = warm_imports(names, root, _list(plan[0]), prop, imports.property_module,
                                           _made_first(imports.COMPILED.get(prop)), imports.gate_package)
    # what the imports set on this process that a fork hands on otherwise (a lowered CPU limit, a subreaper flag, a
    # freeze, a POSIX timer, a flag on a standard descriptor): a cold start's evaluation keeps it, a child would not
    why = not_compiled or why or SWEEP.moved(early, "importing the dependencies") or SWEEP.limits_lowered(bounds) \
        or SWEEP.roots_as_mounted(modes) \
        or ("importing the dependencies left a process running" if SWEEP.others() else "")  # cold, it runs on
    if cores:  # only now: the imports saw a cold start's cores; the forks, sweeps and exits from here stay on one
        try:
            _setaffinity(0, cores)  # what each child does first: tried here, where it can still start the series cold
            _setaffinity(0, (int(core),))
        except (OSError, ValueError):
            why = why or "the warm parent could not bind itself to a core"
    # only now, so that a dependency that made its process a subreaper moved the fingerprint: what an evaluation
    # leaves comes back here to be reaped
    _prctl(PR_SET_CHILD_SUBREAPER, 1)
    # from here no Python signal handler a dependency set runs in the parent, where every later child would
    # inherit what it changed: an evaluation's kill of its parent (or of -1) waits there, blocked, for ever
    mask = _sigmask(_SIG_BLOCK, _SIGNALS)
    # what the imports wrote (a cache under HOME) is kept and put back before every evaluation, the first too
    kept = SWEEP.snapshot() if not why else []
    why = why or (kept if _type(kept) is str else SWEEP.sweep(modes, kept)) or SWEEP.listed(kept)
    _gc_freeze()  # what the imports left is out of every child's collections but its own (gc is off here)
    fingerprint = SWEEP.fingerprint()
    why = why or CHECKS.final(before)  # the last word: nothing of a dependency's runs in this process after it
    _settrace(None)
    why = why or CHECKS.stray()
    _send(control, word + (f"cold {why}".encode() if why else b"ready"))
    if why:
        _exit(0)
    # the first child is forked after a sweep, as every later one: one's side effects on the interpreter (the
    # spare frame objects its exceptions leave) would otherwise tell the first evaluation from the next
    if SWEEP.sweep(modes, kept) or SWEEP.moved(fingerprint):
        _exit(0)
    while True:
        if CHECKS.WATCH.hooked is not False:
            _exit(0)
        # the next evaluation's process is forked now, from the parent as swept, and takes the gate's next request
        # itself: the fork is paid while the gate reads the last verdict and writes the next fixture
        took_r, took_w = _pipe()
        pid = _fork()
        if pid == 0:  # main's arguments, for the harness to call it at its top level, as deep as a cold start
            return _taken(control, control_fd, took_r, took_w, root, mask, cores, lambda: _DICT(
                settings=_DICT(settings), arrange=_arranger(use_path, repository_hook, plan, root, known),
                read=_collecting_after(read_key, collecting)))
        _close(took_w)
        status = _reap_until(pid)
        took = _read(took_r, 1)
        _close(took_r)
        if not took:  # the child ended before it took a request: the parent takes it, and answers for it
            request = _request(control)
            if request is None:
                _exit(0)
            for fd in request[1]:
                _close(fd)
        why = SWEEP.sweep(modes, kept) or SWEEP.moved(fingerprint)
        _send(control, word + (f"done {status}".encode() if not why else f"broken {status} {why}".encode()))
        if why:
            _exit(0)
