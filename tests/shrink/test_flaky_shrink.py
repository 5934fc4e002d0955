"""Shrinking a flaky failure (issue "Freezes that hold for a real flake"): a passing candidate of a property
the sample plan showed flaky gets a bounded number of tries, so the witness is as stable as the evidence allows."""

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from witness_gate.model.evidence import Policy

from witness_gate.pipeline.attempt import run_attempt
from witness_gate.model.canonical import witness_hash
from witness_gate.model.evaluation import Evaluation

WIDE = {"orders": [{"qty": q, "price": 3} for q in range(30)]}
POLICY = Policy(runs=5, min_reruns=3, max_steps=64, max_evals=2000)


def orders(payload) -> list:
    return payload.get("orders") if isinstance(payload, dict) and isinstance(payload.get("orders"), list) else []


def coin(rng: random.Random, odds: float = 0.5):
    """Any non-empty order list fails on a coin toss (the outcome does not depend on the input), which a
    pinned seed cannot tame; the pinned payload passes once, then fails, so the sample plan shows it flaky."""
    script = [Evaluation("pass"), Evaluation("fail", "total-mismatch")]

    def evaluate(payload):
        if script:
            return script.pop(0)
        if orders(payload) and rng.random() < odds:
            return Evaluation("fail", "total-mismatch")
        return Evaluation("pass")

    return evaluate


def counted(evaluate):
    calls = [0]

    def wrapper(payload):
        calls[0] += 1
        return evaluate(payload)

    return wrapper, calls


def witnesses(policy: Policy, seeds: range) -> list[str]:
    return [witness_hash(run_attempt(WIDE, coin(random.Random(seed)), policy).witness) for seed in seeds]


def test_retries_make_the_flaky_witness_the_same_on_most_attempts():
    once = witnesses(Policy(**{**vars(POLICY), "flaky_tries": 1}), range(12))
    retried = witnesses(POLICY, range(12))
    smallest = witness_hash({"orders": [{}]})
    # without retries a pass by chance stops the shrink early, each attempt somewhere else
    assert len(set(once)) > len(set(retried))
    assert retried.count(smallest) >= 11, retried


def test_the_attempt_records_how_many_candidates_a_retry_decided():
    evidence = run_attempt(WIDE, coin(random.Random(3)), POLICY)
    assert evidence.flaky_shrink is not None
    record = evidence.flaky_shrink.as_record()
    assert record["tries"] == POLICY.flaky_tries == 5 and record["decided_by_retry"] > 0


def test_a_failure_on_the_first_run_is_shrunk_with_one_evaluation_per_candidate():
    def deterministic(payload):
        return Evaluation("fail", "total-mismatch") if len(orders(payload)) >= 2 else Evaluation("pass")

    evaluate, calls = counted(deterministic)
    evidence = run_attempt(WIDE, evaluate, POLICY)
    assert evidence.flaky_shrink is None
    assert evidence.witness == {"orders": [{}, {}]}
    # the first run, one evaluation per shrink candidate past the start, then the replays
    assert calls[0] == 1 + evidence.shrink.evaluations - 1 + POLICY.runs


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), max_evals=st.integers(20, 200))
def test_retries_never_cost_more_than_the_evaluation_budget_allows(seed, max_evals):
    policy = Policy(**{**vars(POLICY), "max_evals": max_evals})
    evaluate, calls = counted(coin(random.Random(seed), odds=0.2))
    evidence = run_attempt(WIDE, evaluate, policy)
    shrink_evaluations = calls[0] - len(evidence.first) - len(evidence.replays) - len(evidence.unshrunk_replays)
    # retries stop once the shrink has cost max_evals evaluations; after that each candidate is one evaluation,
    # and the shrinker itself makes at most max_evals calls
    assert shrink_evaluations <= 2 * max_evals + policy.flaky_tries
    assert evidence.witness_hash and evidence.target_reason == "total-mismatch"
