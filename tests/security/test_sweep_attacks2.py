"""A second reviewer's attacks on the sweep that forks each row from pytest's start (judge/sweep.py): each gates a patch
twice, with the sweep and one session a row (`sweeping.sweep` and `sweeping.series` made to make nothing), and asserts
the label one session a row gives."""

from __future__ import annotations

import pytest

from endtoend import gate

pytestmark = pytest.mark.e2e

CONFIG = ('version: 1\npaths:\n  impl: ["src/"]\n  oracle: ["tests/"]\nproperties:\n  pytest: ["tests/"]\n'
          "freeze:\n  expires_in_hours: 24\n")


def labels_of(outcome) -> dict[str, str]:
    return {r.target.node: r.verdict.label for r in outcome.results}


def run(git_repo, tmp_path, monkeypatch, swept: bool, base: dict, head: dict, committed: bool = False,
        **options) -> dict[str, str]:
    from witness_gate import sweeping

    monkeypatch.setenv("WITNESS_WARM", "on")
    made: list = []
    real_sweep, real_series = sweeping.sweep, sweeping.series

    def sweep(runner, selectors, runs, progress=None):
        rows = real_sweep(runner, selectors, runs, progress) if swept else {}
        made.extend(row for found in rows.values() for row in found)
        return rows

    def series(runner, payload, runs, progress=None):
        return real_series(runner, payload, runs, progress) if swept else None

    monkeypatch.setattr(sweeping, "sweep", sweep)
    monkeypatch.setattr(sweeping, "series", series)
    if not committed:  # else the test committed its own base
        git_repo.commit({".witness.yml": CONFIG, **base}, "base")
    git_repo.git("checkout", "-q", "-b", "patch")
    git_repo.commit(head, "the patch")
    outcome = gate(git_repo, tmp_path / "out", **options)
    assert bool(made) == swept  # the sweep made rows (or, in the control, none)
    return labels_of(outcome)


# -- A. the judge's `random` is seeded with the pinned seed (seed_random) in the sweep's parent, before pytest's start;
#       every row is a fork of it, and CPython's random module reseeds itself from os.urandom in every forked child
#       (os.register_at_fork(after_in_child=random._inst.seed)). One session a row seeds it in the row's own process,
#       so a test's random draws are the pinned seed's in every row; in a sweep they are fresh entropy in every row.
#       A regression the pinned seed's draws show (every row, reproducibly, one session a row) is seen by no row of a
#       sweep. To make the test exact, the head is wrong on exactly the pinned seed's first draw (the subject has
#       WITNESS_SEED); a real bug on a share q of the draws becomes, in a sweep, a pass with probability (1-q)^5 and
#       otherwise rows that disagree (a freezable flake) instead of a regression. -------------------------------------
CALC_PLAIN = '''
def ident(x):
    return x


def double(x):
    return 2 * x
'''
CALC_SEEDED_BUG = CALC_PLAIN + '''

import os as _os
import random as _random

_PINNED_DRAW = _random.Random(_os.environ.get("WITNESS_SEED", "")).randint(1, 10**12)


def double(x):  # noqa: F811 - wrong on the input the pinned seed draws first
    return 2 * x + (x == _PINNED_DRAW)
'''
TESTS_RANDOM = '''
import random

from calc import double, ident


def test_ident():
    assert ident(1) == 1


def test_double_random_input():
    x = random.randint(1, 10**12)
    assert double(x) == 2 * x
'''


@pytest.mark.parametrize("swept", [False, True])
def test_the_pinned_seed_s_random_draws_in_every_row(git_repo, tmp_path, monkeypatch, swept):
    labels = run(git_repo, tmp_path, monkeypatch, swept,
                 {"src/calc.py": CALC_PLAIN, "tests/test_random.py": TESTS_RANDOM},
                 {"src/calc.py": CALC_SEEDED_BUG})
    assert labels["test_double_random_input"] == "regression", labels


# -- B. a process the oracle's conftest.py starts as pytest starts (a reference implementation to test against, a
#       server the tests talk to) is a child of the sweep's parent, which kills every child it has after each row
#       (end_orphans(()) in Rows.pytest_collection): the first row has it, every later row finds it gone. One session a
#       row has it in every row: an honest patch gets rows that fail (here: no pass at all) --------------------------
CONFTEST_REFERENCE = '''
import subprocess
import sys

import pytest

# the reference implementation, one process for the session: the tests compare calc with it
REFERENCE = subprocess.Popen(
    [sys.executable, "-c", "import sys\\nfor line in sys.stdin:\\n    print(2 * int(line), flush=True)"],
    stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)


@pytest.fixture
def reference():
    def double(x):
        REFERENCE.stdin.write(f"{x}\\n")
        REFERENCE.stdin.flush()
        return int(REFERENCE.stdout.readline())
    return double
'''
TESTS_REFERENCE = '''
from calc import double, ident


def test_ident():
    assert ident(1) == 1


def test_double_as_the_reference(reference):
    assert double(21) == reference(21)
'''


@pytest.mark.parametrize("swept", [False, True])
def test_a_process_the_conftest_started_is_gone_after_the_first_row(git_repo, tmp_path, monkeypatch, swept):
    labels = run(git_repo, tmp_path, monkeypatch, swept,
                 {"src/calc.py": CALC_PLAIN, "tests/conftest.py": CONFTEST_REFERENCE,
                  "tests/test_reference.py": TESTS_REFERENCE},
                 {"src/calc.py": CALC_PLAIN + "\n# a comment\n"})
    assert labels["test_double_as_the_reference"] == "pass", labels


# -- C. every row runs in a child forked from the process that imported the conftest.py: os.getpid() in a row is not
#       the pid the conftest.py saw as it was imported, as it is in every pytest session. The usual guard of a
#       session-end check against running in a forked worker (multiprocessing's fork) then skips the check in every
#       row of a sweep: the leak check of attack 4, guarded so, never runs -----------------------------------------
CALC_LEAK = '''
OPEN = []


def ident(x):
    return x


def open_thing():
    OPEN.append(1)
    return len(OPEN)


def close_thing():
    OPEN.pop()


def leaked():
    return len(OPEN)
'''
CONFTEST_LEAK_PID = '''
import os

SESSION_PID = os.getpid()


def pytest_sessionfinish(session, exitstatus):
    if os.getpid() != SESSION_PID:  # a worker forked by a test (multiprocessing) is not the session
        return
    import calc

    if calc.leaked():  # a resource the code under test never gave back fails the run
        session.exitstatus = 1
'''
TESTS_LEAK = '''
import calc


def test_ident():
    assert calc.ident(1) == 1


def test_open_close():
    calc.open_thing()
    calc.close_thing()
'''


@pytest.mark.parametrize("swept", [False, True])
def test_the_session_s_pid_is_not_the_row_s(git_repo, tmp_path, monkeypatch, swept):
    labels = run(git_repo, tmp_path, monkeypatch, swept,
                 {"src/calc.py": CALC_LEAK, "tests/conftest.py": CONFTEST_LEAK_PID, "tests/test_leak.py": TESTS_LEAK},
                 {"src/calc.py": CALC_LEAK.replace("    OPEN.pop()", "    pass")})
    assert labels["test_open_close"] != "pass", labels


# -- D. a thread the conftest.py starts as it is imported (a watchdog that interrupts a test past its time budget, so
#       a hang fails the test instead of the run) runs in the sweep's parent only: fork copies no thread, so in every
#       row of a sweep there is none, and a test that overruns its budget runs to its end and passes. One session a
#       row has the watchdog in every row: the slow head fails every one -----------------------------------------------
CONFTEST_WATCHDOG = '''
import signal
import threading
import time

import pytest

BUDGET = {"until": None}
MAIN = threading.main_thread().ident


def _overran(signum, frame):
    raise TimeoutError("the test overran its time budget")


signal.signal(signal.SIGUSR1, _overran)


def _watch():
    while True:
        time.sleep(0.05)
        until = BUDGET["until"]
        if until is not None and time.monotonic() > until:
            BUDGET["until"] = None
            signal.pthread_kill(MAIN, signal.SIGUSR1)  # the test is interrupted where it is


threading.Thread(target=_watch, daemon=True).start()


@pytest.fixture(autouse=True)
def time_budget():
    BUDGET["until"] = time.monotonic() + 1.0
    yield
    BUDGET["until"] = None
'''
CALC_SLOW = CALC_PLAIN.replace("def double(x):\n", "def double(x):\n    import time\n    time.sleep(3)\n")
TESTS_BUDGET = '''
from calc import double, ident


def test_ident():
    assert ident(1) == 1


def test_double_in_budget():
    assert double(2) == 4
'''


@pytest.mark.parametrize("swept", [False, True])
def test_a_watchdog_thread_the_conftest_started_is_in_no_row(git_repo, tmp_path, monkeypatch, swept):
    labels = run(git_repo, tmp_path, monkeypatch, swept,
                 {"src/calc.py": CALC_PLAIN, "tests/conftest.py": CONFTEST_WATCHDOG, "tests/test_budget.py": TESTS_BUDGET},
                 {"src/calc.py": CALC_SLOW})
    assert labels["test_double_in_budget"] == "regression", labels


# -- E. a later row's subject is asked pytest's start in a burst (replay() sends each request as the last answer
#       arrives), where a live start asks it with pytest's own work between (here: the conftest.py reads an attribute
#       as it is imported and calls it in pytest_configure, after pytest has read its configuration). The subject
#       tells the two apart by the time between them: wrong in every live start (one session a row, and the first
#       row of every sweep or series), right after a replayed one. Every first run and replay one session a row fails:
#       a regression; a sweep's first run fails at its first row, and each series of replays fails its first row only,
#       so the replays disagree: a flake, which a freeze can silence ---------------------------------------------------
CALC_CONFIGURED = '''
SETTING = {"scale": 1}


def ident(x):
    return x


def _configure(scale):
    SETTING["scale"] = scale


def __getattr__(name):  # the module's attribute `configure`
    if name == "configure":
        return _configure
    raise AttributeError(name)


def scaled(x):
    return SETTING["scale"] * x
'''
CALC_CONFIGURED_HEAD = '''
import time

SETTING = {"scale": 1, "live": True}
_ASKED = {}


def ident(x):
    return x


def _configure(scale):
    SETTING["scale"] = scale
    # how long after the conftest.py read `configure` it called it: pytest's work between, in a live start
    SETTING["live"] = time.monotonic() - _ASKED.get("t", 0.0) > LIVE_GAP


LIVE_GAP = 0.0005


def __getattr__(name):
    if name == "configure":
        _ASKED["t"] = time.monotonic()
        return _configure
    raise AttributeError(name)


def scaled(x):
    return SETTING["scale"] * x + SETTING["live"]  # wrong only where pytest's start was asked live
'''
CONFTEST_CONFIGURES = '''
from calc import configure


def pytest_configure(config):
    configure(3)
'''
TESTS_CONFIGURED = '''
from calc import ident, scaled


def test_ident():
    assert ident(1) == 1


def test_scaled():
    assert scaled(2) == 6
'''


@pytest.mark.parametrize("swept", [False, True])
def test_a_replayed_start_is_told_from_a_live_one_by_its_timing(git_repo, tmp_path, monkeypatch, swept):
    labels = run(git_repo, tmp_path, monkeypatch, swept,
                 {"src/calc.py": CALC_CONFIGURED, "tests/conftest.py": CONFTEST_CONFIGURES,
                  "tests/test_scale.py": TESTS_CONFIGURED},
                 {"src/calc.py": CALC_CONFIGURED_HEAD})
    assert labels["test_scaled"] == "regression", labels


# -- F. a row with no verdict (its subject hung it past its deadline) is kept as it came: one dropped and made again one
#       session a row gave the code under test a second try, and a head that hangs its first subject was `pass` where
#       one session a row holds it (found by the second reviewer; the subjects' layouts made a sequence so the first
#       row's subject is known) ------------------------------------------------------------------------------------------
CALC_HANGS_FIRST = '''
import os
import time


def double(x):
    if os.environ.get("PYTHONHASHSEED") == "1000":  # the first subject the gate starts
        time.sleep(30)
    return 2 * x
'''


@pytest.mark.parametrize("swept", [False, True])
def test_a_row_its_subject_hung_is_kept_not_made_again(git_repo, tmp_path, monkeypatch, swept):
    import itertools

    from witness_gate import runner

    layouts = itertools.count(1000)
    monkeypatch.setattr(runner, "draw_layout", lambda: next(layouts))
    quick = CONFIG + "policy:\n  timeout_seconds: 8\n"  # long enough for the warm judge to start on a busy machine
    git_repo.commit({".witness.yml": quick, "src/calc.py": CALC_PLAIN,
                     "tests/test_hang.py": "from calc import double\n\ndef test_double():\n    assert double(2) == 4\n"},
                    "base")
    labels = run(git_repo, tmp_path, monkeypatch, swept, {}, {"src/calc.py": CALC_HANGS_FIRST}, committed=True)
    assert labels["test_double"] == "hold", labels
