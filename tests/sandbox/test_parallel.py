"""Replays of one witness run at once, up to the runner's `parallel`, with their rows in order; an evaluation
ending in one thread never ends another thread's evaluation."""

import threading

import pytest

from witness_gate.pipeline.attempt import replay_series
from witness_gate.model.evaluation import Evaluation
from witness_gate.sandbox.runner import PropertyRunner
from witness_gate.sandbox import Sandbox, bwrap_works, stage_directory
from witness_gate.sandbox.warm_settings import SettingError, parallel_from_environment

PROPERTIES = '''
import time


def prop_slow(p):
    time.sleep(p["sleep"])
    return True


def prop_quick(p):
    return True
'''

needs_bwrap = pytest.mark.skipif(bool(bwrap_works()), reason="bubblewrap cannot run here")


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    root = tmp_path_factory.mktemp("repo")
    (root / "p.py").write_text(PROPERTIES)
    return stage_directory(root)


def test_replays_run_at_once_and_keep_their_order():
    later_done = threading.Event()
    calls, lock = [], threading.Lock()

    def evaluate(payload):
        with lock:
            mine = len(calls)
            calls.append(mine)
        if mine == 0:  # the first replay waits for the second: only replays run at once get past this
            return Evaluation("fail", "x", "replay-0" if later_done.wait(timeout=10) else "one-after-another")
        later_done.set()
        return Evaluation("fail", "x", f"replay-{mine}")  # one reason: a series at once that is kept

    evaluate.parallel = 2
    rows = replay_series({"x": 1}, evaluate, 4, "replay", lambda *_: None)
    assert [row.detail for row in rows] == ["replay-0", "replay-1", "replay-2", "replay-3"]


def test_the_parallel_setting_is_read_with_a_clear_error():
    assert parallel_from_environment({"WITNESS_PARALLEL": "3"}) == 3
    assert parallel_from_environment({}) >= 1
    with pytest.raises(SettingError, match="WITNESS_PARALLEL must be a whole number of at least 1.*not 'two'"):
        parallel_from_environment({"WITNESS_PARALLEL": "two"})


def test_without_bubblewrap_replays_run_one_after_another(repo):
    # without a pid namespace an orphan cannot be told apart: another evaluation's end could take it
    assert PropertyRunner(repo, "p.py::prop_quick", "1", Sandbox("none"), parallel=4).parallel == 1


@needs_bwrap
def test_an_evaluation_ending_in_another_thread_leaves_a_running_one_alone(repo):
    slow = PropertyRunner(repo, "p.py::prop_slow", "1", Sandbox("bwrap"), timeout_seconds=20)
    quick = PropertyRunner(repo, "p.py::prop_quick", "1", Sandbox("bwrap"), timeout_seconds=20)
    result = {}
    worker = threading.Thread(target=lambda: result.setdefault("slow", slow({"sleep": 2})))
    worker.start()
    ended = 0
    while worker.is_alive() or ended < 3:  # every quick evaluation ends its own leftovers meanwhile
        assert quick({}).outcome == "pass"
        ended += 1
    worker.join()
    assert result["slow"].outcome == "pass", result["slow"]



@needs_bwrap
def test_sides_started_from_a_replay_thread_outlive_it(repo):
    """bubblewrap's --die-with-parent ends a sandbox with the *thread* that started it: a warm judge first started by
    one replay of a series at once died with that replay's thread, and the next series lost a row to it."""
    runner = PropertyRunner(repo, "p.py::prop_quick", "1", Sandbox("bwrap"), timeout_seconds=20, parallel=2)
    try:
        for _ in range(3):  # each series' threads end before the next series starts
            rows = replay_series({}, runner, 4, "replay", lambda *_: None)
            assert [(row.outcome, row.isolation) for row in rows] == [("pass", "split-cold")] * 4, rows
    finally:
        runner.close()
