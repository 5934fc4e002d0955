"""Each side's import path, inside its sandbox: the gate, then the standard library, the checkout's view (its root and
`src/`, compiled from source only), installed packages, and last a set-up's environment, whose `.pth` files add
folders but never run their `import` lines. Standard library only, and only what the interpreter has loaded already."""

from __future__ import annotations

import importlib.machinery
import os
import sys

GATE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


COMPILED: dict[str, tuple[bytes, object]] = {}  # path -> (source, code): a warm judge's property, compiled once


class SourceOnlyLoader(importlib.machinery.SourceFileLoader):
    """Compiles the source every time (but for the same bytes a warm judge compiled): bytecode beside or under the
    checkout is never read or written."""

    def get_code(self, fullname):
        source = self.get_data(self.path)
        known = COMPILED.get(self.path)
        return known[1] if known and known[0] == source else self.source_to_code(source, self.path)

    def set_data(self, *args, **kwargs):
        pass


def arrange_path(root: str, environment: str) -> list[str]:
    """Make the import path; returns the `.pth` lines of the environment that were not run."""
    path = [GATE, *(p for p in sys.path if p and p != GATE)]
    installed = next((i for i, p in enumerate(path) if p.endswith(("site-packages", "dist-packages"))), len(path))
    path[installed:installed] = [p for p in (root, os.path.join(root, "src")) if os.path.isdir(p)]
    skipped: list[str] = []
    if environment and os.path.isdir(environment):
        path.append(environment)
        for name in sorted(os.listdir(environment)):
            if name.endswith(".pth"):
                skipped += _follow_pth(os.path.join(environment, name), environment, path)
    sys.path[:] = path
    sys.path_hooks.insert(0, _repository_hook(root))
    sys.path_importer_cache.clear()
    return skipped


def _repository_hook(root: str):
    """Folders of the checkout import source files only: no .pyc, no extension module."""
    finder = importlib.machinery.FileFinder.path_hook((SourceOnlyLoader, importlib.machinery.SOURCE_SUFFIXES))
    root = os.path.realpath(root)

    def hook(path: str):
        real = os.path.realpath(path or ".")
        if real == root or real.startswith(root + os.sep):
            return finder(path)
        raise ImportError("outside the checkout")

    return hook


def _follow_pth(pth: str, base: str, path: list[str]) -> list[str]:
    """Folders a .pth names join `path`; its `import` lines, which site would run, do not run."""
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


def load_file(name: str, path: str):
    """The module of one source file, run (the property's module): compiled from source, never from bytecode."""
    from importlib._bootstrap import module_from_spec
    from importlib._bootstrap_external import spec_from_file_location

    spec = spec_from_file_location(name, path, loader=SourceOnlyLoader(name, path))
    module = module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def seed_random(seed: str) -> None:
    """`random.seed(seed)` before anything draws from it: now if it is loaded, else as it is first imported (a
    start that never needs it never pays for it)."""
    if "random" in sys.modules:
        sys.modules["random"].seed(seed)
    else:
        sys.meta_path.insert(0, _SeedOnImport(seed))


class _SeedOnImport:
    def __init__(self, seed: str) -> None:
        self.seed = seed

    def find_spec(self, name, path=None, target=None):
        if name != "random":
            return None
        sys.meta_path.remove(self)
        spec = importlib.machinery.PathFinder.find_spec(name)
        if spec is not None and spec.loader is not None:
            spec.loader = _Seeding(spec.loader, self.seed)
        return spec


class _Seeding:
    def __init__(self, loader, seed: str) -> None:
        self.loader, self.seed = loader, seed

    def create_module(self, spec):
        return self.loader.create_module(spec)

    def exec_module(self, module):
        self.loader.exec_module(module)
        module.seed(self.seed)
