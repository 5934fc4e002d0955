"""Which top-level module names a change adds to the repository's import path: the oracle, written without them, never
gets one from the implementation (it meets what it met on the base: the judge's own package of the name, or none)."""

from __future__ import annotations

from collections.abc import Callable, Iterable


def top_level_module(path: str) -> str | None:
    """The module name `path` (relative to the checkout) gives the repository's import path, if any: `x.py`, `x/...`,
    `src/x.py`, `src/x/...` give `x`; so does an entry `x` or `src/x` itself (a link import may follow)."""
    parts = path.split("/")
    if parts[0] == "src" and len(parts) > 1:
        parts = parts[1:]
    name = parts[0]
    if len(parts) == 1 and name.endswith(".py"):
        name = name[:-3]
    return name if name.isidentifier() else None


def new_top_modules(changed: Iterable[str], base_has: Callable[[str], bool]) -> tuple[str, ...]:
    """Each top-level name the change gives the repository's import path that the base had no module of, in any
    layout (`x.py`, `x/`, at the root or in `src/`): a module moved from one layout to another is not new, and a link
    is a name like any other."""
    found: list[str] = []
    for path in sorted(set(changed)):
        name = top_level_module(path)
        if name is None or name in found:
            continue
        if not any(base_has(where) for where in (f"{name}.py", f"src/{name}.py", f"{name}/__init__.py",
                                                  f"src/{name}/__init__.py", name, f"src/{name}")):
            found.append(name)
    return tuple(found)


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
