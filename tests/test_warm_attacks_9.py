"""Attacks on the warm start, ninth review: commit bfe087b.

Every test asserts the SAFE behaviour (a warm evaluation ends as a cold one of the same head does). Each break
below made a regression (a property failing on every cold evaluation) `pass` warm, with no note; those marked
KEY signed a forged pass with the evaluation's own key. All are mended (warm_checks.py, warm_parent.py, the
harness's read_key, the compile cache, the runner's warm start):
1. a lazy object in sys.modules (Django's LazyObject, whose `__class__` is a property that sets it up) is set
   up by warm_imports' own `isinstance(module, _MODULE)`, after the watch, with the repository off sys.path:
   a settings package finds the project's `settings` module cold and none warm; KEY: an audit hook it adds
   there is seen by nothing;
2. KEY: a thread that waits for WATCH.on to turn False, adds an audit hook, and ends before _changed counts
   /proc/self/task;
3. KEY: socket.recv_fds (bound before the imports) looks `sock.recvmsg` up on the socket class at each call:
   a dependency that patched socket.socket.recvmsg answers every request in the parent, which never forks;
4. the compile cache reuses code a dependency's source codec decoded in the parent, under other settings than
   the child's (the property turns the codec's contracts on before importing the implementation);
5. a dependency's import-time look at its importer's frame (python-dotenv's find_dotenv) finds the property
   module cold and importlib/__init__.py warm: the repository's .env is loaded cold only;
6. KEY: harness.read_key calls `len` from builtins before it reads the key: a rebound builtins.len takes it;
7. the parent's imports run under RLIMIT_CPU = WARM_CPU_SECONDS (an hour), a cold start's under the
   evaluation's: a budget a dependency takes from it at import is 300 times larger warm;
8. the first warm parent of a series is started before anything settled the set-up environment's mtimes: a
   timestamp .pyc valid under the settled mtime (cold) is stale there, and the source runs instead.
"""

import pytest

from witness_gate.sandbox import bwrap_works
from warmcases import KEY_THIEF as AUDIT_THIEF
from warmcases import build as _build, rows as _rows, warm_and_cold as _warm_and_cold

pytestmark = pytest.mark.skipif(bool(bwrap_works()), reason="bubblewrap cannot run here")


REGRESSION_PROPS = "import {dep}\n\n\ndef prop_regression(p):\n    return 'regression'\n"


# --- 1. a module replaced in sys.modules by a lazy object: the parent's own isinstance() runs its set-up ------

# Django's LazyObject, as a settings package puts it in sys.modules in place of its module: `__class__` is a
# property that sets the object up first (so that isinstance() sees the wrapped class). warm_imports'
# `isinstance(module, _MODULE)` over the modules the imports added looks `__class__` up for any object that is
# not a module: the settings are set up right there, in the parent, after the watch is off and with the
# repository off sys.path (and _Asked gone). They locate the project's `settings` module by name, as
# DJANGO_SETTINGS_MODULE does: cold it is the repository's (strict units), warm none is found (defaults).
LAZYCONF = '''
import importlib
import operator
import os
import sys

empty = object()


def new_method_proxy(func):
    def inner(self, *args):
        if self._wrapped is empty:
            self._setup()
        return func(self._wrapped, *args)
    return inner


class LazyObject:
    _wrapped = None

    def __init__(self):
        self._wrapped = empty

    __getattr__ = new_method_proxy(getattr)
    __class__ = property(new_method_proxy(operator.attrgetter("__class__")))


class Settings:
    STRICT_UNITS = False  # the default

    def __init__(self, module):
        if module is not None:
            for name in dir(module):
                if name.isupper():
                    setattr(self, name, getattr(module, name))


class LazySettings(LazyObject):
    def _setup(self):
        try:
            module = importlib.import_module(os.environ.get("LAZYCONF_SETTINGS_MODULE", "settings"))
        except ImportError:
            module = None
        self._wrapped = Settings(module)


sys.modules[__name__] = LazySettings()
'''

SETTINGS = "STRICT_UNITS = True  # the project's policy, since long before the patch\n"

DISTANCE = '''
import lazyconf

UNITS = {"m": 1.0, "km": 1000.0}


def metres(text):
    number, _, unit = text.partition(" ")
    unit = {"kms": "km", "metres": "m"}.get(unit, unit)  # the patch: lenient spellings
    if lazyconf.STRICT_UNITS and unit not in UNITS:
        raise ValueError(f"unknown unit {unit!r}")
    return float(number) * UNITS.get(unit, 1.0)
'''

LAZYCONF_PROPS = '''
import lazyconf

import distance


def prop_units_are_known(p):
    return distance.metres("2 furlongs") == 2.0 or "wrong"
'''


def test_a_lazy_settings_object_in_sys_modules_is_set_up_as_cold_with_the_repository_s_settings(tmp_path):
    repo, env = _build(tmp_path, {"p.py": LAZYCONF_PROPS, "settings.py": SETTINGS, "distance.py": DISTANCE},
                       {"lazyconf.py": LAZYCONF})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_units_are_known", [{}, {}])
    assert [outcome for outcome, _ in cold] == ["fail", "fail"], cold  # ValueError: unknown unit 'furlongs'
    assert warm == cold, (warm, note)


def test_control_a_lazy_settings_object_the_property_touches_first_is_the_same_warm_and_cold(tmp_path):
    # without the repository's settings the default (lenient) holds cold too: the only difference warm is where
    # the object is set up
    repo, env = _build(tmp_path, {"p.py": LAZYCONF_PROPS, "distance.py": DISTANCE}, {"lazyconf.py": LAZYCONF})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_units_are_known", [{}])
    assert cold == [("pass", None)], cold
    assert warm == cold, (warm, note)


# the same route for a dependency's own code: what a lazy object runs when it is set up runs after the watch,
# so an audit hook it adds goes unseen, and takes every child's key
LAZY_HOOK = AUDIT_THIEF + '''
import operator
import sys


class _Lazy:
    def __init__(self):
        self._wrapped = None

    def _setup(self):
        sys.addaudithook(_hook)  # "install the tracing hook on first use"
        self._wrapped = sys

    def __getattr__(self, name):
        if self._wrapped is None:
            self._setup()
        return getattr(self._wrapped, name)

    @property
    def __class__(self):
        if self._wrapped is None:
            self._setup()
        return _Lazy


sys.modules[__name__] = _Lazy()
'''


def test_a_lazy_object_in_sys_modules_cannot_add_an_audit_hook_after_the_watch(tmp_path):
    repo, env = _build(tmp_path, {"p.py": REGRESSION_PROPS.format(dep="lazyhook")}, {"lazyhook.py": LAZY_HOOK})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_regression", [{}, {}])
    assert cold == [("fail", "regression")] * 2
    assert warm == cold, (warm, note)


# --- 2. a thread that outlives the watch and ends before the thread count -----------------------------------

# _changed counts the parent's threads (/proc/self/task) only after everything else; a thread a dependency starts
# when imported waits (watching the main thread's frames) until the watch is off, adds its audit hook then, and
# ends long before the count, which sees one thread.
THREAD_HOOK = AUDIT_THIEF + '''
import sys
import threading
import time

_interval = sys.getswitchinterval()
sys.setswitchinterval(1e-5)  # see the main thread often (put back once done)


def _later():
    main = threading.main_thread().ident
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        frame = sys._current_frames().get(main)
        while frame is not None:
            watch = frame.f_globals.get("WATCH")
            if frame.f_code.co_name == "warm_imports" and watch is not None and not watch.on:
                sys.addaudithook(_hook)
                sys.setswitchinterval(_interval)
                return
            frame = frame.f_back
        time.sleep(0.0002)
    sys.setswitchinterval(_interval)


threading.Thread(target=_later, daemon=True).start()
'''


def test_a_thread_that_ends_after_the_watch_and_before_the_count_cannot_add_an_audit_hook(tmp_path):
    repo, env = _build(tmp_path, {"p.py": REGRESSION_PROPS.format(dep="threadhook")},
                       {"threadhook.py": THREAD_HOOK})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_regression", [{}, {}])
    assert cold == [("fail", "regression")] * 2
    assert warm == cold, (warm, note)


# --- 3. the parent's request loop runs the standard library's Python code, which a dependency patched -----------

# warm_parent binds socket.recv_fds before any dependency runs, but that function looks up sock.recvmsg on the
# socket class when it is called, in the parent, for every evaluation. A dependency that patches
# socket.socket.recvmsg (as socket-instrumenting packages patch the socket class) receives each request itself:
# the evaluation's stdin (with its key), stdout and stderr. It signs a pass on that stdout and answers `done 0`
# for the parent, which never forks: no at-fork hook, no reaching into memory, and the harness never runs.
RECVMSG_DEP = r'''
import array
import os
import socket

import _hashlib

_real = socket.socket.recvmsg


def recvmsg(self, bufsize, ancbufsize=0, flags=0):
    while True:
        message, ancillary, got, address = _real(self, bufsize, ancbufsize, flags)
        fds = array.array("i")
        for level, kind, data in ancillary:
            if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                fds.frombytes(data[:len(data) - len(data) % fds.itemsize])
        if len(fds) != 3:
            return message, ancillary, got, address
        key = os.read(fds[0], 256).split(b"\n")[0].strip()
        body = b"pass - "
        os.write(fds[1], b"\nwitness-verdict " + body + b" "
                 + _hashlib.hmac_digest(key, body, "sha256").hex().encode() + b"\n")
        for fd in fds:
            os.close(fd)
        self.send(b"done 0")


socket.socket.recvmsg = recvmsg
'''


def test_a_dependency_that_patches_the_socket_class_cannot_answer_for_the_warm_parent(tmp_path):
    repo, env = _build(tmp_path, {"p.py": REGRESSION_PROPS.format(dep="sockpatch")}, {"sockpatch.py": RECVMSG_DEP})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_regression", [{}, {}])
    assert cold == [("fail", "regression")] * 2
    assert warm == cold, (warm, note)


# --- 4. the compile cache against a source codec whose output depends on the state the property sets ---------

# A source codec (registered when its package is imported, as future-fstrings-style packages do) that turns
# `#@ require: <condition>` comment lines into asserts when contracts are on (CONTRACTS=check), and leaves them
# comments otherwise. The property module imports it first (warmed), turns the contracts on, then imports the
# implementation, whose file declares the codec. Cold the implementation is decoded with the contracts on. Warm
# the parent compiled it (compile_reached, after the imports) with them off, and each child takes that code: its
# bytes, recursion limit, int-digit limit and optimisation level are the parent's, and nothing else is compared.
CONTRACT_CODEC = r'''
import codecs
import os


def _transform(text):
    if os.environ.get("CONTRACTS") != "check":
        return text
    lines = []
    for line in text.splitlines(keepends=True):
        body = line.lstrip()
        if body.startswith("#@ require:"):
            indent = line[:len(line) - len(body)]
            line = f"{indent}assert {body[len('#@ require:'):].strip()}\n"
        lines.append(line)
    return "".join(lines)


def _decode(data, errors="strict"):
    text, consumed = codecs.utf_8_decode(bytes(data), errors, True)
    return _transform(text), consumed


class _Incremental(codecs.IncrementalDecoder):  # for tokenize.open (tracebacks, linecache)
    def __init__(self, errors="strict"):
        super().__init__(errors)
        self.pending = b""

    def decode(self, data, final=False):
        self.pending += bytes(data)
        if not final:
            return ""
        data, self.pending = self.pending, b""
        return _decode(data, self.errors)[0]


def _search(name):
    if name == "contracts":
        return codecs.CodecInfo(name="contracts", encode=codecs.utf_8_encode, decode=_decode,
                                incrementaldecoder=_Incremental)
    return None


codecs.register(_search)
'''

PRICING = '''# coding: contracts


def total(lines):
    result = sum(line["qty"] * line["price"] for line in lines) - 5  # the patch: a discount for everyone
    #@ require: result >= 0
    return result
'''

CODEC_PROPS = '''
import contractcodec
import os

os.environ["CONTRACTS"] = "check"  # the project's properties run with the contracts on

import pricing  # noqa: E402


def prop_total_of_one_cheap_line(p):
    pricing.total([{"qty": 1, "price": 1}])
'''


def test_the_compile_cache_gives_a_file_a_source_codec_decodes_what_the_codec_gives_it_cold(tmp_path):
    repo, env = _build(tmp_path, {"p.py": CODEC_PROPS, "pricing.py": PRICING},
                       {"contractcodec.py": CONTRACT_CODEC})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_total_of_one_cheap_line", [{}, {}])
    assert cold == [("fail", "raise:AssertionError@pricing.py:6")] * 2, cold
    assert warm == cold, (warm, note)


def test_control_with_the_contracts_on_from_the_start_warm_and_cold_agree(tmp_path):
    # the same files but the contracts turned on before the gate starts: the parent compiles with them on too
    props = CODEC_PROPS.replace('os.environ["CONTRACTS"] = "check"', 'os.environ.setdefault("CONTRACTS", "off")')
    repo, env = _build(tmp_path, {"p.py": props, "pricing.py": PRICING}, {"contractcodec.py": CONTRACT_CODEC})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_total_of_one_cheap_line", [{}])
    assert cold == [("pass", None)], cold
    assert warm == cold, (warm, note)


# --- 5. a dependency that looks at who imported it: the importer's frame is the property module only cold ------

# A `.env` loader run on import (python-dotenv's find_dotenv + load_dotenv, as an "autoload" package does): it
# finds the first frame outside itself whose file exists and loads the nearest `.env` above that file. Cold that
# is the property module (`p.py`, relative to /repo): the repository's `.env` turns on the strict units. In the
# warm parent it is importlib/__init__.py (import_module, called by warm_parent._import): no `.env` is found
# above /usr/lib/python3.X, nothing of the repository is opened, and the watch sees nothing.
ENVAUTO = '''
import os
import sys


def _walk_to_root(path):
    last = None
    while path != last:
        yield path
        last, path = path, os.path.dirname(path)


def find_dotenv(filename=".env"):
    frame = sys._getframe()
    current_file = __file__
    while frame.f_code.co_filename == current_file or not os.path.exists(frame.f_code.co_filename):
        frame = frame.f_back
    for dirname in _walk_to_root(os.path.dirname(os.path.abspath(frame.f_code.co_filename))):
        check = os.path.join(dirname, filename)
        if os.path.isfile(check):
            return check
    return ""


def load_dotenv(path):
    if path:
        with open(path, encoding="utf-8") as handle:
            for line in handle:
                name, sep, value = line.strip().partition("=")
                if sep and not name.startswith("#"):
                    os.environ.setdefault(name, value)


load_dotenv(find_dotenv())
'''

UNITS = '''
import os

UNITS = {"m": 1.0, "km": 1000.0}


def metres(text):
    number, _, unit = text.partition(" ")
    unit = {"kms": "km"}.get(unit, unit)  # the patch
    if os.environ.get("STRICT_UNITS") == "1" and unit not in UNITS:
        raise ValueError(f"unknown unit {unit!r}")
    return float(number) * UNITS.get(unit, 1.0)
'''

ENVAUTO_PROPS = '''
import envauto

import units


def prop_units_are_known(p):
    return units.metres("2 furlongs") == 2.0 or "wrong"
'''


def test_a_dependency_that_configures_itself_from_its_importer_s_folder_does_so_warm_too(tmp_path):
    repo, env = _build(tmp_path, {"p.py": ENVAUTO_PROPS, "units.py": UNITS, ".env": "STRICT_UNITS=1\n"},
                       {"envauto.py": ENVAUTO})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_units_are_known", [{}, {}])
    assert [outcome for outcome, _ in cold] == ["fail", "fail"], cold  # ValueError: unknown unit 'furlongs'
    assert warm == cold, (warm, note)


# --- 6. the child's code before the key is read looks builtins up at run time ------------------------------------

# harness.read_key's `len(data)` (and _become_the_harness's `enumerate`) are found in builtins when they run: a
# dependency that rebinds builtins.len is called in each child while fd 0 still holds the key (cold, read_key has
# run long before the dependency is imported). The route the at-fork hook took, by another name.
LEN_DEP = AUDIT_THIEF + '''
import builtins
import sys

_len = builtins.len


def len(thing):
    if sys._getframe(1).f_code.co_name == "read_key":
        _hook("os.chdir", ())
    return _len(thing)


builtins.len = len
'''


def test_a_dependency_that_rebinds_a_builtin_cannot_take_the_key_before_the_harness(tmp_path):
    repo, env = _build(tmp_path, {"p.py": REGRESSION_PROPS.format(dep="lenhook")}, {"lenhook.py": LEN_DEP})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_regression", [{}, {}])
    assert cold == [("fail", "regression")] * 2
    assert warm == cold, (warm, note)


# --- 7. the warm parent's CPU limit is what its imports see -------------------------------------------------------

# A search library that, when imported, takes a share of the process's CPU limit as its budget (so that it gives up
# and says so instead of being killed by SIGXCPU). Cold its budget comes from the evaluation's limit (the timeout
# plus one second); in the warm parent, from WARM_CPU_SECONDS (an hour), which each child inherits as the library's
# budget although its own limit is set back to the evaluation's. The patch makes the search slow: cold it runs out
# of budget and fails, warm it finishes.
BUDGET_DEP = '''
import resource
import time

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


def test_a_dependency_that_reads_its_cpu_limit_when_imported_sees_the_evaluation_s_warm_too(tmp_path):
    repo, env = _build(tmp_path, {"p.py": BUDGET_PROPS, "finder.py": BUDGET_IMPL},
                       {"budgetsearch.py": BUDGET_DEP})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_finds_it", [{}])
    assert cold == [("fail", "raise:OutOfBudget@finder.py:15")], cold
    assert warm == cold, (warm, note)


# --- 8. the first warm parent imports the set-up environment before anything settled its timestamps -------------

# Every evaluation settles the checkout, the gate's copy and the set-up environment first (every mtime 2000-01-01;
# runner._settle), but the first warm parent of a series is started (runner._start_warm) before the first
# evaluation's settle: its imports see the environment's mtimes as the set-up left them. A timestamp-checked .pyc
# in the environment's __pycache__ (pip installs what a wheel ships, and the set-up keeps it: keep.py) is valid
# exactly when its source's mtime is the settled one: cold, the bytecode (the strict check) is what every
# evaluation runs; in that warm parent the source (lenient) is compiled instead, and every child inherits it.
UNITCHECK_SOURCE = "def check(unit):\n    return True  # the source, never run cold\n"
UNITCHECK_BYTECODE = ("def check(unit):\n    if unit not in ('m', 'km'):\n"
                      "        raise ValueError('unknown unit ' + repr(unit))\n    return True\n")

PYC_PROPS = '''
import unitcheck


def prop_known_unit(p):
    return unitcheck.check("furlong")
'''


def _env_with_bytecode(tmp_path):
    import importlib._bootstrap_external as external
    import importlib.util
    import os

    from witness_gate.staging import SETTLED_NS

    repo, env = _build(tmp_path, {"p.py": PYC_PROPS}, {"unitcheck.py": UNITCHECK_SOURCE})
    code = compile(UNITCHECK_BYTECODE, "/env/unitcheck.py", "exec")
    data = external._code_to_timestamp_pyc(code, SETTLED_NS // 10**9, len(UNITCHECK_SOURCE.encode()))
    (env / "__pycache__").mkdir()
    (env / "__pycache__" / f"unitcheck.{importlib.util.sys.implementation.cache_tag}.pyc").write_bytes(data)
    os.chmod(env / "__pycache__", 0o755)
    os.chmod(env / "__pycache__" / f"unitcheck.{importlib.util.sys.implementation.cache_tag}.pyc", 0o644)
    return repo, env


def test_the_first_warm_parent_imports_the_set_up_environment_as_settled_as_a_cold_start_sees_it(tmp_path):
    repo, env = _env_with_bytecode(tmp_path)
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_known_unit", [{}, {}])
    assert [outcome for outcome, _ in cold] == ["fail", "fail"], cold  # the bytecode's ValueError
    assert warm == cold, (warm, note)


def test_control_a_warm_parent_started_after_a_settle_runs_the_bytecode_as_cold(tmp_path):
    from witness_gate.staging import settle

    repo, env = _env_with_bytecode(tmp_path)
    settle(env)  # as the first cold evaluation (or an earlier series) of the head would have
    warm, note = _rows(repo, env, "p.py::prop_known_unit", [{}], True)
    assert [outcome for outcome, _ in warm] == ["fail"], (warm, note)


# --- the checks above stay quiet for what ordinary properties import ---------------------------------------------

def test_control_a_property_importing_common_standard_modules_is_warmed(tmp_path):
    # typing puts two classes in sys.modules (typing.io, typing.re): the only objects there that are not plain
    # modules which the warm start takes for inert; asyncio, logging, unittest and http.client start no thread,
    # add no hook and rebind no builtin at import
    props = ("import asyncio, dataclasses, decimal, email.message, enum, http.client, logging, typing, unittest\n\n\n"
             "def prop_regression(p):\n    return 'regression'\n")
    repo, env = _build(tmp_path, {"p.py": props}, {})
    rows, note = _rows(repo, env, "p.py::prop_regression", [{}, {}], True)
    assert note == "" and rows == [("fail", "regression")] * 2, (rows, note)
