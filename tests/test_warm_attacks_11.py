"""Attacks on the warm start, eleventh review: commits bf92013 and 002545e.

Every test asserts the SAFE behaviour (a warm evaluation ends as a cold one of the same head does); each break made
a regression (failing every cold evaluation) `pass` warm with no note, KEY marking a pass signed with the
evaluation's own key. All are mended: the compile cache compares everything source_to_code runs and looks up
(its code and defaults, its module's `compile` and `_bootstrap`); a signal handler the imports set starts the
series cold; the stand-in importer is never freed in the parent, and a child collects garbage only once its key
is read:
1. the compile cache's stock check looks at builtins.compile and the identity of source_to_code only: a contracts
   hook the property module installs as importlib._bootstrap_external.compile (the name source_to_code looks up
   first), or into the stock source_to_code's __code__, compiles cold only;
2. KEY: a SIGINT handler made due by _thread.interrupt_main (no real signal, so the parent's block does nothing) and
   re-armed by a subscript of a defaultdict (no eval-breaker check, no recursion) runs at every check of the parent,
   is still due at the raw fork (which skips PyOS_AfterFork_Child and its clearing of tripped flags) and runs in each
   child right after its dup2s, before read_key;
3. KEY: weakref.finalize on the importer (held() sees no weak reference) runs dependency code at warm_imports'
   `del importer`, after the imports; it leaves a cycle with a finalizer and thresholds (1, -1, -1) that make the
   next automatic collection a full one; final() checks neither, and each child turns collection back on before
   read_key: its first allocation collects and the finalizer sets a tracer that sees read_key called.
"""

import pytest

from witness_gate.sandbox import bwrap_works
from warmcases import KEY_THIEF
from warmcases import build as _build, rows as _rows, warm_and_cold as _warm_and_cold

pytestmark = pytest.mark.skipif(bool(bwrap_works()), reason="bubblewrap cannot run here")


# --- 1. the compile cache's stock check: compile as the import system's own module sees it ---------------------

CONTRACTS = r'''
import importlib._bootstrap_external as _external

_compile = compile


def _transform(text):
    lines = []
    for line in text.splitlines(keepends=True):
        body = line.lstrip()
        if body.startswith("#@ require:"):
            indent = line[:len(line) - len(body)]
            line = f"{indent}assert {body[len('#@ require:'):].strip()}\n"
        lines.append(line)
    return "".join(lines)


def _contract_compile(source, filename, mode, *args, **kwargs):
    if isinstance(source, (bytes, bytearray)) and mode == "exec":
        source = _transform(bytes(source).decode("utf-8")).encode("utf-8")
    return _compile(source, filename, mode, *args, **kwargs)


def install():
    # only the import system's compile: a user's compile() and exec() stay untouched
    _external.compile = _contract_compile
'''

PRICING = '''

def total(lines):
    result = sum(line["qty"] * line["price"] for line in lines) - 5  # the patch: a discount for everyone
    #@ require: result >= 0
    return result
'''

CONTRACT_PROPS = '''
import contracts

contracts.install()  # the project's properties run with the contracts on

import pricing  # noqa: E402


def prop_total_of_one_cheap_line(p):
    pricing.total([{"qty": 1, "price": 1}])
'''


def test_compile_cache_against_a_compile_shadowed_in_the_import_system(tmp_path):
    repo, env = _build(tmp_path, {"p.py": CONTRACT_PROPS, "pricing.py": PRICING}, {"contracts.py": CONTRACTS})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_total_of_one_cheap_line", [{}, {}])
    assert cold == [("fail", "raise:AssertionError@pricing.py:5")] * 2, cold
    assert warm == cold, (warm, note)


# the same contracts put into the stock source_to_code itself, as patchy-style patchers do (its __code__ replaced
# in place): the function is still the very object _STOCK holds
CODE_SWAP = CONTRACTS.replace("    _external.compile = _contract_compile", """    def source_to_code(self, data, path, *, _optimize=-1):
        return __import__("sys").modules["contracts"]._contract_compile(data, path, "exec", dont_inherit=True,
                                                                          optimize=_optimize)

    _external.SourceLoader.source_to_code.__code__ = source_to_code.__code__""")


def test_compile_cache_against_a_source_to_code_patched_in_place(tmp_path):
    assert CODE_SWAP != CONTRACTS
    repo, env = _build(tmp_path, {"p.py": CONTRACT_PROPS, "pricing.py": PRICING}, {"contracts.py": CODE_SWAP})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_total_of_one_cheap_line", [{}])
    assert cold == [("fail", "raise:AssertionError@pricing.py:5")], cold
    assert warm == cold, (warm, note)


def test_control_a_compile_rebound_in_builtins_is_seen_by_the_stock_check(tmp_path):
    # the same contracts put in builtins.compile: _stock() sees it and every child compiles as cold does
    contracts = CONTRACTS.replace("_external.compile = _contract_compile",
                                  "__import__('builtins').compile = _contract_compile")
    repo, env = _build(tmp_path, {"p.py": CONTRACT_PROPS, "pricing.py": PRICING}, {"contracts.py": contracts})
    warm, note = _rows(repo, env, "p.py::prop_total_of_one_cheap_line", [{}], True)
    assert warm == [("fail", "raise:AssertionError@pricing.py:5")], (warm, note)


# --- 2. KEY: a Python signal handler that keeps itself due: the raw fork hands its tripped flag to every child -------

HEARTBEAT = KEY_THIEF + r'''
import collections
import os
import signal
import stat
import _thread

# each missing key calls interrupt_main(): the main thread's SIGINT handler is due again, with no thread, no timer
# and no real signal (a subscript, unlike a call, is followed by no check of what is due: no recursion)
_due = collections.defaultdict(_thread.interrupt_main)


def _attached():
    try:
        return all(stat.S_ISFIFO(os.fstat(fd).st_mode) for fd in (0, 1))
    except OSError:
        return False


def _heartbeat(signum, frame):
    if _attached():  # "the output is a pipe now: flush the progress line"
        _hook("os.chdir", ())
    _due[0]
    del _due[0]


signal.signal(signal.SIGINT, _heartbeat)
_due[0]
del _due[0]
'''

REGRESSION_PROPS = "import {dep}\n\n\ndef prop_regression(p):\n    return 'regression'\n"


def test_a_self_rearming_signal_handler_cannot_take_the_key_in_the_child(tmp_path):
    repo, env = _build(tmp_path, {"p.py": REGRESSION_PROPS.format(dep="heartbeat")}, {"heartbeat.py": HEARTBEAT})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_regression", [{}, {}])
    assert cold == [("fail", "regression")] * 2
    assert warm == cold, (warm, note)


def test_control_a_handler_due_once_runs_in_the_parent_only(tmp_path):
    # the same handler, made due once when imported and never again: it runs among the imports, no child sees it
    once = HEARTBEAT.replace("    _due[0]\n    del _due[0]\n\n\nsignal", "\n\nsignal")
    assert once != HEARTBEAT
    repo, env = _build(tmp_path, {"p.py": REGRESSION_PROPS.format(dep="heartbeat")}, {"heartbeat.py": once})
    warm, note = _rows(repo, env, "p.py::prop_regression", [{}], True)
    assert warm == [("fail", "regression")], (warm, note)


# --- 3. KEY: garbage the parent leaves for the child's first collection, which runs before read_key ----------------

# A statistics helper that flushes when the module that imported it goes away (weakref.finalize, which keeps no
# reference: held() sees nothing). Cold that module is the property module, which lives as long as the harness, and
# the flush never runs. Warm it is the stand-in, freed by warm_imports' `del importer`: the flush runs in the parent
# after the imports (gc already off, the watch off), collects, keeps its tables and leaves a cycle with a finalizer,
# with thresholds that make the next automatic collection a full one. final() asks nothing of the collector's
# thresholds or garbage; each child turns collection back on (_become_the_harness) before read_key, and its first
# allocation collects: the finalizer sets a tracer that sees read_key called.
GC_TRAP = r'''
import gc
import os
import sys
import weakref

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


_TABLES = []


class _Report:
    def __init__(self):
        self.me = self  # a cycle: only the collector frees it

    def __del__(self):
        sys.settrace(_tracer)  # "trace the next run"


def _flush():
    gc.collect()
    _TABLES.append([[] for _ in range(60000)])  # kept: long-lived
    gc.collect(1)
    _Report()
    gc.set_threshold(1, -1, -1)  # "collect eagerly from now on"


def _importer():
    frame = sys._getframe(1)
    while frame is not None and (frame.f_code.co_filename.startswith("<") or frame.f_globals is globals()):
        frame = frame.f_back
    return sys.modules.get(frame.f_globals.get("__name__")) if frame is not None else None


def _register():
    owner = _importer()
    if owner is not None:
        weakref.finalize(owner, _flush)


_register()
'''


def test_garbage_left_for_the_child_s_first_collection_cannot_take_the_key(tmp_path):
    repo, env = _build(tmp_path, {"p.py": REGRESSION_PROPS.format(dep="gcstats")}, {"gcstats.py": GC_TRAP})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_regression", [{}, {}])
    assert cold == [("fail", "regression")] * 2
    assert warm == cold, (warm, note)


def test_control_with_the_default_thresholds_the_child_s_first_collection_comes_after_the_key(tmp_path):
    # the same garbage, the thresholds left alone: the child collects it long after read_key
    trap = GC_TRAP.replace("    gc.set_threshold(1, -1, -1)  # \"collect eagerly from now on\"\n", "")
    assert trap != GC_TRAP
    repo, env = _build(tmp_path, {"p.py": REGRESSION_PROPS.format(dep="gcstats")}, {"gcstats.py": trap})
    warm, note = _rows(repo, env, "p.py::prop_regression", [{}], True)
    assert warm == [("fail", "regression")], (warm, note)
