"""Which modules a warm parent imports for a property: read from the source, never run (pure but for reading).

The property's module and every module of the repository it reaches are parsed; what they import from
outside the repository (the standard library, installed packages, the set-up's environment) is warmed.
A name the repository itself provides at its root or in src/ is never warmed: the harness puts the
repository before installed packages, so a cold start would import the repository's.
"""

from __future__ import annotations

import ast
from pathlib import Path

MAX_FILES = 500  # a property reaching more of the repository than this warms what was read so far
MAX_BYTES = 256 << 10  # a larger file is neither read here nor compiled by the warm parent (harness_imports)
NEVER = frozenset({"__future__", "__main__"})  # witness_gate is warmed from the harness copy, first on sys.path


def provided(root: Path) -> set[str]:
    """Top-level names the checkout offers at its root and src/: `x.py`, `x/`, `x.so`, … all as `x`."""
    names = set()
    for folder in (root, root / "src"):
        if folder.is_dir():
            names.update(entry.name.split(".", 1)[0] for entry in folder.iterdir())
    return names


def _module_file(root: Path, dotted: str) -> list[Path]:
    """The repository's files for a dotted name (a module, or a package's __init__), at the root or in src/."""
    parts = dotted.split(".")
    found = []
    for base in (root, root / "src"):
        for candidate in (base.joinpath(*parts).with_suffix(".py"), base.joinpath(*parts, "__init__.py")):
            if candidate.is_file():
                found.append(candidate)
    return found


def _at_import(tree: ast.AST):
    """The import statements that surely run when the module is imported: at its top, in the body of a
    `try` or of a class there; not under an `if` (TYPE_CHECKING, a version), in a loop, a handler or a
    function, which a cold start may never run."""
    stack = list(getattr(tree, "body", []))
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        elif isinstance(node, (ast.Try, ast.ClassDef)) or type(node).__name__ == "TryStar":
            stack.extend(node.body)


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
    queue, seen, outside = [(root / relpath, "", True)], {}, set()
    while queue and len(seen) < MAX_FILES:
        path, package, surely = queue.pop()  # surely: imported whenever the property's module is
        if path in seen and (seen[path] or not surely) or not path.resolve().is_relative_to(inside):
            continue  # a link out of the checkout is the sandbox's to follow, never the host's
        seen[path] = surely or seen.get(path, False)  # a dict: the files in the order they were reached
        try:
            if path.stat().st_size > MAX_BYTES:
                continue
            tree = ast.parse(path.read_bytes())
        except Exception:  # noqa: BLE001 - RecursionError, MemoryError too: the evaluation meets it, cold
            continue
        # the repository's files are followed wherever they are imported (the parent only compiles them);
        # a dependency is warmed only where importing the module imports it: one imported inside a function
        # does what it does on import (a recursion limit, an environment variable) only once that runs, cold
        eager = set(_imports(tree, package, _at_import)) if surely else set()
        for name in _imports(tree, package):
            top = name.split(".", 1)[0]
            if top in ours:
                for found in _module_file(root, name):
                    queue.append((found, name if found.name == "__init__.py" else name.rpartition(".")[0],
                                  name in eager))
            elif name in eager and top not in NEVER and all(part.isidentifier() for part in name.split(".")):
                outside.add(name)
    # `from package import name` also lists package.name, which may be an attribute, not a module: the
    # parent tries each and lets a failed import go
    return sorted(outside), [p.relative_to(root).as_posix() for p in seen]
