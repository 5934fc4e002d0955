"""A series that may replay at once binds each of its warm parents to a core of its own once its imports ran (docs/
SECURITY.md, "The warm start and parallel replays"); its imports and every evaluation see the cores a cold start
sees; a series that replays one at a time binds nothing."""

import os

import pytest

from warmcases import build as _build
from witness_gate.runner import PropertyRunner
from witness_gate.sandbox import Sandbox, bwrap_works
from witness_gate.warm_settings import cores_from_here

ALLOWED = sorted(os.sched_getaffinity(0))
SEEN = "-".join(map(str, ALLOWED))
# the cores the property's module saw as its dependency imported, and those it sees as it runs
PROPS = "import os\nimport seen\n\n\ndef prop_cores(p):\n    return f'cores-{seen.AT_IMPORT}/{seen.now()}'\n"
DEPENDENCY = ("import os\n\n\ndef now():\n    return '-'.join(map(str, sorted(os.sched_getaffinity(0))))\n\n\n"
              "AT_IMPORT = now()\n")


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


def _descendants(pid: int) -> list[int]:
    found = []
    for task in os.listdir(f"/proc/{pid}/task"):
        with open(f"/proc/{pid}/task/{task}/children") as children:
            for child in map(int, children.read().split()):
                found += [child, *_descendants(child)]
    return found


def _cores_of(pid: int) -> str:
    with open(f"/proc/{pid}/status") as status:
        return next(line.split()[1] for line in status if line.startswith("Cpus_allowed_list"))


def _warm_parent(parent) -> int:
    """The warm parent's interpreter inside the sandbox (bubblewrap's process is `parent.proc`)."""
    for pid in _descendants(parent.proc.pid):
        with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
            if b"--warm" in cmdline.read():
                return pid
    raise AssertionError("no warm parent found")


@pytest.mark.skipif(bool(bwrap_works()), reason="bubblewrap cannot run here")
@pytest.mark.parametrize("parallel", [1, 2])
def test_each_parent_of_a_series_that_replays_at_once_keeps_to_a_core_and_its_evaluations_see_a_cold_starts(
        tmp_path, parallel):
    repo, env = _build(tmp_path, {"p.py": PROPS}, {"seen.py": DEPENDENCY})
    cold = PropertyRunner(repo, "p.py::prop_cores", "17", Sandbox("bwrap"), warm=False, environment=env,
                          timeout_seconds=10)(None)
    assert cold.reason == f"cores-{SEEN}/{SEEN}", cold
    runner = PropertyRunner(repo, "p.py::prop_cores", "17", Sandbox("bwrap"), warm=True, environment=env,
                            parallel=parallel, timeout_seconds=10)
    try:
        assert runner(None).reason == cold.reason and not runner.note, runner.note
        if parallel > 1:
            runner._series.spare(1)
            for spare in runner._series._spares:
                spare.join()
        bound = [_cores_of(_warm_parent(parent)) for parent in runner._series._idle]
        if parallel == 1:  # nothing bound: the gate's own cores
            assert bound == [_cores_of(os.getpid())], bound
            return
        assert len(bound) == 2 and all(cores.isdigit() for cores in bound), bound
        assert len(set(bound)) == min(2, len(ALLOWED)), bound
        assert runner(None).reason == cold.reason  # every evaluation still sees a cold start's cores
    finally:
        runner.close()
