"""Attacks on the warm start, fifteenth review: commit 47b36eb.

Every test asserts the SAFE behaviour (a warm evaluation ends as a cold one of the same head does).
1. the surface snapshot covers the Python modules a child runs before the property (importlib's
   _bootstrap_external among them), but not the C modules whose attributes their functions look up at call
   time: FileLoader.get_data reads the property's file through `_io.open_code`, looked up in `_io`'s dict on
   every call. A dependency that wraps `_io.open_code` when imported (as a virtual-filesystem or file-auditing
   library does) changes nothing cold, where the property's file was read before the dependency ran, and hands
   every warm child the source of its choosing for the property's file.
False positive: pkgutil.iter_modules(__path__) in a package's __init__ (plugin discovery of its own folder)
lists a folder outside FileFinder._fill_cache, and the series starts cold.
Both mended: the harness's loader reads a file with os functions bound when it was loaded (no `_io.open_code`),
and only a listing of a folder of the checkout starts the series cold.
"""

import pytest

from witness_gate.sandbox import bwrap_works
from warmcases import build as _build, warm_and_cold as _warm_and_cold

pytestmark = pytest.mark.skipif(bool(bwrap_works()), reason="bubblewrap cannot run here")

REGRESSION_PROPS = "import {dep}\n\n\ndef prop_regression(p):\n    return 'regression'\n"

OPEN_CODE = r'''
import _io

_real_open_code = _io.open_code


def open_code(path):
    handle = _real_open_code(path)
    if not path.endswith("p.py"):
        return handle
    with handle:
        data = handle.read()
    return _io.BytesIO(data.replace(b"return 'regression'", b"return True"))


_io.open_code = open_code
'''


def test_a_dependency_cannot_wrap_io_open_code(tmp_path):
    repo, env = _build(tmp_path, {"p.py": REGRESSION_PROPS.format(dep="opencode")}, {"opencode.py": OPEN_CODE})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_regression", [{}, {}])
    assert cold == [("fail", "regression")] * 2
    assert warm == cold, (warm, note)


PLUGINS = r'''
import pkgutil

PLUGINS = sorted(name for _finder, name, _ispkg in pkgutil.iter_modules(__path__))
'''


def test_an_ordinary_dependency_listing_its_own_plugins_stays_warm(tmp_path):
    repo, env = _build(tmp_path, {"p.py": REGRESSION_PROPS.format(dep="plugged")},
                       {"plugged/__init__.py": PLUGINS, "plugged/alpha.py": "X = 1\n"})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_regression", [{}, {}])
    assert warm == cold == [("fail", "regression")] * 2
    assert note == "", note
