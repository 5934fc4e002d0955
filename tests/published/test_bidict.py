"""bidict as its maintainers would adopt the gate (tests/support/projects.py), one test gated a scenario (`run --only`)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from projects import branch, gate, git, published

pytestmark = pytest.mark.e2e

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
