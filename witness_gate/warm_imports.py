"""Which modules a warm parent imports for a property: read from the source, never run (pure but for reading).

The property's module and every module of the repository it reaches are parsed; what they import from
outside the repository (the standard library, installed packages, the set-up's environment) is warmed.
A name the repository itself provides at its root or in src/ is never warmed: the harness puts the
repository before installed packages, so a cold start would import the repository's.
"""

from __future__ import annotations

import ast
import warnings
from pathlib import Path

MAX_FILES = 500  # a property reaching more of the repository than this warms what was read so far
MAX_BYTES = 256 << 10  # a larger file is neither read here nor compiled by the warm parent (harness_imports)
NEVER = frozenset({"__future__", "__main__"})


def provided(root: Path) -> set[str]:
    """Top-level names the checkout offers at its root and src/, as an evaluation's loader (source files only)
    imports them: a file `x.py` and a folder `x/` as `x` (a `pytest.ini` or a compiled `x.so` offers nothing)."""
    names = set()
    for folder in (root, root / "src"):
        if folder.is_dir():
            names.update(entry.name[:-3] if entry.name.endswith(".py") and entry.is_file() else entry.name
                         for entry in folder.iterdir() if entry.is_dir() or entry.name.endswith(".py"))
    return names


def bare(name: str) -> str:
    """A warmed import's module, without what it binds: `a.b` of `a.b`, `a.b=c`, `a.b>x` or `a.b>x=c`."""
    return name.partition("=")[0].partition(">")[0]


def _module_file(root: Path, dotted: str) -> list[Path]:
    """The repository's files for a dotted name (a module, or a package's __init__), at the root or in src/."""
    parts = dotted.split(".")
    found = []
    for base in (root, root / "src"):
        for candidate in (base.joinpath(*parts).with_suffix(".py"), base.joinpath(*parts, "__init__.py")):
            if candidate.is_file():
                found.append(candidate)
    return found


def _first_imports(tree: ast.AST, package: str, ours: set[str]) -> list[str]:
    """What the module imports before any other statement of it runs, in order: the imports a cold start
    runs first too. It stops at the first other statement (an environment variable set, a folder put on
    sys.path, a try's second line), and at the first import of the repository's, whose code runs then;
    `from a import b` is `a>b` (b may be an attribute of a), `import a.b` is `a.b`."""
    names = []
    for index, node in enumerate(getattr(tree, "body", [])):
        if index == 0 and isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
            continue  # the docstring
        tried = isinstance(node, ast.Try) or type(node).__name__ == "TryStar"
        statement = node.body[0] if tried and node.body else node
        if not isinstance(statement, (ast.Import, ast.ImportFrom)):
            break
        if isinstance(statement, ast.ImportFrom) and statement.level and not package:
            break  # a relative import with no package raises ImportError cold: nothing after it runs first either
        found = _statement_names(statement, package)
        if any(bare(name).split(".")[0] in ours for name in found):
            break
        names += [name for name in found if bare(name).split(".")[0] not in NEVER]
        if tried:  # what follows the first line of a try may never run, cold
            break
        if isinstance(statement, ast.ImportFrom) and any(alias.name == "*" for alias in statement.names):
            break  # it also imports the submodules its __all__ names, before the next import, cold
    return names


def _statement_names(node: ast.AST, package: str) -> list[str]:
    """The statement's imports as warmed: `import a.b` is `a.b`, `import a as c` is `a=c`, `from a import b` is
    `a>b` (a is imported as b is bound, never bound itself), `from a import b as c` is `a>b=c`."""
    def named(alias: ast.alias, text: str) -> str:
        return f"{text}={alias.asname}" if alias.asname else text

    if isinstance(node, ast.Import):
        return [named(alias, alias.name) for alias in node.names]
    module = _absolute(node, package)
    return [named(alias, f"{module}>{alias.name}") for alias in node.names if alias.name != "*"] if module else []


def _absolute(node: ast.ImportFrom, package: str) -> str:
    if node.level:
        base = package.split(".")[: max(0, len(package.split(".")) - node.level + 1)] if package else []
        return ".".join([*base, *([node.module] if node.module else [])])
    return node.module or ""


def _imports(tree: ast.AST, package: str, nodes=ast.walk) -> list[str]:
    """Absolute dotted names a module imports (relative ones resolved against `package`), among `nodes`."""
    names = []
    for node in nodes(tree):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: max(0, len(package.split(".")) - node.level + 1)] if package else []
                module = ".".join([*base, *([node.module] if node.module else [])])
            else:
                module = node.module or ""
            if module:
                names.append(module)
                names += [f"{module}.{alias.name}" for alias in node.names if alias.name != "*"]
    return names


def wanted(root: Path, relpath: str) -> list[str]:
    """The modules from outside the repository that the property's module reaches, sorted."""
    return reached(root, relpath)[0]


def reached(root: Path, relpath: str) -> tuple[list[str], list[str]]:
    """(modules from outside the repository, the repository's own files) the property's module reaches.

    The files are relative to `root`, the property's module first; the parent compiles them (never runs
    them), and an evaluation uses that code only for a file whose bytes it reads the same.
    """
    ours = provided(root)
    inside = root.resolve()
    queue, seen, outside = [(root / relpath, "")], {}, []
    while queue and len(seen) < MAX_FILES:
        path, package = queue.pop()
        if path in seen or not path.resolve().is_relative_to(inside):
            continue  # a link out of the checkout is the sandbox's to follow, never the host's
        seen[path] = None  # a dict: the files in the order they were reached
        try:
            if path.stat().st_size > MAX_BYTES:
                continue
            with warnings.catch_warnings():  # the repository's invalid escapes are its evaluations' to warn about
                warnings.simplefilter("ignore")
                tree = ast.parse(path.read_bytes())
        except Exception:  # noqa: BLE001 - RecursionError, MemoryError too: the evaluation meets it, cold
            continue
        if path == root / relpath:
            # warmed: what the property's module imports first (the gate's own package too, only there: a statement
            # before its import may put another copy first on sys.path); the repository's files are followed
            # wherever they are imported, and only compiled (nothing of theirs is warmed: their imports run after
            # the repository's code)
            outside += _first_imports(tree, package, ours)
        for name in _imports(tree, package):
            if name.split(".", 1)[0] in ours:
                for found in _module_file(root, name):
                    queue.append((found, name if found.name == "__init__.py" else name.rpartition(".")[0]))
    return list(dict.fromkeys(outside)), [p.relative_to(root).as_posix() for p in seen]
