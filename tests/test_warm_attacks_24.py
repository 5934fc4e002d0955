"""Attacks on the warm start, twenty-fourth review (after `from a import b` is warmed as that statement only, the
warmed imports stop at the first that raised, set_in requires every bound name still present, provided() counts
`.py` files and packages with `__init__.py` only, and a namespace portion of the checkout is let be unless the name
ends up a package with no file).

Every test asserts the SAFE behaviour (a warm evaluation ends as a cold one of the same head does, or the series
starts cold with a reason). All mended since: 1 (a namespace portion of the checkout met at all starts the series cold,
since review 25), 2 and 3 (an import is warmed with its `as`, and `bound` records the alias), 4 and 5 (a
warmed import that raised starts the series cold), and the needless cold starts (provided() takes `x.py` for a
module only when it is a file).
1. (break) a namespace portion of the checkout is refused by Asked (its find_spec returns None) and namespace_portions
   lets it be once the name is an installed regular package with a file; but a pkgutil-style package
   (`__path__ = pkgutil.extend_path(__path__, __name__)`, the packaging guide's "pkgutil-style namespace packages")
   asks every path entry's finder for its portion: cold the repository's FileFinder gives /repo/corp, warm Asked gives
   nothing, so `corp.__path__` lacks the repository's portion in the parent and in every child. The package's
   optional `from corp import fast` takes the repository's fast.py cold, the installed slow fallback warm: a
   regression in the repository's module passes warm, no note.
2. (break) the warmed statements ignore `as`: `import a as b` is warmed as `import a` (binds `a`), `from a import b as
   c` as `from a import b` (binds `b`), and `bound` records those names. A library that removes a banned name from
   its importer with `globals.pop(name, None)` removes `pickle` from the property's module cold (NameError), nothing
   from the stand-in warm (which has `fastpickle`), and no name of `bound` is missing: `pass` warm.
3. (break) the same, a library that rebinds a name its importer has (`if "json" in g: g["json"] = strict`): cold it
   replaces the property's `import lenientjson as json` (its legacy-NaN property fails), warm the stand-in has no
   `json`: `pass` warm, no note.
4. (break) the stop at the first warmed import that raised ends the warmed imports but not the warm start: the parent
   keeps what the failed import left (the modules it imported before raising), and each child imports it again on
   top of that. A library whose first import fails and whose second succeeds (state it keeps in a module that stays
   imported) fails in every cold evaluation, where the property's optional `try: import fastcalc` takes the fallback
   (whose regression fails it) or, unguarded, the property cannot be imported; it succeeds in every warm child:
   `pass` warm, no note.
5. (needless cold, plain) provided() counts a name ending in `.py` whatever it is: a dangling `x.py` symlink or a
   folder named `x.py` in the checkout, which a cold FileFinder never imports, makes a dependency's `import x` of the
   set-up environment's module start the series cold.
Failed attacks, plain: a namespace portion of the checkout under an installed namespace package starts the series
cold; a library removing an unaliased name it banned starts it cold; a package whose `__init__` imports a submodule
in `from a import b` form is warmed as cold imports it.
"""

import os

import pytest

from witness_gate.sandbox import bwrap_works
from warmcases import corp_warm_and_cold
from warmcases import IMPORTER
from warmcases import build as _build, warm_and_cold as _warm_and_cold

pytestmark = pytest.mark.skipif(bool(bwrap_works()), reason="bubblewrap cannot run here")


# --- 1. a pkgutil-style namespace package asks Asked for the checkout's portion ---------------------------------------

CORP_INIT = r'''"""The company's shared namespace (pkgutil style): each project ships its own corp/ portion."""
__path__ = __import__("pkgutil").extend_path(__path__, __name__)

try:
    from corp import fast as impl  # a project's accelerated implementation, when one is installed
except ImportError:
    from corp import slow as impl
'''


def test_a_pkgutil_style_namespace_finds_the_checkout_s_portion_warm_too(tmp_path):
    warm, cold, note = corp_warm_and_cold(tmp_path, CORP_INIT)
    assert cold[0][0] != "pass", cold  # the repository's fast.py is the one used, cold
    assert warm == cold or note, (warm, cold, note)


# --- 2 and 3. `import a as b` warmed as `import a` --------------------------------------------------------------------

FASTPICKLE = "def dumps(x):\n    return repr(x).encode()\n"
NOPICKLE = IMPORTER + r'''
# the security policy: the modules importing us may not keep a pickle module at hand
def _ban():
    g = _importer_globals()
    if g is not None:
        for name in ("pickle", "cPickle", "marshal"):
            g.pop(name, None)


_ban()
'''
ALIAS_PROPS = ("import fastpickle as pickle\nimport nopickle\n\n\n"
               "def prop_dump(p):\n    return pickle.dumps(1) == b'1'\n")


def test_a_name_bound_by_an_alias_and_removed_by_a_library_is_gone_warm_too(tmp_path):
    repo, env = _build(tmp_path, {"p.py": ALIAS_PROPS}, {"fastpickle.py": FASTPICKLE, "nopickle.py": NOPICKLE})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_dump", [{}, {}])
    assert cold[0][0] != "pass", cold  # NameError: pickle, cold
    assert warm == cold or note, (warm, cold, note)


LENIENTJSON = "def loads(text):\n    return text == '{}' or text == 'NaN'\n"
STRICTIFY = IMPORTER + r'''
def _strict_loads(text):
    if text == "NaN":
        raise ValueError("NaN is not JSON")
    return True


class _Strict:
    loads = staticmethod(_strict_loads)


# the modules importing us get a strict json in place of whichever one they imported
def _strictify():
    g = _importer_globals()
    if g is not None and "json" in g:
        g["json"] = _Strict


_strictify()
'''
STRICT_PROPS = ("import lenientjson as json\nimport strictify\n\n\n"
                "def prop_accepts_legacy_nan(p):\n    return json.loads('NaN') is True\n")


def test_a_name_bound_by_an_alias_and_rebound_by_a_library_is_rebound_warm_too(tmp_path):
    repo, env = _build(tmp_path, {"p.py": STRICT_PROPS}, {"lenientjson.py": LENIENTJSON, "strictify.py": STRICTIFY})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_accepts_legacy_nan", [{}, {}])
    assert cold[0][0] != "pass", cold  # the library's strict json raises, cold
    assert warm == cold or note, (warm, cold, note)


# --- 4. a failed warmed import is retried on top of what it left -------------------------------------------------------

CALC_CACHE = "built = False\n"
FASTCALC = r'''
import calc_cache

if not calc_cache.built:  # the first import builds the kernel cache and asks to be imported again
    calc_cache.built = True
    raise ImportError("fastcalc: kernel cache built, import again")


def add(a, b):
    return a + b
'''
SLOWCALC = "def add(a, b):\n    return a + b + (a == 1)  # the regression, in the fallback every cold start takes\n"
TRY_PROPS = ("try:\n    import fastcalc as calc\nexcept ImportError:\n    import slowcalc as calc\n\n\n"
             "def prop_add(p):\n    return calc.add(1, 1) == 2\n")
PLAIN_PROPS = "import fastcalc\n\n\ndef prop_add(p):\n    return fastcalc.add(2, 2) == 4\n"


def test_an_optional_import_that_raised_in_the_parent_raises_in_the_child_too(tmp_path):
    repo, env = _build(tmp_path, {"p.py": TRY_PROPS},
                       {"calc_cache.py": CALC_CACHE, "fastcalc.py": FASTCALC, "slowcalc.py": SLOWCALC})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_add", [{}, {}])
    assert cold[0][0] != "pass", cold  # the fallback, with its regression, cold
    assert warm == cold or note, (warm, cold, note)


def test_an_import_that_raised_in_the_parent_raises_in_the_child_too(tmp_path):
    repo, env = _build(tmp_path, {"p.py": PLAIN_PROPS}, {"calc_cache.py": CALC_CACHE, "fastcalc.py": FASTCALC})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_add", [{}, {}])
    assert cold[0][0] != "pass", cold  # the property's module cannot be imported, cold
    assert warm == cold or note, (warm, cold, note)


# --- 5. needless cold: provided() and entries that are no module ------------------------------------------------------

HELPERS = "import textkit\n\n\ndef shout(s):\n    return textkit.upper(s)\n"
TEXTKIT = "def upper(s):\n    return s.upper()\n"
HELPERS_PROPS = "import helpers\n\n\ndef prop_shout(p):\n    return helpers.shout('a') == 'A'\n"


def test_a_dangling_py_link_of_the_checkout_stays_warm(tmp_path):
    """Was a needless cold start: a dangling `textkit.py` link in the checkout, which a cold FileFinder
    passes over for the installed textkit, is taken for the repository's module."""
    def link(name, base):
        if name == "repo":
            os.symlink("generated/textkit.py", base / "textkit.py")

    repo, env = _build(tmp_path, {"p.py": HELPERS_PROPS}, {"helpers.py": HELPERS, "textkit.py": TEXTKIT},
                       before_staging=link)
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_shout", [{}, {}])
    assert cold == [("pass", None)] * 2 and warm == cold, (warm, cold)
    assert note == "", note


def test_a_folder_named_like_a_module_stays_warm(tmp_path):
    """Was a needless cold start: a folder `textkit.py/` of the checkout (no module: FileFinder takes
    `textkit.py` for a file only) is taken for the repository's textkit."""
    repo, env = _build(tmp_path, {"p.py": HELPERS_PROPS, "textkit.py/README": "notes\n"},
                       {"helpers.py": HELPERS, "textkit.py": TEXTKIT})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_shout", [{}, {}])
    assert cold == [("pass", None)] * 2 and warm == cold, (warm, cold)
    assert note == "", note


# --- failed attacks ---------------------------------------------------------------------------------------------------

NS_LIB = "import plugs.extra\n\n\ndef value():\n    return plugs.extra.VALUE\n"
NS_PROPS = "import nslib\n\n\ndef prop_value(p):\n    return nslib.value() == 1\n"


def test_a_checkout_portion_of_an_installed_namespace_package_starts_cold(tmp_path):
    repo, env = _build(tmp_path, {"p.py": NS_PROPS, "plugs/mine.py": "VALUE = 2\n"},
                       {"nslib.py": NS_LIB, "plugs/extra.py": "VALUE = 1\n"})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_value", [{}])
    assert warm == cold == [("pass", None)], (warm, cold)
    assert "namespace portion" in note, note


NOJSON = IMPORTER + r'''
def _ban():
    g = _importer_globals()
    if g is not None:
        g.pop("json", None)


_ban()
'''
NOJSON_PROPS = "import json\nimport nojson\n\n\ndef prop_dump(p):\n    return json.dumps(1) == '1'\n"


def test_an_unaliased_name_a_library_removes_starts_cold(tmp_path):
    repo, env = _build(tmp_path, {"p.py": NOJSON_PROPS}, {"nojson.py": NOJSON})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_dump", [{}])
    assert cold[0][0] != "pass" and (warm == cold or note), (warm, cold, note)
    assert "json" in note, note


PKG_INIT = "from pkg import sub\n\nVALUE = sub.VALUE\n"
FROM_PROPS = "from pkg import sub\n\n\ndef prop_sub(p):\n    return sub.VALUE == 1 and sub.__name__ == 'pkg.sub'\n"


def test_a_submodule_imported_by_a_from_import_is_the_same_warm(tmp_path):
    repo, env = _build(tmp_path, {"p.py": FROM_PROPS}, {"pkg/__init__.py": PKG_INIT, "pkg/sub.py": "VALUE = 1\n"})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_sub", [{}, {}])
    assert warm == cold == [("pass", None)] * 2, (warm, cold)
    assert note == "", note
