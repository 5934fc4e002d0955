"""Attacks on the warm start, twenty-second review (after the property's own module is compiled before the imports
and used by every child, the stand-in's docstring, the warning registry allowed in the stand-in, the cwd check).

Every test asserts the SAFE behaviour (a warm evaluation ends as a cold one of the same head does, or the series
starts cold with a reason). All were breaks and are mended: every name in the stand-in must be what making it, its
import statements (each as its statement bound it), running code (the builtins themselves) or a warning attributed
to it (a registry only it holds) bound; what compiling the property's module imported stays in sys.modules; a
relative import of a module with no package ends the warmed imports; the stand-in gets an empty __annotations__ when
the property's module annotates at module level (and one a library's question makes is let be).
1. (break) set_in allows `__builtins__` in the stand-in by name, whatever its value: a library that gives the module
   importing it builtins of its own (a money library's `sum` refusing floats) gives them to the stand-in warm, to the
   property's module cold, whose functions look their builtins up there; a regression passes warm, no note.
2. (break) set_in allows `__warningregistry__` by name: a library that makes its importer's warning registry and keeps
   that dict (not the module: held() looks for the module and its namespace only) reads, cold, the warnings the
   property's calls were attributed; warm it holds the stand-in's, which no child warns into; a regression passes.
3. (break, introduced by compiling the property's module in the parent) a property module with a non-ASCII name makes
   the compile import unicodedata: cold it is in sys.modules when the dependencies import, warm the parent drops it
   with its own modules (`cold`, read before the compile): a library integrating with modules already imported
   behaves otherwise; a regression passes warm.
4. (break) a relative import in the property's module (`from .settings import X`, its package is '' so it always
   fails cold) is warmed as the absolute `settings`: the parent imports a module of the set-up environment that a
   cold start never imports, and what it configures at import (decimal's precision) reaches every child.
5. (break) a module with a module-level annotation has `__annotations__` when its first import runs, cold
   (SETUP_ANNOTATIONS is its first instruction, before the docstring); the stand-in has none: a typed-settings library
   that validates only an annotated importer skips its check warm. (needless cold) inspect.get_annotations of the
   importer at import makes `__annotations__` in the stand-in, which set_in takes for a name the library set.
6. (break) set_in judges names only: a name the import statements bind (`json`), rebound by a library in its
   importer, or one of the stand-in's making (`__doc__`, `__file__`, ...), is allowed whatever its value; cold the
   property's module keeps the library's binding, warm the child's module has its own import's.
"""

import pytest

from witness_gate.sandbox import bwrap_works
from warmcases import IMPORTER
from warmcases import build as _build, warm_and_cold as _warm_and_cold

pytestmark = pytest.mark.skipif(bool(bwrap_works()), reason="bubblewrap cannot run here")



# --- 1. builtins of a library's own, given to the module importing it -------------------------------------------

MONEY = IMPORTER + r'''
import builtins
from decimal import Decimal

_sum = builtins.sum


def total(values, start=Decimal(0)):
    """A money total: a float among the amounts (binary rounding) is a bug, never added silently."""
    values = list(values)
    for value in values:
        if isinstance(value, float):
            raise TypeError("a float in a money total: %r" % (value,))
    return _sum(values, start)


def _install():
    globals_ = _importer_globals()
    if globals_ is not None:  # the module importing us totals money: its sum() is ours
        globals_["__builtins__"] = dict(builtins.__dict__, sum=total)


_install()
'''
MONEY_PROPS = r'''import money
from decimal import Decimal
import prices


def prop_total(p):
    amount = sum(prices.amounts())
    return True if amount == Decimal("3.50") else "total %s" % amount
'''
PRICES = "def amounts():\n    return [1.25, 2.25]  # the regression: floats, not Decimals\n"


def test_builtins_a_library_gives_its_importer_reach_the_property_warm_too(tmp_path):
    repo, env = _build(tmp_path, {"p.py": MONEY_PROPS, "prices.py": PRICES}, {"money.py": MONEY})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_total", [{}, {}])
    assert cold == [("fail", "raise:TypeError@p.py:7")] * 2, cold
    assert warm == cold, (warm, note)


# --- 2. a library that keeps its importer's warning registry -----------------------------------------------------

LEGACY = IMPORTER + r'''
import warnings


class LegacyWarning(UserWarning):
    pass


_REGISTRY = []


def _track():
    globals_ = _importer_globals()
    if globals_ is not None:  # where our warnings attributed to the importer are noted: legacy_uses() reads it
        _REGISTRY.append(globals_.setdefault("__warningregistry__", {}))


_track()


def parse(text):
    if text.startswith("v1:"):
        warnings.warn("the v1 format is deprecated", LegacyWarning, stacklevel=2)
    return text.split(":", 1)[1]


def legacy_uses():
    return [key[0] for registry in _REGISTRY for key in registry
            if isinstance(key, tuple) and len(key) == 3 and key[1] is LegacyWarning]
'''
LEGACY_PROPS = r'''import legacy
import store


def prop_current_format(p):
    legacy.parse(store.dump())
    uses = legacy.legacy_uses()
    return "legacy format" if uses else True
'''
STORE = "def dump():\n    return 'v1:42'  # the regression: the old format\n"


def test_a_library_keeping_its_importer_s_warning_registry_sees_the_property_s_warm_too(tmp_path):
    repo, env = _build(tmp_path, {"p.py": LEGACY_PROPS, "store.py": STORE}, {"legacy.py": LEGACY})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_current_format", [{}, {}])
    assert cold == [("fail", "legacy format")] * 2, cold
    assert warm == cold, (warm, note)


# --- 3. the modules the property's compile imports are a cold start's when its dependencies import ----------------

MODULES_PROBE = r'''import json
import sys

SEEN = "unicodedata" in sys.modules  # what a library imported here finds imported
ε = 1e-9  # a non-ASCII name: its compile normalizes it (unicodedata)


def prop_modules(p):
    return "unicodedata imported" if SEEN else "unicodedata not imported"
'''


def test_the_modules_a_dependency_finds_imported_are_a_cold_start_s(tmp_path):
    repo, env = _build(tmp_path, {"p.py": MODULES_PROBE}, {})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_modules", [{}])
    assert cold == [("fail", "unicodedata imported")], cold
    assert warm == cold, (warm, note)


# an identifier checker that checks by NFKC, as Python does, when the program already handles Unicode (importing
# unicodedata costs, so it integrates only with what is imported, as libraries do with numpy or pandas)
IDCHECK = r'''
import sys

_STRICT = "unicodedata" in sys.modules


def canonical(name):
    if _STRICT:
        import unicodedata
        return unicodedata.normalize("NFKC", name) == name
    return name.isidentifier()
'''
IDCHECK_PROPS = r'''import idcheck
import naming

ε = 0  # the tolerance: a non-ASCII name, normalized when compiled


def prop_canonical(p):
    name = naming.make("file")
    return True if idcheck.canonical(name) else "not canonical: %r" % name
'''
NAMING = "def make(word):\n    return word.replace('fi', '\\ufb01')  # the regression: a ligature\n"


def test_a_library_integrating_with_unicodedata_when_imported_sees_the_same_warm(tmp_path):
    repo, env = _build(tmp_path, {"p.py": IDCHECK_PROPS, "naming.py": NAMING}, {"idcheck.py": IDCHECK})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_canonical", [{}, {}])
    assert cold == [("fail", "not canonical: '\ufb01le'")] * 2, cold
    assert warm == cold, (warm, note)


# --- 4. a relative import in the property's module is warmed as an absolute one --------------------------------

# a settings module of the set-up environment (some distribution's top-level `settings`) that configures decimal
SETTINGS = "import decimal\n\ndecimal.getcontext().prec = 6\nTOLERANCE = 0\n"
RELATIVE_PROPS = r'''try:
    from .settings import TOLERANCE  # when the checks run as a package
except ImportError:
    TOLERANCE = None
from decimal import Decimal
import ledger


def prop_balance(p):
    total = ledger.total()
    return True if total == Decimal("100") else "balance %s" % total
'''
LEDGER = ("from decimal import Decimal\n\n\ndef total():\n"
          "    return Decimal('100') + Decimal('0.0000001')  # the regression: a rounding leak\n")


def test_a_relative_import_of_the_property_s_module_warms_nothing_cold_does_not_import(tmp_path):
    repo, env = _build(tmp_path, {"p.py": RELATIVE_PROPS, "ledger.py": LEDGER}, {"settings.py": SETTINGS})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_balance", [{}, {}])
    assert cold == [("fail", "balance 100.0000001")] * 2, cold
    assert warm == cold, (warm, note)


# --- 5. __annotations__ of the property's module when its first import runs ------------------------------------

# a typed-settings library: when its importer declares annotated settings (it has __annotations__ as its imports
# run, cold: SETUP_ANNOTATIONS is the module's first instruction), validate() checks them by their declared types
TYPEDCFG = IMPORTER + r'''
_TYPED = "__annotations__" in (_importer_globals() or {})


def validate(module_name):
    if not _TYPED:
        return True
    module = sys.modules[module_name]
    for name, kind in module.__annotations__.items():
        if not isinstance(getattr(module, name), kind):
            return "%s is not %s" % (name, kind.__name__)
    return True
'''
TYPED_PROPS = r'''"""Checks with typed settings."""
import typedcfg
import limits

LIMIT: int = limits.limit()


def prop_typed(p):
    return typedcfg.validate(__name__)
'''
LIMITS = "def limit():\n    return '10'  # the regression: a string\n"


def test_a_library_seeing_its_importer_s_annotations_sees_them_warm_too(tmp_path):
    repo, env = _build(tmp_path, {"p.py": TYPED_PROPS, "limits.py": LIMITS}, {"typedcfg.py": TYPEDCFG})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_typed", [{}, {}])
    assert cold == [("fail", "LIMIT is not int")] * 2, cold
    assert warm == cold, (warm, note)


# needless cold: inspect.get_annotations / typing.get_type_hints of the importer at import creates __annotations__ in
# it (module.__annotations__ makes an empty dict), which set_in takes for a name the library set
HINTS = IMPORTER + r'''
import inspect


def _hints():
    globals_ = _importer_globals()
    module = sys.modules.get(globals_.get("__name__")) if globals_ else None
    return inspect.get_annotations(module) if module is not None else {}


HINTS = _hints()
'''
HINTS_PROPS = "import hints\n\n\ndef prop_hints(p):\n    return hints.HINTS == {}\n"


def test_a_library_reading_its_importer_s_annotations_at_import_stays_warm(tmp_path):
    # was a needless cold start: asking a module for its annotations makes an empty __annotations__ in it
    repo, env = _build(tmp_path, {"p.py": HINTS_PROPS}, {"hints.py": HINTS})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_hints", [{}, {}])
    assert warm == cold == [("pass", None)] * 2, (warm, cold)
    assert note == "", note


# --- 6. a name the import statements bind, rebound by a library in its importer -----------------------------------

# a library that upgrades its importer's `json` to JSON as the standard has it (no NaN, no Infinity): set_in allows
# every name an import statement binds, whatever a library bound it to since
STRICTJSON = IMPORTER + r'''
import json as _json
import types


def _strict():
    module = types.ModuleType("json")
    module.__dict__.update(_json.__dict__)
    module.dumps = lambda obj, **kw: _json.dumps(obj, allow_nan=False, **kw)
    return module


def _install():
    globals_ = _importer_globals()
    if globals_ is not None and globals_.get("json") is _json:
        globals_["json"] = _strict()


_install()
'''
JSON_PROPS = r'''import json
import strictjson
import report


def prop_json(p):
    json.dumps(report.make())
    return True
'''
REPORT = "def make():\n    return {'ratio': float('nan')}  # the regression: 0/0\n"


def test_a_library_rebinding_a_name_its_importer_imported_is_seen_warm_too(tmp_path):
    repo, env = _build(tmp_path, {"p.py": JSON_PROPS, "report.py": REPORT}, {"strictjson.py": STRICTJSON})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_json", [{}, {}])
    assert cold == [("fail", "raise:ValueError@p.py:7")] * 2, cold
    assert warm == cold, (warm, note)
