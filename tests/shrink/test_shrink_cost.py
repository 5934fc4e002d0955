"""What a wide fixture costs the shrinker, in predicate evaluations (issue 29).

The issue: "On a 200-key fixture whose failure needs 2 keys, the shrinker takes 102-117 evaluations where it
took about 36 before ... Get wide fixtures back to at most 0.2x Hypothesis and at most 1.0x ddmin". Evaluation
counts are deterministic (no clock, no random draw in the shrinker), so they are asserted; times never are.
The ratio to Hypothesis's shrinker needs Hypothesis's engine driven from the fixture: bench/shrink.py prints it
(RESULT shrink: worst evaluations = ...x hypothesis), beside ddmin, on its own corpus.
"""

import importlib.util
import random

from conftest import ROOT
from witness_gate.shrink import shrink


def bench_shrink():
    """bench/shrink.py, under a name of its own (the top-level name `shrink` stays free)."""
    spec = importlib.util.spec_from_file_location("bench_shrink", ROOT / "bench" / "shrink.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_200_key_fixture_whose_failure_needs_2_keys_costs_no_more_than_ddmin():
    bench = bench_shrink()
    [(_, _, _, predicate)] = [case for case in bench.corpus(quick=True) if case[0] == "flat"]  # k37 > 50 and flag
    rng = random.Random(2026)  # bench/shrink.py's flat case, 200 keys wide
    fixture = {f"k{i}": rng.randint(0, 100) for i in range(199)}
    fixture["k37"], fixture["flag"] = 77, True
    assert len(fixture) == 200 and predicate(fixture) == "hot-flag"

    counted = bench.Counted(predicate)
    result = shrink(fixture, counted, target_reason="hot-flag", max_steps=10_000, max_evals=100_000)
    ours = len(counted.seen)
    _, ddmin = bench.run_ddmin(fixture, predicate, "hot-flag")

    assert result.stopped and set(result.witness) == {"k37", "flag"}, result.witness
    assert predicate(result.witness) == "hot-flag"
    assert ours <= ddmin, (ours, ddmin)  # at most 1.0x hierarchical delta debugging on the same fixture
    # a fixed ceiling for the 102-117: 37 here when this was written (ddmin 45); the ratio to
    # Hypothesis (target <= 0.2x) is bench/shrink.py's to print
    assert ours <= 60, ours


def test_a_200_key_fixture_of_lists_whose_failure_needs_2_keys_costs_no_more_than_ddmin():
    # found measuring this file's first test on other shapes: with each value a list of numbers, the move that sums
    # a record's list (for a total that must stay over a limit) probed every key's list alone before deletion ran:
    # 239 evaluations where ddmin takes 51. A record's lists are now summed together, then by halves.
    bench = bench_shrink()
    [(_, _, _, predicate)] = [case for case in bench.corpus(quick=True) if case[0] == "flat-lists"]
    rng = random.Random(7)
    fixture = {f"k{i}": [rng.randint(1, 80) for _ in range(3)] for i in range(199)}
    fixture["k37"], fixture["flag"] = [15, 40, 64], True
    assert len(fixture) == 200 and predicate(fixture) == "hot-flag"

    counted = bench.Counted(predicate)
    result = shrink(fixture, counted, target_reason="hot-flag", max_steps=10_000, max_evals=100_000)
    ours = len(counted.seen)
    _, ddmin = bench.run_ddmin(fixture, predicate, "hot-flag")

    assert result.stopped and result.witness == {"k37": [51], "flag": True}, result.witness
    assert ours <= ddmin, (ours, ddmin)
