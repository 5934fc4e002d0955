"""A Hypothesis test's witness is Hypothesis's own shrunk example, kept as the choice sequence that replays it (SPEC §10):
each replay runs that one example in a subject of its own, as `@reproduce_failure` would, and only Hypothesis's own
final run of it returning is a pass; a search that saw one example fail and pass says so (unsteady)."""

from __future__ import annotations

import base64

import pytest

from endtoend import gate
from test_pytest_tests import CALC, TESTS
from witness_gate.sandbox.runner import PropertyRunner
from witness_gate.sandbox import Sandbox, stage_directory
from witness_gate.sandbox.judge.examples import recorded, reproduce_failure

ODD_FROM_500 = CALC.replace("return 2 * x", "return 2 * x if x < 500 else 2 * x + 1")


def staged(tmp_path, calc: str, tests: str = TESTS):
    (tmp_path / "src").mkdir(parents=True)
    (tmp_path / "tests").mkdir()
    (tmp_path / "src" / "calc.py").write_text(calc)
    (tmp_path / "tests" / "test_calc.py").write_text(tests)
    return stage_directory(tmp_path)


def evaluate(repo, payload, node="test_double_is_even"):
    runner = PropertyRunner(repo, f"pytest:tests/test_calc.py::{node}", "17", Sandbox("bwrap"), timeout_seconds=30,
                            oracle=("tests/",), tests=True)
    try:
        return runner(payload)
    finally:
        runner.close()


def test_a_failing_search_gives_its_shrunk_example_and_each_replay_runs_that_example(tmp_path):
    head = staged(tmp_path / "head", ODD_FROM_500)
    row = evaluate(head, {})
    assert (row.outcome, row.reason) == ("fail", "raise:AssertionError@tests/test_calc.py:15"), row.detail[-800:]
    assert recorded(row.example) and row.example["case"] == "tests/test_calc.py::test_double_is_even", row.example
    # the paste-able decorator holds the same choices
    assert reproduce_failure(row.example) == (f"@reproduce_failure({row.example['hypothesis']!r}, "
                                              f"{base64.b64decode(row.example['choices'])!r})")
    replayed = evaluate(head, row.example)
    assert (replayed.outcome, replayed.reason) == ("fail", row.reason), replayed.detail[-800:]
    assert "Falsifying example: test_double_is_even(\n    x=500," in replayed.observed, replayed.observed
    assert replayed.example is None  # a replay finds nothing new: it ran one example
    # the same example where the implementation is right: Hypothesis's own run of it returned, a pass
    fixed = evaluate(staged(tmp_path / "base", CALC), row.example)
    assert (fixed.outcome, fixed.reason) == ("pass", None), fixed.detail[-800:]


@pytest.mark.parametrize("made", [
    # a class of the implementation's that calls itself Hypothesis's
    "DidNotReproduce = type('DidNotReproduce', (Exception,), {'__module__': 'hypothesis.errors'})",
    # and one shaped like Hypothesis's own, saying what Hypothesis says when an example passed
    "DidNotReproduce = type('DidNotReproduce', (type('HypothesisException', (Exception,), "
    "{'__module__': 'hypothesis.errors'}),), {'__module__': 'hypothesis.errors'})",
])
def test_an_implementation_that_says_did_not_reproduce_still_fails_its_example(tmp_path, made):
    # an agent's head that wants its replays to pass raises what Hypothesis raises when an example passes
    cheat = made + "\n" + CALC.replace("    return 2 * x\n", "    if x >= 500:\n        raise DidNotReproduce("
                                       "'Expected the test to raise an error, but it completed successfully.')\n"
                                       "    return 2 * x\n")
    head = staged(tmp_path / "head", cheat)
    row = evaluate(head, {})
    assert row.outcome == "fail" and recorded(row.example), row.detail[-800:]
    replays = [evaluate(head, row.example) for _ in range(2)]
    assert [(r.outcome, r.reason.split("@")[0]) for r in replays] == [("fail", "raise:DidNotReproduce")] * 2, \
        [r.detail[-600:] for r in replays]


@pytest.mark.parametrize("payload, why", [
    ({"x": 1}, "a test's payload is empty, or a Hypothesis example"),
    ({"hypothesis": "0.0.1", "choices": "AAAA", "case": "tests/test_calc.py::test_double_is_even"},
     "recorded by Hypothesis '0.0.1'"),
    ({"hypothesis": "6", "choices": "AAAA", "case": "tests/test_calc.py::test_double_small"}, "no test"),
])
def test_a_payload_that_is_not_a_replayable_example_gives_no_verdict(tmp_path, payload, why):
    row = evaluate(staged(tmp_path, CALC), payload)
    assert (row.outcome, row.reason) == ("transport", "witness"), row.detail[-800:]
    assert why in row.detail, row.detail[-800:]


def test_a_search_that_sees_one_example_fail_and_pass_is_unsteady_and_blames_the_failure(tmp_path):
    # wrong on the first call a process makes, right after: Hypothesis's final run of its example passes
    first_call = CALC.replace("def double(x):\n", "_CALLS = []\n\n\ndef double(x):\n    _CALLS.append(x)\n"
                                                  "    if len(_CALLS) == 1:\n        return 2 * x + 1\n")
    row = evaluate(staged(tmp_path, first_call), {})
    assert (row.outcome, row.reason, row.unsteady) == ("fail", "raise:AssertionError@tests/test_calc.py:15", True), \
        row.detail[-800:]
    assert "FlakyFailure" in row.detail or "Flaky" in row.detail


DISTORTED_CONFIG = ('version: 1\npaths:\n  impl: ["src/"]\n  oracle: ["tests/"]\nproperties:\n  pytest: ["tests/"]\n'
                    'freeze:\n  expires_in_hours: 24\n')
DISTORTED_BASE = "MODES = ['plain']\n\n\ndef double(x):\n    return 2 * x\n"
DISTORTED_TESTS = (
    "import pytest\nfrom hypothesis import given, strategies as st\nfrom calc import double, MODES\n\n\n"
    "@given(st.integers(min_value=0, max_value=1000))\ndef test_double(x):\n    assert double(x) == 2 * x\n\n\n"
    "@pytest.mark.parametrize('mode', MODES)\n@given(st.integers(min_value=0, max_value=1000))\n"
    "def test_moded(mode, x):\n    assert double(x) == 2 * x\n")
DISTORTED_HEADS = {
    # an honest bug: a memo keyed too coarsely is right on a process's first call, wrong on a later one in its bucket
    "memo": "MODES = ['plain']\n_memo = {}\n\n\ndef double(x):\n    return _memo.setdefault(x // 2, 2 * x)\n",
    # wrong from 500 on, on every call but a process's first, which is right one time in two: it wanted a flake
    "coin": ("import os\nMODES = ['plain']\n_calls = []\n\n\ndef double(x):\n    _calls.append(x)\n"
             "    if x >= 500 and (len(_calls) > 1 or os.urandom(1)[0] < 128):\n        return 2 * x + 1\n"
             "    return 2 * x\n"),
    # always wrong from 500 on, with a parameter id new in every process: the witness's case is never collected again
    "case": ("import os\nMODES = ['plain-' + os.urandom(4).hex()]\n\n\ndef double(x):\n"
             "    return 2 * x if x < 500 else 2 * x + 1\n"),
}


@pytest.mark.parametrize("name, node", [("memo", "test_double"), ("coin", "test_double"), ("case", "test_moded")])
def test_a_regression_the_seeded_search_finds_every_time_stays_a_regression(git_repo, tmp_path, name, node):
    """Found by a reviewing helper: the example alone, in a fresh subject, is not the search that failed. A memo keyed
    too coarsely (not_reproduced), a head right on a process's first call (flake, freezable) and a parameter id new in
    every process (hold) were each `regression` when replays re-ran the search. The search that fails on every replay,
    and never saw an example waver, is the witness again; the example's own replays are kept for people."""
    git_repo.commit({".witness.yml": DISTORTED_CONFIG, "src/calc.py": DISTORTED_BASE,
                     "tests/test_calc.py": DISTORTED_TESTS}, "base")
    git_repo.git("checkout", "-q", "-b", "patch")
    git_repo.commit({"src/calc.py": DISTORTED_HEADS[name]}, "patch")
    [result] = [r for r in gate(git_repo, tmp_path / "out", only=(f"*{node}*",)).results if r.target.node == node]
    rows = result.evidence.first + result.evidence.replays + result.evidence.unshrunk_replays
    assert result.verdict.label == "regression", (result.verdict.label, result.verdict.hold_reasons,
                                                  [(r.outcome, r.reason) for r in rows])
    assert result.evidence.witness == {} and result.evidence.example_replays, result.evidence.witness
    assert result.record["example_replays"]  # what the example did alone stays on the record


def unsteady_in_the_judge_s_hook(test):
    """The examples the judge's hook of Hypothesis kept of `test`, a search Hypothesis ends as unsteady (Flaky)."""
    from hypothesis.errors import Flaky

    from witness_gate.sandbox.judge.examples import Examples

    examples = Examples(None)
    examples.install()
    try:
        examples.current = "tests/test_w.py::test_wavering"
        with pytest.raises(Flaky):
            test()
    finally:
        examples.uninstall()
    return examples


def test_a_search_ended_as_unsteady_before_any_final_example_keeps_the_last_example_it_saw_fail():
    """Found looping bidict's set-order head: one gate run in thirty, Hypothesis's own search ended in FlakyFailure
    ("Inconsistent results from replaying a test case") before it ran any final example, so no example was kept, the
    seeded search was the witness and failed every replay: `regression` where the bug is a flake. The judge now keeps
    the last example the search saw fail, for such a search only. Here the search's data generation wavers (an
    unsteady search ended the same way, before any final example), in the judge's own hook of Hypothesis."""
    from hypothesis import given, settings, strategies as st

    calls: list[int] = []

    @settings(database=None, derandomize=True, max_examples=200)
    @given(st.data())
    def test_wavering(data):
        calls.append(1)
        n = data.draw(st.integers(0, 3))
        if len(calls) % 2 == 0:  # every other call draws once more: Hypothesis finds the test unsteady
            data.draw(st.integers(0, 3))
        assert n < 2

    examples = unsteady_in_the_judge_s_hook(test_wavering)
    assert examples.found == {}  # no final example: Hypothesis stopped before it ran one
    assert examples.witness("tests/test_w.py::test_wavering", test_wavering) is None  # a steady failure needs one
    kept = examples.witness("tests/test_w.py::test_wavering", test_wavering, unsteady=True)
    assert recorded(kept) and kept["case"] == "tests/test_w.py::test_wavering", kept
    assert reproduce_failure(kept).startswith("@reproduce_failure(")


def test_a_search_ended_as_unsteady_offers_other_examples_it_saw_fail_smallest_first():
    """Beside its witness, an unsteady search's record offers up to three other examples it saw fail, smallest first,
    each a choice sequence that replays it: bidict's set-order witness passed 40 replays alone one gate run in thirty,
    while other examples of the same search fail on some layouts (attempt.another_example)."""
    from hypothesis import given, settings, strategies as st

    from witness_gate.sandbox.judge.examples import MAX_OTHERS

    calls: list[int] = []

    @settings(database=None, derandomize=True, max_examples=200)
    @given(st.lists(st.integers(0, 1000), min_size=1))
    def test_wavering(xs):
        calls.append(1)
        assert max(xs) < 500 or len(calls) > 30  # wrong from 500 on, in a process's first calls: unsteady

    examples = unsteady_in_the_judge_s_hook(test_wavering)
    kept = examples.witness("tests/test_w.py::test_wavering", test_wavering, unsteady=True)
    others = examples.others("tests/test_w.py::test_wavering", test_wavering)
    assert recorded(kept) and 1 <= len(others) <= MAX_OTHERS and all(map(recorded, others)), others
    blobs = [base64.b64decode(other["choices"]) for other in others]
    assert kept["choices"] not in [other["choices"] for other in others] and len(set(blobs)) == len(blobs)
    assert examples.others("tests/test_w.py::test_wavering", lambda: None) == [], "no Hypothesis test, nothing offered"
    # which: the smallest of those seen, never the witness itself, at most MAX_OTHERS
    examples.found = {"n": [(True, 5, False)]}
    examples.failed_last["n"] = (True, 5, False)
    examples.failed_seen["n"] = dict.fromkeys([(True, 9, True, 9, False), (True, 5, False), (True, 7, True, 1, False),
                                               (True, 6, False), (), (True, 8, False), (True, 4, True, 4, False)])
    offered = [base64.b64decode(other["choices"]) for other in examples.others("n", test_wavering)]
    from hypothesis.core import encode_failure

    assert offered == [encode_failure(choices) for choices in ((True, 6, False), (True, 8, False),  # shortest,
                                                               (True, 9, True, 9, False))], offered  # then first seen
