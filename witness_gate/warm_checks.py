"""What a warm parent's imports must not have left, inside the sandbox (standard library only).

harness.py loads this file by path, as warm_sweep.py, before any dependency is imported, so what it calls was
bound before a dependency ran. After the imports only the gate's own code runs (STRAY sees to it), calling C
functions bound then (a real path is the kernel's, read through /proc, not posixpath's, which looks `os.lstat`
up when it runs), sys is read through its own dict, and whatever the imports left is touched only after a `type(x) is ...` test: no `isinstance`, `==`,
`in` over a list, or attribute of an object a dependency made runs, so none of its code (a property, `__eq__`,
`__class__`, `__fspath__`, a patched `os` function) runs in the parent after the watch, where every child would
inherit what it did. `final()` asks everything again as the last word before `ready`, and the watch's `hooked`
is asked before every fork: an audit hook added at any time since the parent started ends the warm start.
"""

from __future__ import annotations

import _random
import _signal as _signal_module
import builtins
import ctypes
import gc
import importlib.machinery
import mmap
import os
import random
import sys
import types
import weakref

_FUNCTION, _MODULE, _STR, _LIST, _DICT, _INT = type(lambda: None), type(sys), str, list, dict, int
_METHOD, _MMAP, _MAP_PRIVATE, _CODE, _id = types.MethodType, mmap.mmap, mmap.MAP_PRIVATE, types.CodeType, id
# ctypes' own getters of what a call of a C function runs besides it (a dependency may give a subclass properties)
_CFUNC, _CFUNC_FIELDS = ctypes._CFuncPtr, tuple(ctypes._CFuncPtr.__dict__[n] for n in ("restype", "argtypes", "errcheck"))
_FILL_CACHE = importlib.machinery.FileFinder._fill_cache.__code__  # the import system listing a folder
# importlib.metadata listing a folder of the path for distributions (a library reading its own version when
# imported): told by its standard library file and name, since the module may not be imported yet
_METADATA_LISTING = ("children", os.path.join(os.path.dirname(importlib.machinery.__file__), "metadata", "__init__.py"))
# names typing puts in sys.modules that are classes, not modules: never looked at, never run
INERT = frozenset({"typing.io", "typing.re"})
CLOSE_RANGE = 436  # the same number on x86_64 and aarch64
ALL_FDS = 0x7FFFFFFF  # close_range's bound: not the soft open-file limit, which a dependency may have lowered
SEP, _O_RDONLY, _O_PATH = os.sep, os.O_RDONLY | os.O_CLOEXEC, os.O_PATH | os.O_CLOEXEC
_listdir, _getframe, _gettrace, _getprofile, _settrace = (os.listdir, sys._getframe, sys.gettrace, sys.getprofile,
                                                        sys.settrace)
_getitimer, _get_objects, _get_referrers = _signal_module.getitimer, gc.get_objects, gc.get_referrers
_os_open, _os_read, _os_close, _readlink, _getcwd, _getpid = os.open, os.read, os.close, os.readlink, os.getcwd, os.getpid
_SYS, _MODULES, _GC = sys.__dict__, sys.modules, gc.__dict__  # read through these: sys's class may be swapped
_MT_STATE, _RANDOM = _random.Random.getstate, random._inst  # the C method: no Random.VERSION a property can stand in
_ITIMERS = (_signal_module.ITIMER_REAL, _signal_module.ITIMER_VIRTUAL, _signal_module.ITIMER_PROF)
_SIGNALS, _getsignal = tuple(sorted(_signal_module.valid_signals())), _signal_module.getsignal
_SYSCALL = ctypes.CDLL(None, use_errno=True).syscall
_BUILTINS = builtins.__dict__
_len, _type, _list, _tuple, _set, _any, _all, _zip, _next = len, type, list, tuple, set, any, all, zip, next
_weakrefcount = weakref.getweakrefcount


def provided(root: str) -> set[str]:
    """Top-level names the checkout offers at its root and src/ (which come before installed packages): what an
    evaluation's loader imports there, a `.py` file or a package (a folder with `__init__.py`); a folder without
    one is at most a namespace portion, which a package installed later on the path wins over (Asked notes it)."""
    names = set()
    for folder in (root, os.path.join(root, "src")):
        try:
            entries = os.listdir(folder)
        except OSError:
            continue
        names.update(entry[:-3] for entry in entries if entry.endswith(".py") and os.path.isfile(
            os.path.join(folder, entry)))
        names.update(entry for entry in entries if os.path.isfile(os.path.join(folder, entry, "__init__.py")))
    return names


def real(path: str) -> str:
    """Where `path` is, as the kernel resolves it (an O_PATH descriptor read back through /proc: only C runs);
    a path that cannot be opened is taken as written, a relative one under the working directory."""
    try:
        fd = _os_open(path, _O_PATH)
    except (OSError, ValueError):
        return path if path.startswith(SEP) else _getcwd() + SEP + path
    try:
        return _readlink(f"/proc/self/fd/{fd}")
    finally:
        _os_close(fd)


class Asked(importlib.machinery.FileFinder):
    """The finder of one of the repository's folders on sys.path (in sys.path_importer_cache) while the parent
    imports, with those folders where a cold start has them and sys.meta_path untouched: a FileFinder of the
    folder, as a cold start has there (a library that dispatches on the finder's type lists the folder, which
    the watch notes), that refuses and notes every module it would find (an optional `import` a dependency
    makes, which would run the repository's code in the parent)."""

    def __init__(self, path: str, asked: list, portions: list) -> None:
        super().__init__(path, (importlib.machinery.SourceFileLoader, importlib.machinery.SOURCE_SUFFIXES))
        self.asked, self.portions = asked, portions

    def find_spec(self, fullname, target=None):
        spec = super().find_spec(fullname, target)
        if spec is not None and spec.loader is None:  # a folder with no __init__.py: a namespace portion, which
            self.portions.append(fullname)  # a package may take in cold (pkgutil.extend_path, or its own search
            return None  # of the path through PathFinder): noted, the series starts cold
        if spec is not None:
            self.asked.append(fullname)
            raise ModuleNotFoundError(f"{fullname} is the repository's: not imported in the warm parent")
        return None


class Watch:
    """An audit hook, added before the imports (a hook cannot be removed: every child carries it, idle once the
    imports are done): while `on`, notes the first thing the imports did that a cold start, with the repository
    on sys.path and the key already read, would not have seen the same; at any time, whether anything added an
    audit hook of its own (`hooked`), which would run in every child before the key is read."""

    def __init__(self) -> None:
        self.real_root, self.own, self.on, self.busy, self.seen, self.hooked = "/", "", False, False, "", False

    def __call__(self, event: str, args: tuple) -> None:
        if event == "sys.addaudithook":
            self.hooked = True
            if _getpid() == _PARENT:  # never added here, flag or no flag (sys.addaudithook says nothing)
                raise RuntimeError("no audit hook is added in the warm parent")
        # by identity and exact type: an object put here is never asked for its truth (its code would run here,
        # untraced, in every child before the key is read)
        if self.on is not True or self.busy is not False or _type(self.seen) is not _STR or self.seen:
            return
        self.busy = True  # real() below raises events of its own
        try:
            self.seen = self._judge(event, args)
        finally:
            self.busy = False

    def _judge(self, event: str, args: tuple) -> str:
        if event == "sys.addaudithook":
            return "added an audit hook"
        kind = _type(args[0]) if event == "open" else None
        if kind is str or kind is bytes:
            where = real(os.fsdecode(args[0]))  # relative: the working directory, /repo
            if where == self.own:  # the property's own file, which the gate read and compiled already (linecache's
                return ""  # read of it for inspect.stack() or a traceback finds the same bytes warm and cold)
            return f"read the repository's {os.fsdecode(args[0])}" if (where + SEP).startswith(self.real_root) else ""
        if event in ("os.listdir", "os.scandir") and not _listing_of_the_path(_caller(3)):
            folder = args[0] if args else None  # None: the working directory, the checkout
            kind = _type(folder)
            if (kind is str or kind is bytes) and not (real(os.fsdecode(folder)) + SEP).startswith(self.real_root):
                return ""  # a folder of its own (a package finding its plugins): no file of the checkout in it
            return "listed a folder of the checkout (a scan of the import path finds the repository's files only cold)"
        if event == "ctypes.dlopen" and _type(args[0]) is _STR and SEP in args[0] and (
                real(args[0]) + SEP).startswith(self.real_root):  # its constructors run as it loads
            return f"loaded the repository's {args[0]} through ctypes"
        if event in ("ctypes.dlsym", "ctypes.dlsym/handle") and _type(args[1]) is str and args[1].startswith(
                ("Py", "_Py")):  # a pending call, a profile function, an interrupt: none of them a check sees
            return f"reached for the interpreter's {args[1]} through ctypes"
        return ""


WATCH = Watch()  # added by warm_parent.serve, before any dependency runs
_PARENT = _getpid()  # a name of this module: rebinding it is a change patched() sees
_WATCH_STATE = {"real_root": _STR, "own": _STR, "on": bool, "busy": bool, "seen": _STR, "hooked": bool}


def watch_changed() -> str:
    """'' while the watch is the gate's as made, with its state of the types it sets; else what changed (its class
    swapped, an object put in its state): asked by exact type only, so none of a dependency's code runs."""
    if _type(WATCH) is not Watch:
        return "importing the dependencies changed the gate's audit hook"
    state = WATCH.__dict__
    if _type(state) is not _DICT or _len(state) != _len(_WATCH_STATE) or _any(
            _type(name) is not _STR for name in _list(state)) or _any(
            _type(state.get(name)) is not kind for name, kind in _WATCH_STATE.items()):
        return "importing the dependencies changed the gate's audit hook"
    if state["hooked"] is not False:
        return "importing the dependencies added an audit hook"
    return ""


class Stray:
    """A trace function for the parent from the end of the imports to `ready` (called as each Python frame
    starts, never for C calls, never within a frame): notes the first Python function called there that is not
    the gate's own (a pending call a dependency queued, a finalizer, a patched function), which would have run
    after the watch."""

    def __init__(self) -> None:
        self.ran = ""

    def __call__(self, frame, event: str, arg) -> None:
        if event == "call" and not self.ran and (_id(frame.f_code) not in _TRUSTED
                                                 or _id(frame.f_globals) not in _TRUSTED_GLOBALS):
            name = frame.f_code.co_filename
            self.ran = name if _type(name) is _STR else "?"
            _settrace(None)  # seen once is enough: a call queued again and again would trace for ever
        return None


STRAY = Stray()
DROPPED: list = []  # the finders import_system took out of the cache, never freed in the parent
_TRUSTED: set[int] = set()  # the ids of the gate's own code objects, read before the imports (kept alive below)
# and of the dicts that code runs in: the gate's code in a function a dependency made with globals of its own is not
_TRUSTED_GLOBALS: set[int] = set()
_TRUSTED_CODE: list = []


def trust(*spaces: dict) -> None:
    """Note the code of every function and method in `spaces` (the gate's modules' dicts), nested code too, and the
    dicts themselves: the only Python code STRAY lets run, told by identity (a dependency's code can carry any file
    name) and run in one of those dicts as its globals."""
    todo = []
    for space in spaces:
        _TRUSTED_GLOBALS.add(_id(space))
        for value in _list(space.values()):
            members = _list(value.__dict__.values()) if _type(value) is type else [value]
            todo += [member.__code__ for member in members if _type(member) is _FUNCTION]
    while todo:
        code = todo.pop()
        if _id(code) not in _TRUSTED:
            _TRUSTED.add(_id(code))
            _TRUSTED_CODE.append(code)
            todo += [const for const in code.co_consts if _type(const) is _CODE]


def stray() -> str:
    """Asked as soon as the imports are done (a pending call runs at once) and last."""
    return f"the set-up environment's code ran after its imports ({STRAY.ran})" if STRAY.ran else ""


def _listing_of_the_path(code) -> bool:
    """Whether `code` lists a folder as a scan of the import path that finds the same warm and cold does (the
    checkout is read-only, and what a listing leads to, an import or a read of its files, is judged on its own):
    the import system's, or importlib.metadata's looking for distributions."""
    return code is _FILL_CACHE or (code is not None and code.co_name == _METADATA_LISTING[0]
                                   and code.co_filename == _METADATA_LISTING[1])


def _caller(depth: int):
    """The code of the frame `depth` above this one (the hook's caller's caller ...), or None."""
    frame = _getframe(depth)
    return frame.f_code if frame is not None else None


def _random_state() -> tuple:
    return _MT_STATE(_RANDOM)


def _handlers() -> tuple:
    return _tuple(_getsignal(s) for s in _SIGNALS)


# what a child runs before the property's module does, besides C: the harness (__main__), the modules whose Python
# code it calls (reading the fixture, seeding, making and loading the property's module) and those of the gate
SURFACE = ("__main__", "json", "json.decoder", "json.scanner", "random", "functools", "os", "posixpath",
           "genericpath", "importlib", "importlib.util", "importlib.machinery", "importlib._bootstrap",
           "importlib._bootstrap_external", "zipimport", "_imp", "marshal", "posix", "_thread", "_io", "_warnings",
           "stat")  # os.path.realpath looks stat.S_ISLNK up as each child makes its repository hook, before its key
# (the built-in modules the import system calls through by attribute: one a dependency patched runs its code in a
# failed import, with no frame left on the traceback)


def snapshot(*own, exact=()) -> tuple:
    """What the checks compare with, read before the imports: modules, descriptors, random's state, path hooks,
    builtins, signal handlers, and the surface (`own`: the dicts of the gate's modules loaded by path, outside
    sys.modules; `exact`: dicts of the gate's whose every entry must stay, the compiled checkout)."""
    return (_set(_MODULES), _set(_listdir("/proc/self/fd")), _random_state(), _tuple(_SYS["path_hooks"]),
            _DICT(_BUILTINS), _handlers(), _surface(own, exact), _c_functions(own))


def _c_functions(spaces: tuple) -> list:
    """Each C function the gate's modules bound (a fork, prctl, syscall), with its restype, argtypes and errcheck: a
    Python callable set there (an errcheck) runs at every call — as each child's fork returns, before its key."""
    found = []
    for space in spaces:
        for value in _list(space.values()):
            if _CFUNC in _type(value).__mro__:
                found.append((value, _tuple(field.__get__(value) for field in _CFUNC_FIELDS)))
    return found


def _surface(own: tuple, exact: tuple) -> tuple:
    """As they are now: each surface module's dict (`own`: the gate's, as dicts), each class it binds with the
    classes they inherit from, each function of either, the instances defaults are bound to, and the `exact`
    dicts: (spaces, classes, functions, instances, exact), each with a copy of its dict or its code and defaults."""
    spaces = [m.__dict__ for m in (_MODULES.get(name) for name in SURFACE) if _type(m) is _MODULE] + _list(own)
    classes, functions, seen = [], [], _set()
    for space in spaces:
        for value in _list(space.values()):
            if _type(value) is _FUNCTION:
                functions.append(value)
            elif _type(value) is type:  # importlib's classes say they are _frozen_importlib's: every one it binds
                for cls in value.__mro__:
                    if _type(cls) is type and cls is not object and id(cls) not in seen:
                        seen.add(id(cls))
                        classes.append((cls, _DICT(cls.__dict__)))
                        functions += _functions_in(cls.__dict__.values())
    instances = []  # an instance a default is bound to (the fixture's JSON decoder), with its dict
    for function in _list(functions):
        for default in function.__defaults__ or ():
            if _type(default) is _METHOD and _type(getattr(default.__self__, "__dict__", None)) is _DICT:
                space = default.__self__.__dict__
                instances.append((default.__self__, space, _DICT(space)))
    return ([(space, _DICT(space)) for space in spaces], classes,
            [(f, f.__code__, f.__defaults__, f.__kwdefaults__) for f in functions], instances,
            [(d, _DICT(d)) for d in exact])


def _functions_in(values) -> list:
    """The functions a class binds: plain ones, and those a classmethod, staticmethod or property wraps (their code is
    as much the class's: FileFinder.path_hook runs in each child as it makes its repository hook)."""
    found = []
    for value in _list(values):
        kind = _type(value)
        if kind is _FUNCTION:
            found.append(value)
        elif kind is classmethod or kind is staticmethod:
            found += [value.__func__] if _type(value.__func__) is _FUNCTION else []
        elif kind is property:
            found += [f for f in (value.fget, value.fset, value.fdel) if _type(f) is _FUNCTION]
    return found


def patched(before: tuple) -> str:
    """What the imports changed on the surface: a value rebound in one of its modules, an attribute of one of
    its classes, a function's code or defaults (harness.main's judge through `__main__`, a JSON decoder's
    method): cold, all of that runs before any dependency is imported."""
    modules, classes, functions, instances, exact = before[6]
    if _any(_any(a is not b for a, b in _zip((field.__get__(f) for field in _CFUNC_FIELDS), then))
            for f, then in before[7]):
        return "importing the dependencies changed how a C function the gate calls returns (its restype or errcheck)"
    for cls, then in classes:  # first: an attribute looked up below goes through them
        if _differs(cls.__dict__, then, exact=True):
            return f"importing the dependencies changed the class {then.get('__qualname__', '?')}"
    if _any(i.__dict__ is not d or _differs(d, then, exact=True) for i, d, then in instances) \
            or _any(_differs(d, then, exact=True) for d, then in exact):
        return "importing the dependencies changed an object of the gate (a decoder, the compiled checkout)"
    for now, then in modules:  # a module may gain names (a submodule imported), never lose or rebind one
        if _differs(now, then, exact=False):
            return f"importing the dependencies rebound a name of {then.get('__name__', '?')}"
    for function, code, defaults, kwdefaults in functions:
        if function.__code__ is not code or function.__defaults__ is not defaults \
                or function.__kwdefaults__ is not kwdefaults:
            return f"importing the dependencies patched {code.co_name}"
    return ""


def _differs(now, then: dict, exact: bool) -> bool:
    """A name of `then` gone or bound to another object in `now` (or, `exact`, a name added)."""
    return (_len(now) != _len(then) if exact else _len(now) < _len(then)) or _any(
        now.get(name, then) is not value for name, value in then.items())


def same_list(now, before) -> bool:
    """`now` is a plain list holding the very objects of `before`, in order (no element's `__eq__` runs)."""
    return _type(now) is _LIST and _len(now) == _len(before) and not _any(a is not b for a, b in _zip(now, before))


def threads() -> str:
    """Asked right after the imports, while the watch is still on (its `open` of /proc is nothing the watch
    minds; a listing would be), and again last: a thread that outlived them could act unwatched."""
    fd = _os_open("/proc/self/status", _O_RDONLY)
    try:
        status = _os_read(fd, 1 << 16)
    finally:
        _os_close(fd)
    return "importing the dependencies started a thread" if b"\nThreads:\t1\n" not in status else ""


def plain_modules() -> str:
    """'' when sys.modules is the interpreter's and holds plain modules under plain names. Asked first after
    the imports: a module whose class was swapped runs code at every attribute looked up in it, and an object
    that is not a module (a lazy module, Django's LazyObject in place of its module) at the first look."""
    if _SYS.get("modules") is not _MODULES or _type(_MODULES) is not _DICT:
        return "the set-up environment replaced sys.modules"
    for name, module in _list(_MODULES.items()):
        if _type(name) is not _STR:
            return "the set-up environment put a name that is not a string in sys.modules"
        if _type(module) is not _MODULE and name not in INERT:
            return f"the set-up environment puts {name} in sys.modules as an object that is not a plain module"
        space = module.__dict__ if _type(module) is _MODULE else {}
        if _type(space) is not _DICT or _any(_type(key) is not _STR for key in _list(space)):
            # a key of its own compares with every name looked up there: its __eq__ would run at each look
            return f"the set-up environment keeps a name that is not a string in {name}"
    return ""


def _mapped_files() -> list:
    """The lines of /proc/self/maps that name a file, each split into its six fields (read with the C functions
    bound before the imports)."""
    fd, chunks = _os_open("/proc/self/maps", _O_RDONLY), []
    try:
        while chunk := _os_read(fd, 1 << 16):
            chunks.append(chunk)
    finally:
        _os_close(fd)
    return [fields for fields in (line.split(maxsplit=5) for line in b"".join(chunks).split(b"\n"))
            if _len(fields) == 6]


def _mapped_writable_file() -> str:
    """'' unless a file of /tmp, /scratch or /dev/shm, or a deleted one, is mapped: the sweep writes those anew, so
    every child would map the file the imports made, where a cold start maps the one the evaluation writes."""
    for fields in _mapped_files():
        if (fields[5].startswith((b"/tmp/", b"/scratch/", b"/dev/shm/"))
                                  or fields[5].endswith(b" (deleted)")):
            return "importing the dependencies mapped a file the sweep writes anew (" + \
                fields[5].decode("utf-8", "replace") + ")"
    return ""


def modules(before: set, shadowed: set[str], real_root: str, stand_in, its_name: str) -> str:
    """'' when no module the imports added is the repository's (by its name or its file), but for the stand-in
    property module they ran in, under its own name only."""
    for name, module in _list(_MODULES.items()):
        if module is stand_in and name != its_name:  # a library that keeps its importer under a name of its own
            return "the set-up environment keeps the module that imports it, which the property module is cold"
        if name in before or _type(module) is not _MODULE or module is stand_in:  # plain_modules passed: INERT's
            continue
        file = module.__dict__.get("__file__")  # a plain module's own dict: no __getattr__ runs
        where = real(file) + SEP if _type(file) is _STR else SEP
        if name.split(".")[0] in shadowed or where.startswith(real_root):
            return f"the set-up environment imports {name}, which the repository also provides"
    return ""


def import_system(finders: dict, path: list[str], real_root: str, root: str) -> str:
    """'' when the import system is as the imports found it, but for finders of folders outside the repository
    (`finders`: the parent's own for the repository's folders, which must still be there); the finder a
    dependency made for a folder of the repository is dropped, here, where the gate's trace function sees any
    finalizer it has run, and so is every one a child would drop (harness_imports.use_path, by the name's text:
    a relative one, or one under `root`), which would otherwise be freed in each child before its key is read."""
    cache, now = _SYS.get("path_importer_cache"), _SYS.get("path")
    if _type(cache) is not _DICT or _any(_type(k) is not _STR for k in _list(cache)) or _any(
            cache.get(folder) is not finder for folder, finder in finders.items()):
        return "importing the dependencies rearranged the import system"
    for folder in _list(cache):  # ours, or a finder a dependency made for a folder of the repository
        if (real(folder) + SEP).startswith(real_root) or not folder.startswith(SEP) \
                or (folder + SEP).startswith(root + SEP):
            DROPPED.append(cache.pop(folder))  # kept: its finalizer, a C callable STRAY cannot see, never runs
    if _type(now) is not _LIST or _any(_type(p) is not _STR for p in now) or now != path:
        return "importing the dependencies changed sys.path"  # each child takes the path read before the imports
    return ""


def set_in(stand_in, made: dict, bound: dict) -> str:
    """A name in the stand-in's namespace bound otherwise than by making it (`made`, by identity), by the import
    statements (`bound`, each as its statement bound it), by running code in it (`__builtins__`, the builtins
    themselves) or by a warning attributed to it (`__warningregistry__`, held by it alone); '' when none. A library
    that sets or rebinds a name in the module that imports it would do so in the property's module cold, and the
    stand-in is not that module (an empty `__annotations__` is what asking a module for it makes)."""
    space = stand_in.__dict__
    for name in _list(space):
        if _type(name) is not _STR:
            return "?"
        value = space[name]
        if name in bound:
            kept = value is bound[name]
        elif name == "__annotations__":  # empty, and held by the stand-in alone (a library keeping it would see
            kept = _type(value) is _DICT and not value and (name not in made or value is made[name]) and _all(
                r is space or r is made for r in _get_referrers(value))  # the property's own fill it, cold)
        elif name in made:
            kept = value is made[name]
        elif name == "__builtins__":
            kept = value is _BUILTINS
        elif name == "__warningregistry__":
            kept = _type(value) is _DICT and _all(r is space for r in _get_referrers(value))
        else:
            kept = False
        if not kept:
            return name
    return _next((name for name in made if name not in space), "") or _next(  # a name removed from it
        (name for name, value in bound.items() if value is not bound and name not in space), "")


def weakly_held(thing) -> bool:
    """Whether a weak reference to `thing` (the stand-in property module) exists: a library that keeps its
    importer in a WeakSet would later find the stand-in, where cold it finds the property's module."""
    return _weakrefcount(thing) != 0


def held(thing, *ours) -> bool:
    """Whether anything but `ours` refers to `thing` (the stand-in property module, its namespace): a
    dependency that kept its importer's globals would read there what the property module sets later, cold."""
    return _any(not _any(r is o for o in ours) for r in _get_referrers(thing))


def changed(before: tuple, real_root: str, stand_in) -> str:
    """What else the imports left that a cold start would not (''): run in the parent, seen by every child."""
    why = watch_changed()
    if why:
        return why
    if WATCH.seen:
        return f"importing the dependencies {WATCH.seen}"
    if STRAY.ran:
        return stray()
    ran = _repository_code(real_root, stand_in)
    if ran:  # a plugin loader that ran a file of the checkout, in the parent every child comes from
        return f"the set-up environment ran the repository's {ran}"
    if _random_state() != before[2]:  # a cold start seeds first, so those draws come from the pinned seed
        return "importing the dependencies drew from the random module"
    why = final(before)
    if why:
        return why
    flags = _mapping_flags()
    if flags:
        return f"importing the dependencies mapped memory {flags}"
    mapped = _mapped_from(real_root)
    why = "" if mapped else _mapped_writable_file()
    if why:
        return why
    if mapped:  # a native library of the checkout, loaded through ctypes: its constructors ran here
        return f"the set-up environment loaded the repository's {mapped}"
    if _SYSCALL(CLOSE_RANGE, ALL_FDS, ALL_FDS, 0) != 0:  # else each child would close 2**31 numbers one by one
        return "importing the dependencies left close_range refused"
    return ""


def final(before: tuple) -> str:
    """Asked after the imports and again as the last word before `ready`, after everything else the parent
    does: what Python code run after the watch (a finalizer, a patched function the parent called) could still
    have set, each of which would run in every child or in the parent between evaluations."""
    why = watch_changed()
    if why:
        return why
    if _any(_BUILTINS.get(name, before) is not value for name, value in before[4].items()):
        return "importing the dependencies rebound a builtin"  # the harness looks some up before the key
    why = patched(before)
    if why:
        return why
    why = plain_modules()
    if why:
        return why
    if not same_list(_SYS.get("path_hooks"), before[3]):  # a cold start inserts the repository's hook first
        return "importing the dependencies changed sys.path_hooks"
    threading = _MODULES.get("threading")
    threading = threading.__dict__ if _type(threading) is _MODULE else {}
    trace = _gettrace()
    if (trace is not None and trace is not STRAY) or _getprofile() is not None \
            or threading.get("_trace_hook") is not None \
            or threading.get("_profile_hook") is not None:  # it would run in every child before the key is read
        return "importing the dependencies set a trace or profile function"
    if _any(_getitimer(t)[0] for t in _ITIMERS):
        return "importing the dependencies armed a timer (a fork does not inherit it)"
    if _any(a is not b and _type(a) is not _INT for a, b in _zip(_handlers(), before[5])):
        # a Python handler made due without a signal (_thread.interrupt_main) would run in a child before its
        # key is read (the raw fork leaves it due); SIG_DFL and SIG_IGN run no code
        return "importing the dependencies set a Python signal handler"
    callbacks = _GC.get("callbacks")
    if _type(callbacks) is not _LIST or callbacks:  # it would run in the parent, between evaluations
        return "importing the dependencies registered a garbage-collection callback"
    if _set(_listdir("/proc/self/fd")) - before[1]:  # each evaluation closes every descriptor but its three
        return "importing the dependencies opened a file it keeps"
    return threads()


def _repository_code(real_root: str, stand_in) -> str:
    """The file of a function or module the repository's code made here, if any ran ('' when none did); the
    stand-in property module the imports ran in is no such module."""
    places: dict[str, bool] = {}
    for thing in _get_objects():
        kind = _type(thing)
        if thing is stand_in:
            continue
        if kind is _FUNCTION:
            name = thing.__code__.co_filename
        elif kind is _MODULE and _type(thing.__dict__.get("__file__")) is _STR:
            name = thing.__dict__["__file__"]  # a module run by path, kept outside sys.modules
        else:
            continue
        if _type(name) is not _STR:
            continue
        if name not in places:  # a relative name was read from the working directory, the checkout
            places[name] = not name.startswith("<") and (real(name) + SEP).startswith(real_root)
        if places[name]:
            return name
    return ""


def _mapped_from(real_root: str) -> str:
    """The first file of the checkout mapped into this process (a shared library loaded from it), or ''."""
    root = real_root.encode("utf-8", "surrogateescape")  # str's and bytes' own methods: os.fsencode is Python's
    for fields in _mapped_files():
        if (fields[5] + b"/").startswith(root):
            return fields[5].decode("utf-8", "surrogateescape")
    return ""


def _mapping_flags() -> str:
    """How a mapping the imports made reaches children otherwise than a cold start's memory ('' for none): shared
    and one that may be made writable (mw), even one mapped read-only, which children would write together
    (glibc's read-only gconv cache cannot be, and is no channel); or marked to be wiped (wf) or left out (dc) at a
    fork, which every child would read as zeros or miss where a cold start reads what was written."""
    probe = _MMAP(-1, 4096, flags=_MAP_PRIVATE)  # a mapping made now: locked when the imports asked for all future ones locked
    fd, chunks = _os_open("/proc/self/smaps", _O_RDONLY), []
    try:  # bytes, not a text file: no codec lookup (Python code of the standard library) runs here
        while chunk := _os_read(fd, 1 << 16):
            chunks.append(chunk)
    finally:
        _os_close(fd)
        probe.close()
    for line in b"".join(chunks).split(b"\n"):
        if line.startswith(b"VmFlags:"):
            flags = line.split()[1:]
            if b"sh" in flags and b"mw" in flags:
                return "every evaluation would share"
            if b"wf" in flags or b"dc" in flags:
                return "a fork wipes or leaves out"
            if b"lo" in flags:  # mlock, or mlockall's future locking (the probe below): a fork drops both
                return "locked in, which a fork unlocks"
    return ""
