"""Attacks on the warm start, sixth review: commit fe3c0e3 (an audit hook `_Watch`, on while the parent imports
the dependencies, starts the series cold when they add an audit hook, read a file of the checkout or list a
folder; trace/profile functions, itimers, gc callbacks and sys.path_hooks are checked after the imports; only
imports outside function bodies are warmed).

Every test asserts the SAFE behaviour (a warm evaluation ends as a cold one of the same head does). The review
found the breaks below, each mended since (witness_gate/warm_parent.py, warm_imports.py): a module that is not
a plain module (a lazy one) starts the series cold, and no module attribute is read but through its __dict__;
only imports that surely run when a module is imported are warmed (its top, a `try` body, a class body),
through repository modules that are themselves imported so; the repository's folders stay on sys.path while
the parent imports, where a finder first on sys.meta_path refuses (and notes) every name they provide. The
breaks, most severe first, each with ordinary dependencies:
1. dependency code runs in the parent after WATCH.on = False: warm_imports reads getattr(module, "__file__")
   of every module the imports added, and a module registered with importlib.util.LazyLoader, or a lazy
   namespace module whose class builds it on first attribute access, is executed right there. An audit hook it
   adds is seen by nothing else and takes the key in every forked child (a regression signed pass), and a
   plugin registry it runs reads and runs the repository's plugins in the parent (sections 1);
2. imports that never run cold are warmed: warm_imports._at_import drops function bodies but walks every
   branch (`if TYPE_CHECKING:`, a version guard, `if __name__ == "__main__":`, the fallback of an optional
   import), and reached() follows a repository module imported inside a function and warms its module-level
   imports; what such a package sets when imported (recursion limit, environment) holds warm only, and a
   regression passes (sections 2, 3);
3. a dependency that probes sys.path for a project's module by name (os.path.isfile along sys.path, or
   importlib.machinery.PathFinder.find_spec, which bypasses sys.meta_path and lists through the exempt
   FileFinder._fill_cache) finds the patch's module cold and never warm (section 4).
"""

import pytest

from witness_gate.sandbox import bwrap_works
from warmcases import KEY_THIEF_MODULE, build as _build, rows as _rows, warm_and_cold as _warm_and_cold

pytestmark = pytest.mark.skipif(bool(bwrap_works()), reason="bubblewrap cannot run here")


# --- 1. a lazily loaded module runs when the parent reads its __file__, after the watch is off ------------------

# the package the property imports: its registry submodule is loaded on first attribute access
LAZY_PACKAGE = '''
import importlib.util
import sys


def _lazy(name):
    spec = importlib.util.find_spec(name)
    loader = importlib.util.LazyLoader(spec.loader)
    spec.loader = loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    loader.exec_module(module)
    return module


registry = _lazy("lazyplug_registry")
'''

# an audit hook (as review 5, section 7): in a forked child it sees os.chdir while fd 0 still holds the key
AUDIT_REGISTRY = KEY_THIEF_MODULE

LAZY_PROPS = "import lazyplug\n\n\ndef prop_regression(p):\n    return 'regression'\n"


def test_a_lazily_loaded_dependency_cannot_add_an_audit_hook_after_the_watch_is_off(tmp_path):
    repo, env = _build(tmp_path, {"p.py": LAZY_PROPS},
                       {"lazyplug.py": LAZY_PACKAGE, "lazyplug_registry.py": AUDIT_REGISTRY})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_regression", [{}, {}])
    assert cold == [("fail", "regression")] * 2
    assert warm == cold, (warm, note)


def test_control_the_same_hook_imported_eagerly_sends_the_series_cold(tmp_path):
    repo, env = _build(tmp_path, {"p.py": "import lazyplug_registry\n\n\ndef prop_regression(p):\n"
                                           "    return 'regression'\n"},
                       {"lazyplug_registry.py": AUDIT_REGISTRY})
    warm, note = _rows(repo, env, "p.py::prop_regression", [{}, {}], True)
    assert warm == [("fail", "regression")] * 2
    assert "warm start not used" in note, note


# the same route for the repository's own code: a plugin registry (loaded lazily) that reads the project's
# plugins/ and runs them under a name of its own, as review 5, section 1 did eagerly
PLUGIN_REGISTRY = '''
import os

PLUGINS = {}
if os.path.isdir("plugins"):
    for _name in sorted(os.listdir("plugins")):
        if _name.endswith(".py"):
            with open(os.path.join("plugins", _name), encoding="utf-8") as _handle:
                _source = _handle.read()
            _namespace = {"__name__": "plugin_" + _name[:-3]}
            exec(compile(_source, f"<plugin {_name[:-3]}>", "exec"), _namespace)
            PLUGINS[_name[:-3]] = _namespace
'''

PLUGIN_PID = "import os\nPID = os.getpid()\n"

PLUGIN_PROPS = '''
import os
import lazyplug


def prop_where(p):
    return "own-process" if lazyplug.registry.PLUGINS["rules"]["PID"] == os.getpid() else "another-process"
'''


def test_a_lazily_loaded_plugin_registry_never_runs_the_repository_s_code_in_the_warm_parent(tmp_path):
    repo, env = _build(tmp_path, {"p.py": PLUGIN_PROPS, "plugins/rules.py": PLUGIN_PID},
                       {"lazyplug.py": LAZY_PACKAGE, "lazyplug_registry.py": PLUGIN_REGISTRY})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_where", [{}])
    assert cold == [("fail", "own-process")]
    assert warm == cold, (warm, note)


# --- 2. an import that never runs cold: `if TYPE_CHECKING:` (and other branches never taken) -------------------

# fe3c0e3 warms only imports outside function bodies (warm_imports._at_import), but every branch of the module
# body is walked: the import under `if TYPE_CHECKING:` (the ordinary way to name a heavy package in annotations
# only) or under a version guard never taken is imported by the warm parent and never cold. What that package sets
# process-wide when imported (as review 5, section 2: the recursion limit, the int-digit limit, the environment)
# then holds in every warm child: the patch's recursive `work` overflows the stack on every cold start (a
# regression) and passes warm.
GUARDS = {
    "type-checking": "from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    import heavydep\n",
    "version-guard": "import sys\n\nif sys.version_info < (3, 8):\n    import heavydep\n",
    "main-guard": "if __name__ == '__main__':\n    import heavydep\n",
    # the fallback of an optional import, taken only when the first choice is missing
    "fallback": "try:\n    import json as fastjson\nexcept ImportError:\n    import heavydep as fastjson\n",
}

UNTAKEN_CASES = {
    "recursion": ("import sys\nsys.setrecursionlimit(20000)  # deep expression trees\n",
                  "def work(n):\n    return 0 if n == 0 else 1 + work(n - 1)\n",
                  "calc.work(3000) == 3000 or 'wrong'"),
    "environ": ("import os\nos.environ.setdefault('OMP_NUM_THREADS', '1')\n",
                "import os\n\n\ndef work(n):\n    return os.environ.get('OMP_NUM_THREADS', 'all')\n",
                "calc.work(0) == '1' or 'threads:' + calc.work(0)"),
}


@pytest.mark.parametrize("guard", list(GUARDS))
@pytest.mark.parametrize("case", list(UNTAKEN_CASES))
def test_a_package_imported_only_under_a_branch_never_taken_is_not_imported_warm(tmp_path, guard, case):
    dep, calc, check = UNTAKEN_CASES[case]
    props = f"import calc\n\n\ndef prop_work(p):\n    return {check}\n"
    repo, env = _build(tmp_path, {"p.py": props, "calc.py": GUARDS[guard] + "\n\n" + calc}, {"heavydep.py": dep})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_work", [{}, {}])
    assert cold[0][0] == "fail", cold  # the regression, as every cold start sees it
    assert warm == cold, (warm, note)


def test_control_the_same_package_imported_unconditionally_agrees_warm_and_cold(tmp_path):
    dep, calc, check = UNTAKEN_CASES["recursion"]
    props = f"import calc\n\n\ndef prop_work(p):\n    return {check}\n"
    repo, env = _build(tmp_path, {"p.py": props, "calc.py": "import heavydep\n\n\n" + calc}, {"heavydep.py": dep})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_work", [{}])
    assert warm == cold == [("pass", None)], (warm, cold, note)


# --- 3. a dependency one repository hop away from a lazy import ------------------------------------------------

# reached() follows the repository's own files wherever they are imported, function bodies included, and then
# warms each such file's module-level imports. A repository module imported lazily (inside a function: `from
# calc import helpers` when first needed) is never run by a cold evaluation that does not call that function,
# yet the package it imports at module level is imported by the warm parent: review 5, section 2 one hop on.
HOP_CALC = """

def solve(x):
    import helpers  # the slow path, loaded only when used
    return helpers.slow(x)
"""


def test_a_dependency_of_a_lazily_imported_repository_module_is_not_imported_warm(tmp_path):
    dep, calc, check = UNTAKEN_CASES["recursion"]
    props = f"import calc\n\n\ndef prop_work(p):\n    return {check}\n"
    repo, env = _build(tmp_path, {"p.py": props, "calc.py": calc + HOP_CALC,
                                  "helpers.py": "import heavydep\n\n\ndef slow(x):\n    return x\n"},
                       {"heavydep.py": dep})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_work", [{}, {}])
    assert cold[0][0] == "fail", cold
    assert warm == cold, (warm, note)


# --- 4. a dependency that probes the path for a project's module without listing a folder ---------------------

# fe3c0e3 sees a scan of the path as os.listdir / os.scandir and an ask for a repository name as a find_spec on
# sys.meta_path. A package that looks for a project's override module by name, with os.path.isfile along
# sys.path (no audit event) or importlib.machinery.PathFinder.find_spec (the path finder itself, not
# sys.meta_path; its listing is FileFinder._fill_cache, exempt) does neither. The warm parent's path has no
# repository: the patch's override (a regression) is found cold and never warm.
PROBE_DEPS = {
    "isfile": '''
import importlib, os, sys

# a project may override the rate with a module pricing_local on its path, loaded when first used
LOCAL = any(os.path.isfile(os.path.join(folder, "pricing_local.py")) for folder in sys.path if folder)
''',
    "pathfinder": '''
import importlib, importlib.machinery

LOCAL = importlib.machinery.PathFinder.find_spec("pricing_local") is not None
''',
}

PROBE_TAIL = '''

def rate():
    value = 10
    if LOCAL:
        value = importlib.import_module("pricing_local").adjust(value)
    return value
'''

PROBE_REPO = {
    "pricing_local.py": "def adjust(value):\n    return value + 1  # the patch\n",
    "p.py": "import pricing\n\n\ndef prop_rate(p):\n    return pricing.rate() == 10 or f'rate:{pricing.rate()}'\n",
}


@pytest.mark.parametrize("probe", list(PROBE_DEPS))
def test_a_project_module_a_dependency_probes_for_by_name_is_found_warm_as_cold(tmp_path, probe):
    repo, env = _build(tmp_path, PROBE_REPO, {"pricing.py": PROBE_DEPS[probe] + PROBE_TAIL})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_rate", [{}, {}])
    assert cold == [("fail", "rate:11")] * 2  # the regression, as every cold start sees it
    assert warm == cold, (warm, note)


def test_control_the_same_probe_through_importlib_util_find_spec_sends_the_series_cold(tmp_path):
    dep = "import importlib, importlib.util\n\nLOCAL = importlib.util.find_spec('pricing_local') is not None\n"
    repo, env = _build(tmp_path, PROBE_REPO, {"pricing.py": dep + PROBE_TAIL})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_rate", [{}, {}])
    assert warm == cold == [("fail", "rate:11")] * 2, (warm, note)
    assert "warm start not used" in note, note


# the same route without LazyLoader: a package that puts a module object of its own class in sys.modules
# for a submodule made on first use (an apipkg- or `sh`-style lazy namespace) has no __file__ of its own, so
# the parent's getattr(module, "__file__", None) asks its class's __getattr__, which builds it then
NAMESPACE_PACKAGE = '''
import importlib.util, sys, types

_SPEC = importlib.util.find_spec("lazyplug_registry")  # found now, run when first used


class _Namespace(types.ModuleType):
    def __getattr__(self, name):
        if name.startswith("__") and name != "__file__":
            raise AttributeError(name)
        real = importlib.util.module_from_spec(_SPEC)
        _SPEC.loader.exec_module(real)
        self.__dict__.update(real.__dict__)
        return getattr(real, name)


sys.modules["lazyplug.registry"] = registry = _Namespace("lazyplug.registry")
'''


def test_a_lazy_namespace_module_cannot_add_an_audit_hook_after_the_watch_is_off(tmp_path):
    repo, env = _build(tmp_path, {"p.py": LAZY_PROPS},
                       {"lazyplug.py": NAMESPACE_PACKAGE, "lazyplug_registry.py": AUDIT_REGISTRY})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_regression", [{}, {}])
    assert cold == [("fail", "regression")] * 2
    assert warm == cold, (warm, note)
