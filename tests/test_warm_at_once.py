"""Replays at once on a warm series' free parents, all followed from the calling thread (runner.evaluate_at_once):
every replay gets a row, a lane whose parent ends (a timeout, an output flood) stops and the rest go on, and a
parent still starting leaves the replays to threads."""

import os
import threading

import pytest

from witness_gate.attempt import replay_series
from witness_gate.runner import PropertyRunner
from witness_gate.sandbox import Limits, Sandbox, bwrap_works, stage_directory

pytestmark = pytest.mark.skipif(bool(bwrap_works()), reason="bubblewrap cannot run here")
CORES = sorted(os.sched_getaffinity(0))

# on the lane whose parent keeps to the first core of the gate's, the property does what `p` asks; on any other it
# fails at once
PROPS = """import os
import sys
import time


def prop_lane(p):
    if sorted(os.sched_getaffinity(os.getppid()))[0] == p["core"]:  # its parent's core: the lane
        if p["do"] == "hang":
            time.sleep(60)
        if p["do"] == "flood":
            sys.stdout.write("x" * 200000)
            sys.stdout.flush()
    return "lane-failed"
"""


def _runner(tmp_path, **options) -> PropertyRunner:
    (tmp_path / "p.py").write_text(PROPS)
    return PropertyRunner(stage_directory(tmp_path), "p.py::prop_lane", "17", Sandbox("bwrap"), warm=True,
                          parallel=2, **options)


def _two_parents(runner: PropertyRunner, payload) -> None:
    assert runner(payload).outcome == "fail" and not runner.note
    runner._series.spare(1)
    for spare in runner._series._spares:
        spare.join()
    assert len(runner._series._idle) == 2, runner.note


def test_replays_at_once_give_every_row_without_a_thread_of_their_own(tmp_path):
    runner = _runner(tmp_path, timeout_seconds=10)
    payload = {"core": -1, "do": ""}
    try:
        _two_parents(runner, payload)
        threads, seen = threading.active_count(), []
        rows = replay_series(payload, runner, 8, "replay", lambda phase, done, runs: seen.append(
            (done, threading.active_count())))
        assert [(r.outcome, r.reason) for r in rows] == [("fail", "lane-failed")] * 8
        assert [done for done, _ in seen] == list(range(1, 9))
        assert all(count == threads for _, count in seen)  # no pool was started for them
        assert len(runner._series._idle) == 2 and not runner.note  # both parents free again, still warm
    finally:
        runner.close()


@pytest.mark.skipif(len(CORES) < 2, reason="needs two cores: each lane's parent is bound to its own")
@pytest.mark.parametrize("do, fault", [("hang", "timeout"), ("flood", "output_limit")])
def test_a_lane_whose_parent_ends_stops_and_the_other_takes_the_rest(tmp_path, do, fault):
    runner = _runner(tmp_path, timeout_seconds=2, limits=Limits(output_bytes=100000))
    payload = {"core": CORES[0], "do": do}
    try:
        _two_parents(runner, {"core": -1, "do": ""})
        rows = runner.evaluate_at_once(payload, 6)
        assert rows is not None and len(rows) == 6, rows
        ended = [r for r in rows if r.outcome == "transport"]
        assert [r.reason for r in ended] == [fault], rows  # one evaluation on the bound lane, then it ended
        assert sum(r.reason == "lane-failed" for r in rows) == 5
        assert not runner.note  # one sandbox ended, as a cold start's would; the series stays warm
    finally:
        runner.close()


def test_the_only_parent_takes_the_replays_from_this_thread_and_a_starting_one_leaves_them_to_threads(tmp_path):
    runner = _runner(tmp_path, timeout_seconds=10)
    payload = {"core": -1, "do": ""}
    try:
        assert runner.evaluate_at_once(payload, 4) is None  # no series yet: threads start it
        assert runner(payload).outcome == "fail"
        rows = runner.evaluate_at_once(payload, 4)  # one parent, none other running or starting: no thread would help
        assert rows is not None and [r.reason for r in rows] == ["lane-failed"] * 4
        assert len(runner._series._idle) == 1 and not runner.note
        runner._series.spare(1)  # a spare starting: threads, which take it once it is ready
        assert runner.evaluate_at_once(payload, 4) is None
        for spare in runner._series._spares:
            spare.join()
        rows = replay_series(payload, runner, 4, "replay", lambda *_: None)
        assert [r.reason for r in rows] == ["lane-failed"] * 4
    finally:
        runner.close()
