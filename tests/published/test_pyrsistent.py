"""pyrsistent as its maintainers would adopt the gate (tests/support/projects.py), one test gated a scenario (`run --only`)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from projects import branch, gate, published

pytestmark = pytest.mark.e2e

# pyrsistent: persistent vectors, maps and classes, whose tests compare the implementation's objects, put their own
# objects in its vectors and subclass its classes (the boundary's handles, lent objects and subclasses)
PVECTOR = "pyrsistent/_pvector.py"
WITHIN_TAIL = "tests.vector_test.test_random_insert_within_tail"
SHARED_TAIL = {PVECTOR: ("                new_tail = list(self._tail)\n                new_tail[i & BIT_MASK] = val",
                         "                new_tail = self._tail  # no copy: the tail is ours\n"
                         "                new_tail[i & BIT_MASK] = val")}


@pytest.fixture(scope="module")
def pyrsistent(tmp_path_factory) -> Path:
    return published("pyrsistent", tmp_path_factory)


def test_pyrsistent_s_tests_run_as_written_on_a_head_that_changes_nothing(pyrsistent):
    # maps compared with maps and dicts, hashed, slices and item access, an oracle's class over the implementation's
    # (`class Naturals(CheckedPVector)`, with `isinstance`): the suite as written, across the process boundary
    branch(pyrsistent, "noop", {PVECTOR: ("def _node_for(", "def _node_for(  ")}, message="whitespace")
    summary = gate(pyrsistent, "main", "noop", "tests.map_test.test_*equal*", "tests.map_test.test_*hash_when*",
                   "tests.checked_vector_test.test_instantiate", "tests.checked_vector_test.test_append",
                   "tests.list_test.test_inequality", "tests.vector_test.test_compare_equal_vectors")
    labels = {row["assertion_id"]: row["label"] for row in summary["properties"]}
    # (the vector tests take its C extension too, which is not built here: a case skipped as on the base)
    assert len(labels) == 11 and set(labels.values()) == {"pass"}, labels


def test_pyrsistent_s_real_regression_is_blocked_with_the_assertion(pyrsistent):
    branch(pyrsistent, "shared-tail", SHARED_TAIL, message="set without copying the tail")
    summary = gate(pyrsistent, "main", "shared-tail", WITHIN_TAIL)
    [row] = summary["properties"]
    assert (summary["verdict"], row["label"]) == ("regression", "regression"), row
    # which of its two cases failed, and the C extension's case skipped beside it, here as on the base
    assert row["reason"].startswith("raise:AssertionError@tests/vector_test.py:106|failed:1/2:"), row
    assert "|skipped:1/2:" in row["reason"], row
    record = json.loads(Path(row["replay"].split(" ", 2)[2].strip("'")).read_text())
    assert record["observed"].startswith("assert 4 == 2"), record["observed"]  # the original vector changed


def test_pyrsistent_s_equality_that_compares_only_lengths_is_a_regression(pyrsistent):
    # "equal when the lengths are": the vector's own answer is a claim of equality its items contradict
    faster = {PVECTOR: ("(hasattr(other, '__len__') and self._count == len(other)) and compare_pvector(self, other, "
                        "operator.eq)", "(hasattr(other, '__len__') and self._count == len(other))")}
    branch(pyrsistent, "length-equal", faster, message="compare lengths first")
    summary = gate(pyrsistent, "main", "length-equal", "tests.vector_test.test_compare_different_vectors_same_size")
    [row] = summary["properties"]
    assert row["label"] == "regression" and row["reason"].startswith(
        "raise:ImplementationDisagrees@tests/vector_test.py:389|"), row


def test_pyrsistent_s_membership_that_finds_nothing_is_a_regression(pyrsistent):
    # found by a reviewer: `in` decided from the set's contents alone never asked the set, and this head was `pass`
    nothing = {"pyrsistent/_pset.py": ("    def __contains__(self, element):\n        return element in self._map",
                                       "    def __contains__(self, element):\n        return False")}
    branch(pyrsistent, "finds-nothing", nothing, message="membership")
    summary = gate(pyrsistent, "main", "finds-nothing", "tests.set_test.test_contains")
    [row] = summary["properties"]
    assert row["label"] == "regression" and row["reason"].startswith(
        "raise:ImplementationDisagrees@tests/set_test.py:62"), row


def test_pyrsistent_s_regression_with_its_test_weakened_is_a_mixed_edit(pyrsistent):
    weakened = {**SHARED_TAIL, "tests/vector_test.py": ("    assert seq2[1] == 4\n    assert seq[1] == 2\n",
                                                        "    assert seq2[1] == 4\n")}
    branch(pyrsistent, "shared-tail-and-test", weakened, message="set without copying; test agrees")
    summary = gate(pyrsistent, "main", "shared-tail-and-test")
    assert (summary["verdict"], summary["exit_code"], summary["properties"]) == ("mixed_edit", 1, [])
    assert "tests/vector_test.py" in summary["reason"]


def test_pyrsistent_s_fix_with_a_regression_test_beside_it_is_judged_and_passes(pyrsistent):
    branch(pyrsistent, "tail-bug", SHARED_TAIL, message="a base that has the bug")
    regression_test = ("from pyrsistent import pvector\n\n\n"
                       "def test_set_leaves_the_original_as_it_was():\n"
                       "    original = pvector([1, 2, 3])\n"
                       "    original.set(0, 9)\n"
                       "    assert original == pvector([1, 2, 3])\n")
    fix = {PVECTOR: SHARED_TAIL[PVECTOR][::-1], "tests/tail_test.py": (None, regression_test)}
    branch(pyrsistent, "tail-fix", fix, start="tail-bug", message="copy the tail, with a test")
    summary = gate(pyrsistent, "tail-bug", "tail-fix", WITHIN_TAIL)
    [row] = summary["properties"]
    assert (summary["verdict"], row["label"]) == ("pass", "pass"), row
    record = json.loads(next((Path(summary["records"])).glob("*.attempt.json")).read_text())
    assert any("tests/tail_test.py" in note for note in record["notes"]), record["notes"]


def test_pyrsistent_s_maps_compared_in_hash_order_are_a_flake_with_a_freeze_proposal_on_every_run(pyrsistent):
    """A map's items come out in the order of their keys' hashes, which follow each process's PYTHONHASHSEED: equal
    maps compared item by item, in order, are unequal on some layouts (5 in 8 for these two tests' string keys). It
    was `regression` one run in ten: a test with no @given failed its first row and all five replays (5/8 to the
    fifth power); a witness that is the pinned payload itself is now looked at harder, as a Hypothesis example is."""
    in_order = {"pyrsistent/_pmap.py": ("            return dict(self.iteritems()) == dict(other.iteritems())",
                                        "            return list(self.iteritems()) == list(other.iteritems())"
                                        "  # same size: compare in order, no dicts")}
    branch(pyrsistent, "in-order", in_order, message="compare maps without building dicts")
    said = []
    for _ in range(10):
        summary = gate(pyrsistent, "main", "in-order", "tests.map_test.test_update_with",
                       "tests.map_test.test_update_one_argument")
        labels = sorted(row["label"] for row in summary["properties"])
        proposals = [json.loads(Path(row["replay"].split(" ", 2)[2].strip("'")).read_text()).get("freeze")
                     for row in summary["properties"] if row["label"] == "flake"]
        said.append((summary["verdict"], summary["exit_code"], bool(proposals) and all(proposals)))
        # each test's own label is flake, or, when all five of its first rows missed (3/8 to the fifth power), pass,
        # or not_reproduced once an earlier run of this same patch failed it (the records remember: a person looks)
        assert set(labels) <= {"flake", "pass", "not_reproduced"} and "flake" in labels, summary
    assert said == [("flake", 3, True)] * 10, said


def test_pyrsistent_s_readme_only_head_is_skipped(pyrsistent):
    branch(pyrsistent, "docs", {"README.rst": ("Pyrsistent", "Pyrsistent (persistent data structures)")},
           message="docs")
    summary = gate(pyrsistent, "main", "docs")
    assert (summary["verdict"], summary["exit_code"], summary["properties"]) == ("skipped", 0, [])
