"""`witness-gate init`: a `.witness.yml` proposed from a repository's layout (its package folders, its tests, its pytest
configuration), each choice with the reason for it. `read_layout` reads the directory; `propose` decides (pure)."""

from __future__ import annotations

import configparser
import tomllib
from dataclasses import dataclass
from pathlib import Path

from witness_gate.config.values import normal_path
from witness_gate.pipeline.pytests import is_test_file

# where pytest keeps its configuration, and the section that holds it
PYTEST_CONFIGS = (("pytest.ini", "pytest"), ("pyproject.toml", None), ("tox.ini", "pytest"), ("setup.cfg", "tool:pytest"))
TEST_FOLDERS = ("tests", "test", "testing")
NOT_CODE = ("docs", "doc", ".github", "examples", "benchmarks", "bench", "scripts")
IGNORE = ("**/*.md", "**/*.rst", "docs/", "LICENSE*")
MAX_CONFIG_BYTES = 1 << 20
FREEZE_HOURS = 24
# the set-up that installs a project's declared dependencies: each one an argument of its own, never part of the script
INSTALL = ("sh", "-c", 'python3 -m pip install --quiet --no-input --disable-pip-version-check --target "$WITNESS_ENV" '
           '"$@"', "sh")
MAX_DEPENDENCIES = 100


@dataclass(frozen=True)
class Layout:
    """What `propose` needs to know of a repository, read from its top level."""

    folders: tuple[str, ...] = ()  # top-level folders
    packages: tuple[str, ...] = ()  # top-level folders that are Python packages (an __init__.py)
    modules: tuple[str, ...] = ()  # top-level .py files
    testpaths: tuple[str, ...] = ()  # pytest's `testpaths`, when its configuration has them
    config_file: str = ""  # the file they came from
    properties: bool = False  # tests/properties/ exists: prop_* functions, the gate's own form
    fixtures: bool = False  # tests/fixtures/ exists
    dependencies: tuple[str, ...] = ()  # pyproject.toml's [project] dependencies, as written


def read_layout(repo: Path) -> Layout:
    """The repository's top level and its pytest configuration (never run, never imported)."""
    folders = tuple(sorted(p.name for p in repo.iterdir() if p.is_dir() and not p.is_symlink()
                           and not p.name.startswith(".")))
    packages = tuple(f for f in folders if (repo / f / "__init__.py").is_file())
    modules = tuple(sorted(p.name for p in repo.iterdir() if p.is_file() and p.suffix == ".py"))
    testpaths, source = (), ""
    for name, section in PYTEST_CONFIGS:
        found = _testpaths(repo / name, section)
        if found is not None:
            testpaths, source = found, name
            break
    return Layout(folders, packages, modules, testpaths, source, (repo / "tests" / "properties").is_dir(),
                  (repo / "tests" / "fixtures").is_dir(), _dependencies(repo / "pyproject.toml"))


def propose(layout: Layout) -> tuple[str, list[str]]:
    """(the `.witness.yml` text, one line a choice saying what and why)."""
    why: list[str] = []
    tests = _tests(layout, why)
    impl = _impl(layout, tests, why)
    oracle = list(tests)
    if "conftest.py" in layout.modules:
        oracle.append("conftest.py")
        why.append("paths.oracle: conftest.py at the top decides how the tests run, so a change to it is the oracle's")
    for folder, present in (("tests/properties/", layout.properties), ("tests/fixtures/", layout.fixtures)):
        if present and not any(folder.startswith(t) for t in tests):
            oracle.append(folder)
            why.append(f"paths.oracle: {folder} is where the gate's own properties and fixtures live")
    why.append(f"paths.ignore: {', '.join(IGNORE)}: documentation and the licence; a change of only these is skipped")
    lines = ["version: 1", "paths:", f"  impl: {_list(impl)}", f"  oracle: {_list(oracle or ['tests/'])}",
             f"  ignore: {_list(IGNORE)}"]
    if tests:
        lines += ["properties:", f"  pytest: {_list(tests)}"]
    if layout.dependencies:
        lines += ["setup:", f"  command: {_list(INSTALL + layout.dependencies)}"]
        why.append(f"setup.command: pip installs the project's dependencies ({', '.join(layout.dependencies)}, from "
                   "pyproject.toml) where the code under test finds them; without them its imports give no verdict. "
                   "The package index it may reach is the operator's choice (WITNESS_SETUP_HOSTS)")
    lines += ["freeze:", f"  expires_in_hours: {FREEZE_HOURS}"]
    why.append(f"freeze.expires_in_hours: {FREEZE_HOURS}: a flake (a test that fails on some runs of the same code) is "
               f"proposed for a freeze this long, which someone with write access may accept; without it a flake "
               f"is a hold until they give an expiry")
    return "\n".join(lines) + "\n", why


def _tests(layout: Layout, why: list[str]) -> list[str]:
    if layout.testpaths:  # outside the repository, or the repository itself: not a test folder to gate
        paths = [p if p.endswith(".py") else p.rstrip("/") + "/" for p in
                 (normal_path(t) for t in layout.testpaths if not t.startswith("/") and ".." not in t.split("/")) if p]
        # a package of the code (bidict's testpaths name it for its doctests): written with the code, a patch edits
        # both, so it cannot judge the code; documentation is ignored, so its doctests judge nothing either
        code = [p for p in paths if p.rstrip("/") in layout.packages]
        docs = [p for p in paths if p.split("/")[0] in ("docs", "doc")]
        if code or docs:
            why.append(f"properties.pytest: {', '.join(code + docs)} left out of the testpaths: "
                       + "; ".join(([f"{', '.join(code)}: the code under test (its doctests are written with it, so a "
                                     "patch changes both and they cannot judge it)"] if code else [])
                                   + ([f"{', '.join(docs)}: documentation, which the gate ignores"] if docs else [])))
            paths = [p for p in paths if p not in code and p not in docs]
        if paths:
            why.append(f"properties.pytest: {', '.join(paths)}: the testpaths of the pytest configuration in "
                       f"{layout.config_file}; every test there is a property")
            return paths
    folders = [f + "/" for f in TEST_FOLDERS if f in layout.folders]
    if folders:
        why.append(f"properties.pytest: {', '.join(folders)}: the tests' folder; every test there is a property")
        return folders
    files = [m for m in layout.modules if is_test_file(m)]
    if files:
        why.append(f"properties.pytest: {', '.join(files)}: the test files at the top; every test there is a property")
        return files
    why.append("properties.pytest: none: no tests/ folder, no test_*.py at the top and no testpaths in a pytest "
               "configuration; point it at your tests, or write prop_* properties under tests/properties/")
    return []


def _impl(layout: Layout, tests: list[str], why: list[str]) -> list[str]:
    if "src" in layout.folders:
        why.append("paths.impl: src/: the code lives in a src layout")
        return ["src/"]
    taken = {t.rstrip("/").split("/")[0] for t in tests} | set(TEST_FOLDERS)
    packages = [p + "/" for p in layout.packages if p not in taken and p not in NOT_CODE]
    modules = [m for m in layout.modules if not is_test_file(m) and m not in ("conftest.py", "setup.py", "noxfile.py")]
    if packages or modules:
        why.append(f"paths.impl: {', '.join(packages + modules)}: the package folders and modules at the top")
        return packages + modules
    why.append("paths.impl: src/: no package found at the top; every path that is neither oracle nor ignored counts "
               "as implementation anyway (the split fails closed)")
    return ["src/"]


def _dependencies(path: Path) -> tuple[str, ...]:
    """pyproject.toml's `[project] dependencies` (requirement strings, as written); none when it has none or cannot be
    read."""
    try:
        if not path.is_file() or path.stat().st_size > MAX_CONFIG_BYTES:
            return ()
        found = tomllib.loads(path.read_text("utf-8")).get("project", {}).get("dependencies", [])
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError, AttributeError, RecursionError, ValueError):
        return ()
    if not isinstance(found, list):
        return ()
    # a requirement, never an option of pip's (`--index-url`, `-e .`)
    return tuple(item.strip() for item in found if isinstance(item, str) and item.strip()
                 and not item.strip().startswith("-"))[:MAX_DEPENDENCIES]


def _testpaths(path: Path, section: str | None) -> tuple[str, ...] | None:
    """`testpaths` of one pytest configuration file; None when it has no pytest section (or cannot be read)."""
    try:
        if not path.is_file() or path.stat().st_size > MAX_CONFIG_BYTES:
            return None
        if section is None:  # pyproject.toml
            table = tomllib.loads(path.read_text("utf-8")).get("tool", {}).get("pytest", {}).get("ini_options")
            if not isinstance(table, dict):
                return None
            value = table.get("testpaths", ())
            return tuple(value.split() if isinstance(value, str) else (str(v) for v in value))
        parser = configparser.ConfigParser(interpolation=None)
        parser.read_string(path.read_text("utf-8"))
        if not parser.has_section(section):
            return None
        return tuple(parser.get(section, "testpaths", fallback="").split())
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError, configparser.Error, AttributeError, TypeError,
            RecursionError, ValueError):
        return None  # a configuration init cannot read proposes nothing from it


def _list(items) -> str:
    """A YAML flow list of strings, each written as JSON (a valid YAML double-quoted scalar, whatever it holds)."""
    import json

    return "[" + ", ".join(json.dumps(str(item)) for item in items) + "]"
