"""A repository's own pytest and Hypothesis tests gated as they are (`properties.pytest`): found by reading their source,
run by pytest in the judge (the gate's trusted pytest and Hypothesis, never the head's), with the implementation behind
the boundary; a failure says what was observed."""

from __future__ import annotations

import pytest

from conftest import run_cli
from endtoend import gate
from witness_gate.pipeline import pytests
from witness_gate.config.schema import ConfigError, parse_config
from witness_gate.pipeline.discover import pytest_targets
from witness_gate.sandbox.runner import PropertyRunner
from witness_gate.sandbox import Sandbox, stage_directory

CALC = '''
class OutOfRange(ValueError):
    pass


def double(x):
    if x > 10**6:
        raise OutOfRange(x)
    return 2 * x


def fold(s):
    return s.casefold()
'''

TESTS = '''
import pytest
from hypothesis import given, strategies as st
from hypothesis.stateful import RuleBasedStateMachine, rule
from calc import OutOfRange, double, fold


def test_double_small():
    """double doubles"""
    assert double(3) == 6


@given(st.integers(min_value=0, max_value=1000))
def test_double_is_even(x):
    assert double(x) % 2 == 0


def test_fold_sharp_s():
    assert fold("\\u00df") == "ss"


def test_out_of_range():
    with pytest.raises(OutOfRange):
        double(10**7)


@pytest.mark.skip(reason="not today")
def test_skipped():
    pass


class TestGroup:
    def test_in_class(self):
        assert double(1) == 2


class Doubling(RuleBasedStateMachine):
    @rule(x=st.integers(min_value=0, max_value=100))
    def doubles(self, x):
        assert double(x) == x + x


TestDoubling = Doubling.TestCase
'''

CONFIG = 'version: 1\npaths:\n  impl: ["src/"]\n  oracle: ["tests/"]\nproperties:\n  pytest: ["tests/"]\n'
NODES = ["test_double_small", "test_double_is_even", "test_fold_sharp_s", "test_out_of_range", "test_skipped",
         "TestGroup::test_in_class", "TestDoubling::runTest"]


def test_tests_are_found_by_reading_their_source(tmp_path):
    (tmp_path / "tests" / "deep").mkdir(parents=True)
    (tmp_path / "tests" / "test_calc.py").write_text(TESTS)
    (tmp_path / "tests" / "deep" / "calc_test.py").write_text("def test_one():\n    pass\n")
    (tmp_path / "tests" / "helpers.py").write_text("def test_not_collected():\n    pass\n")  # not a test file
    found = pytest_targets(tmp_path, ("tests/",))
    assert [(t.relpath, t.node) for t in found] == [
        ("tests/deep/calc_test.py", "test_one"), ("tests/deep/calc_test.py", "*:test_one")] + [
        ("tests/test_calc.py", node) for node in NODES] + [("tests/test_calc.py", "*:" + ",".join(NODES))]
    assert found[-1].assertion_id == "tests.test_calc.__others__" and found[-1].selector.endswith("::*:" + NODES[0]
                                                                                                     + "," + NODES[1]
                                                                                                     + "," + ",".join(NODES[2:]))
    small = found[2]
    assert small.assertion_id == "tests.test_calc.test_double_small"
    assert small.selector == "pytest:tests/test_calc.py::test_double_small"
    assert small.property_id.startswith("tests/test_calc.py::test_double_small@")
    assert small.contract.invariant == "double doubles" and small.contract.complete()
    # the contract covers the decorators: a test given other inputs is judged by another contract
    wider = TESTS.replace("max_value=1000", "max_value=10")
    (tmp_path / "tests" / "test_calc.py").write_text(wider)
    again = {t.node: t.contract.digest() for t in pytest_targets(tmp_path, ("tests/",))}
    assert again["test_double_is_even"] != found[3].contract.digest()
    assert again["test_double_small"] == small.contract.digest()


def test_a_state_machine_s_test_case_is_a_test_whatever_its_name():
    # pyrsistent names its machines' cases `PVectorBuilderTests`: pytest collects them, so the gate must name them too
    source = b"from hypothesis.stateful import RuleBasedStateMachine\n\n\nclass Builder(RuleBasedStateMachine):\n" \
             b"    pass\n\n\nBuilderTests = Builder.TestCase\nTestBuilder = Builder.TestCase\n"
    assert [node for node, *_ in pytests.nodes_of(source, "tests/m_test.py")] == ["BuilderTests::runTest",
                                                                                  "TestBuilder::runTest"]


def test_the_pytest_key_takes_files_and_folders_which_are_oracle_paths():
    config = parse_config("version: 1\nproperties:\n  pytest: [tests, tests/test_x.py]\n")
    assert config.pytest == ("tests/", "tests/test_x.py")  # "tests" must not take in "tests_old/"
    assert "tests/" in config.oracle_patterns
    with pytest.raises(ConfigError, match="properties.pytest: pytest tests run in the gate's own judge"):
        parse_config("version: 1\nproperties:\n  pytest: [tests]\n  command: [sh, run.sh]\n")
    with pytest.raises(ConfigError, match="no leading '/'"):
        parse_config("version: 1\nproperties:\n  pytest: [/etc]\n")


@pytest.fixture(scope="module")
def calc_repo(tmp_path_factory):
    root = tmp_path_factory.mktemp("calc")
    (root / "src").mkdir()
    (root / "tests").mkdir()
    (root / "src" / "calc.py").write_text(CALC.replace("return s.casefold()", "return s.lower()"))
    (root / "tests" / "test_calc.py").write_text(TESTS)
    # a head's own conftest.py and pytest configuration outside the oracle's paths: never in the judge's view
    (root / "conftest.py").write_text("import pytest\n\ndef pytest_collection_modifyitems(items):\n"
                                      "    for item in items:\n        item.add_marker(pytest.mark.skip('conftest'))\n")
    (root / "pytest.ini").write_text("[pytest]\naddopts = -k nothing_at_all\n")
    (root / "src" / "conftest.py").write_text("raise SystemExit('a conftest of the implementation ran')\n")
    checkout = stage_directory(root)
    yield checkout


def run(repo, node, timeout=30):
    runner = PropertyRunner(repo, f"pytest:tests/test_calc.py::{node}", "17", Sandbox("bwrap"),
                            timeout_seconds=timeout, oracle=("tests/",), tests=True)
    try:
        return runner({})
    finally:
        runner.close()


@pytest.mark.parametrize("node", ["test_double_small", "test_double_is_even", "test_out_of_range",
                                  "TestGroup::test_in_class", "TestDoubling::runTest"])
def test_tests_that_hold_pass_in_the_judge(calc_repo, node):
    # an implementation's exception caught by pytest.raises, a method of a test class, a Hypothesis state machine;
    # the head's conftest.py (which would skip everything) and pytest.ini (which would deselect everything) are not read
    row = run(calc_repo, node)
    assert (row.outcome, row.reason, row.isolation) == ("pass", None, "split-cold"), row.detail[-800:]


SOME_SKIPPED = """import pytest
import calc


@pytest.fixture(params=["python", "compiled"])
def double(request):  # as pyrsistent's tests take its C extension when it was built
    if request.param == "compiled":
        return pytest.importorskip("calc_compiled").double
    return calc.double


def test_double(double):
    assert double(2) == 4
"""
COMPILED = "def double(x):\n    return x + x\n"


@pytest.mark.parametrize("compiled, expected", [
    (None, "skipped:1/2:"),  # not built: the base skips it too, and decides (pre_existing)
    (COMPILED, "pass"),
    (COMPILED.replace("x + x", "3 * x"), "raise:AssertionError@tests/test_calc.py:13"),
    # found by a reviewer: a head that breaks the compiled case and then its import, so that the case skips while
    # the other passes, was a pass; now the skipped case names the failure and the base (which ran it) decides
    ("raise ImportError('not here')\n" + COMPILED.replace("x + x", "3 * x"), "skipped:1/2:")])
def test_a_case_skipped_beside_cases_that_ran_is_no_pass(tmp_path, compiled, expected):
    (tmp_path / "src").mkdir()
    (tmp_path / "tests").mkdir()
    (tmp_path / "src" / "calc.py").write_text(CALC)
    if compiled is not None:
        (tmp_path / "src" / "calc_compiled.py").write_text(compiled)
    (tmp_path / "tests" / "test_calc.py").write_text(SOME_SKIPPED)
    row = run(stage_directory(tmp_path), "test_double")
    assert (row.reason or row.outcome).startswith(expected), (row.outcome, row.reason, row.detail[-800:])


def test_a_failing_test_says_what_was_observed(calc_repo):
    row = run(calc_repo, "test_fold_sharp_s")
    assert (row.outcome, row.reason) == ("fail", "raise:AssertionError@tests/test_calc.py:19"), row.detail[-800:]
    # pytest's assertion rewriting ran in the judge: the values compared, kept with the row and shown to people
    assert row.observed == "AssertionError: assert '\u00df' == 'ss'\n  \n  - ss\n  + \u00df", row.observed
    assert "AssertionError: assert '\u00df' == 'ss'" in row.detail[-400:]


ASSERTING = '''from calc import fold
from witness_gate import contract


@contract(invariant="a word folds as Unicode says", domain="words")
def prop_fold(fixture):
    assert fold(fixture["word"]) == fixture["folded"]
    return True


@contract(invariant="a word folds as Unicode says", domain="words")
def prop_fold_plainly(fixture):
    return fold(fixture["word"]) == fixture["folded"]
'''
PROP_CONFIG = 'version: 1\npaths:\n  impl: ["src/"]\n  oracle: ["tests/"]\nproperties:\n  dir: tests/properties\n' \
              '  fixtures: {"*": tests/fixtures/words.json}\n'
WORDS = '{"word": "\u00df\u00df", "folded": "ssss"}\n'
COMPARED = "AssertionError: assert '\u00df\u00df' == 'ssss'"


@pytest.mark.parametrize("warm", [True, False])
def test_a_property_that_asserts_says_what_it_compared(tmp_path, warm):
    # a comparing assert says what it compared (judge/asserts.py, the standard library's ast only): cold and warm
    (tmp_path / "src").mkdir()
    (tmp_path / "tests" / "properties").mkdir(parents=True)
    (tmp_path / "src" / "calc.py").write_text(CALC.replace("return s.casefold()", "return s.lower()"))
    (tmp_path / "tests" / "properties" / "test_words.py").write_text(ASSERTING)
    runner = PropertyRunner(stage_directory(tmp_path), "tests/properties/test_words.py::prop_fold", "17",
                            Sandbox("bwrap"), timeout_seconds=30, warm=warm)
    try:
        rows = [runner({"word": "\u00df\u00df", "folded": "ssss"}),
                runner.candidate({"word": "\u00df\u00df", "folded": "ssss"})]
        passed = runner({"word": "ab", "folded": "ab"})
    finally:
        runner.close()
    assert [(r.outcome, r.reason) for r in rows] == [("fail", "raise:AssertionError@tests/properties/test_words.py:7")] * 2
    assert [r.observed for r in rows] == [COMPARED] * 2, rows
    assert (passed.outcome, passed.observed) == ("pass", "")  # nothing observed where nothing failed


def test_an_asserting_property_s_message_reaches_the_record_and_the_report(git_repo, tmp_path):
    git_repo.commit({".witness.yml": PROP_CONFIG, "src/calc.py": CALC, "tests/properties/test_words.py": ASSERTING,
                     "tests/fixtures/words.json": WORDS}, "base")
    git_repo.git("checkout", "-q", "-b", "patch")
    git_repo.commit({"src/calc.py": CALC.replace("return s.casefold()", "return s.lower()")}, "lower is enough")
    outcome = gate(git_repo, tmp_path / "out")
    results = {r.target.assertion_id: r for r in outcome.results}
    assert {name: (r.verdict.label, r.verdict.hold_reasons) for name, r in results.items()} == {
        "prop_fold": ("regression", []), "prop_fold_plainly": ("regression", [])}
    assert results["prop_fold"].record["observed"] == COMPARED
    assert not results["prop_fold_plainly"].record.get("observed")  # a returned verdict has nothing more to say
    done = run_cli("run", "--base", "main", "--head", "patch", "--out", str(tmp_path / "cli"), cwd=git_repo.path)
    assert done.returncode == 1 and "assert 'ßß' == 'ssss'" in done.stdout, done.stdout + done.stderr


def test_tests_that_cannot_import_a_dependency_on_either_side_hold_and_are_never_pre_existing(git_repo, tmp_path):
    # a project gated with the config init writes and no set-up: its runtime dependency is nowhere in the subject, so
    # every test failed on base and head alike, and a real regression was pre_existing with exit 0 (found on bidict)
    needs = "import witness_absent_dependency\n" + CALC
    git_repo.commit({".witness.yml": CONFIG, "src/calc.py": needs, "tests/test_calc.py": TESTS}, "base")
    git_repo.git("checkout", "-q", "-b", "patch")
    git_repo.commit({"src/calc.py": needs.replace("return s.casefold()", "return s.lower()")}, "lower is enough")
    outcome = gate(git_repo, tmp_path / "out")
    labels = {r.target.node: (r.verdict.label, tuple(r.verdict.hold_reasons)) for r in outcome.results}
    assert labels["test_fold_sharp_s"] == ("hold", ("transport:missing_package",)), labels
    assert not any(label == "pre_existing" for label, _ in labels.values()), labels


def test_hypothesis_finds_and_shrinks_a_counterexample_in_the_judge(tmp_path):
    (tmp_path / "src").mkdir()
    (tmp_path / "tests").mkdir()
    (tmp_path / "src" / "calc.py").write_text(CALC.replace("return 2 * x", "return 2 * x if x < 500 else 2 * x + 1"))
    (tmp_path / "tests" / "test_calc.py").write_text(TESTS)
    repo = stage_directory(tmp_path)
    rows = [run(repo, "test_double_is_even") for _ in range(2)]
    assert [(r.outcome, r.reason) for r in rows] == [("fail", "raise:AssertionError@tests/test_calc.py:15")] * 2
    assert "Falsifying example: test_double_is_even(\n    x=500," in rows[0].detail  # Hypothesis's own shrinking
    # what was observed carries the paste-able blob that replays it under Hypothesis, the same in every row
    assert "@reproduce_failure(" in rows[0].observed and rows[0].observed == rows[1].observed, rows[0].observed


def test_a_test_that_is_not_there_gives_no_verdict(calc_repo):
    row = run(calc_repo, "test_missing")
    assert (row.outcome, row.reason) == ("transport", "collect"), row.detail[-800:]


def test_a_skipped_test_fails_as_skipped_so_that_the_base_decides(calc_repo):
    # a skip is no evidence: not a pass, and not a hold either (a test skipped on every side held every change);
    # skipped on the base too it is pre_existing (the end-to-end test below), run there it is the patch's doing
    row = run(calc_repo, "test_skipped")
    assert row.outcome == "fail" and row.reason.startswith("skipped:1/1:"), (row.reason, row.detail[-800:])


def test_a_test_importing_what_the_implementation_lost_fails(tmp_path):
    (tmp_path / "src").mkdir()
    (tmp_path / "tests").mkdir()
    (tmp_path / "src" / "calc.py").write_text(CALC.replace("def fold(s):", "def refold(s):"))
    (tmp_path / "tests" / "test_calc.py").write_text(TESTS)
    row = run(stage_directory(tmp_path), "test_double_small")
    assert row.outcome == "fail" and row.reason.startswith("raise:ImportError@"), (row.reason, row.detail[-800:])


def test_a_regression_in_a_repository_s_own_tests_is_blocked_end_to_end(git_repo, tmp_path):
    git_repo.commit({".witness.yml": CONFIG, "src/calc.py": CALC, "tests/test_calc.py": TESTS}, "base")
    git_repo.git("checkout", "-q", "-b", "patch")
    git_repo.commit({"src/calc.py": CALC.replace("return s.casefold()", "return s.lower()"),
                     "conftest.py": "import pytest\n\n@pytest.fixture(autouse=True)\ndef nothing():\n    pytest.skip()\n"},
                    "lower is enough")
    outcome = gate(git_repo, tmp_path / "out")
    labels = {r.target.node: r.verdict.label for r in outcome.results}
    assert labels == {"test_double_small": "pass", "test_double_is_even": "pass", "test_fold_sharp_s": "regression",
                      "test_out_of_range": "pass", "test_skipped": "pre_existing", "TestGroup::test_in_class": "pass",
                      "TestDoubling::runTest": "pass", "*:" + ",".join(NODES): "pass"}, labels
    [failed] = [r for r in outcome.results if r.target.node == "test_fold_sharp_s"]
    assert failed.evidence.first[-1].reason == "raise:AssertionError@tests/test_calc.py:19"
    assert [row.outcome for row in failed.evidence.base.replays] == ["pass"] * 5  # the base passes it
    assert "AssertionError: assert '\u00df' == 'ss'" in failed.record["observed"]  # what the judge saw, kept
    # the record replays as printed, through the same judge
    done = run_cli("replay", str(failed.record_path), "--runs", "2", cwd=git_repo.path)
    assert "2 of 2 failed (reason raise:AssertionError@tests/test_calc.py:19)" in done.stdout, done.stdout + done.stderr


def test_a_test_that_hangs_on_set_order_is_a_flake_not_a_pass(git_repo, tmp_path):
    # every row of a test is cold, each subject with a hash seed of its own: a head whose answer follows set order
    # fails some rows and passes others (with 12 runs a side, all alike has odds of 1 in 2,048)
    config = CONFIG + "policy:\n  runs: 12\nfreeze:\n  expires_in_hours: 24\n"
    pair = "def pair():\n    return sorted({'alpha', 'beta'})\n"
    git_repo.commit({".witness.yml": config, "src/calc.py": CALC + pair, "tests/test_order.py":
                     "from calc import pair\n\ndef test_pair():\n    assert pair() == ['alpha', 'beta']\n"}, "base")
    git_repo.git("checkout", "-q", "-b", "patch")
    git_repo.commit({"src/calc.py": CALC + pair.replace("sorted(", "list(")}, "no need to sort")
    [result] = gate(git_repo, tmp_path / "out", only=("*.test_pair",)).results
    assert result.target.node == "test_pair"
    rows = result.evidence.first + result.evidence.replays
    assert result.verdict.label == "flake", (result.verdict, [r.outcome for r in rows])
    assert result.freeze is not None  # a proposal a person may accept
    assert {row.isolation for row in rows} == {"split-cold"} and len({row.layout for row in rows}) == len(rows)


@pytest.mark.parametrize("policy", ["judge_by_base", "mixed_edit"])
def test_a_fix_with_a_new_regression_test_beside_it_is_judged(git_repo, tmp_path, policy):
    # the best pull request an agent can make: the fix, and a test that would have caught the bug
    buggy = CALC.replace("return 2 * x", "return 2 * x if x != 13 else 27")
    git_repo.commit({".witness.yml": CONFIG + f"policy:\n  new_tests: {policy}\n", "src/calc.py": buggy,
                     "tests/test_calc.py": "from calc import double\n\ndef test_small():\n    assert double(3) == 6\n"},
                    "base")
    git_repo.git("checkout", "-q", "-b", "patch")
    git_repo.commit({"src/calc.py": CALC, "tests/test_thirteen.py":
                     "from calc import double\n\ndef test_thirteen():\n    assert double(13) == 26\n"}, "fix 13")
    outcome = gate(git_repo, tmp_path / "out")
    if policy == "mixed_edit":
        assert outcome.refused and "mixed_edit" in outcome.refused and not outcome.results
        return
    assert not outcome.refused
    assert [(r.target.node, r.verdict.label) for r in outcome.results] == [
        ("test_small", "pass"), ("*:test_small", "pass")]  # the base's oracle: test_thirteen is not among them
    assert any("new_oracle" in note and "tests/test_thirteen.py" in note for note in outcome.results[0].notes)


EDGES = '''
import pytest
from calc import fold


@pytest.mark.parametrize("text, folded", [("ABC", "abc"), ("\\u00df", "ss")])
def test_fold(text, folded):
    assert fold(text) == folded


def test_needs_a_plugin(mocker):
    assert fold("\\u00df") == "ss"


async def test_async():
    assert fold("\\u00df") == "ss"


def test_fails_on_purpose():
    pytest.fail("the oracle says no")
'''
STOPS = '''
def fold(s):
    result = s.lower()  # the regression
    if result != s.casefold():  # where it shows, stop the run instead of failing
        raise KeyboardInterrupt
    return result
'''


@pytest.mark.parametrize("node, outcome, reason", [
    # a node of several cases passes only when pytest says all is well and every case passed: the implementation
    # stopping the run after a passing case was a pass (found by a reviewer)
    ("test_fold", "fail", "raise:KeyboardInterrupt@src/calc.py:5"),
    # raised where neither the oracle's code nor the implementation is: pytest could not run it here, no verdict (the
    # base fails alike, and that was pre_existing: a dead test, silently; found by a reviewer)
    ("test_needs_a_plugin", "transport", "pytest:FixtureLookupError"),
    ("test_async", "transport", "pytest:Failed"),
    # pytest.fail called by the test's own code is the oracle's verdict
    ("test_fails_on_purpose", "fail", "raise:Failed@tests/test_calc.py:20"),
])
def test_only_a_run_pytest_calls_good_is_a_pass(tmp_path, node, outcome, reason):
    (tmp_path / "src").mkdir()
    (tmp_path / "tests").mkdir()
    (tmp_path / "src" / "calc.py").write_text(STOPS)
    (tmp_path / "tests" / "test_calc.py").write_text(EDGES)
    row = run(stage_directory(tmp_path), node)
    assert (row.outcome, row.reason) == (outcome, reason), row.detail[-800:]


UNNAMED = '''
import sys
import unittest

from calc import fold


class FoldChecks:
    def test_mixin(self):
        assert fold("\\u00df") == "ss"


class TestFold(FoldChecks):
    pass


class TestNested:
    class TestInner:
        def test_nested(self):
            assert fold("\\u00df") == "ss"


if sys.version_info >= (3, 8):
    def test_conditional():
        assert fold("\\u00df") == "ss"


class BaseCase(unittest.TestCase):
    pass


class FoldCase(BaseCase):
    def test_grandchild(self):
        self.assertEqual(fold("\\u00df"), "ss")


def check_sharp_s():
    assert fold("\\u00df") == "ss"


test_alias = check_sharp_s


def test_named():
    assert fold("ABC") == "abc"
'''


def test_tests_reading_cannot_name_are_gated_together(git_repo, tmp_path):
    # a mixin's, a nested class's, one under an `if`, a TestCase's grandchild, an alias: reading the source names none
    # of them, and they went ungated (found by a reviewer: the gate passed what plain pytest failed 5 times)
    git_repo.commit({".witness.yml": CONFIG, "src/calc.py": CALC, "tests/test_calc.py": UNNAMED}, "base")
    git_repo.git("checkout", "-q", "-b", "patch")
    git_repo.commit({"src/calc.py": CALC.replace("return s.casefold()", "return s.lower()")}, "lower is enough")
    outcome = gate(git_repo, tmp_path / "out")
    labels = {r.target.assertion_id: r.verdict.label for r in outcome.results}
    assert labels == {"tests.test_calc.test_named": "pass", "tests.test_calc.__others__": "regression"}, labels
    [others] = [r for r in outcome.results if r.target.assertion_id.endswith("__others__")]
    done = run_cli("replay", str(others.record_path), "--runs", "1", cwd=git_repo.path)  # replays as printed
    assert "1 of 1 failed" in done.stdout, done.stdout + done.stderr



def test_a_test_the_judge_cannot_collect_holds_and_says_why(git_repo, tmp_path):
    # a test module that needs a plugin the base's set-up does not install (natsort's tests import pytest_mock): the
    # note names the import that failed, not pytest's "1 error" line
    git_repo.commit({".witness.yml": CONFIG, "src/calc.py": CALC, "tests/test_calc.py":
                     "from pytest_mock_missing import MockerFixture\nfrom calc import double\n\n"
                     "def test_double():\n    assert double(2) == 4\n"}, "base")
    git_repo.git("checkout", "-q", "-b", "patch")
    git_repo.commit({"src/calc.py": CALC + "\n# tidy\n"}, "tidy")
    [named, others] = gate(git_repo, tmp_path / "out").results
    assert (named.verdict.label, named.verdict.hold_reasons) == ("hold", ["transport:collect"]), named.verdict
    assert any("No module named 'pytest_mock_missing'" in note for note in named.notes), named.notes


def reason_of(tmp_path, code, test):
    """The reason of test_double with `code` as src/calc.py and `test` as tests/test_calc.py, in a folder of its own."""
    root = tmp_path / str(len(list(tmp_path.iterdir())))
    (root / "src").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "src" / "calc.py").write_text(code)
    (root / "tests" / "test_calc.py").write_text(test)
    return run(stage_directory(root), "test_double").reason


CASES = '''import pytest
from calc import double


@pytest.mark.parametrize("x", [1, 2, 3])
def test_double(x):
    assert double(x) == x + x
'''


def test_a_case_failing_on_the_base_hides_no_new_failing_case_of_the_same_test(tmp_path):
    # found by a reviewer: the reason named the line only, so a head failing every case of a test whose base fails one
    # was pre_existing; the reason now names which of several cases failed
    base = reason_of(tmp_path, "def double(x):\n    return 2 * x if x != 1 else 3\n", CASES)
    head = reason_of(tmp_path, "def double(x):\n    return 0\n", CASES)
    assert base.startswith("raise:AssertionError@tests/test_calc.py:7|failed:1/3:"), base
    assert head.startswith("raise:AssertionError@tests/test_calc.py:7|failed:3/3:"), head


BUILT = '''import pytest
import calc


@pytest.mark.parametrize("double", [calc.python_double, calc.compiled_double])
def test_double(double):
    if getattr(double, "unavailable", False):  # as a library's tests skip the extension that was not built
        pytest.skip("not built")
    assert double(2) == 4
'''
BUILT_BASE = '''def python_double(x):
    return x + x


def compiled_double(x):
    return x + x


compiled_double.unavailable = True
'''
# the case it broke skips and is named as the one the base skips; the case the base skips now runs, under the other name
RENAMED_HEAD = '''def python_double(x):
    return 0


def compiled_double(x):
    return x + x


python_double.unavailable = True
python_double.__name__, compiled_double.__name__ = "compiled_double", "python_double"
'''


def test_a_case_is_named_by_its_position_not_by_what_the_implementation_calls_it(tmp_path):
    # found by a reviewer: pytest's id of a parameter that is a function is its __name__, which the implementation
    # chooses; the skipped cases' digest was over those ids, so this head skipped "the same" case as the base and passed
    base, head = reason_of(tmp_path, BUILT_BASE, BUILT), reason_of(tmp_path, RENAMED_HEAD, BUILT)
    assert base.startswith("skipped:1/2:") and head.startswith("skipped:1/2:"), (base, head)
    assert base != head  # a different case was skipped: the base replays fail otherwise, so the head is a regression


def test_options_of_plugins_the_judge_does_not_have_are_left_out_of_the_oracle_s_configuration(git_repo, tmp_path):
    # bidict's pytest.ini names pytest-xdist's and pytest-benchmark's options, pytest-cov's is common: pytest refused
    # to start on every row (exit 4, "found no test") and every test held; an option the oracle's conftest.py adds
    # stays, with its value
    ini = ("[pytest]\naddopts = --numprocesses=auto --benchmark-disable -n 2 --cov calc --answer 42 "
           "--doctest-modules\n")
    conftest = 'def pytest_addoption(parser):\n    parser.addoption("--answer", default="none")\n'
    test = ("from calc import double\n\n\ndef test_double(request):\n"
            "    assert request.config.getoption('answer') == '42'\n    assert double(2) == 4\n")
    git_repo.commit({".witness.yml": CONFIG.replace('oracle: ["tests/"]', 'oracle: ["tests/", "pytest.ini"]'),
                     "pytest.ini": ini, "src/calc.py": CALC, "tests/conftest.py": conftest,
                     "tests/test_calc.py": test}, "base")
    git_repo.git("checkout", "-q", "-b", "patch")
    git_repo.commit({"src/calc.py": CALC + "\n# tidy\n"}, "tidy")
    [named, others] = gate(git_repo, tmp_path / "out").results
    assert named.verdict.label == "pass", (named.verdict, named.notes, named.evidence.first[0].detail[-600:])
    assert "left out of the oracle's pytest configuration" in named.evidence.first[0].detail
    assert "--numprocesses=auto --benchmark-disable -n 2 --cov calc" in named.evidence.first[0].detail


def gated_with_addopts(git_repo, tmp_path, addopts: str):
    """test_double of a repository whose pytest.ini (an oracle path) has `addopts`, on a head that changes a comment."""
    git_repo.commit({".witness.yml": CONFIG.replace('oracle: ["tests/"]', 'oracle: ["tests/", "pytest.ini"]'),
                     "pytest.ini": f"[pytest]\naddopts = {addopts}\n", "src/calc.py": CALC,
                     "tests/test_calc.py": "from calc import double\n\n\ndef test_double():\n    assert double(2) == 4\n"},
                    "base")
    git_repo.git("checkout", "-q", "-b", "patch")
    git_repo.commit({"src/calc.py": CALC + "\n# tidy\n"}, "tidy")
    [named, others] = gate(git_repo, tmp_path / "out").results
    assert (named.verdict.label, named.verdict.hold_reasons) == ("hold", ["transport:collect"]), named.verdict
    return named.evidence.first[0].detail


def test_a_configuration_pytest_will_not_start_with_holds_with_pytest_s_own_words(git_repo, tmp_path):
    # was "pytest found no test ... (exit 4)": pytest's usage error is what says what to mend
    said = gated_with_addopts(git_repo, tmp_path, "--import-mode=sideways")
    assert "pytest would not start for tests/test_calc.py::test_double" in said and "sideways" in said, said


def test_a_test_module_may_import_typing_extensions_in_the_judge(tmp_path):
    # bidict's tests take `assert_type` from it: the judge carries the gate's own copy beside pytest and Hypothesis
    (tmp_path / "src").mkdir()
    (tmp_path / "tests").mkdir()
    (tmp_path / "src" / "calc.py").write_text(CALC)
    (tmp_path / "tests" / "test_calc.py").write_text("from typing_extensions import assert_type\nfrom calc import double"
                                                     "\n\n\ndef test_double():\n    assert assert_type(double(2), int) "
                                                     "== 4\n")
    row = run(stage_directory(tmp_path), "test_double")
    assert (row.outcome, row.reason) == ("pass", None), row.detail[-600:]


@pytest.mark.parametrize("option", ["--timeout=1", "--cov-fail-under=90", "--reruns 3"])
def test_an_option_of_a_missing_plugin_that_changes_how_tests_are_judged_holds(git_repo, tmp_path, option):
    # found by a reviewer: pytest-timeout's `--timeout=1`, left out, let a head 100 times slower pass; only options
    # that change nothing the judge decides are left out, the rest hold in pytest's words
    said = gated_with_addopts(git_repo, tmp_path, f"--numprocesses=auto {option}")
    assert "pytest would not start" in said and option.split()[0].split("=")[0] in said, said


STACK = '''
class Stack:
    def __init__(self, items=()):
        self.items = list(items)

    def push(self, item):
        self.items.append(item)

    def __eq__(self, other):
        return isinstance(other, Stack) and self.items == other.items

    def __len__(self):
        return len(self.items)

    def __iter__(self):
        return iter(self.items)
'''
COPIES = '''
import copy
import pickle

from calc import Stack


def test_pickled():
    s = Stack([1, 2])
    back = pickle.loads(pickle.dumps([s, "judge's"]))
    assert back[1] == "judge's" and list(back[0]) == [1, 2] and back[0] is not s


def test_copied():
    inner = Stack([1])
    s = Stack([inner, 2])
    shallow, deep = copy.copy(s), copy.deepcopy(s)
    inner.push(9)
    assert list(list(shallow)[0]) == [1, 9] and list(list(deep)[0]) == [1]
'''


@pytest.mark.parametrize("node, lost, reason", [
    ("test_pickled", "    def __reduce__(self):\n        return Stack, ()\n", "raise:AssertionError@tests/test_calc.py:11"),
    ("test_copied", "    def __deepcopy__(self, memo):\n        return self\n", "raise:AssertionError@tests/test_calc.py:19"),
])
def test_the_implementation_s_objects_are_pickled_and_copied_by_the_implementation(tmp_path, node, lost, reason):
    # bidict's and pyrsistent's tests pickle and copy what they made: each was `pre_existing` (a handle could not be
    # pickled in the judge); the subject pickles, unpickles and copies them, and the judge keeps the bytes only
    for name, calc in (("good", STACK), ("lost", STACK + lost)):
        (tmp_path / name / "src").mkdir(parents=True)
        (tmp_path / name / "tests").mkdir()
        (tmp_path / name / "src" / "calc.py").write_text(calc)
        (tmp_path / name / "tests" / "test_calc.py").write_text(COPIES)
    row = run(stage_directory(tmp_path / "good"), node)
    assert (row.outcome, row.reason) == ("pass", None), row.detail[-800:]
    row = run(stage_directory(tmp_path / "lost"), node)
    assert (row.outcome, row.reason) == ("fail", reason), row.detail[-800:]
