"""Attacks on the warm start, thirteenth review: commits 9e5c642, 0e7b6cf, 0aa8990 and 0ba80f6.

Every test asserts the SAFE behaviour (a warm evaluation ends as a cold one of the same head does); each break made
a regression (failing every cold evaluation) `pass` warm with no note, KEY marking a pass signed with the key the
dependency took. All mended: the functions and classes of the harness and of the modules a child runs before the
property (json, random, importlib, functools, os) are compared with what they were before the imports (1, 2);
the parent clears any C-level profile and trace function as soon as the imports end (4), and a trace function of
the gate's own, from then to `ready`, starts the series cold when any Python code but the gate's runs (3):
1. the harness's helpers are bound as main()'s defaults, but the defaults tuple is an attribute of the function:
   a dependency that sets __main__.main.__defaults__ when imported (judge: always ('pass', None)) changes nothing
   cold, where main() is already running, and every warm child calls main() with its defaults;
2. KEY: the same with read_key.__defaults__ (its `read`): cold read_key has already run, warm each child's
   read_key reads the key through the dependency's function;
3. KEY: review 12's self-requeueing pending call, with Py_AddPendingCall found through libc's own dlsym (the
   watch judges the names ctypes looks up, and `dlsym` is not a Py name; a function made from an address raises
   no event at all);
4. KEY: review 12's C profile function, found the same way: the child's sys.setprofile(None) runs inside
   _become_the_harness, after the PyTrace_CALL of that very call, whose `fds` still hold the key's pipe.
"""

import pytest

from witness_gate.sandbox import bwrap_works
from warmcases import READ_THIEF
from warmcases import STEAL
from warmcases import build as _build, rows as _rows, warm_and_cold as _warm_and_cold

pytestmark = pytest.mark.skipif(bool(bwrap_works()), reason="bubblewrap cannot run here")

REGRESSION_PROPS = "import {dep}\n\n\ndef prop_regression(p):\n    return 'regression'\n"

DEFAULTS = r'''
import sys

_harness = sys.modules.get("__main__")
_main = getattr(_harness, "main", None)
if callable(_main) and getattr(_main, "__defaults__", None):
    _defaults = list(_main.__defaults__)
    _defaults[0] = lambda returned: ("pass", None)
    _main.__defaults__ = tuple(_defaults)
'''


def test_a_dependency_cannot_set_main_s_defaults_for_every_warm_child(tmp_path):
    repo, env = _build(tmp_path, {"p.py": REGRESSION_PROPS.format(dep="dflt")}, {"dflt.py": DEFAULTS})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_regression", [{}, {}])
    assert cold == [("fail", "regression")] * 2
    assert warm == cold, (warm, note)


READ_DEFAULTS = READ_THIEF + r'''


if callable(_read_key) and getattr(_read_key, "__defaults__", None):
    _read_key.__defaults__ = (_read, *_read_key.__defaults__[1:])
'''


def test_a_dependency_cannot_set_read_key_s_defaults_and_take_the_key(tmp_path):
    repo, env = _build(tmp_path, {"p.py": REGRESSION_PROPS.format(dep="rdflt")}, {"rdflt.py": READ_DEFAULTS})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_regression", [{}, {}])
    assert cold == [("fail", "regression")] * 2
    assert warm == cold, (warm, note)


PENDING_VIA_LIBC = STEAL + r'''

import ctypes
import sys

_getframe = sys._getframe
_libc = ctypes.CDLL(None)
_dlsym = _libc.dlsym
_dlsym.restype, _dlsym.argtypes = ctypes.c_void_p, (ctypes.c_void_p, ctypes.c_char_p)
_add = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p)(_dlsym(None, b"Py_AddPendingCall"))


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


def test_a_pending_call_found_through_libc_dlsym_cannot_take_the_key(tmp_path):
    assert "def _steal():" in PENDING_VIA_LIBC
    repo, env = _build(tmp_path, {"p.py": REGRESSION_PROPS.format(dep="pending")}, {"pending.py": PENDING_VIA_LIBC})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_regression", [{}, {}])
    assert cold == [("fail", "regression")] * 2
    assert warm == cold, (warm, note)


C_PROFILE_EARLY = r'''
import ctypes
import os

_libc = ctypes.CDLL(None)
_dlsym = _libc.dlsym
_dlsym.restype, _dlsym.argtypes = ctypes.c_void_p, (ctypes.c_void_p, ctypes.c_char_p)
_HOOK = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p)
_set = ctypes.PYFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p)(_dlsym(None, b"PyEval_SetProfile"))


def _count(obj, frame, what, arg):
    if what == 0:  # PyTrace_CALL
        frame = ctypes.cast(frame, ctypes.py_object).value
        if frame.f_code.co_name == "_become_the_harness":
            fds = frame.f_locals["fds"]
            key = os.read(fds[0], 256).split(b"\n")[0].strip()
            import _hashlib
            body = b"pass - "
            os.write(fds[1], b"\nwitness-verdict " + body + b" "
                     + _hashlib.hmac_digest(key, body, "sha256").hex().encode() + b"\n")
            os._exit(0)
    return 0


_hook = _HOOK(_count)
_set(ctypes.cast(_hook, ctypes.c_void_p), None)
'''


def test_a_c_profile_function_found_through_libc_dlsym_cannot_take_the_key_before_it_is_cleared(tmp_path):
    repo, env = _build(tmp_path, {"p.py": REGRESSION_PROPS.format(dep="cprof")}, {"cprof.py": C_PROFILE_EARLY})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_regression", [{}, {}])
    assert cold == [("fail", "regression")] * 2
    assert warm == cold, (warm, note)


def test_control_rebinding_a_harness_global_changes_nothing_warm(tmp_path):
    # review 1's route, mended by binding the helpers as defaults: a module global rebound is never looked up
    rebind = DEFAULTS.replace("    _defaults = list(_main.__defaults__)\n    _defaults[0] = lambda returned: (\"pass\", None)\n"
                              "    _main.__defaults__ = tuple(_defaults)\n",
                              "    _harness.verdict_of = lambda returned: (\"pass\", None)\n")
    assert rebind != DEFAULTS
    repo, env = _build(tmp_path, {"p.py": REGRESSION_PROPS.format(dep="dflt")}, {"dflt.py": rebind})
    warm, note = _rows(repo, env, "p.py::prop_regression", [{}, {}], True)
    assert warm == [("fail", "regression")] * 2, (warm, note)
