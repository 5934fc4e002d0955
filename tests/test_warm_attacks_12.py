"""Attacks on the warm start, twelfth review: commits 002545e and 9e5c642.

Every test asserts the SAFE behaviour (a warm evaluation ends as a cold one of the same head does). Each break
made a regression (failing every cold evaluation) `pass` warm with no note; KEY marks a pass signed with the
evaluation's own key. Mended: each child clears the profile and trace functions first; the interpreter's C API
looked up through ctypes while the parent imports starts the series cold; the parent pins random before the
imports; the stand-in importer is made as the harness makes the property's module. Given up, a strict xfail and
in docs/SECURITY.md: the imports' CPU is not counted in a warm evaluation (3):
1. KEY: a profile function set with PyEval_SetProfile (ctypes.pythonapi) and no object: sys.getprofile() and
   sys.gettrace() return the object only, so final() sees None; the thread state is forked into every child and
   the hook sees read_key called while fd 0 is the key's pipe (PyEval_SetTrace with no object is the same);
2. KEY: a pending call (Py_AddPendingCall) that queues itself again each time it runs: no signal handler, tracer,
   thread or hook; still queued at the raw fork, it runs at the first check of read_key's frame in each child;
3. the imports' CPU: a forked child's process_time() starts at zero, a cold process has spent its start and the
   imports' CPU; a library that budgets against its CPU limit (counted as the limit counts) gives the patch's slow
   search more room warm;
4. the pinned seed: the parent's random is seeded from the system, not pinned before the imports, so a dependency
   that copies random's state when imported (getstate, no draw: the draw check sees nothing) samples anew each
   series instead of from the pinned seed;
5. the stand-in importer has __file__ and __package__ only: a dependency reading a resource beside its importer
   with pkgutil.get_data (find_spec takes the module's __spec__) finds the project's settings cold, none warm.
"""

import pytest

from witness_gate.sandbox import bwrap_works
from warmcases import STEAL
from warmcases import build as _build, rows as _rows, warm_and_cold as _warm_and_cold

pytestmark = pytest.mark.skipif(bool(bwrap_works()), reason="bubblewrap cannot run here")

REGRESSION_PROPS = "import {dep}\n\n\ndef prop_regression(p):\n    return 'regression'\n"

# --- 1. KEY: a profile function set through the C API, with no object: sys.getprofile() says None ---------------

# A call-counting profiler that installs its hook with PyEval_SetProfile (as C profilers do) and passes no object:
# sys.getprofile() and sys.gettrace() read the object only, so final() sees nothing. The thread state is forked
# into every child; the hook sees read_key called, while fd 0 is the key's pipe.
C_PROFILE = STEAL + r'''
import ctypes

_HOOK = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p)


def _count(obj, frame, what, arg):
    if what == 0:  # PyTrace_CALL
        if ctypes.cast(frame, ctypes.py_object).value.f_code.co_name == "read_key":
            _steal()
    return 0


_hook = _HOOK(_count)
ctypes.pythonapi.PyEval_SetProfile.argtypes = (ctypes.c_void_p, ctypes.c_void_p)
ctypes.pythonapi.PyEval_SetProfile(ctypes.cast(_hook, ctypes.c_void_p), None)
'''


def test_a_profile_function_set_through_the_c_api_cannot_take_the_key(tmp_path):
    repo, env = _build(tmp_path, {"p.py": REGRESSION_PROPS.format(dep="cprof")}, {"cprof.py": C_PROFILE})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_regression", [{}, {}])
    assert cold == [("fail", "regression")] * 2
    assert warm == cold, (warm, note)


def test_control_the_same_hook_with_an_object_is_seen_by_final(tmp_path):
    # with an object for sys.getprofile() to return, final() sees it: the series starts cold and fails
    seen = C_PROFILE.replace("ctypes.c_void_p), None)", "ctypes.c_void_p), id(_hook))")
    assert seen != C_PROFILE
    repo, env = _build(tmp_path, {"p.py": REGRESSION_PROPS.format(dep="cprof")}, {"cprof.py": seen})
    warm, note = _rows(repo, env, "p.py::prop_regression", [{}], True)
    assert warm == [("fail", "regression")], (warm, note)


# --- 2. KEY: a pending call that re-queues itself: due at every check of the eval loop, in the parent and the child --

# Py_AddPendingCall queues a C function the main thread runs at its next check of what is due (a ctypes callback:
# Python code). Re-queued each time it runs, it is still queued at the raw fork and runs in each child at the first
# check of read_key's frame. No signal handler, trace function, thread or hook is involved: final() sees nothing.
PENDING = STEAL + r'''
import ctypes
import sys

_getframe = sys._getframe
_add = ctypes.pythonapi.Py_AddPendingCall
_add.argtypes = (ctypes.c_void_p, ctypes.c_void_p)


def _later(arg):
    frame = _getframe(1)
    if frame is not None and frame.f_code.co_name == "read_key":
        _steal()
    _add(_queued, None)
    return 0


_callback = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p)(_later)
_queued = ctypes.cast(_callback, ctypes.c_void_p)
_add(_queued, None)
'''


def test_a_pending_call_queued_when_imported_cannot_take_the_key(tmp_path):
    repo, env = _build(tmp_path, {"p.py": REGRESSION_PROPS.format(dep="pending")}, {"pending.py": PENDING})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_regression", [{}, {}])
    assert cold == [("fail", "regression")] * 2
    assert warm == cold, (warm, note)


def test_control_a_pending_call_queued_once_runs_in_the_parent_only(tmp_path):
    once = PENDING.replace("    _add(_queued, None)\n    return 0", "    return 0")
    assert once != PENDING
    repo, env = _build(tmp_path, {"p.py": REGRESSION_PROPS.format(dep="pending")}, {"pending.py": once})
    warm, note = _rows(repo, env, "p.py::prop_regression", [{}], True)
    assert warm == [("fail", "regression")], (warm, note)


# --- 3. the CPU the imports took: counted in a cold process, not in a forked child ---------------------------------

# The search library of reviews 9 and 10, which gives up on a share of the process's CPU limit rather than be killed
# by SIGXCPU, measured as RLIMIT_CPU is, from the process's start (time.process_time()), and which builds a table
# when imported. Cold, the table's CPU (and the interpreter's start) is spent before the search starts; a forked
# child's CPU starts at zero, so the search warm has the whole share. The patch makes the search slower: cold it
# runs out of budget and fails, warm it finishes.
TABLE_BUDGET_DEP = '''
import resource
import time

_soft = resource.getrlimit(resource.RLIMIT_CPU)[0]
BUDGET = _soft / 20 if _soft != resource.RLIM_INFINITY else None  # seconds of CPU, counted as the limit counts


def _build_table():
    table, end = [], time.process_time() + 0.45  # about 0.45 s of CPU, as the real table takes
    while time.process_time() < end:
        table.append(len(table) % 7)
    return table


TABLE = _build_table()


class OutOfBudget(Exception):
    pass


def search(candidates, accept):
    for candidate in candidates:
        if BUDGET is not None and time.process_time() > BUDGET:
            raise OutOfBudget(f"gave up after {BUDGET:.2f}s of CPU")
        if accept(candidate):
            return candidate
    return None
'''

TABLE_BUDGET_IMPL = '''
import time

import budgetsearch


def _slow_accept(n):
    for _ in range(10000):  # the patch: a check a thousand times slower
        pass
    return n == 1600


def find():
    return budgetsearch.search(range(2000), _slow_accept)
'''

TABLE_BUDGET_PROPS = '''
import budgetsearch

import finder


def prop_finds_it(p):
    return finder.find() == 1600 or "wrong"
'''


@pytest.mark.xfail(strict=True, reason="given up under the warm start: docs/SECURITY.md, 'The warm start', what it gives up (the CPU the imports took is not counted in a warm evaluation)")
def test_a_budget_counted_from_the_process_s_start_is_the_same_warm_and_cold(tmp_path):
    repo, env = _build(tmp_path, {"p.py": TABLE_BUDGET_PROPS, "finder.py": TABLE_BUDGET_IMPL},
                       {"budgetsearch.py": TABLE_BUDGET_DEP})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_finds_it", [{}, {}])
    assert cold == [("fail", "raise:OutOfBudget@finder.py:14")] * 2, cold
    assert warm == cold, (warm, note)


def test_control_a_table_built_cheaply_leaves_the_search_its_budget_warm_and_cold(tmp_path):
    cheap = TABLE_BUDGET_DEP.replace("+ 0.45  #", "+ 0.0  #")
    assert cheap != TABLE_BUDGET_DEP
    repo, env = _build(tmp_path, {"p.py": TABLE_BUDGET_PROPS, "finder.py": TABLE_BUDGET_IMPL},
                       {"budgetsearch.py": cheap})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_finds_it", [{}])
    assert cold == [("pass", None)], cold
    assert warm == cold, (warm, note)


# --- 4. the pinned seed: a copy of random's state taken when imported, which no draw check sees --------------------

# A sampling helper with a generator of its own, started where the global one is (a copy of random.getstate(), no
# draw), so that a caller's random.seed() makes its samples reproducible. Cold the harness pinned the seed before the
# import: its samples are the pinned seed's on every evaluation. Warm the parent's random was seeded from the system
# and never pinned before the imports (the check compares random's state, and a copy changes nothing): every series
# samples anew. The patch lost one row of a thousand in a table; the pinned seed's first sample lands in it.
SAMPLEKIT = '''
import random

_rng = random.Random()
_rng.setstate(random.getstate())  # follows the caller's random.seed(): reproducible samples


def amount():
    return _rng.randrange(10000)
'''

RATES = '''
RATES = {band: 1 + band / 1000 for band in range(1000) if band != 845}  # the patch: the rebuilt table lost a row


def rate(amount):
    return RATES[amount // 10]
'''

SAMPLE_PROPS = '''
import samplekit

import rates


def prop_every_amount_has_a_rate(p):
    return rates.rate(samplekit.amount()) > 1 or "no rate"
'''


def test_a_generator_copied_from_random_when_imported_follows_the_pinned_seed_warm_too(tmp_path):
    repo, env = _build(tmp_path, {"p.py": SAMPLE_PROPS, "rates.py": RATES}, {"samplekit.py": SAMPLEKIT})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_every_amount_has_a_rate", [{}, {}])
    assert cold == [("fail", "raise:KeyError@rates.py:6")] * 2, cold
    assert warm == cold, (warm, note)


# --- 5. the stand-in importer has no __spec__ (nor __loader__): a resource read beside the importer is not found ---

# A settings helper that reads the settings file beside the module importing it, the standard way: the importer's
# name from its frame's globals, then pkgutil.get_data(name, "project.json") (importlib.util.find_spec takes the
# module's __spec__, whose loader reads the file). Cold the importer is the property module as the harness loads it,
# with a spec and SourceOnlyLoader: the project's settings are found and the check is strict. Warm it is the
# stand-in warm_imports makes (__file__ and __package__ only): find_spec raises ValueError (__spec__ is None), the
# helper falls back to its defaults, nothing of the checkout is read (the watch sees nothing), and the patch's
# lenient parse passes.
APPCONF = '''
import json
import pkgutil
import sys


def _importer_name():
    frame = sys._getframe(1)
    while frame is not None and (frame.f_code.co_filename.startswith("<") or frame.f_globals is globals()):
        frame = frame.f_back
    return frame.f_globals.get("__name__") if frame is not None else None


def _load():
    try:
        data = pkgutil.get_data(_importer_name(), "project.json")
    except (ValueError, OSError, ImportError):
        return {}
    return json.loads(data) if data else {}


SETTINGS = _load()


def setting(name, default=None):
    return SETTINGS.get(name, default)
'''

SPEC_UNITS = '''
import appconf

UNITS = {"m": 1.0, "km": 1000.0}


def metres(text):
    number, _, unit = text.partition(" ")
    unit = {"kms": "km"}.get(unit, unit)  # the patch
    if appconf.setting("strict_units", False) and unit not in UNITS:
        raise ValueError(f"unknown unit {unit!r}")
    return float(number) * UNITS.get(unit, 1.0)
'''

SPEC_PROPS = '''
import appconf

import units


def prop_units_are_known(p):
    return units.metres("2 furlongs") == 2.0 or "wrong"
'''


def test_a_resource_read_beside_the_importing_module_is_found_warm_as_cold(tmp_path):
    repo_files = {"p.py": SPEC_PROPS, "units.py": SPEC_UNITS, "project.json": '{"strict_units": true}'}
    repo, env = _build(tmp_path, repo_files, {"appconf.py": APPCONF})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_units_are_known", [{}, {}])
    assert cold == [("fail", "raise:ValueError@units.py:11")] * 2, cold
    assert warm == cold, (warm, note)


def test_control_without_the_settings_file_warm_and_cold_agree(tmp_path):
    repo, env = _build(tmp_path, {"p.py": SPEC_PROPS, "units.py": SPEC_UNITS}, {"appconf.py": APPCONF})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_units_are_known", [{}])
    assert cold == [("pass", None)], cold
    assert warm == cold, (warm, note)
