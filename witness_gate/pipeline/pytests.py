"""A repository's own pytest tests as properties (`properties.pytest`), found by reading their source, never by running
it: test functions, test methods of test classes, and Hypothesis state machines' `TestCase`s. Each is a property with
an empty payload (a `@given` test draws its own inputs from the pinned seed); its contract digest covers its name,
docstring, source and decorators, so editing a test changes the contract it is judged by."""

from __future__ import annotations

import ast
import hashlib
from pathlib import Path, PurePosixPath

from witness_gate.config.lock import Fixture, Lock, sha256_hex
from witness_gate.model.contract import Contract
from witness_gate.sources import safefs

MAX_TEST_FILE_BYTES = 8 * 1024 * 1024
NO_FIXTURE = "(none: a pytest test draws its own inputs)"  # a test's lock path: there is no fixture file
EMPTY_PAYLOAD = b"{}"


def is_test_file(name: str) -> bool:
    """pytest's default `python_files`: test_*.py and *_test.py."""
    return name.endswith(".py") and (name.startswith("test_") or name.endswith("_test.py"))


def gated_files(repo: Path, paths: tuple[str, ...]) -> list[str]:
    """The test files `properties.pytest` names: files as given, folders walked for test_*.py and *_test.py."""
    found: list[str] = []
    for path in paths:
        if path.endswith(".py"):
            found.append(path)
            continue
        try:
            found += [f for f in safefs.walk_files(repo, path.rstrip("/"), ".py") if is_test_file(f.rsplit("/", 1)[-1])]
        except (OSError, safefs.UnsafePath):
            continue  # a folder the base names and the checkout lacks has no tests to gate
    return sorted(dict.fromkeys(found))


def gated(paths: tuple[str, ...], relpath: str) -> bool:
    """Whether `properties.pytest` takes in the file `relpath` (as gated_files finds it)."""
    return any(relpath == path if path.endswith(".py") else relpath.startswith(path) and
               is_test_file(relpath.rsplit("/", 1)[-1]) for path in paths)


def nodes_of(source: bytes, relpath: str) -> list[tuple[str, int, str, str]]:
    """(node, line, source with decorators, docstring) of each test in a module: `test*` functions, `test*` methods of
    `Test*` classes (and of TestCase subclasses), and `Name = Machine.TestCase`, whose one test is `runTest`."""
    tree = ast.parse(source, filename=relpath)
    text = source.decode("utf-8", errors="replace")
    found = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test"):
            found.append((node.name, node.lineno, _source(node, text), ast.get_docstring(node) or ""))
        elif isinstance(node, ast.ClassDef) and _is_test_class(node):
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name.startswith("test"):
                    found.append((f"{node.name}::{item.name}", item.lineno, _source(item, text),
                                  ast.get_docstring(item) or ""))
        elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                and isinstance(node.value, ast.Attribute) and node.value.attr == "TestCase":
            # pytest collects a TestCase whatever its name (pyrsistent's `PVectorBuilderTests = ....TestCase`)
            found.append((f"{node.targets[0].id}::runTest", node.lineno, _source(node, text), ""))
    return found


OTHERS_NAME = "__others__"  # the assertion id's last part for the tests of a file reading did not name


def others(nodes) -> str:
    """The node of "every other test of the file": `*:` and the named nodes pytest is to leave out."""
    return "*:" + ",".join(node for node, *_ in nodes)


def assertion_id(relpath: str, node: str) -> str:
    """A test's short name: its module's dotted path and its node, `tests.test_calc.TestGroup.test_in_class`."""
    module = PurePosixPath(relpath).with_suffix("").as_posix().replace("/", ".")
    return f"{module}.{node.replace('::', '.')}"


def pinned(seed: str, generator_version: int) -> tuple[Lock, Fixture]:
    """What a test is pinned to: no fixture file, the empty payload, and the run's seed."""
    return Lock(NO_FIXTURE, sha256_hex(EMPTY_PAYLOAD), generator_version, seed), Fixture({}, None, {})


def contract_of(node: str, source: str, docstring: str) -> Contract:
    """The test's contract: its name, its docstring (or that it passes) as the invariant, and the hash of its source
    with its decorators as the domain (@given's strategies, @example and @settings decide what it tries)."""
    return Contract(node, docstring.strip() or f"{node} passes",
                    "source " + hashlib.sha256(source.encode("utf-8")).hexdigest()[:16])


def read_tests(repo: Path, relpath: str) -> tuple[bytes, list[tuple[str, int, str, str]]]:
    """A test file's bytes and its tests; UnsafePath, OSError or SyntaxError/ValueError as reading or parsing fails."""
    raw = safefs.read_inside(repo, relpath, max_bytes=MAX_TEST_FILE_BYTES)
    return raw, nodes_of(raw, relpath)


def _is_test_class(node: ast.ClassDef) -> bool:
    if any(isinstance(item, ast.FunctionDef) and item.name == "__init__" for item in node.body):
        return False  # pytest collects no class with an __init__
    bases = {b.attr if isinstance(b, ast.Attribute) else getattr(b, "id", "") for b in node.bases}
    return node.name.startswith("Test") or "TestCase" in bases


def _source(node: ast.AST, text: str) -> str:
    """The statement's source with its decorators."""
    lines = text.splitlines(keepends=True)
    first = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", ()))])
    return "".join(lines[first - 1:getattr(node, "end_lineno", node.lineno)])
