"""Attacks on the warm start, sixteenth review.

Every test asserts the SAFE behaviour (a warm evaluation ends as a cold one of the same head does).
1. The warm parent compiles the checkout's files before any dependency runs, and a child uses that code
   whenever `_stock` finds the compile path unchanged (source_to_code, `compile`, the frame-removing call).
   But compiling a file with a non-ASCII identifier calls `unicodedata.normalize("NFKC", name)`, looked up
   in the `unicodedata` module at compile time (CPython's pegen `init_normalization`). A dependency that
   wraps `unicodedata.normalize` when imported (a text library keeping compatibility characters) changes how
   a cold start compiles a repository module the property imports after it; a warm child runs the code the
   parent compiled with the stock function before any dependency ran.
Mended: the parent compiles only files in ASCII for its children (harness_imports.precompile).
"""

import pytest

from witness_gate.sandbox import bwrap_works
from warmcases import KEEP_COMPAT
from warmcases import build as _build, warm_and_cold as _warm_and_cold

pytestmark = pytest.mark.skipif(bool(bwrap_works()), reason="bubblewrap cannot run here")


FULLWIDTH_PROPS = "import typeset\nimport checks\n\n\ndef prop_regression(p):\n    return checks.check(p)\n"
FULLWIDTH_IMPL = "def check(p):\n    ok = 'regression'\n    \uff4f\uff4b = True\n    return ok\n"


def test_a_dependency_cannot_change_how_identifiers_are_normalized(tmp_path):
    repo, env = _build(tmp_path, {"p.py": FULLWIDTH_PROPS, "checks.py": FULLWIDTH_IMPL}, {"typeset.py": KEEP_COMPAT})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_regression", [{}, {}])
    assert cold == [("fail", "regression")] * 2
    assert warm == cold, (warm, note)
