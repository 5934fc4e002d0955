"""A file's rows from one pytest start (sandbox/judge/sweep.py): the same labels as one session a row, each row a
session of its own forked from pytest's start against a subject of its own, and a start a fork could be told from
serves its first row itself and no more."""

from __future__ import annotations

import pytest

from endtoend import gate

pytestmark = pytest.mark.e2e

CONFIG = ('version: 1\npaths:\n  impl: ["src/"]\n  oracle: ["tests/"]\nproperties:\n  pytest: ["tests/"]\n'
          "freeze:\n  expires_in_hours: 24\n")
CALC = '''
CALLS = []


def bump():
    CALLS.append(1)
    return len(CALLS)


class Box:
    def __init__(self, value):
        self.value = value

    def get(self):
        return self.value


def make_box(value):
    return Box(value)


def double(x):
    return 2 * x


def fold(s):
    return s.casefold()


SETTING = {"scale": 1}


def configure(scale):
    SETTING["scale"] = scale


def scaled(x):
    return SETTING["scale"] * x
'''
TESTS = '''
import pytest
from hypothesis import given, strategies as st
from calc import bump, double, fold


def test_bump_first():
    """each row's subject is its own: the first call of it is the first"""
    assert bump() == 1


@pytest.mark.parametrize("x", [1, 2, 3])
def test_double_cases(x):
    assert double(x) == x + x


class TestGroup:
    def test_in_class(self):
        assert double(4) == 8


@given(st.integers(min_value=-1000, max_value=1000))
def test_double_is_even(x):
    assert double(x) % 2 == 0


def test_fold_sharp_s():
    assert fold("\\u00df") == "ss"


def test_interrupted():
    double("stop")
'''


def labels_of(outcome) -> dict[str, str]:
    return {r.target.node: r.verdict.label for r in outcome.results}


@pytest.mark.parametrize("swept", [True, False])
def test_a_file_swept_in_one_session_is_labelled_as_one_session_a_row_labels_it(git_repo, tmp_path, monkeypatch, swept):
    """Not swept: every row a session of its own, as before. The same labels either way, every row cold and of its
    own layout."""
    from witness_gate import sweeping

    monkeypatch.setenv("WITNESS_WARM", "on")
    made: dict = {}
    replayed: list = []
    real_sweep, real_series = sweeping.sweep, sweeping.series

    def sweep(runner, selectors, runs, progress=None):
        rows = real_sweep(runner, selectors, runs, progress) if swept else {}
        made.update(rows)
        return rows

    def series(runner, payload, runs, progress=None):
        rows = real_series(runner, payload, runs, progress) if swept else None
        replayed.append((runner.selector, payload, rows))
        return rows

    monkeypatch.setattr(sweeping, "sweep", sweep)
    monkeypatch.setattr(sweeping, "series", series)
    git_repo.commit({".witness.yml": CONFIG, "src/calc.py": CALC, "tests/test_calc.py": TESTS}, "base")
    git_repo.git("checkout", "-q", "-b", "patch")
    head = CALC.replace("return s.casefold()", "return s.lower()").replace(
        "def double(x):\n", "def double(x):\n    if x == 'stop':\n        raise KeyboardInterrupt\n")
    git_repo.commit({"src/calc.py": head}, "lower is enough")
    outcome = gate(git_repo, tmp_path / "out")
    assert labels_of(outcome) == {
        "test_bump_first": "pass", "test_double_cases": "pass", "TestGroup::test_in_class": "pass",
        "test_double_is_even": "pass", "test_fold_sharp_s": "regression", "test_interrupted": "regression",
        "*:test_bump_first,test_double_cases,TestGroup::test_in_class,test_double_is_even,test_fold_sharp_s,"
        "test_interrupted": "pass",
    }, labels_of(outcome)
    for result in outcome.results:
        rows = result.evidence.first
        assert {row.isolation for row in rows} == {"split-cold"}, (result.target.node, rows)
        assert len({row.layout for row in rows}) == len(rows)
    [interrupted] = [r for r in outcome.results if r.target.node == "test_interrupted"]
    assert interrupted.evidence.first[-1].reason.startswith("raise:KeyboardInterrupt@src/calc.py:"), \
        interrupted.evidence.first[-1]
    assert [note for r in outcome.results for note in r.notes if "one pytest session" in note] == []
    if swept:  # every passing test's first runs, and each failing one's up to its failure, came from the sweep (a
        # KeyboardInterrupt ends its row's session only)
        assert {r.target.node: len(made.get(r.target.selector, ())) for r in outcome.results} == {
            r.target.node: 5 if r.verdict.label == "pass" else 1 for r in outcome.results}
        # and a failing one's replays are five cold rows of one session (the base's that pass are warm, as before)
        [fold] = [r for r in outcome.results if r.target.node == "test_fold_sharp_s"]
        assert [(len(rows or ()), {row.reason for row in rows or ()}) for selector, _p, rows in replayed
                if selector == fold.target.selector] == [(5, {"raise:AssertionError@tests/test_calc.py:28"})]
        assert fold.evidence.replays == next(rows for selector, _p, rows in replayed if selector == fold.target.selector)


KEEPS = '''
import pytest
import calc

KEPT = {}


@pytest.fixture
def box():
    """an object of the implementation kept between tests, as a session-wide cache would"""
    if "box" not in KEPT:
        KEPT["box"] = calc.make_box(21)
    return KEPT["box"]
'''


def test_an_object_a_conftest_keeps_is_its_own_row_s(git_repo, tmp_path, monkeypatch):
    """A conftest.py keeps an object of the implementation between tests: every row's session keeps its own subject's
    (a session shared between rows handed the next row's test an object of a subject that was gone)."""
    monkeypatch.setenv("WITNESS_WARM", "on")
    git_repo.commit({".witness.yml": CONFIG, "src/calc.py": CALC, "tests/conftest.py": KEEPS,
                     "tests/test_box.py": "def test_box(box):\n    assert box.get() * 2 == 42\n"}, "base")
    git_repo.git("checkout", "-q", "-b", "patch")
    git_repo.commit({"src/calc.py": CALC + "\n# a comment\n"}, "a comment")
    outcome = gate(git_repo, tmp_path / "out")
    [result] = [r for r in outcome.results if r.target.node == "test_box"]
    assert result.verdict.label == "pass", (result.verdict, result.notes)
    assert not any("one pytest session" in note for note in result.notes), result.notes  # the sweep made them all
    assert len(result.evidence.first) == 5 and {row.outcome for row in result.evidence.first} == {"pass"}


CONFIGURES = '''
import calc

calc.configure(3)  # as pytest starts: every subject of a row must have seen it
'''


def test_a_conftest_that_sets_the_implementation_up_as_pytest_starts_does_so_in_every_row_s_subject(
        git_repo, tmp_path, monkeypatch):
    """pytest's start called the implementation (configure(3)): no row's child is forked from it, since a later row's
    subject would not have been asked it (and one told it again can tell a replayed start by its timing); the start
    serves its first row itself, as that test's own session, and every other row is a session of its own."""
    monkeypatch.setenv("WITNESS_WARM", "on")
    git_repo.commit({".witness.yml": CONFIG, "src/calc.py": CALC, "tests/conftest.py": CONFIGURES,
                     "tests/test_scaled.py": "from calc import scaled\n\n"
                                             "def test_scaled():\n    assert scaled(2) == 6\n\n"
                                             "def test_scaled_again():\n    assert scaled(3) == 9\n"}, "base")
    git_repo.git("checkout", "-q", "-b", "patch")
    git_repo.commit({"src/calc.py": CALC + "\n# a comment\n"}, "a comment")
    outcome = gate(git_repo, tmp_path / "out")
    assert labels_of(outcome) == {"test_scaled": "pass", "test_scaled_again": "pass",
                                  "*:test_scaled,test_scaled_again": "pass"}, [
        (r.target.node, r.verdict, [row.detail[-300:] for row in r.evidence.first if row.outcome != "pass"])
        for r in outcome.results]


def test_a_hypothesis_example_is_replayed_in_one_session_each_row_a_subject_of_its_own(git_repo, tmp_path, monkeypatch):
    from witness_gate import sweeping

    monkeypatch.setenv("WITNESS_WARM", "on")
    replayed: list = []
    real = sweeping.series

    def series(runner, payload, runs, progress=None):
        replayed.append((payload, real(runner, payload, runs, progress)))
        return replayed[-1][1]

    monkeypatch.setattr(sweeping, "series", series)
    given = ("from hypothesis import given, strategies as st\nfrom calc import double\n\n"
             "@given(st.integers(min_value=0, max_value=1000))\ndef test_even(x):\n    assert double(x) % 2 == 0\n")
    git_repo.commit({".witness.yml": CONFIG, "src/calc.py": CALC, "tests/test_even.py": given}, "base")
    git_repo.git("checkout", "-q", "-b", "patch")
    git_repo.commit({"src/calc.py": CALC.replace("    return 2 * x\n", "    return 2 * x + (x > 500)\n")}, "off")
    [result] = [r for r in gate(git_repo, tmp_path / "out").results if r.target.node == "test_even"]
    assert result.verdict.label == "regression", (result.verdict, result.notes)
    witness = result.record["witness"]
    assert set(witness) == {"hypothesis", "choices", "case"}  # Hypothesis's own example, replayed alone
    [(payload, rows)] = [(p, rows) for p, rows in replayed if p == witness][:1]
    assert rows is not None and [row.outcome for row in rows] == ["fail"] * 5
    assert result.evidence.replays[:5] == rows and len({row.layout for row in rows}) == 5
    assert "x=501" in result.record["observed"], result.record["observed"]
