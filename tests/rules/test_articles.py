"""The articles' own snippets and tables, run against our modules with only the import lines changed."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

SNIPPET_000 = '''
from witness_gate.gate import Witness, Gate, decide
base = dict(patch_digest="p"*64, property_id="bounds_check",
            fixture_digest="f"*64, seed="17", shrunk=True,
            shrink_budget_hit=False)
flake = Witness(**base, outcomes=("fail", "pass", "fail"),
                freeze_expires="2026-10-19T00:00:00Z")
assert decide(flake) is Gate.FREEZE_CANDIDATE
stable = Witness(**base, outcomes=("fail", "fail", "fail"),
                 freeze_expires="2026-10-19T00:00:00Z")
assert decide(stable) is Gate.REJECT
no_end = Witness(**base, outcomes=("fail", "pass", "fail"), freeze_expires="")
assert decide(no_end) is Gate.HOLD
print("branches ok")
'''

SNIPPET_004 = '''
from witness_gate.budget import (
    Contract, Observation, RunnerClass, Decision, decide, fixture_id,
)
c = Contract("order_total", "total == sum(lines)", "non-empty line lists")
fid = fixture_id({"lines": [2, 2], "seed_set": [7, 11]})
digest = c.digest()
probe = Observation(RunnerClass.COST_PROBE, fid, digest, "flake:timeout")
assert decide(digest, fid, 0, [probe]) is Decision.IGNORE_PROBE
bad = Observation(RunnerClass.EVIDENCE, "other", digest, "flake:timeout")
assert decide(digest, fid, 0, [bad]) is Decision.REJECT_EVIDENCE
inv = Observation(RunnerClass.EVIDENCE, fid, digest, "invariant:total")
assert decide(digest, fid, 0, [inv]) is Decision.REJECT_PATCH
one = Observation(RunnerClass.EVIDENCE, fid, digest, "flake:order-timeout")
assert decide(digest, fid, 2, [one, one]) is Decision.QUARANTINE
assert decide(digest, fid, 0, [one, one]) is Decision.FREEZE_ELIGIBLE
mixed = Observation(RunnerClass.EVIDENCE, fid, digest, "flake:other")
assert decide(digest, fid, 0, [one, mixed]) is Decision.HOLD_OPEN
ok = Observation(RunnerClass.EVIDENCE, fid, digest, None)
assert decide(digest, fid, 0, [ok, ok]) is Decision.ACCEPT
assert decide(digest, fid, 1, [ok]) is Decision.HOLD_OPEN
print("replay budget gate: table checks passed")
'''


@pytest.mark.parametrize("snippet, printed", [
    (SNIPPET_000, "branches ok"),
    (SNIPPET_004, "replay budget gate: table checks passed"),
])
def test_article_shell_snippets_print_their_line(snippet, printed):
    # the articles say: read the printed line, a missing line is not a pass
    done = subprocess.run([sys.executable, "-c", snippet], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == printed


# -- article 001, its table test verbatim ----------------------------------------------------
from witness_gate.labels import classify, freeze_allowed, retain, split_paths, witness_hash  # noqa: E402


def test_classify_table() -> None:
    cases = [
        (5, 5, True, False, "regression"),
        (2, 5, True, False, "flake"),
        (0, 5, True, False, "not_reproduced"),
        (5, 5, False, True, "oracle_defect"),
        (2, 5, True, True, "mixed_edit"),
        (3, 0, True, False, "unclassified"),
    ]
    for failures, runs, impl, oracle, expected in cases:
        assert classify(failures, runs, impl, oracle) == expected


@pytest.mark.parametrize("failures, runs, expected", [
    (-1, 5, "unclassified"),  # negative counts
    (6, 5, "unclassified"),  # more failures than runs
    (1, 1, "regression"),
    (0, 1, "not_reproduced"),
    (4, 5, "flake"),
])
def test_classify_bounds(failures, runs, expected):
    assert classify(failures, runs, True, False) == expected


@pytest.mark.parametrize("kind, present, matches, allowed", [
    ("flake", True, True, True),
    ("flake", False, True, False),  # no witness on disk
    ("flake", True, False, False),  # a replay saw another fixture digest
    ("regression", True, True, False),  # a witness that always fails is never frozen
    ("oracle_defect", True, True, False),
    ("mixed_edit", True, True, False),
    ("not_reproduced", True, True, False),
])
def test_freeze_allowed_only_for_a_flake_with_its_witness(kind, present, matches, allowed):
    assert freeze_allowed(kind, present, matches) is allowed


def test_split_paths_article_form():
    # the article's one-argument form still holds with its two prefixes as defaults
    assert split_paths(["src/a.py"]) == (True, False)
    assert split_paths(["tests/properties/p.py"]) == (False, True)
    assert split_paths(["src/a.py", "tests/properties/p.py"]) == (True, True)
    assert split_paths(["README.md"]) == (False, False)


def test_witness_hash_is_the_articles_formula():
    payload = {"b": [1, 2], "a": {"z": "é", "y": None}}
    raw = json.dumps(payload, sort_keys=True, separators=(",", ":")).encode()
    import hashlib

    assert witness_hash(payload) == hashlib.sha256(raw).hexdigest()


def test_retain_writes_the_named_file(tmp_path: Path):
    payload = {"lines": [{"qty": -1, "price": 3}], "claimed_total": -3}
    record = retain("prop_order_total_non_negative", payload, "f" * 64, tmp_path)
    path = tmp_path / f"prop_order_total_non_negative.{witness_hash(payload)[:12]}.json"
    assert json.loads(path.read_text()) == record
    assert record == {
        "assertion_id": "prop_order_total_non_negative",
        "fixture_digest": "f" * 64,
        "witness_hash": witness_hash(payload),
        "payload": payload,
    }
    assert path.read_text().endswith("}\n")


def test_article_001_checker_fails_closed():
    # the article's example property, evaluated by our harness rules
    def prop_order_total_non_negative(order: dict) -> bool:
        total = sum(line["qty"] * line["price"] for line in order["lines"])
        if total < 0:
            return False
        return total == order["claimed_total"]

    from witness_gate.sandbox.judge.verdicts import verdict_of

    assert verdict_of(prop_order_total_non_negative({"lines": [{"qty": -1, "price": 2}], "claimed_total": -2})) == ("fail", "false")
    assert verdict_of(prop_order_total_non_negative({"lines": [{"qty": 1, "price": 2}], "claimed_total": 2})) == ("pass", None)


# -- article 000's shapes ---------------------------------------------------------------------
from witness_gate.gate import Gate, Witness, decide, sha256_bytes, shrink_until_local_stop  # noqa: E402


def bounds_check(fixture: dict, output: dict) -> bool:
    """The article's shape example of a predicate (only illustrates: it lives with the article's tests)."""
    return fixture["lo"] <= output["value"] <= fixture["hi"]


def drop_optional(fixture: dict):
    """The article's shape example of a shrink step: None when nothing optional remains."""
    if "optional_note" not in fixture:
        return None
    nxt = dict(fixture)
    del nxt["optional_note"]
    return nxt

BASE = dict(patch_digest="p" * 64, property_id="bounds_check", fixture_digest="f" * 64, seed="17",
            shrunk=True, shrink_budget_hit=False)
EXPIRY = "2026-10-19T00:00:00Z"


@pytest.mark.parametrize("change, outcomes, expiry, gate", [
    # Patch digest, property id, fixture digest, or seed is empty -> Hold
    ({"patch_digest": ""}, ("fail", "fail", "fail"), EXPIRY, Gate.HOLD),
    ({"property_id": ""}, ("pass", "pass", "pass"), EXPIRY, Gate.HOLD),
    ({"fixture_digest": ""}, ("fail", "pass", "fail"), EXPIRY, Gate.HOLD),
    ({"seed": ""}, ("fail", "fail", "fail"), EXPIRY, Gate.HOLD),
    # Shrink loop has not stopped, or the step budget ended without a local stop -> Hold
    ({"shrunk": False}, ("fail", "fail", "fail"), EXPIRY, Gate.HOLD),
    ({"shrink_budget_hit": True}, ("fail", "fail", "fail"), EXPIRY, Gate.HOLD),
    # Fewer reruns than the policy minimum on that witness -> Hold
    ({}, ("fail", "fail"), EXPIRY, Gate.HOLD),
    ({}, (), EXPIRY, Gate.HOLD),
    # Outcome labels are outside pass and fail -> Hold
    ({}, ("fail", "error", "fail"), EXPIRY, Gate.HOLD),
    ({}, ("pass", "pass", "timeout"), EXPIRY, Gate.HOLD),
    # Every recorded rerun passes -> Pass; every one fails -> Reject
    ({}, ("pass", "pass", "pass"), "", Gate.PASS),
    ({}, ("fail", "fail", "fail", "fail"), "", Gate.REJECT),
    # Reruns disagree, shrink stopped, expiry present -> Freeze candidate; expiry empty -> Hold
    ({}, ("pass", "fail", "pass"), EXPIRY, Gate.FREEZE_CANDIDATE),
    ({}, ("pass", "fail", "pass"), "", Gate.HOLD),
])
def test_article_000_table(change, outcomes, expiry, gate):
    w = Witness(**{**BASE, **change}, outcomes=outcomes, freeze_expires=expiry)
    assert decide(w) is gate


def test_min_reruns_below_two_is_refused():
    w = Witness(**BASE, outcomes=("fail", "pass"), freeze_expires=EXPIRY)
    with pytest.raises(ValueError, match="more than one attempt"):
        decide(w, min_reruns=1)
    assert decide(w, min_reruns=2) is Gate.FREEZE_CANDIDATE


def test_teams_that_require_five_reruns_pass_that_number():
    w = Witness(**BASE, outcomes=("fail",) * 4, freeze_expires=EXPIRY)
    assert decide(w, min_reruns=5) is Gate.HOLD
    assert decide(w, min_reruns=4) is Gate.REJECT


def test_shrink_contract_shapes():
    assert bounds_check({"lo": 0, "hi": 10}, {"value": 5})
    assert not bounds_check({"lo": 0, "hi": 10}, {"value": 11})
    fixture = {"lo": 0, "hi": 10, "optional_note": "drop-me"}
    assert drop_optional(fixture) == {"lo": 0, "hi": 10}
    assert drop_optional({"lo": 0, "hi": 10}) is None
    assert fixture == {"lo": 0, "hi": 10, "optional_note": "drop-me"}  # not mutated


def test_shrink_until_local_stop_with_the_articles_step():
    def fails(f):
        return f["lo"] > f["hi"]

    start = {"lo": 5, "hi": 1, "optional_note": "drop-me"}
    assert shrink_until_local_stop(start, fails, drop_optional) == {"lo": 5, "hi": 1}
    # returns None when the current fixture does not fail: the caller holds
    assert shrink_until_local_stop({"lo": 0, "hi": 1}, fails, drop_optional) is None
    # a step that makes the fixture pass is refused; the previous fixture remains the witness
    assert shrink_until_local_stop(start, lambda f: "optional_note" in f, drop_optional) == start


def test_shrink_until_local_stop_respects_the_step_budget():
    def shrink_once(n):
        return n - 1 if n > 0 else None

    assert shrink_until_local_stop(100, lambda n: n > 3, shrink_once, max_steps=5) == 95
    assert shrink_until_local_stop(100, lambda n: n > 3, shrink_once, max_steps=500) == 4


def test_sha256_bytes():
    assert sha256_bytes(b"") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"


# -- article 004's prose rows ------------------------------------------------------------------
from witness_gate.budget import Contract, Decision, Observation, RunnerClass, decide as budget_decide, fixture_id  # noqa: E402

C = Contract("order_total", "total == sum(lines)", "non-empty line lists")
D = C.digest()
FID = fixture_id({"lines": [2, 2]})


def ev(signature, **kw):
    return Observation(RunnerClass.EVIDENCE, kw.get("fixture", FID), kw.get("digest", D), signature,
                       kw.get("transport_fault", False))


@pytest.mark.parametrize("rows, budget, decision", [
    ([], 0, Decision.IGNORE_PROBE),
    ([Observation(RunnerClass.COST_PROBE, FID, D, "invariant:x")], 3, Decision.IGNORE_PROBE),
    ([ev(None, digest="other")], 0, Decision.REJECT_EVIDENCE),
    ([ev(None), ev("invariant:total")], 2, Decision.REJECT_PATCH),
    ([ev(None), ev("transport:timeout")], 0, Decision.TRANSPORT_FAULT),
    ([ev(None, transport_fault=True)], 0, Decision.TRANSPORT_FAULT),
    ([ev("")], 0, Decision.REJECT_EVIDENCE),  # empty signature
    ([ev("timeout")], 0, Decision.REJECT_EVIDENCE),  # unprefixed
    ([ev("flake:a"), ev("flake:b")], 0, Decision.HOLD_OPEN),
    ([ev("flake:a"), ev(None)], 1, Decision.QUARANTINE),
    ([ev("flake:a"), ev(None), ev("flake:a")], 0, Decision.FREEZE_ELIGIBLE),
    ([ev(None), ev(None)], 0, Decision.ACCEPT),
    ([ev(None)], 4, Decision.HOLD_OPEN),
    # cost-probe rows are ignored while the evidence is read
    ([ev("flake:a"), Observation(RunnerClass.COST_PROBE, "x", "y", "invariant:z")], 0, Decision.FREEZE_ELIGIBLE),
])
def test_article_004_table(rows, budget, decision):
    assert budget_decide(D, FID, budget, rows) is decision


def test_negative_budget_is_refused():
    with pytest.raises(ValueError):
        budget_decide(D, FID, -1, [ev(None)])


def test_contract_digest_changes_with_any_field():
    assert Contract("a", "b", "c").digest() != Contract("a", "b", "d").digest()
    assert Contract("order_total", "x", "y").digest() == Contract("order_total", "x", "y").digest()
