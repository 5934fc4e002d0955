"""The one table of labels, and the one freeze rule, read by every place that used to keep its own copy."""

from datetime import datetime, timezone

import pytest

from witness_gate.model import outcomes
from witness_gate.model.evidence import Binding
from witness_gate.model.contract import Contract
from witness_gate.config.schema import ConfigError, parse_config
from witness_gate.records.ledger import apply_freezes, silenced_anew
from witness_gate.rules.verdict import FreezeMatch, _matching_freeze, exit_code, overall_label
from worker import checks

# SPEC §7's conclusions and §8's exit codes, written out once more by hand: the table must agree
SPEC = {
    "pass": ("success", 0), "frozen": ("neutral", 0), "skipped": ("skipped", 0), "no_config": ("neutral", 0),
    "regression": ("failure", 1), "mixed_edit": ("failure", 1), "invalid_config": ("failure", 2),
    "flake": ("action_required", 3), "oracle_defect": ("action_required", 3),
    "not_reproduced": ("action_required", 3), "hold": ("action_required", 3), "pre_existing": ("neutral", 0),
}


@pytest.mark.parametrize("name", sorted(SPEC))
def test_the_table_says_what_the_contract_says(name):
    rule = outcomes.BY_NAME[name]
    assert (rule.conclusion, rule.exit_code) == SPEC[name]
    assert checks.conclusion_for(name) == SPEC[name][0]


def test_the_pull_request_order_and_exit_codes_come_from_the_table():
    assert outcomes.ORDER == ("mixed_edit", "oracle_defect", "hold", "regression", "pre_existing", "frozen",
                              "flake", "not_reproduced", "pass")
    assert overall_label(["pass", "pre_existing", "frozen"]) == "pre_existing"
    assert exit_code(["pre_existing", "pass"]) == 0
    assert overall_label(["pass", "flake", "regression"]) == "regression"
    assert overall_label([]) == "pass"
    assert exit_code(["hold", "regression"]) == 1 and exit_code(["flake", "pass"]) == 3 and exit_code(["frozen"]) == 0


def test_every_label_of_the_table_may_be_overridden_and_no_other():
    # before the one table, config.LABELS lacked no_config, so this override was refused
    config = parse_config("version: 1\nconclusions:\n  no_config: skipped\n  hold: failure\n")
    assert config.conclusions == {"no_config": "skipped", "hold": "failure"}
    assert checks.conclusion_for("no_config", config.conclusions) == "skipped"
    with pytest.raises(ConfigError, match="'superseded' is not one"):
        parse_config("version: 1\nconclusions:\n  superseded: success\n")


NOW = datetime(2026, 12, 1, tzinfo=timezone.utc)
CONTRACT = Contract("prop_x", "never negative", "orders")


@pytest.mark.parametrize("freeze_contract, attempt_contract, matches", [
    ("", None, True),  # a freeze that names no contract matches any
    ("", CONTRACT, True),
    (CONTRACT.digest(), CONTRACT, True),
    (CONTRACT.digest(), None, False),  # the copies used to disagree here: run time matched, render time did not
    (CONTRACT.digest(), Contract("prop_x", "never negative, ever", "orders"), False),
])
def test_one_freeze_rule_at_run_time_and_at_render_time(freeze_contract, attempt_contract, matches):
    freeze = FreezeMatch("prop_x", "f" * 64, "w" * 64, "2026-12-02T00:00:00Z", "octocat", freeze_contract)
    binding = Binding("p" * 64, "tests/p.py::prop_x@abc", "prop_x", attempt_contract, "f" * 64, "17")
    at_run = _matching_freeze(binding, "w" * 64, (freeze,), NOW) is not None
    record = {"assertion_id": "prop_x", "label": "flake", "fixture_digest": "f" * 64, "witness_hash": "w" * 64,
              "contract_digest": attempt_contract.digest() if attempt_contract else ""}
    assert at_run == rendered_frozen(record, freeze) == matches


def rendered_frozen(record: dict, freeze: FreezeMatch) -> bool:
    """Whether `freeze` silences `record` when the App renders again: a record gated beside it stays frozen exactly
    then, and one gated before it is gated again exactly then (never relabelled: the checks beside a freeze run only
    in a gate run)."""
    [kept] = apply_freezes([{**record, "label": "frozen", "unfrozen_label": record["label"]}], (freeze,), now=NOW)
    [before] = apply_freezes([record], (freeze,), now=NOW)
    assert before["label"] == record["label"], "a record gated without the freeze is never relabelled frozen"
    assert silenced_anew([record], (freeze,), now=NOW) == (kept["label"] == "frozen")
    return kept["label"] == "frozen"


def test_an_expired_freeze_silences_nothing_when_rendered_either():
    freeze = FreezeMatch("prop_x", "f" * 64, "w" * 64, "2026-11-30T00:00:00Z", "octocat")
    record = {"assertion_id": "prop_x", "label": "flake", "fixture_digest": "f" * 64, "witness_hash": "w" * 64}
    assert apply_freezes([record], (freeze,), now=NOW)[0]["label"] == "flake"


@pytest.mark.parametrize("freeze_signature, attempt_reasons, matches", [
    ("flake:A", ["A"], True),
    ("flake:A", ["B"], False),  # a freeze accepted for flake:A silenced a later flake:B on the same witness
    ("flake:A", ["A", "B"], False),
    ("", ["B"], True),  # a freeze from before signatures were kept matches as it did
])
def test_the_flake_signature_is_the_fifth_field_of_the_one_rule(freeze_signature, attempt_reasons, matches):
    from witness_gate.rules.signatures import sign
    from witness_gate.model.evaluation import Evaluation

    freeze = FreezeMatch("prop_x", "f" * 64, "w" * 64, "2026-12-02T00:00:00Z", "octocat", "", freeze_signature)
    rows = [Evaluation("fail", reason) for reason in attempt_reasons] + [Evaluation("pass")]
    signatures = {s for s in sign(rows) if s}
    binding = Binding("p" * 64, "tests/p.py::prop_x@abc", "prop_x", None, "f" * 64, "17")
    at_run = _matching_freeze(binding, "w" * 64, (freeze,), NOW, signatures) is not None
    record = {"assertion_id": "prop_x", "label": "flake", "fixture_digest": "f" * 64, "witness_hash": "w" * 64,
              "replays": [{"outcome": r.outcome, "reason": r.reason, "signature": sig}
                          for r, sig in zip(rows, sign(rows))]}
    assert at_run == rendered_frozen(record, freeze) == matches
