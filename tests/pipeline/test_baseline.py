"""Blame only the patch (issue 15.1): a failing witness is replayed on the base commit before it is blamed."""

import io
from datetime import datetime, timezone
from pathlib import Path

import pytest

from test_freeze_replay import LOCK, POLICY, TARGET, _Nowhere
from witness_gate.pipeline.baseline import BaseCode
from witness_gate.config.schema import Config
from witness_gate.config.lock import Fixture
from witness_gate.cli.report import PlainReporter
from witness_gate.model.evaluation import Evaluation
from witness_gate.sandbox import Sandbox
from witness_gate.pipeline.session import GateRun, Pinned
from witness_gate.rules.verdict import Split

BASE = Path("/base-checkout")
BASE_SHA = "b" * 40
ORDER = {"items": [1, 2, 3, 4, 5], "claimed": 15}  # a correct claim: the base passes it


def items(payload):
    ok = isinstance(payload, dict) and isinstance(payload.get("items"), list)
    return [x for x in payload["items"] if isinstance(x, int)] if ok else []


def total_property(compute):
    """The property: the computed total of the items equals the order's claimed total."""
    def evaluate(payload):
        claimed = payload.get("claimed") if isinstance(payload, dict) else None
        return Evaluation("pass") if compute(items(payload)) == claimed else Evaluation("fail", "total-wrong")
    return evaluate


def sequence(*rows):
    """Rows in turn, then the last one for ever."""
    rows = list(rows)
    return lambda _payload: rows.pop(0) if len(rows) > 1 else rows[0]


HEAD_OFF_BY_ONE = total_property(lambda xs: sum(xs) + (len(xs) >= 3))  # the patch's bug: 3 or more items
BASE_SUMS = total_property(sum)


def gate(head, base, base_available=True):
    def make_runner(repo, **_):
        return base if repo == BASE else head

    run = GateRun(checkout=Path("/head-checkout"), patch_digest="p" * 64, split=Split(True, False), policy=POLICY,
                  config=Config(expires_in_hours=24), sandbox=Sandbox("none"), out_dir=None,
                  reporter=PlainReporter(io.StringIO()), now=datetime(2026, 12, 1, tzinfo=timezone.utc),
                  make_runner=make_runner, sink=_Nowhere(),
                  base=(lambda: BaseCode(BASE_SHA, BASE)) if base_available else (lambda: "no base checkout"))
    return run.gate_one(TARGET, Pinned(LOCK, Fixture(ORDER, None, {})))


F, P = Evaluation("fail", "total-wrong"), Evaluation("pass")


def test_a_failure_the_base_shows_the_same_way_is_pre_existing_and_names_the_base():
    result = gate(HEAD_OFF_BY_ONE, lambda _p: F)
    assert result.verdict.label == "pre_existing" and result.verdict.hold_reasons == []
    assert any(n.startswith(f"pre_existing: 5 of 5 replays of the witness failed on the base {BASE_SHA[:12]}")
               for n in result.notes)
    assert result.record["base"]["sha"] == BASE_SHA and len(result.record["base"]["replays"]) == POLICY.runs


def test_the_base_passing_leaves_the_regression_standing():
    result = gate(HEAD_OFF_BY_ONE, BASE_SUMS)
    assert result.verdict.label == "regression"
    assert [r["outcome"] for r in result.record["base"]["replays"]] == ["pass"] * POLICY.runs


def test_a_base_that_disagrees_with_itself_turns_a_regression_into_a_hold_that_names_it():
    result = gate(HEAD_OFF_BY_ONE, sequence(F, P, F, P, P, F))  # fails the pinned payload too, once
    assert (result.verdict.label, result.verdict.hold_reasons) == ("hold", ["base_flaky:2/5"])
    assert any("the base disagrees with itself" in n for n in result.notes)


def test_a_witness_that_drifted_into_inputs_no_implementation_passes_is_shrunk_again_to_one_that_separates():
    result = gate(HEAD_OFF_BY_ONE, BASE_SUMS)
    record = result.record
    witness = record["witness"]
    # the plain shrink reached a claim that is simply wrong (the base fails it too); the new one separates
    drifted = record["base"]["drifted_witness"]
    assert drifted is not None and BASE_SUMS(drifted).outcome == "fail"
    assert HEAD_OFF_BY_ONE(witness).outcome == "fail" and BASE_SUMS(witness).outcome == "pass"
    assert len(items(witness)) == 3 and result.verdict.label == "regression"
    assert any("shrunk again to a witness that separates head from base" in n for n in result.notes)


def test_no_base_replay_for_a_passing_property_and_the_label_stands_without_a_base():
    calls = []
    passing = gate(lambda _p: P, lambda p: calls.append(p) or F)
    assert passing.verdict.label == "pass" and calls == [] and passing.record.get("base") is None
    result = gate(HEAD_OFF_BY_ONE, BASE_SUMS, base_available=False)
    assert result.verdict.label == "regression"
    assert any("the base could not be replayed (no base checkout)" in n for n in result.notes)


@pytest.mark.parametrize("base_rows, label", [
    ([F] * 5, "pre_existing"),
    ([Evaluation("fail", "other")] * 5, "regression"),  # it fails there for another reason: not the same failure
    ([F, F, F, F, Evaluation("transport", "timeout")], "regression"),  # unfinished: the head's label stands
])
def test_only_the_same_failure_on_every_base_replay_is_pre_existing(base_rows, label):
    result = gate(HEAD_OFF_BY_ONE, sequence(*base_rows, F))
    assert result.verdict.label == label, result.notes


def test_a_failure_the_base_had_too_is_not_looked_at_harder():
    """A head that passed once before failing is looked at harder (up to 4 x runs replays, until one disagrees), which
    tells a flake from a regression; a base that fails the witness the same way makes it pre_existing either way, so
    the base is asked first (natsort's 30 tests the boundary cannot judge cost 20 replays each before)."""
    flaky_start = sequence(P, F)
    result = gate(flaky_start, lambda _p: F)
    assert result.verdict.label == "pre_existing", result.notes
    assert len(result.evidence.replays) == POLICY.runs and len(result.record["base"]["replays"]) == POLICY.runs
    control = gate(sequence(P, F), BASE_SUMS)  # the base passes: the head is looked at harder, as before
    assert len(control.evidence.replays) == 4 * POLICY.runs, len(control.evidence.replays)
