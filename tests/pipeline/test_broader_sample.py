"""The broader sample, run (witness_gate/pipeline/broader.py): an input counts only where the base passes it, is confirmed alone
and cold on both sides, and then is the attempt's witness, shrunk keeping that difference; nothing else blocks."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from witness_gate.model.evidence import Binding, Evidence, Policy
from witness_gate.pipeline.broader import Sample, Sides, run_sample, run_search
from witness_gate.model.contract import Contract
from witness_gate.model.canonical import witness_hash
from witness_gate.model.evaluation import Evaluation
from witness_gate.rules.verdict import Split, decide_property

BINDING = Binding("p" * 64, "tests/properties/p.py::prop_x@abcdefabcdef", "prop_x", Contract("prop_x", "x", "all"),
                  "f" * 64, "17")
POLICY = Policy(runs=5, broader_sample=32)
PINNED = {"xs": [1, 2, 3]}
REASON = "raise:AssertionError@tests/properties/p.py:3"


def side(passes, calls: list | None = None, fails_after=None, sha="base"):
    """A side whose rows say `passes(x)`; `fails_after(i)`: in a row of several inputs, the i-th fails whatever it is
    (a failure the inputs before it caused)."""
    def one(x):
        if calls is not None:
            calls.append(x)
        return Evaluation("pass") if passes(x) else Evaluation("fail", REASON)

    def batch(inputs):  # as the judge's sample row: it names the inputs it failed and goes on past them
        failed = tuple(index for index, x in enumerate(inputs)
                       if not passes(x) or (fails_after is not None and fails_after(index)))
        return Evaluation("fail" if failed else "pass", REASON if failed else None, sample=len(inputs), failed=failed)
    return Sides(one, one, sha, batch)


def big(x) -> bool:  # the head's regression: a number over 5 anywhere in xs
    xs = x.get("xs") if isinstance(x, dict) else None
    return not (isinstance(xs, list) and any(type(n) is int and n > 5 for n in xs))


def passing() -> Evidence:
    return Evidence(pinned_hash=witness_hash(PINNED), first=[Evaluation("pass")] * 5)


def sampled(inputs, head, base):
    sample = Sample("seed", len(inputs))
    evidence = run_sample(passing(), inputs, sample, head, lambda: base, POLICY, lambda *_: None)
    evidence.sample = sample
    verdict = decide_property(BINDING, evidence, Split(True, False), POLICY, expires_in_hours=24,
                              now=datetime(2026, 12, 6, tzinfo=timezone.utc))
    return sample, evidence, verdict


INPUTS = [{"xs": [1, 2]}, {"xs": [3, 9, 1, 4]}, {"xs": [8]}]


def test_an_input_the_head_fails_and_the_base_passes_is_a_regression_witness_shrunk_keeping_the_difference():
    sample, evidence, verdict = sampled(INPUTS, side(big), side(lambda x: True))
    assert (verdict.label, sample.exposed, sample.ran) == ("regression", 1, 3), verdict
    assert evidence.witness == {"xs": [6]} and evidence.target_reason == REASON  # the least number the head fails
    assert evidence.base.story(REASON) == "passes" and len(evidence.base.replays) == POLICY.runs
    assert evidence.sample.as_record()["input"] == INPUTS[1]


def test_an_input_the_base_fails_too_never_blocks():
    # the head's failures here are old ones: both sides fail every number over 5
    sample, evidence, verdict = sampled(INPUTS, side(big), side(big))
    assert (verdict.label, sample.exposed, sample.base_failed, sample.ran) == ("pass", None, 2, 3), verdict
    assert not evidence.failed_once


def test_a_failure_only_after_other_inputs_in_one_subject_holds_when_the_base_has_no_such_failure():
    # found by a reviewer: an implementation right only on a process's first call failed every row on its second
    # input, passed each alone, and was a pass that said nothing; the same row replayed fails again on the head and
    # passes on the base: state the patch keeps between calls, for a person to look at
    sample, evidence, verdict = sampled(INPUTS, side(lambda x: True, fails_after=lambda i: i == 1),
                                        side(lambda x: True))
    assert (sample.exposed, sample.in_row, sample.holds) == (None, 1, ["sample_state:1"]), sample
    assert "after the inputs before it in one subject" in sample.said()


def test_a_failure_after_other_inputs_that_the_base_has_too_decides_nothing():
    state = dict(fails_after=lambda i: i == 1)
    sample, evidence, verdict = sampled(INPUTS, side(lambda x: True, **state), side(lambda x: True, **state))
    assert (verdict.label, sample.exposed, sample.holds) == ("pass", None, []), sample


def test_a_row_goes_on_past_the_inputs_it_fails_so_one_row_a_side_asks_them_all():
    # a sample meeting inputs both sides fail (negative quantities) paid a row for each of them: half its cost
    rows = {"head": 0, "base": 0}
    head, base = side(lambda x: x != INPUTS[0] and big(x)), side(lambda x: x != INPUTS[0])
    for name, one in (("head", head), ("base", base)):
        one.batch = (lambda batch, name: lambda inputs: (rows.__setitem__(name, rows[name] + 1), batch(inputs))[1])(
            one.batch, name)
    sample, evidence, verdict = sampled(INPUTS, head, base)
    assert (verdict.label, sample.exposed, sample.base_failed) == ("regression", 1, 1), verdict
    assert rows == {"head": 1, "base": 1}


def test_a_failure_in_one_subject_after_an_input_both_sides_fail_still_holds():
    # the row that blames kept state is the head's own, failures and all: the base must pass the failed input after
    # the same inputs, failing none but those the head failed too (else any input both fail would hide the state)
    inputs = [{"xs": [9]}, {"xs": [1]}, {"xs": [2]}]
    sample, evidence, verdict = sampled(inputs, side(big, fails_after=lambda i: i == 2), side(big))
    assert (sample.holds, sample.in_row, sample.base_failed) == (["sample_state:2"], 1, 1), sample


def test_a_base_bug_the_patch_fixed_at_the_row_s_start_excuses_no_kept_state_after_it():
    # found by a reviewer: the base fails input 0 (the patch fixed it) and the head is right on a process's first call
    # only; the kept-state row for input 1 starts at input 0, which the base fails: what the base makes of the inputs
    # before the one in question decides nothing, only that it passes that one every time
    inputs = [{"xs": [9]}, {"xs": [1]}, {"xs": [2]}]
    head = side(lambda x: True, fails_after=lambda i: i >= 1)
    sample, evidence, verdict = sampled(inputs, head, side(big))
    assert (sample.holds, sample.in_row) == (["sample_state:1"], 1), sample


def test_a_row_the_head_comes_to_no_verdict_on_where_the_base_does_holds():
    # found by a reviewer: a head right on its first call only, raising a message long enough to overrun the row's
    # output: the row ended with no verdict, each input alone passed, and the head was `pass`
    head = side(lambda x: True)
    head.batch = lambda inputs: Evaluation("transport", "output_limit") if len(inputs) > 1 else \
        Evaluation("pass", sample=1, failed=())
    sample, evidence, verdict = sampled(INPUTS, head, side(lambda x: True))
    assert (sample.holds, sample.exposed) == (["sample_row:0"], None), sample  # the session holds on it
    assert "came to no verdict, twice" in sample.said()


def test_a_row_neither_side_comes_to_a_verdict_on_holds_nothing():
    # a property too slow for a row of every input on either side: each input is asked alone, and all pass
    silent = lambda inputs: Evaluation("transport", "timeout")  # noqa: E731
    head, base = side(lambda x: True), side(lambda x: True)
    head.batch = base.batch = silent
    sample, evidence, verdict = sampled(INPUTS, head, base)
    assert (verdict.label, sample.holds, sample.ran) == ("pass", [], 3), verdict


@pytest.mark.parametrize("row", [
    Evaluation("pass", sample=3, failed=(1,)),  # passing with a failure in it
    Evaluation("fail", REASON, sample=3, failed=()),  # failing with none named
    Evaluation("fail", REASON, sample=1, failed=(2,)),  # a failure after the input it ended on
    Evaluation("pass", sample=1, failed=()),  # ended early on an input it passed
    Evaluation("fail", REASON, sample=3),  # a row that does not say which it failed
])
def test_a_row_that_contradicts_itself_leaves_each_input_to_a_row_of_its_own(row):
    calls: list = []
    head = side(big, calls)
    head.batch = lambda inputs: row
    sample, evidence, verdict = sampled(INPUTS, head, side(lambda x: True))
    assert (verdict.label, sample.exposed) == ("regression", 1), verdict
    assert calls[:4] == [*INPUTS, INPUTS[1]]


def test_a_row_that_names_no_input_leaves_each_input_to_a_row_of_its_own():
    calls: list = []
    head = side(big, calls)
    head.batch = lambda inputs: Evaluation("transport", "timeout")  # ran out of time: which input, nobody knows
    sample, evidence, verdict = sampled(INPUTS, head, side(lambda x: True))
    assert (verdict.label, sample.exposed) == ("regression", 1), verdict
    assert calls[:4] == [*INPUTS, INPUTS[1]]  # each alone, then the second confirmed alone


def test_no_verdict_on_the_head_where_the_base_passes_holds():
    # a head that hangs on what it has not seen buys no pass
    head = side(big)
    head.cold = lambda x: Evaluation("pass") if big(x) else Evaluation("transport", "timeout")
    sample, evidence, verdict = sampled(INPUTS, head, side(lambda x: True))
    assert (verdict.label, sample.exposed) == ("hold", 1) and "transport:timeout" in verdict.hold_reasons, verdict


def test_a_head_that_hangs_on_unseen_inputs_costs_one_timeout_a_side_not_one_an_input():
    calls: list = []
    head = side(lambda x: True, calls)
    head.batch = lambda inputs: Evaluation("transport", "timeout")
    head.cold = lambda x: (calls.append(x), Evaluation("transport", "timeout"))[1]
    sample, evidence, verdict = sampled(INPUTS * 10, head, side(lambda x: True))
    assert (verdict.label, sample.exposed, sample.ran) == ("hold", 0, 1), verdict
    assert len(calls) == 2 + POLICY.runs  # the first input alone, confirmed alone, then its replays


def test_without_a_base_the_sample_cannot_speak():
    sample = Sample("seed", len(INPUTS))
    evidence = run_sample(passing(), INPUTS, sample, side(big), lambda: None, POLICY, lambda *_: None)
    assert not evidence.failed_once and sample.exposed is None


@pytest.mark.parametrize("ran, exposed, said", [
    (32, None, "broader sample: 32 unseen inputs ran (seed s), none failed on the head where the base passed"),
    (6, 5, "broader sample: unseen input #5 of 32 (seed s) failed on the head and passed on the base; 6 ran")])
def test_the_sample_says_what_it_did(ran, exposed, said):
    assert Sample("s", 32, ran=ran, exposed=exposed).said() == said


EXAMPLE = {"hypothesis": "6.0", "choices": "AA==", "case": "tests/test_x.py::test_x"}


def searching(found, replays_pass=False, sha="base"):
    """A test's side: its search with the sample's seed finds `found` (an Evaluation); its example replays pass or
    fail as `replays_pass` says."""
    one = (lambda x: Evaluation("pass")) if replays_pass else (lambda x: Evaluation("fail", REASON))
    return Sides(one, one, sha, search=lambda payload: found)


def searched(head, base):
    sample = Sample("seed", 1, search=True)
    evidence = run_search(passing(), {}, sample, head, lambda: base, POLICY, lambda *_: None)
    evidence.sample = sample
    verdict = decide_property(BINDING, evidence, Split(True, False), POLICY, expires_in_hours=24,
                              now=datetime(2026, 12, 6, tzinfo=timezone.utc))
    return sample, evidence, verdict


def test_a_hypothesis_test_s_second_search_finds_what_the_pinned_seed_did_not():
    # a head that answers right only the examples the pinned seed draws: another seed's example fails, the base passes it
    head = searching(Evaluation("fail", REASON, example=EXAMPLE))
    sample, evidence, verdict = searched(head, searching(Evaluation("pass"), replays_pass=True))
    assert (verdict.label, sample.exposed, evidence.witness) == ("regression", 0, EXAMPLE), verdict
    assert sample.said().endswith("its failure, which the base passes, is the witness")


def test_a_second_search_the_base_fails_too_never_blocks():
    head = searching(Evaluation("fail", REASON, example=EXAMPLE))
    sample, evidence, verdict = searched(head, searching(Evaluation("fail", REASON)))
    assert (verdict.label, sample.base_failed, evidence.failed_once) == ("pass", 1, False), verdict


def test_a_second_search_that_passes_changes_nothing():
    sample, evidence, verdict = searched(searching(Evaluation("pass")), None)
    assert (verdict.label, sample.ran, sample.said()) == ("pass", 1, "broader sample: Hypothesis searched again with "
                                                          "seed seed: it passed"), verdict


def test_a_second_search_whose_example_the_base_cannot_replay_is_judged_by_the_searches_themselves():
    # found by a reviewer: a test that draws again after calling the implementation records an example that stops at
    # the head's failure; the base, which passes, cannot replay it (no verdict), and that was counted as the base failing
    head = Sides(lambda x: Evaluation("fail", REASON), lambda x: Evaluation("fail", REASON), "head",
                 search=lambda payload: Evaluation("fail", REASON, example=EXAMPLE))
    base = Sides(lambda x: Evaluation("transport", "witness"), lambda x: Evaluation("transport", "witness"), "base",
                 search=lambda payload: Evaluation("pass"))
    sample, evidence, verdict = searched(head, base)
    assert (verdict.label, sample.exposed, evidence.witness) == ("regression", 0, {}), verdict
    assert evidence.base.story(REASON) == "passes"


def test_a_second_search_the_base_fails_only_sometimes_never_blocks():
    # a flaky base: one passing search of the base is not enough to blame the patch
    searches = iter([Evaluation("pass"), Evaluation("pass"), Evaluation("fail", REASON)] * 5)
    base = Sides(lambda x: Evaluation("pass"), lambda x: Evaluation("pass"), "base",
                 search=lambda payload: next(searches))
    sample, evidence, verdict = searched(searching(Evaluation("fail", REASON, example=EXAMPLE)), base)
    assert (verdict.label, sample.base_failed, evidence.failed_once) == ("pass", 1, False), verdict


def test_an_input_a_flaky_base_fails_only_sometimes_never_blocks():
    # found by a reviewer: an honest head held because the base's own set-order bug passed once warm and once cold
    calls = iter(range(1000))
    base = side(lambda x: True)
    base.cold = lambda x: Evaluation("fail", REASON) if next(calls) % 3 == 2 else Evaluation("pass")
    sample, evidence, verdict = sampled(INPUTS, side(big), base)
    assert (verdict.label, sample.exposed, sample.base_failed) == ("pass", None, 2), (verdict, sample)


def test_a_head_that_hangs_only_after_its_first_call_holds():
    # found by a reviewer: it hung on a row's second input and passed that input alone; the scan stopped there, a pass
    head = side(lambda x: True)
    head.batch = lambda inputs: (Evaluation("transport", "timeout", sample=1, failed=()) if len(inputs) > 1 else
                                 Evaluation("pass", sample=len(inputs), failed=()))
    sample, evidence, verdict = sampled(INPUTS, head, side(lambda x: True))
    assert (sample.holds, sample.in_row, sample.exposed) == (["sample_state:1"], 1, None), sample


def test_a_head_wrong_at_random_after_its_first_call_holds():
    # found by a second reviewer: a row failing again at exactly the same input was required, which a head wrong on
    # three calls in ten after its first rarely gave; the base passing the row every time is what blames the patch
    rows = iter([(1,)])  # the first row fails its second input; every later row passes
    head = side(lambda x: True)
    head.batch = lambda inputs: (lambda failed: Evaluation("fail" if failed else "pass", REASON if failed else None,
                                                           sample=len(inputs), failed=failed))(next(rows, ()))
    sample, evidence, verdict = sampled(INPUTS, head, side(lambda x: True))
    assert (sample.holds, sample.in_row) == (["sample_state:1"], 1), sample


def test_a_shrink_that_wanders_onto_an_input_failing_only_sometimes_gives_way_to_the_input():
    # found by a reviewer's scenario: the head fails every number over 5 and the smallest of them, 6, only sometimes
    # (a frozen coin's witness); the shrink saw 6 fail and stopped there, and its replays disagreed: `frozen`
    coin = iter(range(1000))
    head = side(big)
    head.cold = lambda x: (Evaluation("pass") if x == {"xs": [6]} and next(coin) % 2 == 0 else
                           Evaluation("pass") if big(x) else Evaluation("fail", REASON))
    sample, evidence, verdict = sampled(INPUTS, head, side(lambda x: True))
    assert (verdict.label, evidence.witness) == ("regression", INPUTS[1]), (verdict, evidence.witness)
