"""A published project gated as its maintainers would adopt the gate (examples/projects/): the project as published,
the .witness.yml `witness-gate init` wrote for it, no test file edited, and heads an agent might push. Each scenario
gates the one test that decides it (`run --only`): the whole suite is ~150 properties."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT, run_cli

pytestmark = pytest.mark.e2e

CASEFOLD = "tests.test_input_string_transform_factory.test_input_string_transform_factory"
UTILS = "natsort/utils.py"


def published(project: str, tmp_path_factory) -> Path:
    """examples/projects/<project> as its maintainers would adopt the gate (make_repo.sh): the .witness.yml init wrote."""
    dest = tmp_path_factory.mktemp("projects") / project
    env = {**os.environ, "PYTHONPATH": str(ROOT), "WITNESS_GATE": f"{sys.executable} -m witness_gate"}
    subprocess.run(["bash", str(ROOT / "examples/projects/make_repo.sh"), project, str(dest)], check=True, env=env,
                   capture_output=True, text=True)
    return dest


@pytest.fixture(scope="module")
def natsort(tmp_path_factory) -> Path:
    return published("natsort", tmp_path_factory)


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True).stdout


def branch(repo: Path, name: str, edits: dict[str, tuple[str, str]], start: str = "main", message: str = "a change"):
    """A head on `start`: each file's text with `old` replaced by `new` (old None: the file is new, holding new)."""
    git(repo, "checkout", "-q", "-b", name, start)
    for path, (old, new) in edits.items():
        target = repo / path
        if old is None:
            target.write_text(new)
        else:
            text = target.read_text()
            assert old in text, (path, old)
            target.write_text(text.replace(old, new))
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)
    git(repo, "checkout", "-q", "main")


def gate(repo: Path, base: str, head: str, *only: str) -> dict:
    done = run_cli("run", "--base", base, "--head", head, "--out", str(repo.parent / f"out-{head}"), "--json",
                   *(part for pattern in only for part in ("--only", pattern)), cwd=repo)
    assert done.returncode in (0, 1, 3), done.stdout + done.stderr
    return json.loads(done.stdout)


LOWER = {UTILS: ('function_chain.append(methodcaller("casefold"))', 'function_chain.append(methodcaller("lower"))')}


def test_init_wrote_the_configuration_and_no_test_was_edited(natsort):
    config = (natsort / ".witness.yml").read_text()
    assert 'pytest: ["tests/"]' in config and 'impl: ["natsort/"]' in config, config
    assert git(natsort, "diff", "--name-only", "HEAD~1", "HEAD").split() == [".witness.yml"]


def test_a_real_regression_is_blocked_with_hypothesis_s_example_and_the_assertion(natsort):
    branch(natsort, "lower", LOWER, message="lower is enough")
    summary = gate(natsort, "main", "lower", CASEFOLD)
    [row] = summary["properties"]
    assert (summary["verdict"], row["label"]) == ("regression", "regression"), row
    assert row["reason"].startswith("raise:AssertionError@tests/test_input_string_transform_factory.py:")
    record = json.loads(Path(row["replay"].split(" ", 2)[2].strip("'")).read_text())
    assert "Falsifying example: test_input_string_transform_factory(" in record["observed"], record["observed"]
    assert "AssertionError: assert " in record["observed"]
    # the witness is Hypothesis's own shrunk example, as the choices that replay it in its one parametrized case
    witness = record["witness"]
    assert witness["case"].startswith("tests/test_input_string_transform_factory.py::test_input_string_transform_"
                                      "factory["), witness
    assert row["reproduce"].startswith("@reproduce_failure('") and "b'" in row["reproduce"], row
    # and every replay ran that one example: each failed, each saying the same falsifying example
    observed = {r["observed"] for r in record["replays"]}
    assert len(observed) == 1 and "Falsifying example" in observed.pop()


def test_the_regression_with_its_test_weakened_is_a_mixed_edit(natsort):
    weakened = {**LOWER, "tests/test_input_string_transform_factory.py": (
        "(ns.IGNORECASE, lambda x: x.casefold()),", "(ns.IGNORECASE, lambda x: x.lower()),")}
    branch(natsort, "lower-and-test", weakened, message="lower is enough; test agrees")
    summary = gate(natsort, "main", "lower-and-test")
    assert (summary["verdict"], summary["exit_code"], summary["properties"]) == ("mixed_edit", 1, [])
    assert "tests/test_input_string_transform_factory.py" in summary["reason"]


def test_a_fix_with_a_regression_test_beside_it_is_judged_and_passes(natsort):
    branch(natsort, "buggy", LOWER, message="a base that has the bug")
    regression_test = ("from natsort import natsorted, ns\n\n\n"
                       "def test_sharp_s_sorts_as_ss():\n"
                       "    assert natsorted(['sT', 'ßU'], alg=ns.IGNORECASE) == ['ßU', 'sT']\n")
    fix = {UTILS: LOWER[UTILS][::-1], "tests/test_sharp_s.py": (None, regression_test)}
    branch(natsort, "fix", fix, start="buggy", message="fold case properly, with a test")
    summary = gate(natsort, "buggy", "fix", CASEFOLD)
    [row] = summary["properties"]
    assert (summary["verdict"], row["label"]) == ("pass", "pass"), row
    record = json.loads(next((Path(summary["records"])).glob("*.attempt.json")).read_text())
    assert any("tests/test_sharp_s.py" in note for note in record["notes"]), record["notes"]


def test_input_transforms_kept_in_a_set_are_a_flake_with_a_freeze_proposal_on_every_run(natsort):
    """Which transform runs first follows the objects' addresses, so Hypothesis's example fails on some subjects'
    layouts only. It was `pass` in 15 of 20 runs, then `regression` (Hypothesis replayed its example inside each row
    and raised FlakyFailure in all of them): now each replay runs the example once in a subject of its own layout,
    and a series that agrees with itself after the property gave two results goes on until one disagrees."""
    text = (natsort / UTILS).read_text()
    start = text.index("def input_string_transform_factory(")
    body = text[start:text.index("\ndef ", start + 10)]
    kept_in_a_set = body.replace("function_chain: list[StrToStr] = []", "function_chain: set[StrToStr] = set()")
    branch(natsort, "set-order", {UTILS: (body, kept_in_a_set.replace("function_chain.append(", "function_chain.add("))},
           message="each input transform once")
    said = []
    for _ in range(10):
        summary = gate(natsort, "main", "set-order", CASEFOLD)
        [row] = summary["properties"]
        record = json.loads(Path(row["replay"].split(" ", 2)[2].strip("'")).read_text())
        said.append((summary["verdict"], summary["exit_code"], row["label"], record.get("freeze") is not None))
    assert said == [("flake", 3, "flake", True)] * 10, said


def test_a_readme_only_head_is_skipped(natsort):
    branch(natsort, "docs", {"README.rst": ("natsort", "natsort (natural sorting)")}, message="docs")
    summary = gate(natsort, "main", "docs")
    assert (summary["verdict"], summary["exit_code"], summary["properties"]) == ("skipped", 0, [])


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


# bidict: generic classes subclassed by its tests (`class UserBi(bidict[KT, VT])`), checked against the standard
# library's abstract classes, a pytest.ini naming plugins the judge does not have (xdist, benchmark)
INVERTED = "tests.test_bidict.test_inverted"
DEDUP = {"bidict/_iter.py": ("    return map(swap, iteritems(arg))",
                             "    return map(swap, dict(iteritems(arg)).items())  # a repeated item is the same item")}


@pytest.fixture(scope="module")
def bidict_repo(tmp_path_factory) -> Path:
    return published("bidict", tmp_path_factory)


def test_bidict_s_init_left_its_package_and_docs_out_of_the_tests(bidict_repo):
    # its testpaths name bidict/ (for its doctests) and docs/: the code and the documentation, not the oracle
    config = (bidict_repo / ".witness.yml").read_text()
    assert 'impl: ["bidict/"]' in config and 'oracle: ["tests/"]' in config and 'pytest: ["tests/"]' in config, config
    assert git(bidict_repo, "diff", "--name-only", "HEAD~1", "HEAD").split() == [".witness.yml"]


def test_bidict_s_tests_run_as_written_on_a_head_that_changes_nothing(bidict_repo):
    branch(bidict_repo, "noop", {"bidict/_exc.py": ('"""Provide all bidict exceptions."""',
                                                    '"""Provide all bidict exceptions."""  ')}, message="whitespace")
    # its abstract classes and generic subclasses (test_abc_slots, test_static_types), a Hypothesis test over its types
    summary = gate(bidict_repo, "main", "noop", "tests.test_bidict.test_abc_slots", "tests.test_bidict.test_inverted",
                   "tests.test_bidict.test_static_types")
    labels = {row["assertion_id"]: row["label"] for row in summary["properties"]}
    assert len(labels) == 3 and set(labels.values()) == {"pass"}, labels


def test_bidict_s_real_regression_is_blocked_with_hypothesis_s_example_and_the_assertion(bidict_repo):
    branch(bidict_repo, "dedup", DEDUP, message="inverted: each item once")
    summary = gate(bidict_repo, "main", "dedup", INVERTED)
    [row] = summary["properties"]
    assert (summary["verdict"], row["label"]) == ("regression", "regression"), row
    assert row["reason"] == "raise:AssertionError@tests/test_bidict.py:359", row
    record = json.loads(Path(row["replay"].split(" ", 2)[2].strip("'")).read_text())
    assert record["observed"].startswith("assert [(1, -1)] == [(1, -1), (1, -1)]"), record["observed"]
    assert "Falsifying example: test_inverted(" in record["observed"]


def test_bidict_s_regression_with_its_test_weakened_is_a_mixed_edit(bidict_repo):
    weakened = {**DEDUP, "tests/test_bidict.py": ("    assert check_list == expect_list\n",
                                                  "    assert set(check_list) == set(expect_list)\n")}
    branch(bidict_repo, "dedup-and-test", weakened, message="inverted: each item once; the test agrees")
    summary = gate(bidict_repo, "main", "dedup-and-test")
    assert (summary["verdict"], summary["exit_code"], summary["properties"]) == ("mixed_edit", 1, [])
    assert "tests/test_bidict.py" in summary["reason"]


def test_bidict_s_fix_with_a_regression_test_beside_it_is_judged_and_passes(bidict_repo):
    branch(bidict_repo, "dedup-bug", DEDUP, message="a base that has the bug")
    regression_test = ("from bidict import inverted\n\n\n"
                       "def test_inverted_keeps_repeated_items():\n"
                       "    assert list(inverted([(1, 2), (1, 2)])) == [(2, 1), (2, 1)]\n")
    fix = {"bidict/_iter.py": DEDUP["bidict/_iter.py"][::-1], "tests/test_repeated.py": (None, regression_test)}
    branch(bidict_repo, "dedup-fix", fix, start="dedup-bug", message="inverted keeps every item, with a test")
    summary = gate(bidict_repo, "dedup-bug", "dedup-fix", INVERTED)
    [row] = summary["properties"]
    assert (summary["verdict"], row["label"]) == ("pass", "pass"), row
    record = json.loads(next((Path(summary["records"])).glob("*.attempt.json")).read_text())
    assert any("tests/test_repeated.py" in note for note in record["notes"]), record["notes"]


def test_bidict_s_readme_only_head_is_skipped(bidict_repo):
    branch(bidict_repo, "docs", {"README.rst": ("bidict", "bidict (bidirectional mappings)")}, message="docs")
    summary = gate(bidict_repo, "main", "docs")
    assert (summary["verdict"], summary["exit_code"], summary["properties"]) == ("skipped", 0, [])
