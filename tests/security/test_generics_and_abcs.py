"""The implementation's generic classes and the standard library's abstract classes, asked from a repository's own
tests: a head's regression there is seen as plain pytest sees it (attacks by a reviewer on the first way bidict's
tests were carried across the boundary, each with plain pytest's own verdict as the control)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from endtoend import gate
from test_pytest_tests import CONFIG

pytestmark = pytest.mark.e2e

GENERIC_BOX = '''
from typing import Generic, TypeVar

T = TypeVar("T")


class Box(Generic[T]):
    def __init__(self, value):
        self.value = value

    def get(self):
        return self.value
'''
PLAIN_BOX = GENERIC_BOX.replace("class Box(Generic[T]):", "class Box:")  # `Box[int]` raises TypeError now
BOX_TEST = '''
from typing import TypeVar

from box import Box

T = TypeVar("T")


def test_box_is_generic():
    class IntBox(Box[T]):
        pass

    assert IntBox(3).get() == 3
    assert Box[T]("x").get() == "x"
'''
REGISTRY = '''
class Registry:
    def __init__(self):
        self.kinds = {}

    def register(self, key, kind):
        self.kinds[key] = kind

    def __getitem__(self, key):
        return self.kinds[key]
'''
REGISTRY_TEST = '''
from typing import TypeVar

from box import Registry

T = TypeVar("T")


def test_a_registered_type_variable_is_found():
    registry = Registry()
    registry.register(T, "anything")
    assert registry[T] is not None
'''
ROWS = '''
class Rows:
    def __init__(self, *rows):
        self.rows = list(rows)

    def __iter__(self):
        return iter(self.rows)

    def __len__(self):
        return len(self.rows)

    def __contains__(self, row):
        return row in self.rows

    def __int__(self):
        return len(self.rows)


def load(*rows):
    return Rows(*rows)
'''
NO_ROWS = '''
class Rows:
    def __init__(self, *rows):
        self.first = rows[0] if rows else None


def load(*rows):
    return Rows(*rows)
'''
ROWS_TEST = '''
import typing

from box import load


def test_load_gives_a_collection():
    rows = load(1, 2)
    assert isinstance(rows, typing.Iterable)
    assert isinstance(rows, typing.Sized)
    assert isinstance(rows, typing.Collection)
    assert isinstance(rows, typing.SupportsInt)
'''


def plain_pytest(repo) -> int:
    """The repository's own tests under plain pytest, on what is checked out: the control."""
    env = {**os.environ, "PYTHONPATH": str(repo.path / "src")}
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--rootdir", str(repo.path),
                           "--confcutdir", str(repo.path), str(repo.path / "tests")], cwd=repo.path, env=env,
                          capture_output=True, text=True).returncode


@pytest.mark.parametrize("base, head, test", [
    (GENERIC_BOX, PLAIN_BOX, BOX_TEST),  # the generic alias was made in the judge, the head's class never asked
    (REGISTRY, REGISTRY.replace("return self.kinds[key]", "raise KeyError(key)"), REGISTRY_TEST),  # any [TypeVar]
    (ROWS, NO_ROWS, ROWS_TEST),  # typing's aliases checked the judge's Handle class, which has every operator
], ids=["generic", "typevar-key", "typing-aliases"])
def test_a_regression_plain_pytest_sees_in_generics_or_abstract_classes_is_a_regression(git_repo, tmp_path, base,
                                                                                          head, test):
    git_repo.commit({".witness.yml": CONFIG, "src/box.py": base, "tests/test_box.py": test}, "base")
    assert plain_pytest(git_repo) == 0
    git_repo.git("checkout", "-q", "-b", "patch")
    git_repo.commit({"src/box.py": head}, "regression")
    assert plain_pytest(git_repo) == 1
    [named, *_] = gate(git_repo, tmp_path / "out").results
    assert named.verdict.label == "regression", (named.verdict, named.notes)
