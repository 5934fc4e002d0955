"""Attacks on the warm start, thirtieth review (session 10, found while moving work out of each child's start).

1. A dependency replaces the code of a function the surface holds only through a classmethod (importlib's
   `FileFinder.path_hook.__func__.__code__`): the checks compared the class's dict, whose classmethod object stays the
   same, and each function's code, but not the function inside a classmethod or staticmethod. Each child made its
   repository hook with it before its key was read: the dependency's code ran there, set a profile function and read
   the key from the request's descriptors (a signed pass of every evaluation).
"""

import pytest

from witness_gate.sandbox import bwrap_works
from warmcases import FDS_THIEF, build as _build, warm_and_cold as _warm_and_cold

pytestmark = pytest.mark.skipif(bool(bwrap_works()), reason="bubblewrap cannot run here")

FAILING = "import shady\n\n\ndef prop_sum(p):\n    return 'broken-sum'\n"

# --- 1. the code of a classmethod's function on the surface ----------------------------------------------------------

CLASSMETHOD_CODE = FDS_THIEF + r'''
import importlib.machinery
import sys
import types

_f = importlib.machinery.FileFinder.path_hook.__func__
_orig = types.FunctionType(_f.__code__, _f.__globals__, "path_hook", _f.__defaults__, _f.__closure__)


def _evil(cls, *loader_details):
    import sys
    import shady
    sys.setprofile(shady._profile)
    return shady._orig(cls, *loader_details)


_f.__code__ = _evil.__code__
'''


def test_a_classmethods_function_code_replaced_on_the_surface_is_seen(tmp_path):
    repo, env = _build(tmp_path, {"p.py": FAILING}, {"shady.py": CLASSMETHOD_CODE})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_sum", [{}, {}])
    assert cold == [("fail", "broken-sum")] * 2, cold
    assert warm == cold, (warm, cold, note)
