"""A regression made to look pre-existing through the base replays: each attack kept as a test that fails without its
defence, with a control that shows it landing when the defence is taken out."""

from collections import Counter

from test_baseline import BASE_SUMS, F, HEAD_OFF_BY_ONE, ORDER, gate
from witness_gate.pipeline import baseline
from witness_gate.model.canonical import witness_hash
from witness_gate.model.evaluation import Evaluation


def base_failing_its_pinned_payload_another_way(payload):
    """A base already red on the pinned payload for another reason (a known bug, a frozen flake), which also
    fails the wrong claims the head's shrink drifts onto: the head's own failure is not the base's."""
    return Evaluation("fail", "other-bug") if payload == ORDER else BASE_SUMS(payload)


def test_a_base_red_on_the_pinned_payload_for_another_reason_does_not_make_the_head_s_failure_pre_existing():
    result = gate(HEAD_OFF_BY_ONE, base_failing_its_pinned_payload_another_way)
    assert result.verdict.label == "regression", result.notes
    assert result.record["base"]["drifted_witness"] is not None  # shrunk again, not taken from the drift


def test_a_base_that_times_out_on_the_pinned_payload_does_not_make_the_head_s_failure_pre_existing():
    result = gate(HEAD_OFF_BY_ONE, lambda p: Evaluation("transport", "timeout") if p == ORDER else BASE_SUMS(p))
    assert result.verdict.label == "regression", result.notes


def test_control_taking_the_drifted_witness_whenever_the_pinned_payload_does_not_pass(monkeypatch):
    # the old rule: any pinned result but a pass kept the drifted witness, which the base fails the head's way
    real = baseline.replay_on_base

    def old_rule(evidence, payload, head, base, policy, sha, progress, base_candidate=None, first=None):
        rows = [first] * (first is not None) + baseline.replay_series(
            evidence.witness, base, policy.runs - (first is not None), "replay-base", progress)
        pinned = [base(payload)]
        if pinned[-1].outcome != "pass":
            return baseline.BaseEvidence(sha, rows, pinned)
        return real(evidence, payload, head, base, policy, sha, progress, base_candidate, first)

    monkeypatch.setattr("witness_gate.pipeline.session.replay_on_base", old_rule)
    assert gate(HEAD_OFF_BY_ONE, base_failing_its_pinned_payload_another_way).verdict.label == "pre_existing"


def base_flaky_on_what_it_has_seen():
    """A base that passes a wrong-looking input once, then fails it: a flaky base, steered to by a head that
    fails wherever the base happened to pass while shrinking again."""
    seen = Counter()

    def evaluate(payload):
        seen[witness_hash(payload)] += 1
        if payload == ORDER or seen[witness_hash(payload)] == 1:
            return BASE_SUMS(payload)
        return F

    return evaluate


def test_a_re_shrunk_witness_the_base_passed_once_is_never_pre_existing():
    result = gate(HEAD_OFF_BY_ONE, base_flaky_on_what_it_has_seen())
    assert result.record["base"]["drifted_witness"] is not None
    assert [r["outcome"] for r in result.record["base"]["replays"]] == ["fail"] * 5  # every replay on the base
    assert (result.verdict.label, result.verdict.hold_reasons) == ("hold", ["base_flaky:5/5"]), result.notes


def test_control_a_re_shrunk_witness_the_base_fails_on_every_replay_was_pre_existing(monkeypatch):
    monkeypatch.setattr(baseline.BaseEvidence, "drifted_hash", "", raising=False)  # no memory of the re-shrink
    real_init = baseline.BaseEvidence.__init__

    def forget(self, *args, **kwargs):
        real_init(self, *args, **kwargs)
        self.drifted_hash = ""

    monkeypatch.setattr(baseline.BaseEvidence, "__init__", forget)
    assert gate(HEAD_OFF_BY_ONE, base_flaky_on_what_it_has_seen()).verdict.label == "pre_existing"


def test_a_pull_request_moved_onto_another_base_is_gated_again():
    # open it against a branch that already fails (pre_existing, neutral), then retarget it at main: the head's
    # check run must be main's verdict, not the chosen branch's
    from bot.events import route
    from ghdouble.webhooks import app_payload

    moved = app_payload("pull_request.opened", action="edited")
    moved["changes"] = {"base": {"ref": {"from": "already-failing"}, "sha": {"from": "c" * 40}}}
    assert [job.func for job in route("pull_request", moved, "0f1e2d3c-bbbb").jobs] == ["worker.jobs.gate_pull_request"]
    retitled = app_payload("pull_request.opened", action="edited")
    retitled["changes"] = {"title": {"from": "wip"}}
    assert route("pull_request", retitled, "0f1e2d3c-cccc").jobs == []  # control: an edit that moves nothing
