"""The harness's import system, inside the sandbox: the repository's code from source only, the set-up's last.

harness.py loads this file by path when it runs in the sandbox (the gate's copy is not on sys.path yet)
and imports it as witness_gate.harness_imports on the host. Standard library only.
"""

from __future__ import annotations

import builtins
import importlib.machinery
import importlib.util
import os
import sys

GATE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # holds this package's staged copy

# path -> (source, code, its compile's conditions, whether it was compiled when a cold start compiles it: the
# property's own file, compiled before any dependency ran, as a cold harness compiles it before running it)
COMPILED: dict[str, tuple[bytes, object, tuple, bool]] = {}
MAX_COMPILED_BYTES = 256 << 10  # a file: a larger one's compile leaves more garbage than it saves
MAX_COMPILED_TOTAL = 4 << 20  # in all: every evaluation forked from the warm parent carries them
HEADROOM = 64  # frames a cached file's compile may need: deeper than that, or than the caller has, compiles anew


class SourceOnlyLoader(importlib.machinery.SourceFileLoader):
    """Compiles the source every time: bytecode beside or under the checkout is never read."""

    def get_data(self, path, open_=os.open, read=os.read, close=os.close, flags=os.O_RDONLY | os.O_CLOEXEC):
        """The file's bytes, read with functions bound when this file was loaded (the standard library's
        reads through `_io.open_code`, looked up when it runs: an import may have wrapped it)."""
        fd = open_(path, flags)
        try:
            chunks = []
            while chunk := read(fd, 1 << 20):
                chunks.append(chunk)
        finally:
            close(fd)
        return b"".join(chunks)

    def get_code(self, fullname):
        data = self.get_data(self.path)
        known = COMPILED.get(self.path)
        if known is not None and known[0] == data and (known[3] or (
                known[2] == _conditions() and _headroom() > HEADROOM and _stock(self))):
            sys.audit("compile", data, self.path)  # what compile() raises: an audit hook sees or refuses it
            return known[1]  # the warm parent compiled these very bytes as a compile now (or cold) would
        return self.source_to_code(data, self.path)


def _compile_path(loader_type) -> tuple:
    """Everything SourceLoader.source_to_code runs and looks up, as objects: the function the loader's class
    finds, its code and defaults, the names it finds in its module (`compile`, `_bootstrap`), the builtin
    `compile`, and the frame-removing call with its code."""
    external = sys.modules["importlib._bootstrap_external"].__dict__
    bootstrap = sys.modules["importlib._bootstrap"].__dict__
    source_to_code, call = loader_type.source_to_code, bootstrap.get("_call_with_frames_removed")
    return (source_to_code, source_to_code.__code__, source_to_code.__defaults__, source_to_code.__kwdefaults__,
            "compile" in external, external.get("_bootstrap"), sys.modules["importlib._bootstrap"],
            builtins.__dict__.get("compile"), call, call.__code__)


def _stock(loader) -> bool:
    """A compile now would run the very code the warm parent's did: no import hook replaced or patched in place
    the loader's source_to_code (an assertion rewriter, a contracts checker), `compile` wherever it is looked
    up, or the frame-removing call."""
    try:
        now = _compile_path(type(loader))
        return "source_to_code" not in loader.__dict__ and len(now) == len(_STOCK) and all(
            a is b for a, b in zip(now, _STOCK))
    except Exception:  # noqa: BLE001 - whatever an import hook did there, a compile now is what runs
        return False


_STOCK = _compile_path(SourceOnlyLoader)  # as loaded, before any dependency ran


def _conditions() -> tuple:
    """What a compile depends on besides the bytes and the stack (the warnings filters: see precompile)."""
    return sys.getrecursionlimit(), sys.get_int_max_str_digits(), sys.flags.optimize


def _headroom() -> int:
    """Frames left before the recursion limit (3.11 counts each Python frame, and compile starts from there)."""
    depth, frame = 0, sys._getframe()
    while frame is not None:
        depth, frame = depth + 1, frame.f_back
    return sys.getrecursionlimit() - depth


def precompile(path: str, as_cold: bool = False) -> None:
    """In a warm parent: compile (never run) one repository file as SourceOnlyLoader would, for its children.

    Kept only when it compiles without a warning (so no warnings filter an evaluation sets could have made
    it fail), within HEADROOM frames, within MAX_COMPILED_TOTAL in all, with no coding declaration and in ASCII;
    `as_cold` (the property's own file, compiled before any dependency is imported, when a cold harness compiles
    it too): kept whenever it compiles, and used by every child whatever a dependency changed since."""
    import warnings

    try:
        with open(path, "rb") as handle:
            data = handle.read(MAX_COMPILED_BYTES + 1)
        if len(data) > MAX_COMPILED_BYTES or sum(len(k[0]) for k in COMPILED.values()) + len(data) > MAX_COMPILED_TOTAL:
            return
        if not as_cold and any(b"coding" in line for line in data.split(b"\n", 2)[:2]):
            return  # a source codec decodes it: one a dependency registered may decode it otherwise in a child
        if not as_cold and not data.isascii():  # compiling a non-ASCII name calls unicodedata.normalize, which an
            return  # import may wrap
        limit = sys.getrecursionlimit()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            if not as_cold:
                sys.setrecursionlimit(limit - _headroom() + HEADROOM)  # as deep a stack as a cached use allows
            try:
                code = SourceOnlyLoader("-", path).source_to_code(data, path)
            finally:
                sys.setrecursionlimit(limit)
        if as_cold or not caught:
            COMPILED[path] = (data, code, _conditions(), as_cold)
    except Exception:  # noqa: BLE001 - each evaluation compiles it itself and meets the same problem
        pass


def resolved(root: str) -> tuple[tuple[str, str], ...]:
    """(folder, its real path) for the repository's folders on the import path that are their own real path: a warm
    parent resolves them once, before any dependency runs, for every child, which then runs none of posixpath's
    Python before its key. Only those: a folder of the read-only checkout stays one, where a link in it may point
    into /tmp, which an evaluation fills (each child resolves such a path itself, when it is imported from)."""
    return tuple((p, p) for p in (root, os.path.join(root, "src")) if os.path.realpath(p) == p)


def _repository_hook(root: str, known: tuple[tuple[str, str], ...] = ()):
    """Directories inside the repository import source files only: no .pyc, no extension module (`known`: real
    paths already resolved, see `resolved`)."""
    finder = importlib.machinery.FileFinder.path_hook((SourceOnlyLoader, importlib.machinery.SOURCE_SUFFIXES))
    real_of = dict(known)
    root = real_of.get(root) or os.path.realpath(root)

    def hook(path: str):
        real = real_of.get(path) or os.path.realpath(path or ".")
        if real == root or real.startswith(root + os.sep):
            return finder(path)
        raise ImportError("outside the repository")

    return hook


def arrange_path(root: str, environment: str) -> list[str]:
    """The gate first, then the standard library, the repository, installed packages, the set-up's output.

    Returns the lines of the environment's .pth files that were not followed (code lines never run).
    """
    return use_path(root, path_plan(root, environment))


def path_plan(root: str, environment: str) -> tuple[list[str], list[str], object]:
    """(sys.path for an evaluation, the .pth lines not followed, the repository's path hook), read from the
    files and changing nothing: a warm parent reads it once, before any dependency runs, for every child."""
    path = [GATE, *sys.path]
    installed = next((i for i, p in enumerate(path) if p.endswith(("site-packages", "dist-packages"))), len(path))
    path[installed:installed] = [p for p in (root, os.path.join(root, "src")) if os.path.isdir(p)]
    skipped = []
    if environment and os.path.isdir(environment):
        path.append(environment)
        for name in sorted(os.listdir(environment)):
            if name.endswith(".pth"):
                skipped += _follow_pth(os.path.join(environment, name), environment, path)
    return path, skipped, _repository_hook(root)


def use_path(root: str, plan: tuple[list[str], list[str], object]) -> list[str]:
    """Make `plan` the import path, the repository's folders read by SourceOnlyLoader; its skipped lines."""
    sys.path[:] = plan[0]
    sys.path_hooks.insert(0, plan[2])
    # finders already made (the interpreter's start; a warm parent's imports) are kept, none for the repository
    for path in [p for p in sys.path_importer_cache if not os.path.isabs(p) or (p + os.sep).startswith(root + os.sep)]:
        del sys.path_importer_cache[path]
    return list(plan[1])


def _follow_pth(pth: str, base: str, path: list[str]) -> list[str]:
    """Directories a .pth names join `path`; its `import` lines, which site would run, do not run."""
    skipped = []
    try:
        with open(pth, encoding="utf-8") as handle:
            lines = handle.read().splitlines()
    except (OSError, UnicodeDecodeError):
        return [f"{os.path.basename(pth)}: unreadable"]
    for line in lines:
        line = line.rstrip()
        if not line or line.startswith("#"):
            continue
        if line.startswith(("import ", "import\t")):
            skipped.append(f"{os.path.basename(pth)}: {line[:80]}")
            continue
        folder = os.path.abspath(os.path.join(base, line))
        if os.path.isdir(folder) and folder not in path:
            path.append(folder)
    return skipped


def gate_package():
    """The gate's own package (its `contract`), imported from the gate's copy, first on the path, before the
    property's module runs: code under test that then puts another `witness_gate` first on sys.path (a decorator
    that wraps the property into a pass) finds this one in sys.modules, as every import of it after does."""
    return _import_module("witness_gate")


_import_module = importlib.import_module


def property_module(relpath: str):
    """The property's module as the harness makes it, not yet run (the warm parent imports in one like it)."""
    name = "witness_property_" + relpath.replace("/", "_").removesuffix(".py")
    spec = importlib.util.spec_from_file_location(name, relpath, loader=SourceOnlyLoader(name, relpath))
    if spec is None or spec.loader is None:
        raise ImportError(f"{relpath} is not a Python module")
    return importlib.util.module_from_spec(spec)


def _load(relpath: str, function: str):
    module = property_module(relpath)
    spec = module.__spec__
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    prop = getattr(module, function, None)
    if not callable(prop):
        raise AttributeError(f"{relpath} has no function {function}")
    return prop
