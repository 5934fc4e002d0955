"""Attacks on the warm start, tenth review: commits 8a5818f and bf92013.

Every test asserts the SAFE behaviour (a warm evaluation ends as a cold one of the same head does). Each break
below made a regression (a property failing on every cold evaluation) `pass` warm, with no note; KEY marks a
pass signed with the evaluation's own key. All are mended: the stand-in held by anything but sys.modules sends
the series cold; the checkout is compiled before the imports, collection stops as they end, and final() asks
everything again; the parent's hard CPU limit is the evaluation's; the compile cache is used only while the
loader's source_to_code, compile and the frame-removing call are the stock ones.
1. the stand-in module: a dependency that keeps its importer's globals (the frame's f_globals) to read settings
   from later keeps the stand-in's namespace warm, the property module's cold;
2. KEY: the parent still runs Python code a dependency can patch after the imports (compile_reached ->
   harness_imports.precompile -> SourceOnlyLoader.source_to_code, warnings ...), after changed() and before
   final(), which does not ask for a trace function again: a tracer set there runs in each child before the key
   is read;
3. the CPU limit during the imports is the evaluation's soft limit only: the hard one is the series' hour, so a
   library that raises its soft limit to the hard one (the NOFILE idiom) takes a budget 300 times larger warm;
4. the compile cache (whose coding-declaration mend covers codecs only) returns code compiled in the parent
   without the loader's source_to_code, which the property module patched (a contracts import hook) before
   importing the implementation;
5. KEY: the parent collects garbage until just before final(): a dependency's finalizer run after changed() (by a
   collection in compile_reached, with the default thresholds and a checkout of 200 small modules) sets the same
   tracer.
"""

import pytest

from witness_gate.sandbox import bwrap_works
from warmcases import build as _build, rows as _rows, warm_and_cold as _warm_and_cold

pytestmark = pytest.mark.skipif(bool(bwrap_works()), reason="bubblewrap cannot run here")


# --- 1. a dependency that keeps its importer's namespace: the stand-in's warm ------------------------------------

# A settings helper that reads its importer's module-level settings lazily (the importer's frame's f_globals,
# found by walking past the import system's frames, as dotenv walks to its importer's file). Cold that namespace is
# the property module's, which sets STRICT_UNITS right after the import. Warm it is the stand-in's namespace, which
# warm_imports drops from sys.modules and never fills: the module itself is freed (so _repository_code sees no
# module of the repository's file), its dict lives on in the dependency.
CALLERCONF = '''
import sys


def _importer_namespace():
    frame = sys._getframe(1)
    while frame is not None and (frame.f_code.co_filename.startswith("<") or frame.f_globals is globals()):
        frame = frame.f_back
    return frame.f_globals if frame is not None else {}


_SETTINGS = _importer_namespace()


def setting(name, default=None):
    return _SETTINGS.get(name, default)
'''

CALLER_UNITS = '''
import callerconf

UNITS = {"m": 1.0, "km": 1000.0}


def metres(text):
    number, _, unit = text.partition(" ")
    unit = {"kms": "km"}.get(unit, unit)  # the patch
    if callerconf.setting("STRICT_UNITS", False) and unit not in UNITS:
        raise ValueError(f"unknown unit {unit!r}")
    return float(number) * UNITS.get(unit, 1.0)
'''

CALLER_PROPS = '''
import callerconf

STRICT_UNITS = True  # the project's policy, read by callerconf from its importer

import units  # noqa: E402


def prop_units_are_known(p):
    return units.metres("2 furlongs") == 2.0 or "wrong"
'''


def test_a_dependency_that_keeps_its_importer_s_namespace_keeps_the_property_module_s_warm_too(tmp_path):
    repo, env = _build(tmp_path, {"p.py": CALLER_PROPS, "units.py": CALLER_UNITS}, {"callerconf.py": CALLERCONF})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_units_are_known", [{}, {}])
    assert [outcome for outcome, _ in cold] == ["fail", "fail"], cold  # ValueError: unknown unit 'furlongs'
    assert warm == cold, (warm, note)


def test_control_without_the_setting_warm_and_cold_agree(tmp_path):
    props = CALLER_PROPS.replace("STRICT_UNITS = True", "STRICT_UNITS = False")
    repo, env = _build(tmp_path, {"p.py": props, "units.py": CALLER_UNITS}, {"callerconf.py": CALLERCONF})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_units_are_known", [{}])
    assert cold == [("pass", None)], cold
    assert warm == cold, (warm, note)


# --- 2. KEY: Python code the parent runs after changed(): a tracer set there reaches every child -----------------

# A "trace the project's code" helper: it wraps the import system's source_to_code (as import-hook libraries do) and
# starts its tracer the first time a file of the working directory is compiled. During the imports nothing of the
# checkout is compiled (the watch sees no tracer). Then compile_reached -> precompile compiles p.py through the
# patched SourceOnlyLoader.source_to_code, after changed() asked for a trace function; final() asks only for audit
# hooks, builtins, sys.modules and threads. Each child inherits the tracer, which sees read_key called and reads
# the key first. Cold the harness read its key long before the dependency is imported: stdin is /dev/null.
TRACE_DEP = r'''
import importlib.machinery
import os
import sys

import _hashlib


def _tracer(frame, event, arg):
    if event == "call" and frame.f_code.co_name == "read_key":
        try:
            key = os.read(0, 256).split(b"\n")[0].strip()
        except OSError:
            return None
        if key:
            body = b"pass - "
            os.write(1, b"\nwitness-verdict " + body + b" " + _hashlib.hmac_digest(key, body, "sha256").hex().encode()
                     + b"\n")
            os._exit(0)
    return None


_real = importlib.machinery.SourceFileLoader.source_to_code


def source_to_code(self, data, path, *args, **kwargs):
    if not os.path.isabs(path) or path.startswith(os.getcwd() + os.sep):  # the project's own files
        if sys.gettrace() is None:
            sys.settrace(_tracer)
    return _real(self, data, path, *args, **kwargs)


importlib.machinery.SourceFileLoader.source_to_code = source_to_code
'''

REGRESSION_PROPS = "import {dep}\n\n\ndef prop_regression(p):\n    return 'regression'\n"


def test_a_tracer_set_while_the_parent_compiles_the_checkout_cannot_take_the_key(tmp_path):
    repo, env = _build(tmp_path, {"p.py": REGRESSION_PROPS.format(dep="tracecode")}, {"tracecode.py": TRACE_DEP})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_regression", [{}, {}])
    assert cold == [("fail", "regression")] * 2
    assert warm == cold, (warm, note)


def test_control_a_tracer_set_while_the_dependencies_are_imported_ends_the_warm_start(tmp_path):
    # the same tracer set when imported (the watch's time) is seen by changed(): the series starts cold
    dep = TRACE_DEP + "\nsys.settrace(_tracer)\n"
    repo, env = _build(tmp_path, {"p.py": REGRESSION_PROPS.format(dep="tracecode")}, {"tracecode.py": dep})
    warm, note = _rows(repo, env, "p.py::prop_regression", [{}], True)
    assert warm == [("fail", "regression")] and "trace" in note, (warm, note)


# --- 3. the hard CPU limit during the imports is the series' hour --------------------------------------------------

# The search library of review 9 (attack 7), raising its soft CPU limit to the hard one when imported, as libraries
# raise RLIMIT_NOFILE, so that a long search is not killed by SIGXCPU but gives up on its own budget. The warm
# parent's imports run with the evaluation's soft limit but the series' hard limit (WARM_CPU_SECONDS): the budget is
# an hour's share warm, the evaluation's cold.
HARD_BUDGET_DEP = '''
import resource
import time

_soft, _hard = resource.getrlimit(resource.RLIMIT_CPU)
if _soft != _hard:
    resource.setrlimit(resource.RLIMIT_CPU, (_hard, _hard))  # all the CPU this process may ever have
_soft = resource.getrlimit(resource.RLIMIT_CPU)[0]
BUDGET = _soft / 40 if _soft != resource.RLIM_INFINITY else None  # seconds of CPU


class OutOfBudget(Exception):
    pass


def search(candidates, accept):
    for candidate in candidates:
        if BUDGET is not None and time.process_time() > BUDGET:
            raise OutOfBudget(f"gave up after {BUDGET:.2f}s of CPU")
        if accept(candidate):
            return candidate
    return None
'''

BUDGET_IMPL = '''
import time

import budgetsearch


def _slow_accept(n):
    end = time.process_time() + 0.0004  # the patch: a check a thousand times slower
    while time.process_time() < end:
        pass
    return n == 900


def find():
    return budgetsearch.search(range(2000), _slow_accept)
'''

BUDGET_PROPS = '''
import budgetsearch

import finder


def prop_finds_it(p):
    return finder.find() == 900 or "wrong"
'''


def test_a_dependency_that_raises_its_cpu_limit_to_the_hard_one_gets_the_evaluation_s_warm_too(tmp_path):
    repo, env = _build(tmp_path, {"p.py": BUDGET_PROPS, "finder.py": BUDGET_IMPL},
                       {"budgetsearch.py": HARD_BUDGET_DEP})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_finds_it", [{}])
    assert cold == [("fail", "raise:OutOfBudget@finder.py:15")], cold
    assert warm == cold, (warm, note)


# --- 4. the compile cache skips a source_to_code the property module patched -------------------------------------

# A contracts library whose install() wraps the import system's source_to_code (turning `#@ require:` comment lines
# into asserts), called by the project's property module before it imports the implementation: the same contracts as
# review 9's codec, with no coding declaration. The parent compiled pricing.py (compile_reached) before any
# install() ran; each child's SourceOnlyLoader.get_code returns that code for the same bytes without calling
# source_to_code, which cold is the patched one.
CONTRACT_HOOK = r'''
import importlib.machinery

_real = importlib.machinery.SourceFileLoader.source_to_code


def _transform(text):
    lines = []
    for line in text.splitlines(keepends=True):
        body = line.lstrip()
        if body.startswith("#@ require:"):
            indent = line[:len(line) - len(body)]
            line = f"{indent}assert {body[len('#@ require:'):].strip()}\n"
        lines.append(line)
    return "".join(lines)


def _source_to_code(self, data, path, *args, **kwargs):
    if isinstance(data, (bytes, bytearray)):
        data = _transform(bytes(data).decode("utf-8")).encode("utf-8")
    return _real(self, data, path, *args, **kwargs)


def install():
    importlib.machinery.SourceFileLoader.source_to_code = _source_to_code
'''

PRICING = '''

def total(lines):
    result = sum(line["qty"] * line["price"] for line in lines) - 5  # the patch: a discount for everyone
    #@ require: result >= 0
    return result
'''

HOOK_PROPS = '''
import contracthook

contracthook.install()  # the project's properties run with the contracts on

import pricing  # noqa: E402


def prop_total_of_one_cheap_line(p):
    pricing.total([{"qty": 1, "price": 1}])
'''


def test_the_compile_cache_gives_a_file_what_a_patched_source_to_code_gives_it_cold(tmp_path):
    repo, env = _build(tmp_path, {"p.py": HOOK_PROPS, "pricing.py": PRICING}, {"contracthook.py": CONTRACT_HOOK})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_total_of_one_cheap_line", [{}, {}])
    assert cold == [("fail", "raise:AssertionError@pricing.py:5")] * 2, cold
    assert warm == cold, (warm, note)


# --- 5. KEY: a finalizer the collector runs in the parent after changed() -------------------------------------------

# The same tracer, set by the finalizer of a garbage cycle a dependency leaves when imported. The parent collects
# garbage until serve's _gc_disable(), long after the watch is off and changed() asked for a trace function: a
# finalizer run by a collection inside warm_imports (or the checks) leaves a new cycle behind; one run later (in
# compile_reached, the sweep's snapshot, final() ...) sets the tracer, which every child inherits.
FINALIZER_DEP = TRACE_DEP.split("_real = ")[0] + r'''
import gc


class _Cache:
    def __init__(self):
        self.entries = {"self": self}  # a cycle: only the collector frees it

    def __del__(self):
        frame, names = sys._getframe(1), set()
        while frame is not None:
            names.add(frame.f_code.co_name)
            frame = frame.f_back
        if "serve" in names and "warm_imports" not in names:
            sys.settrace(_tracer)
        else:
            _Cache()


_Cache()
'''

# a checkout of some size (200 small modules): the parent compiles each module the property reaches, with the
# collector on, the default thresholds: at least one collection falls there
MODULES = {f"mod{i}.py": f"def f{i}(x):\n    return [x, {{'i': {i}}}]\n" for i in range(200)}
MANY_PROPS = ("import cachedep\n\nimport " + ", ".join(f"mod{i}" for i in range(200))
              + "\n\n\ndef prop_regression(p):\n    return 'regression'\n")


def test_a_finalizer_run_after_the_checks_cannot_set_a_tracer_that_takes_the_key(tmp_path):
    repo, env = _build(tmp_path, {"p.py": MANY_PROPS, **MODULES}, {"cachedep.py": FINALIZER_DEP})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_regression", [{}, {}])
    assert cold == [("fail", "regression")] * 2
    assert warm == cold, (warm, note)
