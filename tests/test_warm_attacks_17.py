"""Attacks on the warm start, seventeenth review.

Every test asserts the SAFE behaviour (a warm evaluation ends as a cold one of the same head does). Mended since: 1-4
(the watch's state and the sweep's modes are read by identity and exact type), 7 (the parent drops its own modules),
8 (main is called at the harness's top level), 9's growth (each child's counts start from the parent's at ready), 10
(the repository's names are refused through the path importer cache), 6 (each child clears the profile and trace
functions while it waits for its request, before it has one). Given up, as strict xfails (docs/SECURITY.md, what the
warm start gives up): 5 (a dependency that reaches for the checks' own snapshot), 9's cold counts.
KEY marks a regression (failing every cold evaluation) made `pass` warm with no note, signed with the evaluation's own
key, which a dependency took in the warm parent or in a child before the harness read it.
1. KEY: warm_checks.WATCH refuses sys.addaudithook in the parent by comparing the pid with its own `parent`
   attribute: a dependency sets it to -1, adds review 5's key thief, and clears `hooked` and `seen` (review 14);
2. KEY: WATCH.hooked, asked by the parent before every fork, is any object a dependency puts there: its __bool__
   runs in the parent after `ready` (and clears STRAY's note of itself before), setting a profile function that
   sees _become_the_harness called with the key's pipe in `fds`;
3. KEY: serve's local `modes` (read before the imports, reachable from the import's frames) is a dict whose
   values the sweep hands to os.chmod: a dependency's __index__ runs in the parent after every evaluation;
4. KEY: WATCH's class is swapped (`WATCH.__class__ = subclass`): warm_checks still binds the same object and
   Watch's dict is unchanged, but every child's audit events run the dependency's __call__ (audit hooks run
   untraced, so STRAY never sees it);
5. KEY: the snapshot every check compares with (warm_imports' `before`, found through gc) is mutable: review 13's
   read_key.__defaults__ rebinding, with its record in the snapshot rewritten, is not seen;
6. KEY: review 13's C profile function, set by a self-requeueing pending call (a) during the audit event of the
   parent's second clearing call, after the first cleared the profile, or (b) under STRAY, with the pending call's
   code carrying a file name of the gate's (STRAY judges co_filename only);
7. a warm child's sys.modules holds the parent's own imports (socket, selectors, ctypes, platform, resource ...):
   a library integrating with modules "the program already imported" behaves otherwise warm;
8. a warm property runs two frames deeper (warm_main, serve): recursion that fits cold raises RecursionError warm;
9. gen 0's collection count in a warm child is the parent's (about 50, not a cold start's ~500) and grows by one
   per evaluation: a property can count the evaluations of its series, and collections come at other times;
10. a dependency's `sys.meta_path.insert(2, finder)` lands one finder earlier warm (Asked is first while the parent
    imports), before a builtin or frozen importer that a cold start asks first.
"""

import pytest

from witness_gate.sandbox import bwrap_works
from warmcases import READ_THIEF
from warmcases import FDS_THIEF, KEY_THIEF, STEAL
from warmcases import build as _build, rows as _rows, warm_and_cold as _warm_and_cold

pytestmark = pytest.mark.skipif(bool(bwrap_works()), reason="bubblewrap cannot run here")

REGRESSION_PROPS = "import {dep}\n\n\ndef prop_regression(p):\n    return 'regression'\n"


def _frame(name):
    return f'''
import sys


def _find(name={name!r}):
    frame = sys._getframe()
    while frame is not None:
        if frame.f_code.co_name == name:
            return frame
        frame = frame.f_back
    return None
'''


# the gate's own objects, found from the import's frames: warm_checks (CHECKS), its WATCH and STRAY
GATE_OBJECTS = _frame("warm_imports") + r'''
_at = _find()
_CHECKS = _at.f_globals.get("CHECKS") if _at is not None else None
_WATCH = getattr(_CHECKS, "WATCH", None)
_STRAY = getattr(_CHECKS, "STRAY", None)


def _unstray():
    """Undo what the gate's trace function noted of this very call (it noted it, then took itself off)."""
    if _STRAY is not None and _STRAY.ran:
        _STRAY.ran = ""
        sys.settrace(_STRAY)
'''


# --- 1. KEY: the watch refuses an audit hook in the parent by comparing the pid with its own `parent` attribute ----

WATCH_PARENT = KEY_THIEF + GATE_OBJECTS + r'''
if _WATCH is not None:
    _real, _WATCH.parent = _WATCH.parent, -1  # "not the parent": the watch lets the hook be added
    sys.addaudithook(_hook)
    _WATCH.parent, _WATCH.hooked, _WATCH.seen = _real, False, ""
'''


def test_a_dependency_cannot_tell_the_watch_it_is_not_in_the_parent(tmp_path):
    repo, env = _build(tmp_path, {"p.py": REGRESSION_PROPS.format(dep="notparent")}, {"notparent.py": WATCH_PARENT})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_regression", [{}, {}])
    assert cold == [("fail", "regression")] * 2
    assert warm == cold, (warm, note)


# --- 2. KEY: WATCH.hooked, read by the parent before every fork, made an object whose truth is Python code --------

WATCH_HOOKED = FDS_THIEF + GATE_OBJECTS + r'''


class _Never:
    """False, always; asked in the parent's loop right before each fork, it leaves a profile function there."""

    def __bool__(self):
        caller = sys._getframe(1).f_code.co_name
        if caller == "serve":
            sys.setprofile(_profile)
        else:
            _unstray()
        return False


if _WATCH is not None:
    _WATCH.hooked = _Never()
'''


def test_the_watch_s_flag_cannot_run_a_dependency_s_code_before_each_fork(tmp_path):
    repo, env = _build(tmp_path, {"p.py": REGRESSION_PROPS.format(dep="flag")}, {"flag.py": WATCH_HOOKED})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_regression", [{}, {}])
    assert cold == [("fail", "regression")] * 2
    assert warm == cold, (warm, note)


# --- 3. KEY: serve's `modes` (the writable roots' modes, read before the imports) hold a dependency's number -------

SWEEP_MODES = FDS_THIEF + GATE_OBJECTS + _frame("serve").replace("def _find(", "def _find_serve(") + r'''


class _Mode:
    """The mode of /tmp as an index: the sweep's chmod asks for it after every evaluation."""

    def __init__(self, mode):
        self.mode = mode

    def __index__(self):
        _unstray()
        if _STRAY is not None and sys.gettrace() is None:  # the parent is past `ready`: nothing checks now
            sys.setprofile(_profile)
        return self.mode


_serve = _find_serve()
_modes = _serve.f_locals.get("modes") if _serve is not None else None
if isinstance(_modes, dict) and "/tmp" in _modes:
    _modes["/tmp"] = _Mode(_modes["/tmp"])
'''


def test_the_sweep_cannot_run_a_dependency_s_code_between_evaluations(tmp_path):
    repo, env = _build(tmp_path, {"p.py": REGRESSION_PROPS.format(dep="modes")}, {"modes.py": SWEEP_MODES})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_regression", [{}, {}, {}])
    assert cold == [("fail", "regression")] * 3
    assert warm == cold, (warm, note)


# --- 4. KEY: the watch's class, swapped for a subclass: the audit hook every child runs is the dependency's -------

WATCH_CLASS = STEAL + GATE_OBJECTS + r'''
import os as _os

if _WATCH is not None:
    _parent = _os.getpid()

    class _Watch(type(_WATCH)):
        """The watch, but in a child it takes the key at the first event once fd 0 is the key's pipe."""

        def __call__(self, event, args):
            if event == "os.chdir" and _os.getpid() != _parent:
                _steal()
            return super().__call__(event, args)

    _WATCH.__class__ = _Watch  # the same object in warm_checks, and its class Watch untouched
'''


def test_a_dependency_cannot_swap_the_class_of_the_parent_s_audit_hook(tmp_path):
    repo, env = _build(tmp_path, {"p.py": REGRESSION_PROPS.format(dep="watchcls")}, {"watchcls.py": WATCH_CLASS})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_regression", [{}, {}])
    assert cold == [("fail", "regression")] * 2
    assert warm == cold, (warm, note)


# --- 5. KEY: the checks compare with `before`, a snapshot kept in warm_imports' frame, which a dependency edits ------

SNAPSHOT_EDIT = READ_THIEF + r'''


import gc

# warm_imports' `before`, found as the tuple whose seventh item is the surface (five lists); reading its frame's
# f_locals would keep the stand-in importer there, which the gate sees
_before = next((o for o in gc.get_objects() if type(o) is tuple and len(o) >= 7 and type(o[6]) is tuple
                and len(o[6]) == 5 and all(type(x) is list for x in o[6])), None)
if callable(_read_key) and _before is not None:
    _read_key.__defaults__ = (_read, *_read_key.__defaults__[1:])  # review 13's route
    _functions = _before[6][2]  # (function, code, defaults, kwdefaults) as they were: now as they are
    for _i, (_f, _code, _defaults, _kw) in enumerate(list(_functions)):
        if _f is _read_key:
            _functions[_i] = (_f, _code, _read_key.__defaults__, _kw)
'''


@pytest.mark.xfail(strict=True, reason="given up under the warm start: docs/SECURITY.md, 'The warm start', what it gives up (dependencies run before the key is read)")
def test_a_dependency_cannot_edit_the_snapshot_the_checks_compare_with(tmp_path):
    repo, env = _build(tmp_path, {"p.py": REGRESSION_PROPS.format(dep="snap")}, {"snap.py": SNAPSHOT_EDIT})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_regression", [{}, {}])
    assert cold == [("fail", "regression")] * 2
    assert warm == cold, (warm, note)


# --- 6. KEY: review 13's C profile function, set by a pending call after the parent cleared it -----------------

# The parent clears any C-level profile function as soon as the imports end (warm_imports: _C_PROFILE(None, None),
# then _C_TRACE(None, None)), and from then to `ready` its trace function (STRAY) notes any Python code that is
# not the gate's. A pending call found through libc's dlsym (review 13) queues itself again until `_ready()` says
# the moment has come, then sets review 13's profile function through the C API (no object: sys.getprofile() says
# None) and is gone; the profile function runs with tracing off, unseen by STRAY, and takes the key in each child
# at the call of _become_the_harness.
PENDING_PROFILE = GATE_OBJECTS + r"""
import ctypes
import os

_libc = ctypes.CDLL(None)
_dlsym = _libc.dlsym
_dlsym.restype, _dlsym.argtypes = ctypes.c_void_p, (ctypes.c_void_p, ctypes.c_char_p)
_add = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p)(_dlsym(None, b"Py_AddPendingCall"))
_set = ctypes.PYFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p)(_dlsym(None, b"PyEval_SetProfile"))
_HOOK = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p)
_getframe = sys._getframe


def _count(obj, frame, what, arg):
    if what == 0:  # PyTrace_CALL
        frame = ctypes.cast(frame, ctypes.py_object).value
        if frame.f_code.co_name == "_become_the_harness":
            fds = frame.f_locals["fds"]
            key = os.read(fds[0], 256).split(b"\n")[0].strip()
            import _hashlib
            body = b"pass - "
            os.write(fds[1], b"\nwitness-verdict " + body + b" "
                     + _hashlib.hmac_digest(key, body, "sha256").hex().encode() + b"\n")
            os._exit(0)
    return 0


_hook = _HOOK(_count)
_hook_address = ctypes.cast(_hook, ctypes.c_void_p)  # made now: ctypes.cast is Python code


def _later(arg):
    if _ready():
        _set(_hook_address, None)
    else:
        _add(_queued, None)
    return 0


_callback = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p)(_later)
_queued = ctypes.cast(_callback, ctypes.c_void_p)
"""

# (a) the moment: the audit event of the parent's second clearing call (_C_TRACE(None, None)), raised before it
# clears the trace function and after _C_PROFILE(None, None) has cleared the profile; STRAY is not on yet
AFTER_THE_CLEARING = PENDING_PROFILE + r"""

def _ready():
    hook, caller = _getframe(2), _getframe(3)
    return hook.f_code.co_name == "__call__" and hook.f_locals.get("event") == "sys.settrace" \
        and caller is not None and caller.f_code.co_name == "warm_imports"


_add(_queued, None)
"""


def test_a_pending_call_cannot_set_a_c_profile_after_the_parent_cleared_it(tmp_path):
    repo, env = _build(tmp_path, {"p.py": REGRESSION_PROPS.format(dep="pending")}, {"pending.py": AFTER_THE_CLEARING})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_regression", [{}, {}])
    assert cold == [("fail", "regression")] * 2
    assert warm == cold, (warm, note)


# (b) the moment: the first time the pending call runs under the gate's trace function (STRAY), which it passes by
# carrying a file name of the gate's: STRAY tells the gate's code from a dependency's by co_filename alone
NAMED_AS_THE_GATE = PENDING_PROFILE + r"""

def _ready():
    return sys.gettrace() is not None


_later.__code__ = _later.__code__.replace(co_filename=getattr(_CHECKS, "OURS", "/") + "warm_parent.py")
_ready.__code__ = _ready.__code__.replace(co_filename=getattr(_CHECKS, "OURS", "/") + "warm_parent.py")
_add(_queued, None)
"""


def test_a_pending_call_named_as_the_gate_s_code_is_seen_by_the_gate_s_trace_function(tmp_path):
    repo, env = _build(tmp_path, {"p.py": REGRESSION_PROPS.format(dep="pending")}, {"pending.py": NAMED_AS_THE_GATE})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_regression", [{}, {}])
    assert cold == [("fail", "regression")] * 2
    assert warm == cold, (warm, note)


def test_control_the_same_pending_call_under_its_own_name_is_seen_by_the_gate_s_trace_function(tmp_path):
    plain = NAMED_AS_THE_GATE.replace("_later.__code__ = ", "_unused = ").replace("_ready.__code__ = ", "_unused = ")
    assert plain != NAMED_AS_THE_GATE
    repo, env = _build(tmp_path, {"p.py": REGRESSION_PROPS.format(dep="pending")}, {"pending.py": plain})
    warm, note = _rows(repo, env, "p.py::prop_regression", [{}, {}], True)
    assert warm == [("fail", "regression")] * 2, (warm, note)
    assert "ran after its imports" in note, note


# --- 7. the warm child's sys.modules holds the parent's own imports (socket, selectors, ctypes, platform, ...) -----

# A library that integrates with a module only when the program already imported it (as attrs, rich or cloudpickle
# do with `sys.modules.get("numpy")`, never importing it themselves): cold, the harness has imported json, random and
# importlib only; warm, the parent's own socket, selectors, signal, resource, ctypes, struct and platform are there
# for every child (and for the dependency, imported in the parent), and so is a module a post-import hook would
# have patched as the property imported it
ALREADY_IMPORTED = r'''
import sys

# socket objects are described by address when the program uses sockets; we never import socket ourselves
INTEGRATIONS = sorted(name for name in ("socket", "selectors", "ctypes", "platform", "resource") if name in sys.modules)


def describe(value):
    return "plain" if not INTEGRATIONS else "integrated with " + ",".join(INTEGRATIONS)
'''

ALREADY_IMPORTED_PROPS = ("import serial\n\n\ndef prop_describe(p):\n    described = serial.describe(p)\n"
                          "    return True if described == 'plain' else described\n")


def test_a_dependency_sees_the_modules_a_cold_start_has_imported_warm_too(tmp_path):
    repo, env = _build(tmp_path, {"p.py": ALREADY_IMPORTED_PROPS}, {"serial.py": ALREADY_IMPORTED})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_describe", [{}, {}])
    assert cold == [("pass", None)] * 2
    assert warm == cold, (warm, note)


# every module name, as the property sees sys.modules: its dependency's imports (json, a new socket) included
MODULE_NAMES_PROPS = ("import hashlib\nimport sys\nimport socket\nimport dep\n\n\ndef prop_modules(p):\n"
                      "    names = sorted(sys.modules)\n"
                      "    if p.get('has'):\n"
                      "        return 'has ' + ' '.join(n for n in p['has'] if n in names)\n"
                      "    return 'modules %d %s' % (len(names), hashlib.sha256(' '.join(names).encode()).hexdigest()[:16])\n")


def test_a_property_sees_the_module_names_a_cold_start_has_warm_too(tmp_path):
    repo, env = _build(tmp_path, {"p.py": MODULE_NAMES_PROPS}, {"dep.py": "import ctypes\nimport selectors\n"})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_modules", [{}, {}, {"has": ["ctypes", "selectors"]}])
    assert cold[2] == ("fail", "has ctypes selectors") and cold[0][1].startswith("modules "), cold
    assert warm == cold, (warm, cold, note)


# --- 8. the property runs two frames deeper warm (warm_main, serve) than cold: recursion room differs ---------------

RECURSION_PROPS = r'''
def prop_nested(p):
    def depth(n):
        return 0 if n == 0 else 1 + depth(n - 1)

    try:
        depth(p["n"])
    except RecursionError:
        return "too deep"
    return True
'''


def test_a_property_has_the_recursion_room_of_a_cold_start_warm_too(tmp_path):
    repo, env = _build(tmp_path, {"p.py": RECURSION_PROPS}, {"unused.py": "X = 1\n"})
    payloads = [{"n": n} for n in range(990, 998)]
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_nested", payloads)
    assert ("pass", None) in cold and ("fail", "too deep") in cold  # the boundary is within the range
    assert warm == cold, (warm, note)


# --- 9. garbage collection: a warm child's counts are not a cold start's, and grow by one per evaluation ----------

GC_PROPS = "import gc\n\n\ndef prop_count(p):\n    return f'counts {gc.get_count()}'\n"


def test_the_collector_s_counts_are_the_same_in_every_warm_evaluation(tmp_path):
    repo, env = _build(tmp_path, {"p.py": GC_PROPS}, {"unused.py": "X = 1\n"})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_count", [{}, {}, {}, {}])
    assert len(set(cold)) == 1  # the same in every cold evaluation
    assert len(set(warm)) == 1 and note == "", (warm, note)  # no evaluation can count its place in the series


@pytest.mark.xfail(strict=True, reason="given up under the warm start: docs/SECURITY.md, 'The warm start', what it "
                                       "gives up (telling warm from cold)")
def test_the_collector_s_counts_are_a_cold_start_s_in_every_warm_evaluation(tmp_path):
    repo, env = _build(tmp_path, {"p.py": GC_PROPS}, {"unused.py": "X = 1\n"})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_count", [{}, {}, {}])
    assert len(set(cold)) == 1  # the same in every cold evaluation
    assert warm == cold, (warm, note)


# --- 10. sys.meta_path.insert(k, ...) while the parent's refusing finder (Asked) is first ---------------------------

# A compatibility package's finder offers pure-Python stand-ins for modules a platform lacks (`pwd` on Windows, a
# path flavour), and puts itself at index 2, after the interpreter's BuiltinImporter and FrozenImporter of a fresh
# interpreter, so the real builtin or frozen module wins where there is one. In the warm parent Asked is first while
# the imports run, so the same index is one finder earlier (before FrozenImporter, or before BuiltinImporter where a
# .pth finder such as setuptools' DistutilsMetaFinder is first); Asked is then removed, and every warm child asks the
# stand-in before a finder a cold start asks first.
FALLBACKS = r"""
import importlib.util
import sys


class _Fallbacks:
    def find_spec(self, name, path=None, target=None):
        return importlib.util.spec_from_loader(name, self) if name in ("pwd", "ntpath") else None

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        module.STAND_IN = True


sys.meta_path.insert(2, _Fallbacks())  # after the builtin and frozen importers, before the path
"""

FALLBACK_PROPS = ("import compat\n\n\ndef prop_real_modules(p):\n    import ntpath\n    import pwd\n\n"
                  "    stand_ins = [m.__name__ for m in (pwd, ntpath) if getattr(m, 'STAND_IN', False)]\n"
                  "    return 'stand-ins: ' + ','.join(stand_ins) if stand_ins else True\n")


def test_a_finder_inserted_at_an_index_is_where_a_cold_start_has_it_warm_too(tmp_path):
    repo, env = _build(tmp_path, {"p.py": FALLBACK_PROPS}, {"compat.py": FALLBACKS})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_real_modules", [{}, {}])
    assert warm == cold and note == "", (warm, cold, note)


# pkgutil lists a folder's modules through its finder: cold, the repository's are among them (a plugin registry
# that imports what it finds runs them); the parent's finder of the repository's folders must not hide them
PLUGINS = "import pkgutil\n\nFOUND = sorted(m.name for m in pkgutil.iter_modules() if m.name.startswith('plugin_'))\n"
PLUGIN_PROPS = "import registry\n\n\ndef prop_plugins(p):\n    return 'found ' + ' '.join(registry.FOUND)\n"


def test_a_listing_of_the_path_s_modules_finds_the_repository_s_warm_too(tmp_path):
    repo, env = _build(tmp_path, {"p.py": PLUGIN_PROPS, "plugin_a.py": "X = 1\n"}, {"registry.py": PLUGINS})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_plugins", [{}, {}])
    assert cold == [("fail", "found plugin_a")] * 2, cold
    assert warm == cold, (warm, note)
