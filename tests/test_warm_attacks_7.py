"""Attacks on the warm start, seventh review: commit 17ab548 (lazy modules start the series cold and no module
attribute is read but through its __dict__; only imports that surely run are warmed: the module's top, a
`try` body, a class body; the repository's folders stay on sys.path while _Asked refuses their names).

Every test asserts the SAFE behaviour (a warm evaluation ends as a cold one of the same head does). The review
found the breaks below, each mended since (witness_gate/warm_imports.py, warm_parent.py): only what the
property's module imports before any other statement of it runs is warmed, in its order, up to the first
import of the repository's and the first line of a `try` (and the gate's own package); `import a.b` imports
the submodule with no attribute check. The breaks, most severe first, each with ordinary dependencies and
plain repository code:
0. the parent imports a dependency before any line of the property's module runs, where a cold start runs the
   module's earlier statements first: `os.environ["LIB_MODE"] = "strict"` then `import lib` (the ordinary way
   to configure a library that reads its environment when imported: MPLBACKEND, DJANGO_SETTINGS_MODULE,
   KERAS_BACKEND ...) configures it cold and never warm, and a regression that fails on every cold evaluation
   passes warm (section 0). Only imports before any other statement of the module (and of each repository
   module on the way) are safe to warm;
   the same with `sys.path.insert(0, <the checkout's vendor/ folder>)` before `import slugkit`: cold imports
   the repository's vendored (patched) copy, warm the set-up environment's package of that name, which the
   parent imported because provided() looks only at the root and src/; the patch's code never runs warm;
1. warm_parent._import runs a plain package's PEP 562 module `__getattr__` for `import package.sub`: it asks
   `hasattr(package, "sub")`, which a cold `import package.sub` never does (the import system reads only
   `package.__path__`). A package whose `__getattr__` serves a deprecated top-level alias of the submodule's
   name and switches itself to its legacy (lenient) behaviour when one is used does so in the parent only, and
   every child inherits it: a regression that fails on every cold evaluation passes warm (section 1);
2. warm_imports._at_import treats every statement of a `try` body as sure to run, but one that raises skips
   the rest of the body: `try: import _accel; import accel_setup except ImportError: ...` with `_accel`
   absent never imports `accel_setup` cold, while the parent imports each name on its own, lets the failed one
   go and imports `accel_setup`; what that does on import (configuring another package) holds warm only, and
   a regression passes (section 2);
3. the parent imports the dependencies in sorted order (warm_imports.reached returns sorted(outside)), a cold
   start in the property module's order: two plugins that each register themselves as a library's default
   codec when imported (the last one wins, as `matplotlib.use`-style registries do) leave the other default
   warm, and a regression passes (section 3). SECURITY.md gives up the order only against scans of
   sys.modules;
4. the same order lets a repository module compile warm that cannot cold: a dependency that registers a source
   codec when imported (as future-fstrings-style packages do) is registered in the parent before any child
   compiles a repository file; a module with that `coding:` cookie imported before the dependency raises
   SyntaxError (unknown encoding) on every cold evaluation and imports warm: the regression passes (section 4).
"""

import pytest

from witness_gate.sandbox import bwrap_works
from warmcases import build as _build, warm_and_cold as _warm_and_cold

pytestmark = pytest.mark.skipif(bool(bwrap_works()), reason="bubblewrap cannot run here")


# --- 0. a module's statements before an import run cold before it, warm after it ------------------------------

STRICTUNITS = '''
import os

STRICT = os.environ.get("STRICTUNITS_MODE", "lenient") == "strict"  # read once, when imported


def parse(text):
    number, _, unit = text.partition(" ")
    if unit not in ("m", "km"):
        if STRICT:
            raise ValueError(f"unknown unit {unit!r}")
        unit = unit.rstrip("s")  # the 1.x spelling "kms"
    return float(number) * (1000.0 if unit == "km" else 1.0)
'''

ENV_PROPS = '''
import os

os.environ["STRICTUNITS_MODE"] = "strict"  # the project's tests run the library strict

import strictunits


def distance(text):
    return strictunits.parse(text.replace("kilometres", "kms"))  # the patch: an unknown unit name


def prop_two_km(p):
    return distance("2 kilometres") == 2000.0
'''


def test_an_environment_variable_set_before_an_import_configures_the_dependency_warm_too(tmp_path):
    repo, env = _build(tmp_path, {"p.py": ENV_PROPS}, {"strictunits.py": STRICTUNITS})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_two_km", [{}, {}])
    assert [outcome for outcome, _ in cold] == ["fail", "fail"], cold  # ValueError: unknown unit 'kms'
    assert warm == cold, (warm, note)


# the repository's vendored copy, put first on sys.path by the property's module before it imports it
GOOD_SLUGKIT = "def slug(text):\n    return text.strip().lower().replace(' ', '-')\n"
VENDORED_SLUGKIT = "def slug(text):\n    return text.lower().replace(' ', '-')  # the patch: no strip\n"
VENDOR_PROPS = '''
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "vendor"))  # the vendored copy

import slugkit


def prop_slug(p):
    return slugkit.slug(" Hello World ") == "hello-world"
'''


def test_a_repository_s_vendored_module_is_never_replaced_by_the_set_up_s_package(tmp_path):
    repo, env = _build(tmp_path, {"p.py": VENDOR_PROPS, "vendor/slugkit.py": VENDORED_SLUGKIT},
                       {"slugkit.py": GOOD_SLUGKIT})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_slug", [{}, {}])
    assert cold == [("fail", "false")] * 2, cold
    assert warm == cold, (warm, note)


# --- 1. `import package.sub`: the parent's hasattr runs the package's module __getattr__, cold never does ------

# a units library that moved its top-level `convert` function into the submodule `units.convert`; the old name
# still works through a PEP 562 __getattr__, which also turns on the legacy (lenient) parsing old callers need
UNITS_INIT = '''
import warnings

STRICT = True  # plural unit names ("kms") are an error, unless a legacy caller asked otherwise


def _legacy_convert(value, unit):
    from units.convert import convert
    return convert(value, unit)


def __getattr__(name):
    global STRICT
    if name == "convert":  # units.convert() was a function before 2.0
        warnings.warn("units.convert() moved to units.convert.convert()", DeprecationWarning, stacklevel=2)
        STRICT = False  # old callers relied on plural unit names
        return _legacy_convert
    raise AttributeError(f"module 'units' has no attribute {name!r}")
'''

UNITS_CONVERT = '''
import units

FACTORS = {"m": 1.0, "km": 1000.0}


def convert(value, unit):
    if unit not in FACTORS and not units.STRICT:
        unit = unit.rstrip("s")  # 1.x accepted "kms", "ms"
    if unit not in FACTORS:
        raise ValueError(f"unknown unit {unit!r}")
    return value * FACTORS[unit]
'''

# the repository: the patch under test passes a unit name the library refuses (the regression)
GEO = '''
import units.convert


def to_metres(km):
    return units.convert.convert(km, "kms")
'''

UNITS_PROPS = '''
import geo


def prop_two_km(p):
    return geo.to_metres(2) == 2000.0
'''


def test_import_of_a_submodule_never_runs_the_package_s_module_getattr_in_the_parent(tmp_path):
    repo, env = _build(tmp_path, {"p.py": UNITS_PROPS, "geo.py": GEO},
                       {"units/__init__.py": UNITS_INIT, "units/convert.py": UNITS_CONVERT})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_two_km", [{}, {}])
    assert [outcome for outcome, _ in cold] == ["fail", "fail"], cold  # ValueError: unknown unit 'kms'
    assert warm == cold, (warm, note)


def test_control_from_package_import_name_runs_the_getattr_cold_too(tmp_path):
    # `from units import convert` asks hasattr cold as well (importlib._handle_fromlist), so warm and cold agree
    geo = GEO.replace("import units.convert\n", "from units import convert as _old\nimport units.convert\n")
    repo, env = _build(tmp_path, {"p.py": UNITS_PROPS, "geo.py": geo},
                       {"units/__init__.py": UNITS_INIT, "units/convert.py": UNITS_CONVERT})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_two_km", [{}, {}])
    assert cold == [("pass", None)] * 2, cold  # the legacy name turned the lenient mode on, cold too
    assert warm == cold, (warm, note)


# --- 2. a `try` body is not sure to run past a statement that raises --------------------------------------------

# a formatter package with an optional accelerator: the accelerator's set-up module switches the formatter to
# the fast path (which here rounds differently) when it is imported
FMT_INIT = '''
PRECISION = 2


def fmt(x):
    return f"{x:.{PRECISION}f}"
'''

FMT_ACCEL_SETUP = '''
import fmtlib

fmtlib.PRECISION = 6  # the accelerator's path keeps six digits
'''

ACCEL_PROPS = '''
try:
    import _fmtlib_accel  # the C accelerator: not built in this environment
    import fmtlib_accel_setup
except ImportError:
    pass

import fmtlib


def prop_keeps_six_digits(p):
    return fmtlib.fmt(1 / 3) == "0.333333" or "digits were lost: " + fmtlib.fmt(1 / 3)
'''


def test_an_import_after_a_failing_import_in_a_try_body_is_not_warmed(tmp_path):
    repo, env = _build(tmp_path, {"p.py": ACCEL_PROPS},
                       {"fmtlib/__init__.py": FMT_INIT, "fmtlib_accel_setup.py": FMT_ACCEL_SETUP})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_keeps_six_digits", [{}, {}])
    assert [outcome for outcome, _ in cold] == ["fail", "fail"], cold  # digits were lost: 0.33
    assert warm == cold, (warm, note)


# --- 3. the dependencies' import order: sorted in the parent, the source's order cold ---------------------------

CODECREG = '''
DEFAULT = None


def register(encode):
    """The codec imported last is the default (as a backend registry's `use`)."""
    global DEFAULT
    DEFAULT = encode


def dumps(value):
    return DEFAULT(value)
'''

LENIENT_CODEC = '''
import codecreg


def _encode(value):
    return repr(value)


codecreg.register(_encode)
'''

CODEC_STRICT = '''
import math

import codecreg


def _encode(value):
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError("not a finite number")
    return repr(value)


codecreg.register(_encode)
'''

CODEC_PROPS = '''
import lenient_codec  # the project's own messages use the lenient codec ...
import codec_strict  # ... but the wire format is strict: imported last, it is the default

import codecreg


def average(values):
    return sum(values) / len(values) if values else float("nan")  # the patch: nan for no values


def prop_average_is_sendable(p):
    codecreg.dumps(average([]))
    return True
'''


def test_the_parent_imports_the_dependencies_in_the_order_a_cold_start_does(tmp_path):
    repo, env = _build(tmp_path, {"p.py": CODEC_PROPS},
                       {"codecreg.py": CODECREG, "lenient_codec.py": LENIENT_CODEC, "codec_strict.py": CODEC_STRICT})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_average_is_sendable", [{}, {}])
    assert [outcome for outcome, _ in cold] == ["fail", "fail"], cold  # ValueError: not a finite number
    assert warm == cold, (warm, note)


# --- 4. a source codec a dependency registers on import is there before the repository's files compile -------

FSTR_CODEC = '''
import codecs


def _search(name):
    if name != "fstr":
        return None
    utf8 = codecs.lookup("utf-8")
    return codecs.CodecInfo(name="fstr", encode=utf8.encode, decode=utf8.decode,
                            incrementalencoder=utf8.incrementalencoder, incrementaldecoder=utf8.incrementaldecoder,
                            streamreader=utf8.streamreader, streamwriter=utf8.streamwriter)


codecs.register(_search)
'''

CODEC_GEO = "# -*- coding: fstr -*-\ndef ok():\n    return True\n"

CODEC_ORDER_PROPS = "import geo\nimport fstr_codec\n\n\ndef prop_geo(p):\n    return geo.ok()\n"


def test_a_codec_registered_by_a_later_import_does_not_compile_an_earlier_repository_module(tmp_path):
    repo, env = _build(tmp_path, {"p.py": CODEC_ORDER_PROPS, "geo.py": CODEC_GEO},
                       {"fstr_codec/__init__.py": FSTR_CODEC})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_geo", [{}, {}])
    assert [outcome for outcome, _ in cold] == ["fail", "fail"], cold  # SyntaxError in geo.py
    assert warm == cold, (warm, note)


def test_control_the_codec_imported_first_compiles_the_module_cold_too(tmp_path):
    props = "import fstr_codec\nimport geo\n\n\ndef prop_geo(p):\n    return geo.ok()\n"
    repo, env = _build(tmp_path, {"p.py": props, "geo.py": CODEC_GEO}, {"fstr_codec/__init__.py": FSTR_CODEC})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_geo", [{}, {}])
    assert cold == [("pass", None)] * 2, cold
    assert warm == cold, (warm, note)
