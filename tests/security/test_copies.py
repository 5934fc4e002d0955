"""The implementation's objects pickled and copied by the oracle (`pickle.dumps`, `copy.copy`, `copy.deepcopy` of a
handle): done in the subject, by the modules it bound before the implementation loaded, with one memo per deepcopy in
the judge. Attacks by a reviewer on the first way this was done, each with plain pytest's verdict as the control."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from endtoend import gate
from test_pytest_tests import CONFIG, run
from witness_gate.sandbox import stage_directory

pytestmark = pytest.mark.e2e

STACK = '''
import copy


class Stack:
    def __init__(self, items=()):
        self.items = list(items)

    def push(self, item):
        self.items.append(item)

    def __len__(self):
        return len(self.items)

    def __iter__(self):
        return iter(self.items)

    def __deepcopy__(self, memo):
'''
CORRECT = STACK + '''        new = Stack.__new__(Stack)
        memo[id(self)] = new
        new.items = copy.deepcopy(self.items, memo)
        return new
'''
# copied inside another structure (a non-empty memo), it shares its items with the original
MEMO_SENSITIVE = STACK + '''        new = Stack.__new__(Stack)
        new.items = self.items if memo else copy.deepcopy(self.items, memo)
        return new
'''
# the memo is not passed on: what the copy holds is no longer shared with the rest of the copied structure
MEMO_DROPPED = STACK + '''        new = Stack.__new__(Stack)
        new.items = copy.deepcopy(self.items)
        return new
'''
TESTS = '''
import copy

from calc import Stack


def test_deepcopied_in_a_list():
    s = Stack([1])
    (c,) = copy.deepcopy([s])
    s.push(2)
    assert list(c) == [1]


def test_deepcopy_keeps_what_is_shared():
    inner = Stack([1])
    outer = Stack([inner])
    inner2, outer2 = copy.deepcopy([inner, outer])
    assert list(outer2)[0] is inner2
'''


def plain_pytest(path, node: str) -> int:
    """The control: plain pytest's exit code for the test, on what is checked out at `path`."""
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"tests/test_calc.py::{node}"],
                          cwd=path, env={**os.environ, "PYTHONPATH": str(path / "src")}, capture_output=True).returncode


def gated(git_repo, tmp_path, base: str, head: str, node: str):
    git_repo.commit({".witness.yml": CONFIG, "src/calc.py": base, "tests/test_calc.py": TESTS}, "base")
    before = plain_pytest(git_repo.path, node)
    git_repo.git("checkout", "-q", "-b", "patch")
    git_repo.commit({"src/calc.py": head}, "head")
    after = plain_pytest(git_repo.path, node)
    [result] = [r for r in gate(git_repo, tmp_path / "out", only=(f"*.{node}",)).results if r.target.node == node]
    return (before, after), result.verdict.label


def test_a_deepcopy_wrong_only_inside_another_structure_is_a_regression(git_repo, tmp_path):
    # plain pytest: the base passes, the head fails; the gate gave the head `pass` while its __deepcopy__ was handed
    # an empty memo (now the subject's memo holds an entry whenever the judge's held the structure around it)
    pytest_says, label = gated(git_repo, tmp_path, CORRECT, MEMO_SENSITIVE, "test_deepcopied_in_a_list")
    assert pytest_says == (0, 1)
    assert label == "regression", label


def test_a_deepcopy_that_stops_keeping_shared_objects_shared_is_a_regression(git_repo, tmp_path):
    # plain pytest: the base passes, the head fails; when the gate copied each handle alone the base failed as well
    # and the head's real regression was `pre_existing` (now one memo in the subject for one deepcopy in the judge)
    pytest_says, label = gated(git_repo, tmp_path, CORRECT, MEMO_DROPPED, "test_deepcopy_keeps_what_is_shared")
    assert pytest_says == (0, 1)
    assert label == "regression", label


def row(tmp_path, calc: str, tests: str, node: str):
    """(plain pytest's exit code, the gate's one sandboxed row) for the test over this implementation."""
    (tmp_path / "src").mkdir()
    (tmp_path / "tests").mkdir()
    (tmp_path / "src" / "calc.py").write_text(calc)
    (tmp_path / "tests" / "test_calc.py").write_text(tests)
    return plain_pytest(tmp_path, node), run(stage_directory(tmp_path), node)


NO_BYTES = '''
import pickle


class Stack:
    def __init__(self, items=()):
        self.items = list(items)


_real = pickle.dumps


def dumps(obj, *args, **kw):  # a Stack pickles to nothing
    return None if isinstance(obj, Stack) else _real(obj, *args, **kw)


pickle.dumps = dumps
'''
NOT_PICKLABLE = '''
import pickle

import pytest

from calc import Stack


def test_not_picklable():
    with pytest.raises(TypeError):
        pickle.dumps(Stack([1]))
'''


def test_a_pickle_of_no_bytes_is_no_type_error_the_oracle_expects(tmp_path):
    # Handle.__reduce_ex__ raised a builtin TypeError of the judge's when the subject's pickle gave no bytes, which
    # the oracle's `pytest.raises(TypeError)` took for the implementation's refusal (plain pytest: no error, a failure);
    # and the subject now pickles with the pickle it bound before the implementation patched `pickle.dumps`
    said, evaluated = row(tmp_path, NO_BYTES, NOT_PICKLABLE, "test_not_picklable")
    assert said == 1
    assert evaluated.outcome == "fail", (evaluated.outcome, evaluated.reason)


COPY_SWAPPED = '''
import copy as _copy
import sys
import types


class Stack:
    def __init__(self, items=()):
        self.items = list(items)

    def push(self, item):
        self.items.append(item)

    def __iter__(self):
        return iter(self.items)

    def __deepcopy__(self, memo):  # the regression: a deep copy that shares
        return self


def deepcopy(x, memo=None):  # what the judge asks for as `copy.deepcopy`: the implementation's sys.modules["copy"]
    return Stack(list(x.items)) if isinstance(x, Stack) else _copy.deepcopy(x, memo)


fake = types.ModuleType("copy")
fake.__dict__.update(_copy.__dict__)
fake.deepcopy = deepcopy
sys.modules["copy"] = fake
'''
COPIED = '''
import copy

from calc import Stack


def test_copied():
    s = Stack([1])
    c = copy.deepcopy(s)
    s.push(2)
    assert list(c) == [1]
'''


def test_the_copy_module_the_judge_asks_is_the_implementation_s_sys_modules_entry(tmp_path):
    # the judge imported `copy` in the subject after the implementation did, so whatever it left in sys.modules
    # answered the oracle's copy.deepcopy, which plain pytest's test (bound to the real module) never consults
    said, evaluated = row(tmp_path, COPY_SWAPPED, COPIED, "test_copied")
    assert said == 1
    assert evaluated.outcome == "fail", (evaluated.outcome, evaluated.reason)


TWO_COPIES = '''
import copy

from calc import Stack


def test_two_deepcopies_are_two_objects():
    s = Stack([1])
    a = copy.deepcopy(s)
    b = copy.deepcopy(s)
    a.push(2)
    assert list(b) == [1]
'''


def test_each_deepcopy_in_the_judge_has_a_memo_of_its_own_in_the_subject(tmp_path):
    # found on reading the change back: the subject's memo was named by the judge memo's id() and size, which the next
    # `copy.deepcopy` call's fresh memo repeats, so the second copy was the first (a correct Stack failed here)
    said, evaluated = row(tmp_path, CORRECT, TWO_COPIES, "test_two_deepcopies_are_two_objects")
    assert said == 0
    assert (evaluated.outcome, evaluated.reason) == ("pass", None), evaluated.detail[-600:]
