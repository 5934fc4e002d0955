"""A module the patch adds under the name of an installed package: the repository (its root and `src/`) comes before the
sandbox interpreter's installed packages and the set-up's environment on the import path, as in a developer's checkout,
so the property would import the patch's module in the package's place. Such a name is flagged for a person, as a link
is (`tamper:shadows_installed@<path>:1`); a name the base already had (a library that installs itself) is not."""

from __future__ import annotations

import functools
import json
import os
import subprocess
from collections.abc import Callable, Iterable
from pathlib import Path

MAX_FILES_ASKED = 20  # files of one new name looked up at the base: a name any of them had there is not new
EXTENSION = (".so", ".pyd")


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


def new_top_modules(checkout: Path, changed: Iterable[str], base_has: Callable[[str], bool]) -> dict[str, str]:
    """{name: the first changed path under it} for each top-level module the change gives the repository's import path
    that the base did not have. A module file or a package's `__init__.py` (`x.py`, `x/__init__.py`) the base lacked
    is new whatever else the base had there (a folder of data, or of scripts, makes no module an installed package
    loses to); a folder with Python files and neither of those (a namespace portion) is new when none of its files
    (at most MAX_FILES_ASKED asked) is at the base."""
    found: dict[str, str] = {}
    for path in sorted(set(changed)):
        name = top_level_module(path)
        if name is None or name in found:
            continue
        prefix = "src/" if path.startswith("src/") and path != "src" else ""
        regular = [f for f in (f"{prefix}{name}.py", f"{prefix}{name}/__init__.py") if (checkout / f).is_file()]
        files = regular or _python_files_under(checkout / f"{prefix}{name}", checkout)
        if files and not any(base_has(f) for f in files[:MAX_FILES_ASKED]):
            found[name] = path
    return found


def _python_files_under(folder: Path, checkout: Path) -> list[str]:
    """The Python files under a folder of the head (a namespace portion's), relative to the checkout."""
    found: list[str] = []
    if folder.is_dir() and not folder.is_symlink():
        for top, dirs, names in os.walk(folder):
            dirs.sort()
            found += sorted(os.path.relpath(os.path.join(top, n), checkout) for n in names if n.endswith(".py"))
            if len(found) > MAX_FILES_ASKED:
                break
    return found


def installed_names(python: str, environment: Path | None) -> frozenset[str]:
    """Top-level module names the sandbox interpreter's installed packages and the set-up's environment (and the
    folders its .pth files name) provide."""
    folders = list(_site_folders(python))
    if environment is not None and environment.is_dir():
        folders.append(str(environment))
        for pth in sorted(environment.glob("*.pth")):
            try:
                lines = pth.read_text(encoding="utf-8", errors="replace").splitlines()
            except OSError:
                continue
            folders += [str(environment / line.strip()) for line in lines
                        if line.strip() and not line.startswith(("#", "import ", "import\t"))]
    return frozenset(name for folder in folders for name in _names_in(folder))


@functools.lru_cache(maxsize=8)
def _site_folders(python: str) -> tuple[str, ...]:
    """The interpreter's site-packages and dist-packages folders and the folders their .pth files add, as it reports
    them (an isolated start)."""
    try:
        out = subprocess.run([python, "-I", "-c", "import json, sys; print(json.dumps(sys.path))"],
                             capture_output=True, timeout=30, check=True).stdout
        path = [p for p in json.loads(out) if isinstance(p, str)]
        # from the first site folder on: the site folders and what their .pth files add, all after the repository
        first = next((i for i, p in enumerate(path) if p.endswith(("site-packages", "dist-packages"))), len(path))
        return tuple(path[first:])
    except (OSError, subprocess.SubprocessError, ValueError):
        return ()


def _names_in(folder: str) -> set[str]:
    """The module names a folder of the import path provides: `x.py`, an extension `x.*.so`, a folder `x`."""
    try:
        entries = os.listdir(folder)
    except OSError:
        return set()
    names = set()
    for entry in entries:
        if entry.endswith(".py"):
            stem = entry[:-3]
        elif entry.endswith(EXTENSION):
            stem = entry.split(".", 1)[0]
        elif os.path.isdir(os.path.join(folder, entry)):
            stem = entry
        else:
            continue
        if stem.isidentifier():
            names.add(stem)
    return names


def findings(new: dict[str, str], installed: frozenset[str]) -> list[str]:
    """`tamper:shadows_installed@<path>:1` for each new top-level module an installed package or the environment has."""
    return [f"tamper:shadows_installed@{path}:1" for name, path in sorted(new.items()) if name in installed]


def shadowed(new: dict[str, str], python: str, environment: Path | None) -> list[str]:
    """`findings` for the new modules against what `python`'s site folders and the environment provide, asked only
    when the change adds a top-level module at all (most changes add none)."""
    return findings(new, installed_names(python, environment)) if new else []
