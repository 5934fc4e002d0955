"""The benchmarks keep working: quick runs print their RESULT lines; the Hypothesis encoding is exact.

Timings are never asserted here; the benchmarks print ratios for people to read.
"""

import subprocess
import sys

import pytest

from conftest import ROOT


@pytest.mark.parametrize("script", ["sandbox.py", "boundary.py", "scale.py", "pytest_suite.py", "broader_sample.py"])
def test_quick_benchmarks_print_results(script):
    done = subprocess.run([sys.executable, str(ROOT / "bench" / script), "--quick"], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    results = [line for line in done.stdout.splitlines() if line.startswith("RESULT ")]
    assert results and all(": " in r and " = " in r for r in results)


def test_the_hypothesis_encoding_draws_exactly_the_fixture():
    sys.path.insert(0, str(ROOT / "bench"))
    import shrink as bench_shrink

    fixture = {"a": [1, "x", None, True, 2.5, {"b": []}], "": -7}
    for order in bench_shrink.KINDS.values():
        witness, evaluations = bench_shrink.run_hypothesis(fixture, lambda v: "same" if v == fixture else None,
                                                           "same", order)
        assert witness == fixture and evaluations >= 1


def test_every_shrinker_in_the_comparison_keeps_the_failure():
    sys.path.insert(0, str(ROOT / "bench"))
    import shrink as bench_shrink

    for name, _what, fixture, predicate in bench_shrink.corpus(quick=True):
        target = predicate(fixture)
        for run in (bench_shrink.run_ours, bench_shrink.run_article, bench_shrink.run_ddmin):
            witness, evaluations = run(fixture, predicate, target)
            assert predicate(witness) == target and evaluations > 0, (name, run.__name__)
