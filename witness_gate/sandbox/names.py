"""Which top-level module names a change adds to the repository's import path: where the judge's own package of that
name (installed, or the trusted set-up's) must win over the patch's, which would otherwise answer for it."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from pathlib import Path

MAX_FILES_ASKED = 20  # files of one new name looked up at the base: a name any of them had there is not new


def top_level_module(path: str) -> str | None:
    """The module name `path` (relative to the checkout) gives the repository's import path, if any: `x.py`, `x/...`,
    `src/x.py`, `src/x/...` give `x`."""
    parts = path.split("/")
    if parts[0] == "src" and len(parts) > 1:
        parts = parts[1:]
    name = parts[0]
    if len(parts) == 1:
        if not name.endswith(".py"):
            return None
        name = name[:-3]
    return name if name.isidentifier() else None


def new_top_modules(checkout: Path, changed: Iterable[str], base_has: Callable[[str], bool]) -> tuple[str, ...]:
    """Each top-level module the change gives the repository's import path that the base did not have: a module file or
    a package's `__init__.py` the base lacked, or a folder of Python files none of which (at most MAX_FILES_ASKED
    asked) the base had."""
    found: list[str] = []
    for path in sorted(set(changed)):
        name = top_level_module(path)
        if name is None or name in found:
            continue
        prefix = "src/" if path.startswith("src/") and path != "src" else ""
        regular = [f for f in (f"{prefix}{name}.py", f"{prefix}{name}/__init__.py") if (checkout / f).is_file()]
        files = regular or _python_files_under(checkout / f"{prefix}{name}", checkout)
        if files and not any(base_has(f) for f in files[:MAX_FILES_ASKED]):
            found.append(name)
    return tuple(found)


def _python_files_under(folder: Path, checkout: Path) -> list[str]:
    found: list[str] = []
    if folder.is_dir() and not folder.is_symlink():
        for top, dirs, names in os.walk(folder):
            dirs.sort()
            found += sorted(os.path.relpath(os.path.join(top, n), checkout) for n in names if n.endswith(".py"))
            if len(found) > MAX_FILES_ASKED:
                break
    return found


def imported_names(source: str, modules: Iterable[str]) -> tuple[str, ...]:
    """The implementation's modules (top-level names in `modules`) a property file names in a line that starts with
    `import a.b[, c]` or `from a.b import ...`: read as text, never run, in time linear in its length. A line inside a
    string may be counted too: importing a module the implementation has anyway changes no verdict."""
    tops, found = set(modules), set()
    for line in source.splitlines():
        words = line.split(None, 1)
        if len(words) < 2 or words[0] not in ("import", "from"):
            continue
        rest = words[1].split(" import", 1)[0] if words[0] == "from" else words[1]
        for part in rest.split(","):
            name = (part.split() or [""])[0]
            if name.partition(".")[0] in tops and all(piece.isidentifier() for piece in name.split(".")):
                found.add(name)
    return tuple(sorted(found))
