"""A series that may replay at once binds each of its warm parents to a core of its own (docs/SECURITY.md, "The warm
start and parallel replays"); one that replays one at a time runs where the gate may."""

import os

import pytest

from witness_gate.runner import PropertyRunner
from witness_gate.sandbox import Sandbox, bwrap_works, stage_directory
from witness_gate.warm_settings import cores_from_here

PROPS = "import os\n\n\ndef prop_cores(p):\n    return 'cores-' + '-'.join(map(str, sorted(os.sched_getaffinity(0))))\n"
ALLOWED = sorted(os.sched_getaffinity(0))


def test_cores_from_here_go_round_every_allowed_core_once_starting_where_this_thread_runs():
    cores = cores_from_here()
    assert sorted(cores) == ALLOWED
    assert cores == tuple(ALLOWED[ALLOWED.index(cores[0]):] + ALLOWED[:ALLOWED.index(cores[0])])


def test_cores_from_here_keep_within_a_narrowed_affinity():
    os.sched_setaffinity(0, ALLOWED[-1:])
    try:
        assert cores_from_here() == (ALLOWED[-1],)
    finally:
        os.sched_setaffinity(0, ALLOWED)


def _cores_of(pid: int) -> str:
    with open(f"/proc/{pid}/status") as status:
        return next(line.split()[1] for line in status if line.startswith("Cpus_allowed_list"))


@pytest.mark.skipif(bool(bwrap_works()), reason="bubblewrap cannot run here")
@pytest.mark.parametrize("parallel", [1, 2])
def test_a_series_that_replays_at_once_binds_each_parent_to_a_core_of_its_own(tmp_path, parallel):
    (tmp_path / "p.py").write_text(PROPS)
    runner = PropertyRunner(stage_directory(tmp_path), "p.py::prop_cores", "17", Sandbox("bwrap"), warm=True,
                            parallel=parallel, timeout_seconds=10)
    try:
        first = runner({})
        assert first.outcome == "fail" and not runner.note, (first, runner.note)
        if parallel == 1:  # one at a time: wherever the gate may run
            assert first.reason == "cores-" + "-".join(map(str, ALLOWED))
            return
        runner._series.spare(1)
        for spare in runner._series._spares:
            spare.join()
        parents = list(runner._series._idle)
        assert len(parents) == 2 and not runner.note
        assert first.reason in {f"cores-{core}" for core in ALLOWED}  # the evaluation sees its parent's one core
        bound = [_cores_of(parent.proc.pid) for parent in parents]
        assert all(cores.isdigit() for cores in bound), bound
        assert len(set(bound)) == min(2, len(ALLOWED)), bound
    finally:
        runner.close()
