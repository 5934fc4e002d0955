"""Attacks on the warm start, thirty-second review (session 10, from session 9's open findings).

1. The C functions the warm parent binds before the imports (`_RAW_FORK`, `_PRCTL`, the sweep's `_SYSCALL` and
   `_PRCTL`, `_C_PROFILE`, `_C_TRACE`) are ctypes function objects whose `restype`, `argtypes` and `errcheck` can be
   set in place: the dicts holding them compare equal and the objects are the same. A dependency that found the
   parent's globals (the frames of its own import) set an `errcheck` on the raw fork: a Python function that runs in
   every child as the fork returns, before its key is read, and there rebinds `_become_the_harness` to a thief of the
   key. Mended: the parent notes each of its ctypes functions' restype, argtypes and errcheck before the imports and
   starts cold when one moved.
"""

import pytest

from witness_gate.sandbox import bwrap_works
from warmcases import FDS_THIEF, build as _build, warm_and_cold as _warm_and_cold

pytestmark = pytest.mark.skipif(bool(bwrap_works()), reason="bubblewrap cannot run here")

FAILING = "import shady\n\n\ndef prop_sum(p):\n    return 'broken-sum'\n"

ERRCHECK = FDS_THIEF + r'''
import sys


def _thief(fds, cpu, control, mask):
    _profile(type("F", (), {"f_code": type("C", (), {"co_name": "_become_the_harness"}), "f_locals": {"fds": fds}})(),
             "call", None)


def _errcheck(result, func, args):
    if result == 0:  # the child, before anything of the harness
        _globals["_become_the_harness"] = _thief
    return result


frame, _globals = sys._getframe(), None
while frame is not None:
    if "_RAW_FORK" in frame.f_globals:
        _globals = frame.f_globals
        break
    frame = frame.f_back
del frame  # (a frame kept would hold the importer: the series would start cold for that)
if _globals is not None:
    _globals["_RAW_FORK"].errcheck = _errcheck
'''


def test_an_errcheck_set_on_the_parents_raw_fork_is_seen(tmp_path):
    repo, env = _build(tmp_path, {"p.py": FAILING}, {"shady.py": ERRCHECK})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_sum", [{}, {}])
    assert cold == [("fail", "broken-sum")] * 2, cold
    assert warm == cold, (warm, cold, note)


# --- 2. the gate's code in a function with a dependency's globals ----------------------------------------------------

def test_stray_sees_the_gates_code_run_with_globals_that_are_not_the_gates():
    """STRAY lets only the gate's own Python run between the imports and `ready`, told by its code's identity; a
    dependency can make a function of that very code with globals of its own (types.FunctionType), whose every
    global name it then decides. Mended: the frame's globals must be one of the gate's modules' dicts too."""
    import sys
    import types

    from witness_gate import warm_checks

    space = {"__builtins__": __builtins__, "seen": []}
    exec("def gate_code():\n    seen.append(1)\n", space)
    warm_checks.trust(space)
    forged = types.FunctionType(space["gate_code"].__code__, {"__builtins__": __builtins__, "seen": []})
    for call, expect_seen in ((space["gate_code"], False), (forged, True)):
        stray = warm_checks.Stray()
        sys.settrace(stray)
        try:
            call()
        finally:
            sys.settrace(None)
        assert bool(stray.ran) is expect_seen, (call, stray.ran)
