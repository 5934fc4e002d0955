"""Replays at once that see each other: a series kept only when sight of a sibling cannot soften it (the attack kept
with a control that shows it landing when the rule is taken out)."""

import pytest

from witness_gate.pipeline import attempt
from witness_gate.model.evidence import Policy
from witness_gate.pipeline.attempt import run_attempt
from witness_gate.sandbox.runner import PropertyRunner
from witness_gate.sandbox import Sandbox, bwrap_works, stage_directory


ALONE = '''
import fcntl
import time


def total():
    # the regression shows only while no sibling replay holds a lock on the checkout's file (shared by all)
    with open(__file__) as me:
        try:
            fcntl.flock(me, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return True
        time.sleep(1)
        return False
'''


@pytest.fixture
def alone_fails(tmp_path, monkeypatch):
    # locks are refused in an evaluation now (tests/sandbox/test_runner.py::test_cold_subjects_alive_at_once_cannot_count_each_
    # other); allowed here, they stand in for a channel between siblings nobody has found yet: the attempt's own
    # rule must hold whatever the channel
    from witness_gate.sandbox import seccomp

    monkeypatch.setitem(seccomp.NOTICING, "x86_64", (72, {}))
    (tmp_path / "alone.py").write_text(ALONE)
    (tmp_path / "p.py").write_text("from alone import total\n\ndef prop_alone_fails(p):\n    return total()\n")
    runner = PropertyRunner(stage_directory(tmp_path), "p.py::prop_alone_fails", "1", Sandbox("bwrap"),
                            timeout_seconds=20, parallel=2)
    assert runner.parallel == 2
    yield runner
    runner.close()


@pytest.mark.skipif(bool(bwrap_works()), reason="bubblewrap cannot run here")
def test_replays_at_once_that_see_each_other_cannot_turn_a_regression_into_a_flake(alone_fails):
    evidence = run_attempt({}, alone_fails, Policy(runs=4))
    assert [row.outcome for row in evidence.first] == ["fail"]  # one at a time, it always fails
    # a regression, replayed one at a time (its payload is its whole run: looked at harder, to 4 x runs)
    assert [row.outcome for row in evidence.replays] == ["fail"] * 4 * attempt.UNSTEADY_RUNS


@pytest.mark.skipif(bool(bwrap_works()), reason="bubblewrap cannot run here")
def test_control_replays_at_once_kept_as_they_came_make_the_regression_a_flake(alone_fails, monkeypatch):
    monkeypatch.setattr(attempt, "unanimous_failure", lambda _rows: True)  # every series at once is kept
    evidence = run_attempt({}, alone_fails, Policy(runs=4))
    assert "pass" in [row.outcome for row in evidence.replays]
