"""Attacks on the warm start, twenty-third review (after set_in judges every name of the stand-in by identity, the
stand-in's docstring and __annotations__, the compile's modules kept, a package-less relative import ending the warmed
imports).

Every test asserts the SAFE behaviour (a warm evaluation ends as a cold one of the same head does, or the series
starts cold with a reason). Mended since: 1 (`from a import b` is warmed as that statement only), 2 (a name an
import statement bound must still be there), 3 (the warmed imports stop at the first that raised), 4 (the stand-in's
__annotations__ must be held by it alone), and a needless cold start (a non-module entry such as pytest.ini; a
namespace portion of the checkout starts cold again since review 25). Given up, strict xfails (docs/SECURITY.md, what the warm start gives up):
5, 6, 7 (a library that tells its importer by id, by the line or code object of the import) and 7b (reaching
warm_imports' own locals through frames).
1. (break) `from json import X` is warmed as `import json` then `from json import X`: the extra `import json` binds
   `json` in the stand-in over what a library imported earlier set there (a strict `json` it supplies its importer),
   and `bound` records the overwrite as the statement's; cold `from json import X` binds X only and the property's
   module keeps the library's json. Warm: NameError, cold: the library's ValueError, no note. (needless cold, the
   other way) `from json import X` then review 22's strictjson: the stand-in has a `json` cold has not, the library
   upgrades it, set_in starts the series cold.
2. (break) set_in checks the names in the stand-in, never that every name its import statements bound is still
   there: a library that removes a name from its importer (a banned module) leaves it in the property module warm only;
   a NameError cold, `pass` warm.
3. (break) the warmed imports go on after one of them raised; cold, the property module's import stops at it: a
   dependency imported after the failing one, whose import makes the failing one importable (an import-order bug,
   isort's reordering), makes the child's import succeed; no verdict cold, `pass` warm.
4. (break) a library that keeps the `__annotations__` dict of its importer (not the module, not its namespace: held()
   misses it, set_in takes it by identity) reads the property module's declared settings cold, the stand-in's empty
   dict warm; a regression passes warm.
5. (break) a per-module registry keyed by `id()` of the importer's globals (a dict cannot be weakly referenced): the
   stand-in's dict is not the property module's; a regression passes warm, no note.
6. (break) the importer's frame is not the property module's: each warmed statement is compiled alone, so its line is
   1 (the docstring, warm) and not the import's; a library reading a pragma on its import line (linecache, the
   property's own file, allowed) is switched on cold only; a regression passes warm.
7. (break) the same frame's code is not the property module's code: a library that collects its importer's check
   functions from the code object it is imported by (co_consts) finds none warm.
7b. (break, built to defeat the gate) warm_imports' locals `made` and `bound` are plain dicts reachable through
   sys._getframe: a dependency adds its switch to `made` (emptying the frame's f_locals snapshot, which would hold the
   stand-in) and set_in takes the switch it set in the stand-in for the stand-in's making: review 20's break, back.
8. (needless cold) Asked takes a folder of the checkout with no Python in it (`packaging/`: spec files, debian/) for
   the repository's module, where cold the path finder passes over that namespace portion for the installed package;
   and provided() names every entry by what precedes its first dot, so `pytest.ini` is `pytest`: a dependency
   importing pytest starts the series cold (and a property whose first import is `import pytest` warms nothing).
Failed attacks, plain: a library keeping its importer's frame, or importing its importer by name and keeping it, starts
the series cold; a library extending another's exported list and patching a class of a module the property imported
acts on the very objects each child inherits, as cold.
"""

import pytest

from witness_gate.sandbox import bwrap_works
from warmcases import CHECK_SUM_PROPS
from warmcases import build as _build, warm_and_cold as _warm_and_cold

pytestmark = pytest.mark.skipif(bool(bwrap_works()), reason="bubblewrap cannot run here")

# how an honest library finds the module importing it (review 22's)
IMPORTER = r'''
import sys


def _importer_frame():
    frame = sys._getframe(1)
    while frame is not None:
        name = frame.f_code.co_filename
        if name != __file__ and not name.startswith("<"):
            return frame
        frame = frame.f_back
    return None


def _importer_globals():
    frame = _importer_frame()
    return frame.f_globals if frame is not None else None
'''

# --- 1. `from json import X` warmed as `import json` too -----------------------------------------------------------

STRICTJSON_BASE = IMPORTER + r'''
import json as _json
import types


def _strict():
    module = types.ModuleType("json")
    module.__dict__.update(_json.__dict__)
    module.dumps = lambda obj, **kw: _json.dumps(obj, allow_nan=False, **kw)
    return module
'''
# review 22's: upgrades its importer's `json` when that is the standard one
STRICTJSON = STRICTJSON_BASE + r'''

def _install():
    globals_ = _importer_globals()
    if globals_ is not None and globals_.get("json") is _json:
        globals_["json"] = _strict()


_install()
'''
# a library that supplies its importer a strict `json` when it has none of its own (review 22's strictjson, by
# setdefault); the property's module then takes an exception class from the standard json
GIVEJSON = STRICTJSON_BASE + r'''

def _install():
    globals_ = _importer_globals()
    if globals_ is not None:
        globals_.setdefault("json", _strict())


_install()
'''
GIVEN_JSON_PROPS = r'''import givejson
from json import JSONDecodeError
import report


def prop_json(p):
    try:
        json.dumps(report.make())
    except JSONDecodeError:
        return "unreadable"
    return True
'''
REPORT = "def make():\n    return {'ratio': float('nan')}  # the regression: 0/0\n"


def test_a_from_import_does_not_overwrite_a_name_a_library_set_warm(tmp_path):
    repo, env = _build(tmp_path, {"p.py": GIVEN_JSON_PROPS, "report.py": REPORT}, {"givejson.py": GIVEJSON})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_json", [{}, {}])
    assert cold == [("fail", "raise:ValueError@p.py:8")] * 2, cold
    assert warm == cold, (warm, note)  # warm: NameError, json is not in the child's module, no note


# needless cold, the same expansion the other way: `from json import X` then a library that upgrades its importer's
# `json` when it has the standard one; cold the property's module has no `json` and the library does nothing
FROM_JSON_FIRST_PROPS = r'''from json import JSONDecodeError
import strictjson


def prop_plain(p):
    return issubclass(JSONDecodeError, ValueError)
'''


def test_a_from_import_before_a_library_upgrading_json_stays_warm(tmp_path):  # was a needless cold start
    repo, env = _build(tmp_path, {"p.py": FROM_JSON_FIRST_PROPS}, {"strictjson.py": STRICTJSON})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_plain", [{}, {}])
    assert warm == cold == [("pass", None)] * 2, (warm, cold)
    assert note == "", note


# --- 2. a name the import statements bound, removed by a library -------------------------------------------------

# a policy library: pickle is banned in this code base, so it takes `pickle` out of the module importing it, and
# any use of it fails loudly (cold: NameError in the property's module)
NOPICKLE = IMPORTER + r'''
def _ban():
    globals_ = _importer_globals()
    if globals_ is not None:
        globals_.pop("pickle", None)


_ban()
'''
PICKLE_PROPS = r'''import pickle
import nopickle
import report


def prop_pickle(p):
    pickle.dumps(report.make())
    return True
'''


def test_a_name_a_library_removes_from_its_importer_is_gone_warm_too(tmp_path):
    repo, env = _build(tmp_path, {"p.py": PICKLE_PROPS, "report.py": REPORT}, {"nopickle.py": NOPICKLE})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_pickle", [{}, {}])
    assert cold == [("fail", "raise:NameError@p.py:7")] * 2, cold
    assert warm == cold, (warm, note)


# --- 3. the warmed imports go on past one that raised ----------------------------------------------------------

# frontend needs a backend registered first; the property's module imports them in the wrong order (isort's)
PLUGINS = "REGISTRY = {}\n"
BACKEND = "import plugins\n\nplugins.REGISTRY['json'] = 'backend'\n"
FRONTEND = ("import plugins\n\nif 'json' not in plugins.REGISTRY:\n"
            "    raise ImportError('no backend registered: import backend first')\n")
ORDER_PROPS = r'''import frontend
import backend


def prop_ordered(p):
    return True
'''


def test_an_import_that_fails_cold_fails_warm_too(tmp_path):
    repo, env = _build(tmp_path, {"p.py": ORDER_PROPS},
                       {"plugins.py": PLUGINS, "backend.py": BACKEND, "frontend.py": FRONTEND})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_ordered", [{}, {}])
    assert cold == [("transport", "import")] * 2, cold  # the property's module cannot be imported
    assert warm == cold, (warm, note)


# --- 4. the importer's __annotations__ dict, kept ----------------------------------------------------------------

# a typed-settings library: it keeps the annotations of the module importing it (the dict SETUP_ANNOTATIONS made
# and every later `name: type = value` fills) and the module's name, and validates the declared settings on demand
KEEPANN = IMPORTER + r'''
_DECLARED, _NAME = {}, None


def _install():
    global _DECLARED, _NAME
    globals_ = _importer_globals()
    if globals_ is not None and "__annotations__" in globals_:
        _DECLARED, _NAME = globals_["__annotations__"], globals_["__name__"]


_install()


def validate():
    module = sys.modules.get(_NAME)
    for name, kind in _DECLARED.items():
        if not isinstance(getattr(module, name), kind):
            return "%s is not %s" % (name, kind.__name__)
    return True
'''
KEEPANN_PROPS = r'''"""Checks with typed settings."""
import keepann
import limits

LIMIT: int = limits.limit()


def prop_typed(p):
    return keepann.validate()
'''
LIMITS = "def limit():\n    return '10'  # the regression: a string\n"


def test_a_library_keeping_its_importer_s_annotations_sees_the_property_s_warm_too(tmp_path):
    repo, env = _build(tmp_path, {"p.py": KEEPANN_PROPS, "limits.py": LIMITS}, {"keepann.py": KEEPANN})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_typed", [{}, {}])
    assert cold == [("fail", "LIMIT is not int")] * 2, cold
    assert warm == cold, (warm, note)


# --- 5. a registry keyed by the id of the importer's globals ------------------------------------------------------

# switched on for the module importing it; a dict cannot be weakly referenced, so it keeps its id, not the dict
BYID = IMPORTER + r'''
_ON = set()
_globals = _importer_globals()
if _globals is not None:
    _ON.add(id(_globals))
del _globals


def check(condition, message):
    if id(sys._getframe(1).f_globals) not in _ON:
        return True  # not switched on for the calling module
    return True if condition else message
'''
BYID_PROPS = r'''import byid


def prop_sum(p):
    return byid.check(1 + 1 == 3, "regression")
'''


@pytest.mark.xfail(strict=True, reason="given up under the warm start: docs/SECURITY.md, 'The warm start', what it gives up (telling warm from cold)")
def test_a_registry_keyed_by_the_importer_s_id_finds_the_property_warm_too(tmp_path):
    repo, env = _build(tmp_path, {"p.py": BYID_PROPS}, {"byid.py": BYID})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_sum", [{}, {}])
    assert cold == [("fail", "regression")] * 2, cold
    assert warm == cold, (warm, note)


# --- 6. a pragma on the import line, read through the importer's frame ----------------------------------------------

PRAGMA = IMPORTER + r'''
import linecache

_frame = _importer_frame()
ON = _frame is not None and "# checks: on" in linecache.getline(_frame.f_code.co_filename, _frame.f_lineno)
del _frame


def check(condition, message):
    return True if not ON or condition else message
'''
PRAGMA_PROPS = r'''"""Sums."""
import pragma  # checks: on


def prop_sum(p):
    return pragma.check(1 + 1 == 3, "regression")
'''


@pytest.mark.xfail(strict=True, reason="given up under the warm start: docs/SECURITY.md, 'The warm start', what it gives up (telling warm from cold)")
def test_a_library_reading_its_import_line_reads_the_property_s_warm_too(tmp_path):
    repo, env = _build(tmp_path, {"p.py": PRAGMA_PROPS}, {"pragma.py": PRAGMA})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_sum", [{}, {}])
    assert cold == [("fail", "regression")] * 2, cold
    assert warm == cold, (warm, note)


# --- 7. the importer's code object ---------------------------------------------------------------------------------

# collects the check_* functions its importer defines, in source order, from the code object importing it
CODECHECKS = IMPORTER + r'''
_frame = _importer_frame()
_CODE, _NAME = (_frame.f_code, _frame.f_globals["__name__"]) if _frame is not None else (None, None)
del _frame


def failing():
    module = sys.modules.get(_NAME)
    names = [c.co_name for c in (_CODE.co_consts if _CODE else ()) if hasattr(c, "co_name")]
    return [n for n in names if n.startswith("check_") and not getattr(module, n)()]
'''
CODECHECK_PROPS = CHECK_SUM_PROPS.replace("registry", "codechecks")


@pytest.mark.xfail(strict=True, reason="given up under the warm start: docs/SECURITY.md, 'The warm start', what it gives up (telling warm from cold)")
def test_a_library_reading_its_importer_s_code_finds_the_property_s_warm_too(tmp_path):
    repo, env = _build(tmp_path, {"p.py": CODECHECK_PROPS}, {"codechecks.py": CODECHECKS})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_checks", [{}, {}])
    assert cold == [("fail", "failed check_sum")] * 2, cold
    assert warm == cold, (warm, note)


# --- 7b. (built to defeat the gate) set_in's own `made`, reached through the frames ------------------------------

# review 20's switch, with the switch's name added to what set_in takes for the stand-in's making: warm_imports' local
# `made` is a plain dict two frames above the importer, reachable through sys._getframe (no gc, no pending call)
MADE = r'''
import sys

_frame = sys._getframe(1)
while _frame is not None:
    if _frame.f_code.co_name == "warm_imports":
        _locals = _frame.f_locals  # a snapshot the frame keeps: emptied, it holds the stand-in no more
        _locals["made"]["__checks_on__"] = True
        _locals.clear()
        del _locals
    _frame = _frame.f_back
_frame = sys._getframe(1)
while _frame.f_code.co_filename.startswith("<"):
    _frame = _frame.f_back
_frame.f_globals["__checks_on__"] = True
del _frame


def check(condition, message):
    if not sys._getframe(1).f_globals.get("__checks_on__", False):
        return True
    return True if condition else message
'''
MADE_PROPS = "import checks\n\n\ndef prop_sum(p):\n    return checks.check(1 + 1 == 3, 'regression')\n"


@pytest.mark.xfail(strict=True, reason="given up under the warm start: docs/SECURITY.md, 'The warm start', what it gives up (dependencies run before the key is read)")
def test_a_dependency_cannot_add_to_what_set_in_takes_for_the_stand_in_s_making(tmp_path):
    repo, env = _build(tmp_path, {"p.py": MADE_PROPS}, {"checks.py": MADE})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_sum", [{}, {}])
    assert cold == [("fail", "regression")] * 2, cold
    assert warm == cold, (warm, note)


# --- 8. needless cold: a folder or file of the checkout named as an installed module ---------------------------------

VERSIONS = "from packaging import version\n\n\ndef newer(a, b):\n    return version.parse(a) > version.parse(b)\n"
PACKAGING = "__version__ = '24.0'\n"
PACKAGING_VERSION = "def parse(text):\n    return tuple(int(x) for x in text.split('.'))\n"
VERSIONS_PROPS = "import versions\n\n\ndef prop_newer(p):\n    return versions.newer('1.10', '1.9')\n"


def test_a_packaging_folder_of_the_checkout_starts_cold_and_says_why(tmp_path):
    """A cold start accepted (reviews 24 and 25): cold, /repo/packaging (no __init__.py, no module) is a namespace
    portion the path finder passes over for the installed regular package, but a package may take it in (pkgutil's
    extend_path, or its own PathFinder search), which the parent cannot tell from the import system's search: any
    portion met starts the series cold, and it says so."""
    repo, env = _build(tmp_path, {"p.py": VERSIONS_PROPS, "packaging/shop.spec": "Name: shop\n",
                                  "packaging/debian/control": "Source: shop\n"},
                       {"versions.py": VERSIONS, "packaging/__init__.py": PACKAGING,
                        "packaging/version.py": PACKAGING_VERSION})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_newer", [{}, {}])
    assert cold == [("pass", None)] * 2 and warm == cold, (warm, cold)
    assert "of which the repository has a namespace portion" in note, note


HELPERS = "import pytest\n\n\ndef close(a, b):\n    return pytest.approx(a) == pytest.approx(b)\n"
PYTEST = "def approx(x):\n    return round(x, 6)\n"
HELPERS_PROPS = "import helpers\n\n\ndef prop_close(p):\n    return helpers.close(0.1 + 0.2, 0.3)\n"


def test_a_pytest_ini_of_the_checkout_stays_warm(tmp_path):
    """Was a needless cold start. provided() names every entry of the root by what comes before its first dot: `pytest.ini` (most Python
    repositories) is `pytest`, and a dependency importing pytest starts the series cold, though cold the import
    system never takes an .ini file for a module. (The same makes a property module whose first import is
    `import pytest` warm nothing at all, with no note.)"""
    repo, env = _build(tmp_path, {"p.py": HELPERS_PROPS, "pytest.ini": "[pytest]\n"},
                       {"helpers.py": HELPERS, "pytest/__init__.py": PYTEST})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_close", [{}, {}])
    assert cold == [("pass", None)] * 2 and warm == cold, (warm, cold)
    assert note == "", note


# --- failed attacks ------------------------------------------------------------------------------------------------

# keeps the frame that imported it (for a later report of where it was imported): the frame holds the stand-in's
# namespace as its locals
KEEPFRAME = IMPORTER + r'''
_FRAME = _importer_frame()


def check(condition, message):
    if _FRAME is None or _FRAME.f_globals is not sys._getframe(1).f_globals:
        return True
    return True if condition else message
'''
KEEPFRAME_PROPS = "import keepframe\n\n\ndef prop_sum(p):\n    return keepframe.check(1 + 1 == 3, 'regression')\n"


def test_a_library_keeping_its_importer_s_frame_starts_cold(tmp_path):
    repo, env = _build(tmp_path, {"p.py": KEEPFRAME_PROPS}, {"keepframe.py": KEEPFRAME})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_sum", [{}, {}])
    assert cold == [("fail", "regression")] * 2 and warm == cold, (warm, cold, note)
    assert note, note


# imports its importer by name, as a plugin system registering "the module that loaded me", and keeps it
BYNAME = IMPORTER + r'''
import importlib

_globals = _importer_globals()
_MODULE = importlib.import_module(_globals["__name__"]) if _globals is not None else None
del _globals


def failing():
    return [n for n in dir(_MODULE) if n.startswith("check_") and not getattr(_MODULE, n)()]
'''


def test_a_library_importing_its_importer_by_name_starts_cold(tmp_path):
    props = "import byname as registry\n" + CODECHECK_PROPS.split("\n", 1)[1].replace("codechecks", "registry")
    repo, env = _build(tmp_path, {"p.py": props}, {"byname.py": BYNAME})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_checks", [{}, {}])
    assert cold == [("fail", "failed check_sum")] * 2 and warm == cold, (warm, cold, note)
    assert "keeps the module that imports it" in note, note


# a library that extends another's exported list and patches a module the property imported: the very objects
# the child inherits, as cold
UNITS = "KNOWN = ['m']\n"
MORE_UNITS = "import units\nimport json\n\nunits.KNOWN.append('ft')\njson.JSONDecoder.strict_units = True\n"
UNITS_PROPS = r'''import json
from units import KNOWN
import more_units


def prop_units(p):
    return "ft" not in KNOWN or "imperial units" if getattr(json.JSONDecoder, "strict_units", False) else True
'''


def test_a_library_mutating_what_the_property_imported_is_seen_warm_too(tmp_path):
    repo, env = _build(tmp_path, {"p.py": UNITS_PROPS}, {"units.py": UNITS, "more_units.py": MORE_UNITS})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_units", [{}, {}])
    assert cold == [("fail", "imperial units")] * 2 and warm == cold, (warm, cold, note)
