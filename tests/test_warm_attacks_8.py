"""Attacks on the warm start, eighth review: commit 917a6bf (only what the property's module imports before any
other statement of it runs is warmed, in its order, up to the first import of the repository's and the first
line of a `try`; `import a.b` imports the submodule with no attribute check).

Every test asserts the SAFE behaviour (a warm evaluation ends as a cold one of the same head does). The break
below, with an ordinary dependency and plain repository code, is mended: a star import ends the warmed run
(its package is warmed, nothing after it):
0. `from package import *` is warmed as `import package` alone (warm_imports._statement_names drops the `*`),
   but the statement itself imports every submodule the package's `__all__` names, cold before the property
   module's next import and warm only in the child, after the parent has imported that next one. A package
   whose `__all__` lists a plugin submodule that registers itself as the package's default when imported (the
   last one wins, as `matplotlib.use`-style registries do) and a second plugin imported next: cold the second
   one is the default, warm the star-imported one, and a regression that fails on every cold evaluation
   passes warm (section 0).
"""

import pytest

from witness_gate.sandbox import bwrap_works
from warmcases import build as _build, warm_and_cold as _warm_and_cold

pytestmark = pytest.mark.skipif(bool(bwrap_works()), reason="bubblewrap cannot run here")


# --- 0. `from package import *` imports the submodules its __all__ names: cold before the next import ---------

UNITFMT_INIT = '''
__all__ = ["parse", "register", "legacy"]  # legacy: the 1.x parser, a submodule

_parsers = {}
_default = [None]


def register(name, parser):
    """A parser registers itself when imported; the last one registered is the default."""
    _parsers[name] = parser
    _default[0] = parser


def parse(text):
    return _default[0](text)
'''

UNITFMT_LEGACY = '''
import unitfmt


def _lenient(text):
    number, _, unit = text.partition(" ")
    unit = unit.rstrip("s")  # the 1.x spelling "kms"
    return float(number) * (1000.0 if unit == "km" else 1.0)


unitfmt.register("legacy", _lenient)
'''

UNITFMT_STRICT = '''
import unitfmt


def _strict(text):
    number, _, unit = text.partition(" ")
    if unit not in ("m", "km"):
        raise ValueError(f"unknown unit {unit!r}")
    return float(number) * (1000.0 if unit == "km" else 1.0)


unitfmt.register("strict", _strict)
'''

STAR_PROPS = '''
from unitfmt import *
import unitfmt_strict  # the project's tests run the strict parser


def distance(text):
    return parse(text.replace("kilometres", "kms"))  # the patch: an unknown unit name


def prop_two_km(p):
    return distance("2 kilometres") == 2000.0
'''

STAR_ENV = {"unitfmt/__init__.py": UNITFMT_INIT, "unitfmt/legacy.py": UNITFMT_LEGACY,
            "unitfmt_strict.py": UNITFMT_STRICT}


def test_a_star_import_imports_the_submodules_of_all_before_the_next_import_warm_too(tmp_path):
    repo, env = _build(tmp_path, {"p.py": STAR_PROPS}, STAR_ENV)
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_two_km", [{}, {}])
    assert [outcome for outcome, _ in cold] == ["fail", "fail"], cold  # ValueError: unknown unit 'kms'
    assert warm == cold, (warm, note)


def test_control_the_star_import_after_the_plugin_is_the_same_warm_and_cold(tmp_path):
    props = STAR_PROPS.replace("from unitfmt import *\nimport unitfmt_strict",
                               "import unitfmt_strict\nfrom unitfmt import *")
    repo, env = _build(tmp_path, {"p.py": props}, STAR_ENV)
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_two_km", [{}, {}])
    assert [outcome for outcome, _ in cold] == ["pass", "pass"], cold  # the legacy parser, last, is the default
    assert warm == cold, (warm, note)
