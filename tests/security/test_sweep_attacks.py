"""A reviewing helper's attacks on the first design of the sweep (one pytest session shared by a file's rows, which
dropped and re-imported the test module between rows): each gates a patch twice, with the sweep and one session a row
(`sweeping.sweep` made to make nothing), and asserts the label one session a row gives. All eight landed on that design
(a conftest.py's state and what it asked of the first subject reached later rows, fixtures stacked, the session's end
was never read, capture differed); the sweep now forks each row's session from pytest's start and asks every row's
subject what the start asked, and each attack is kept here with the check that the sweep made the rows."""

from __future__ import annotations

import pytest

from endtoend import gate

pytestmark = pytest.mark.e2e

CONFIG = ('version: 1\npaths:\n  impl: ["src/"]\n  oracle: ["tests/"]\nproperties:\n  pytest: ["tests/"]\n'
          "freeze:\n  expires_in_hours: 24\n")


def labels_of(outcome) -> dict[str, str]:
    return {r.target.node: r.verdict.label for r in outcome.results}


def run(git_repo, tmp_path, monkeypatch, swept: bool, base: dict, head: dict) -> dict[str, str]:
    from witness_gate import sweeping

    monkeypatch.setenv("WITNESS_WARM", "on")
    made: list = []
    real = sweeping.sweep

    def sweep(runner, selectors, runs, progress=None):
        rows = real(runner, selectors, runs, progress) if swept else {}
        made.extend(row for found in rows.values() for row in found)
        return rows

    monkeypatch.setattr(sweeping, "sweep", sweep)
    git_repo.commit({".witness.yml": CONFIG, **base}, "base")
    git_repo.git("checkout", "-q", "-b", "patch")
    git_repo.commit(head, "the patch")
    outcome = gate(git_repo, tmp_path / "out")
    assert bool(made) == swept  # the sweep made rows (or, in the control, none)
    return labels_of(outcome)


# -- 1. what a conftest.py asks of the first subject as pytest starts (an import, an attribute read) no later row's
#       subject is ever asked: a later row's subject can tell it is one, and hide a regression ------------------------
CALC_PKG = '''
import sys


def ident(x):
    return x


def double(x):
    return 2 * x
'''
CALC_TESTING = '''
def helper():
    return "a helper the tests' fixtures share"
'''
# the regression shows only in a process where the oracle's conftest.py imported calc.testing, as it does in every
# pytest session of this repository (a developer's, CI's, one session a row in the gate)
CALC_PKG_HEAD = CALC_PKG.replace("    return 2 * x", "    return 2 * x + ('calc.testing' in sys.modules)")
CONFTEST_IMPORTS = '''
from calc.testing import helper  # noqa: F401 - an import, no call: the sweep goes on past its first row
'''
TESTS_DOUBLE = '''
from calc import double, ident


def test_ident():
    assert ident(1) == 1


def test_double():
    assert double(2) == 4
'''


@pytest.mark.parametrize("swept", [False, True])
def test_a_regression_hidden_from_subjects_the_conftest_never_touched(git_repo, tmp_path, monkeypatch, swept):
    labels = run(git_repo, tmp_path, monkeypatch, swept,
                 {"src/calc/__init__.py": CALC_PKG, "src/calc/testing.py": CALC_TESTING,
                  "tests/conftest.py": CONFTEST_IMPORTS, "tests/test_double.py": TESTS_DOUBLE},
                 {"src/calc/__init__.py": CALC_PKG_HEAD})
    assert labels["test_double"] == "regression", labels


# -- 2. an enum class the judge made from the first subject's description, kept in a conftest.py, compared in the
#       judge (no request, so no peer.LIVE fault) with a later subject's member: never the same, so `!=` holds ---------
CALC_ENUM = '''
import enum


class Status(enum.Enum):
    OK = 1
    FAILED = 2


def ident(x):
    return x


def run(x):
    return Status.OK if x >= 0 else Status.FAILED
'''
CONFTEST_ENUM = '''
import pytest
from calc import Status


@pytest.fixture
def failed():
    return Status.FAILED
'''
TESTS_ENUM = '''
import calc


def test_ident():
    assert calc.ident(1) == 1


def test_run_does_not_fail(failed):
    assert calc.run(1) != failed
'''


@pytest.mark.parametrize("swept", [False, True])
def test_an_enum_kept_in_a_conftest_never_equals_a_later_subject_s_member(git_repo, tmp_path, monkeypatch, swept):
    labels = run(git_repo, tmp_path, monkeypatch, swept,
                 {"src/calc.py": CALC_ENUM, "tests/conftest.py": CONFTEST_ENUM, "tests/test_enum.py": TESTS_ENUM},
                 {"src/calc.py": CALC_ENUM.replace("Status.OK if x >= 0 else Status.FAILED", "Status.FAILED")})
    assert labels["test_run_does_not_fail"] == "regression", labels


# -- 3. every row's re-collection registers the test module's fixtures again beside the earlier rows' (pytest's
#       fixture manager is never told the old module is gone): a module fixture that overrides a conftest.py's of the
#       same name gets, as its "parent", the same fixture of every earlier row's module object -----------------------
CALC_LINES = '''
def ident(x):
    return x


def lines():
    return ["header", "a", "b"]
'''
CONFTEST_LINES = '''
import pytest


@pytest.fixture
def rows():
    import calc

    return calc.lines()
'''
TESTS_LINES = '''
import pytest

import calc


@pytest.fixture
def rows(rows):
    return rows[1:]  # the conftest's rows without the header


def test_ident():
    assert calc.ident(1) == 1


def test_no_bad_row(rows):
    assert "bad" not in rows
'''


@pytest.mark.parametrize("swept", [False, True])
def test_a_fixture_overriding_a_conftest_one_is_stacked_once_a_row(git_repo, tmp_path, monkeypatch, swept):
    labels = run(git_repo, tmp_path, monkeypatch, swept,
                 {"src/calc.py": CALC_LINES, "tests/conftest.py": CONFTEST_LINES, "tests/test_lines.py": TESTS_LINES},
                 {"src/calc.py": CALC_LINES.replace('["header", "a", "b"]', '["header", "bad", "a", "b"]')})
    assert labels["test_no_bad_row"] == "regression", labels


# -- 4. what pytest does as its session ends (a conftest.py's pytest_sessionfinish that fails the run on a leak) is
#       done once for the whole sweep, after every row has answered: no row's verdict reads pytest's exit status -----
CALC_LEAK = '''
OPEN = []


def ident(x):
    return x


def open_thing():
    OPEN.append(1)
    return len(OPEN)


def close_thing():
    OPEN.pop()


def leaked():
    return len(OPEN)
'''
CONFTEST_LEAK = '''
def pytest_sessionfinish(session, exitstatus):
    import calc

    if calc.leaked():  # a resource the code under test never gave back fails the run
        session.exitstatus = 1
'''
TESTS_LEAK = '''
import calc


def test_ident():
    assert calc.ident(1) == 1


def test_open_close():
    calc.open_thing()
    calc.close_thing()
'''


@pytest.mark.parametrize("swept", [False, True])
def test_a_session_that_fails_as_it_ends_is_no_pass(git_repo, tmp_path, monkeypatch, swept):
    labels = run(git_repo, tmp_path, monkeypatch, swept,
                 {"src/calc.py": CALC_LEAK, "tests/conftest.py": CONFTEST_LEAK, "tests/test_leak.py": TESTS_LEAK},
                 {"src/calc.py": CALC_LEAK.replace("    OPEN.pop()", "    pass")})
    assert labels["test_open_close"] != "pass", labels


# -- 5. a conftest.py's own Module class (pytest_pycollect_makemodule): the sweep's check that a conftest.py called
#       the implementation as pytest started looks for a collector named "Module", finds none, and the sweep goes on --
CALC_SCALE = '''
SETTING = {"scale": 1}


def ident(x):
    return x


def configure(scale):
    SETTING["scale"] = scale


def scaled(x):
    return SETTING["scale"] * x
'''
CONFTEST_SCALE = '''
import pytest

import calc

calc.configure(3)  # as pytest starts: every subject of a row must have seen it


class CheckedModule(pytest.Module):
    """the oracle's own module collector"""


def pytest_pycollect_makemodule(module_path, parent):
    return CheckedModule.from_parent(parent, path=module_path)
'''
TESTS_SCALE = '''
from calc import ident, scaled


def test_ident():
    assert ident(1) == 1


def test_scaled():
    assert scaled(2) == 6
'''


@pytest.mark.parametrize("swept", [False, True])
def test_a_conftest_that_configures_the_implementation_with_its_own_module_class(git_repo, tmp_path, monkeypatch,
                                                                                  swept):
    # the regression shows only once configure() was called, as in every pytest session of this repository
    head = CALC_SCALE.replace('    return SETTING["scale"] * x',
                              '    return 3 * x if SETTING["scale"] == 1 else 0')
    labels = run(git_repo, tmp_path, monkeypatch, swept,
                 {"src/calc.py": CALC_SCALE, "tests/conftest.py": CONFTEST_SCALE, "tests/test_scale.py": TESTS_SCALE},
                 {"src/calc.py": head})
    assert labels["test_scaled"] == "regression", labels


# -- 6. fidelity: the sweep captures at the sys level (--capture=sys) where a test's own session captures
#       descriptors: sys.stdout has no descriptor, and a test that writes to it by descriptor fails only in a sweep ----
CALC_PLAIN = '''
def double(x):
    return 2 * x
'''
TESTS_FILENO = '''
import os
import sys

from calc import double


def test_report_by_descriptor():
    os.write(sys.stdout.fileno(), b"doubling\\n")
    assert double(2) == 4
'''


@pytest.mark.parametrize("swept", [False, True])
def test_a_test_that_writes_to_stdout_s_descriptor(git_repo, tmp_path, monkeypatch, swept):
    labels = run(git_repo, tmp_path, monkeypatch, swept,
                 {"src/calc.py": CALC_PLAIN, "tests/test_fileno.py": TESTS_FILENO},
                 {"src/calc.py": CALC_PLAIN + "\n# a comment\n"})
    assert labels["test_report_by_descriptor"] == "pass", labels


# -- 7. data an earlier subject gave, kept in a conftest.py (a memo): no peer.LIVE fault (it is no handle), and every
#       later row's verdict is the first subject's answer, whatever its own subject would say. The subjects here are
#       told apart by their layout (each draws its own at random in the gate; made a sequence here so the test is
#       exact): an implementation that is wrong in all but one subject in ten is wrong in every row one session a row
#       makes, and in no row of a sweep whose first subject was the lucky one -------------------------------------
CALC_MEMO = '''
import os


def ident(x):
    return x


def double(x):
    return 2 * x
'''
CALC_MEMO_HEAD = CALC_MEMO.replace("    return 2 * x", "    return 2 * x + (os.environ.get('PYTHONHASHSEED') != '1000')")
CONFTEST_MEMO = '''
import functools

import pytest


@functools.cache
def doubled(x):  # the tests ask the same things again and again
    import calc

    return calc.double(x)


@pytest.fixture
def double():
    return doubled
'''
TESTS_MEMO = '''
def test_double_one(double):
    assert double(2) == 4


def test_double_two(double):
    assert double(2) + 0 == 4
'''


@pytest.mark.parametrize("swept", [False, True])
def test_data_an_earlier_subject_gave_decides_a_later_row(git_repo, tmp_path, monkeypatch, swept):
    import itertools

    from witness_gate import runner

    layouts = itertools.count(1000)
    monkeypatch.setattr(runner, "draw_layout", lambda: next(layouts))
    labels = run(git_repo, tmp_path, monkeypatch, swept,
                 {"src/calc.py": CALC_MEMO, "tests/conftest.py": CONFTEST_MEMO, "tests/test_memo.py": TESTS_MEMO},
                 {"src/calc.py": CALC_MEMO_HEAD})
    assert labels["test_double_two"] != "pass", labels


# -- 8. drop() keeps a module of the judge's view that has no __file__ (a namespace package: tests/helpers/ without
#       an __init__.py), and with it the submodules it holds as attributes: `from helpers import util` in a later
#       row is the earlier row's util, with the state the earlier rows left in it --------------------------------
HELPER = '''
SEEN = []


def first_time(value):
    SEEN.append(value)
    return len(SEEN) == 1
'''
TESTS_HELPER = '''
from helpers import util

from calc import double


def test_double_once():
    assert util.first_time(double(2))
'''


@pytest.mark.parametrize("swept", [False, True])
def test_a_namespace_package_s_module_is_kept_from_row_to_row(git_repo, tmp_path, monkeypatch, swept):
    labels = run(git_repo, tmp_path, monkeypatch, swept,
                 {"src/calc.py": CALC_PLAIN, "tests/helpers/util.py": HELPER, "tests/test_helper.py": TESTS_HELPER},
                 {"src/calc.py": CALC_PLAIN + "\n# a comment\n"})
    assert labels["test_double_once"] == "pass", labels
