"""Attacks on the warm start, twenty-fifth review (after each import is warmed with its `as`, a warmed import that
raised starts the series cold, a namespace portion of the checkout asked for outside the import system's search of
the path (told by the caller's code object not being PathFinder._get_spec) starts it cold, and provided() takes
`x.py` only when it is a file).

1. (break) Asked tells "the import system's search" from "asked otherwise" by its caller's code object alone:
   PathFinder._get_spec. But importlib.machinery.PathFinder.find_spec(name, [entry]) is public API and goes through
   that very _get_spec: a package that extends its own __path__ by asking PathFinder for its name in each entry of
   sys.path (the same as pkgutil.extend_path, by hand) gets the checkout's portion cold, nothing warm, and the name
   recorded is the real one ("corp", a regular package with a file), which namespace_portions lets be. The
   package's optional `from corp import fast` takes the repository's fast.py cold (its regression fails the
   property), the installed slow fallback warm: `pass` warm, no note.
2. (needless cold, plain) a warmed import that raised starts the series cold, however it raised: the commonest
   optional-dependency form, a property module opening with `try: import fastjsonlib as json / except ImportError:
   import json` where fastjsonlib is simply not installed (ModuleNotFoundError before any code of anyone ran), now
   starts every such series cold (it was warm, its imports stopping there).
"""

import pytest

from witness_gate.sandbox import bwrap_works
from warmcases import corp_warm_and_cold
from warmcases import build as _build, warm_and_cold as _warm_and_cold

pytestmark = pytest.mark.skipif(bool(bwrap_works()), reason="bubblewrap cannot run here")


# --- 1. a package extends its __path__ through PathFinder.find_spec, entry by entry -----------------------------------

CORP_INIT = r'''"""The company's shared namespace: each project ships its own corp/ portion, found entry by entry."""
import sys
from importlib.machinery import PathFinder

for _entry in list(sys.path):
    _spec = PathFinder.find_spec(__name__, [_entry])
    if _spec is not None and _spec.submodule_search_locations:
        for _portion in list(_spec.submodule_search_locations):
            if _portion not in __path__:
                __path__.append(_portion)

try:
    from corp import fast as impl  # a project's accelerated implementation, when one is installed
except ImportError:
    from corp import slow as impl
'''


def test_a_portion_asked_for_through_pathfinder_find_spec_is_found_warm_too(tmp_path):
    warm, cold, note = corp_warm_and_cold(tmp_path, CORP_INIT)
    assert cold[0][0] != "pass", cold  # the repository's fast.py is the one used, cold
    assert warm == cold or note, (warm, cold, note)


# --- 2. needless cold: an optional dependency that is not installed ---------------------------------------------------

OPTIONAL_PROPS = ("try:\n    import fastjsonlib as json  # faster, when installed\nexcept ImportError:\n    import json\n"
                  "import textkit\n\n\ndef prop_loads(p):\n    return json.loads('[1]') == [1] and textkit.upper('a') == 'A'\n")
TEXTKIT = "def upper(s):\n    return s.upper()\n"


def test_an_optional_import_that_is_not_installed_stays_warm(tmp_path):
    """Was a needless cold start: nothing ran for `import fastjsonlib` (no finder found it), so nothing an earlier
    attempt left can differ; the warmed imports stop there and the series stays warm."""
    repo, env = _build(tmp_path, {"p.py": OPTIONAL_PROPS}, {"textkit.py": TEXTKIT})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_loads", [{}, {}])
    assert cold == [("pass", None)] * 2 and warm == cold, (warm, cold)
    assert note == "", note


# a module that runs (it counts its attempts in a module already imported, so sys.modules is as it was) and then
# says it is missing: not "nothing to import", since a child's retry would find what the first attempt left
COUNTER = "ATTEMPTS = []\n"
SAYS_MISSING = ("import counter\n\ncounter.ATTEMPTS.append(1)\nif len(counter.ATTEMPTS) == 1:\n"
                "    raise ModuleNotFoundError('no fastcore here', name='fastcore')\n")
SAYS_MISSING_PROPS = ("import counter\n\ntry:\n    import fastcore\nexcept ImportError:\n    fastcore = None\n\n\n"
                      "def prop_fast(p):\n    return fastcore is None or 'fastcore loaded'\n")


def test_a_module_that_ran_and_says_it_is_missing_starts_cold(tmp_path):
    repo, env = _build(tmp_path, {"p.py": SAYS_MISSING_PROPS}, {"counter.py": COUNTER, "fastcore.py": SAYS_MISSING})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_fast", [{}, {}])
    assert cold == [("pass", None)] * 2 and warm == cold, (warm, cold)
    assert "raised at fastcore" in note, note
