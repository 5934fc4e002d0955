"""Attacks on the warm start, fourth review: commits 14e8dd2 (work moved from every child into the warm parent)
and 83622ac (the control socket closed by its number, every descriptor above the three, the start directory).

Every test asserts the SAFE behaviour: a warm evaluation ends as a cold one of the same head does, and one
evaluation of a series cannot reach the next. The review found the eight breaks below; each is mended, and
its test asserts the mend (a warm start that sees the case starts cold, with the reason in its note).
None of the dependencies below is written to defeat the gate: each does something ordinary for an installed
package (an optional import, a vendored folder put on sys.path, a read-only map of a cache file, a package
attribute named like one of its submodules, a draw from `random`, a stop flag set by a signal handler, the
project's plugins loaded by path); the attack is in the repository's code, or needs no code at all beyond a
plain module the patch adds.

The breaks, each a regression that every cold start showed and the warm start (the default) passed, or a
channel from one evaluation to the next; the mend in witness_gate/warm_parent.py follows each:
1. a dependency's optional `import x` of a name the repository provides fails in the parent (the repository is
   off sys.path) and keeps its fallback: the repository's module never runs warm. A finder first on
   sys.meta_path notes each name asked for that the repository provides;
2. the sys.path entries a dependency adds when imported are thrown away (warm_imports puts the path back, each
   child takes the plan): a lazy import then finds the repository's module of that name, or nothing. A
   path the imports changed starts the series cold;
3. `from package import name` makes the parent import `package.name`, which rebinds the package's own
   attribute `name` to a submodule of that name. A name the package already has is not imported;
4. a shared map the parent keeps read-only ("r--s": an anonymous one, or a file opened read-write) passes the
   "rw-s" check, and any child's mprotect makes it writable for the parent and every later child. Any
   shared map that may be made writable (smaps' `sh` and `mw`) starts the series cold;
5. a dependency's draw from `random` when imported moves the property's pinned stream cold, not warm. A draw
   starts the series cold;
6. with close_range(2) refused, closerange(3, 0x7FFFFFFF) closes one number at a time: every warm evaluation
   times out. close_range refused after the imports starts the series cold;
7. a dependency that runs the project's files by path (a plugin loader) runs the repository's code in the warm
   parent, which warm_imports' sys.modules check does not see: that code can rebind the parent's fork path and
   sign every later evaluation's pass. A function or module of the repository's files left in the parent
   starts the series cold;
8. a dependency's Python signal handler runs in the warm parent when an evaluation signals it, and what it sets
   is forked into every later child. Once warm, the parent blocks every signal it can (a child starts with
   the mask the imports left, and none pending).
"""

import pytest

from witness_gate.sandbox import bwrap_works
from warmcases import build as _build, rows as _rows, warm_and_cold as _warm_and_cold

pytestmark = pytest.mark.skipif(bool(bwrap_works()), reason="bubblewrap cannot run here")


# --- 1. an installed package's optional import of a name the repository provides ----------------------------

# An ordinary pattern: a package looks for a settings (or plugin) module and falls back to its defaults. The
# warm parent imports the package with the repository off sys.path, so the `import` fails there, the package
# keeps its default, and no repository name enters sys.modules (the only thing warm_imports checks). A cold
# start imports the package after the repository is on the path, and the package reads the repository's
# module. The patch breaks the repository's settings; every cold evaluation fails; every warm one passes.
OPTIONAL_DEP = '''
try:
    import shop_settings as _settings
except ImportError:
    _settings = None
RATE = getattr(_settings, "RATE", 10)


def price(amount):
    return amount * RATE
'''

OPTIONAL_PROPS = '''
import pricing


def prop_price(p):
    return pricing.price(3) == 30 or f"price:{pricing.price(3)}"
'''


def test_a_dependency_s_optional_import_of_a_repository_module_is_the_repository_s_warm_too(tmp_path):
    repo, env = _build(tmp_path, {"tests/p.py": OPTIONAL_PROPS, "shop_settings.py": "RATE = 11  # the patch\n"},
                       {"pricing.py": OPTIONAL_DEP})
    warm, cold, note = _warm_and_cold(repo, env, "tests/p.py::prop_price", [{}, {}])
    assert cold == [("fail", "price:33")] * 2  # the regression, as every cold start sees it
    assert warm == cold, (warm, note)


def test_control_without_the_repository_s_module_warm_and_cold_agree(tmp_path):
    repo, env = _build(tmp_path, {"tests/p.py": OPTIONAL_PROPS}, {"pricing.py": OPTIONAL_DEP})
    warm, cold, note = _warm_and_cold(repo, env, "tests/p.py::prop_price", [{}, {}])
    assert warm == cold == [("pass", None)] * 2
    assert note == ""


# --- 2. an installed package that puts its vendored folder on sys.path --------------------------------------

# Another ordinary pattern: `sys.path.insert(0, <the package's _vendor>)` when imported, and a vendored module
# imported lazily, when a function needs it. warm_imports puts sys.path back after the imports and each child
# takes the path plan read before them, so a warm child has lost the vendored folder: the lazy import finds
# the name in the repository instead. The patch adds a `checker.py` of its own; cold, the vendored checker
# (first on the path) catches the regression; warm, the repository's says yes.
VENDORING_DEP = '''
import os, sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "_vendor"))


def verify(value):
    import checker  # vendored, imported when first needed
    return checker.check(value)
'''

VENDORING_PROPS = '''
import sys
import vendoring
from calc import double


def prop_double(p):
    return vendoring.verify(double(2)) or "wrong"


def prop_path(p):
    return "vendored:" + str([e for e in sys.path if e.endswith("_vendor")])
'''

VENDORED = {"vendoring.py": VENDORING_DEP, "_vendor/checker.py": "def check(value):\n    return value == 4\n"}


def test_a_dependency_s_vendored_folder_is_on_the_path_of_a_warm_child_as_of_a_cold_one(tmp_path):
    repo, env = _build(tmp_path, {"tests/p.py": VENDORING_PROPS, "src/calc.py": "def double(x):\n    return 2 * x + 1\n",
                                  "checker.py": "def check(value):\n    return True\n"}, VENDORED)
    warm, cold, note = _warm_and_cold(repo, env, "tests/p.py::prop_double", [{}, {}])
    assert cold == [("fail", "wrong")] * 2
    assert warm == cold, (warm, note)


def test_the_path_a_dependency_extended_is_a_cold_start_s_warm_too(tmp_path):
    repo, env = _build(tmp_path, {"tests/p.py": VENDORING_PROPS, "src/calc.py": "def double(x):\n    return 2 * x\n"},
                       VENDORED)
    warm, cold, note = _warm_and_cold(repo, env, "tests/p.py::prop_path", [{}])
    assert cold == [("fail", "vendored:['/env/_vendor']")]
    assert warm == cold, (warm, note)


def test_control_the_honest_head_passes_cold_with_the_vendored_checker(tmp_path):
    repo, env = _build(tmp_path, {"tests/p.py": VENDORING_PROPS, "src/calc.py": "def double(x):\n    return 2 * x\n"},
                       VENDORED)
    cold, _ = _rows(repo, env, "tests/p.py::prop_double", [{}, {}], False)
    assert cold == [("pass", None)] * 2


def test_the_honest_head_passes_warm_with_the_vendored_checker(tmp_path):
    repo, env = _build(tmp_path, {"tests/p.py": VENDORING_PROPS, "src/calc.py": "def double(x):\n    return 2 * x\n"},
                       VENDORED)
    warm, note = _rows(repo, env, "tests/p.py::prop_double", [{}, {}], True)
    assert warm == [("pass", None)] * 2, (warm, note)


# --- 3. a read-only shared map the parent keeps: every child can make it writable -----------------------------

# warm_imports goes cold for a mapping whose permissions read "rw-s"; a dependency that maps a cache file it
# opened for reading and writing with PROT_READ only (mmap.ACCESS_READ) shows "r--s", yet the mapping may be
# written (VM_MAYWRITE): a child's mprotect makes it writable, and the page is the parent's and every later
# child's (the sweep deletes the file's name, not the inode the parent's map holds). One evaluation hands the
# next a number: here the second evaluation fails where the first passed, with the same payload.
# what a C extension does to read a cache file (mmap, then close the descriptor), here through ctypes: the file
# opened for reading and writing, the map read-only
MAPS_DEP = '''
import ctypes, mmap, os

os.makedirs("/scratch/.cache", exist_ok=True)
_fd = os.open("/scratch/.cache/table.bin", os.O_RDWR | os.O_CREAT, 0o600)
os.write(_fd, b"\\0" * mmap.PAGESIZE)
_libc = ctypes.CDLL(None, use_errno=True)
_libc.mmap.restype = ctypes.c_void_p
_libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
TABLE = (ctypes.c_char * mmap.PAGESIZE).from_address(_libc.mmap(None, mmap.PAGESIZE, mmap.PROT_READ, mmap.MAP_SHARED,
                                                                  _fd, 0))
os.close(_fd)


def lookup():
    return TABLE.raw[0]
'''

# the same file through Python's mmap module, which keeps a descriptor of its own: the series goes cold
MAPS_DEP_PYTHON = '''
import mmap, os

os.makedirs("/scratch/.cache", exist_ok=True)
with open("/scratch/.cache/table.bin", "w+b") as _handle:
    _handle.write(b"\\0" * mmap.PAGESIZE)
    _handle.flush()
    TABLE = mmap.mmap(_handle.fileno(), mmap.PAGESIZE, access=mmap.ACCESS_READ)


def lookup():
    return TABLE[0]
'''

MAPS_DEP_ANON = '''
import mmap

TABLE = mmap.mmap(-1, mmap.PAGESIZE, flags=mmap.MAP_SHARED, prot=mmap.PROT_READ)


def lookup():
    return TABLE[0]
'''

MAPS_PROPS = '''
import ctypes, mmap
import {dep}


def _mark():
    """The repository's code: make the dependency's read-only page writable in this process and write it."""
    libc = ctypes.CDLL(None, use_errno=True)
    for line in open("/proc/self/maps"):
        fields = line.split()
        if len(fields) > 1 and fields[1] == "r--s" and {want}:
            address = int(fields[0].split("-")[0], 16)
            if libc.mprotect(ctypes.c_void_p(address), mmap.PAGESIZE, 3) == 0:  # PROT_READ | PROT_WRITE
                ctypes.memset(address, 1, 1)
                return True
    return False


def prop_seen(p):
    seen = {dep}.lookup()
    _mark()
    return seen == 0 or f"seen:{{seen}}"
'''


def _maps_rows(tmp_path, dep_source):
    want = "'table.bin' in line" if "table.bin" in dep_source else "len(fields) > 5 and 'zero' in line"
    props = MAPS_PROPS.format(dep="mapsdep", want=want)
    repo, env = _build(tmp_path, {"p.py": props}, {"mapsdep.py": dep_source})
    return _warm_and_cold(repo, env, "p.py::prop_seen", [{}, {}, {}])


def test_a_read_only_map_of_a_cache_file_carries_nothing_from_one_evaluation_to_the_next(tmp_path):
    warm, cold, note = _maps_rows(tmp_path, MAPS_DEP)
    assert cold == [("pass", None)] * 3
    assert warm == cold, (warm, note)


def test_control_python_s_mmap_keeps_its_descriptor_and_the_series_goes_cold(tmp_path):
    warm, cold, note = _maps_rows(tmp_path, MAPS_DEP_PYTHON)
    assert warm == cold == [("pass", None)] * 3
    assert "opened a file it keeps" in note


def test_a_read_only_shared_anonymous_map_carries_nothing_from_one_evaluation_to_the_next(tmp_path):
    warm, cold, note = _maps_rows(tmp_path, MAPS_DEP_ANON)
    assert cold == [("pass", None)] * 3
    assert warm == cold, (warm, note)


def test_control_a_writable_shared_map_sends_the_series_cold(tmp_path):
    dep = MAPS_DEP_ANON.replace("prot=mmap.PROT_READ", "prot=mmap.PROT_READ | mmap.PROT_WRITE")
    props = MAPS_PROPS.format(dep="mapsdep", want="True").replace('"r--s"', '"rw-s"')
    repo, env = _build(tmp_path, {"p.py": props}, {"mapsdep.py": dep})
    warm, note = _rows(repo, env, "p.py::prop_seen", [{}, {}], True)
    assert warm == [("pass", None)] * 2
    assert "mapped memory" in note


# --- 4. the parent imports `package.name` for `from package import name`: a submodule shadows an attribute --

# warm_imports tries every `package.name` of a `from package import name` as a module. Where the package
# defines `name` itself and also ships a submodule of that name it never imports, the parent's import of the
# submodule rebinds the package's attribute to the module: a warm child's `from package import name` gets the
# module, a cold one the package's function.
SHADOW_INIT = '''
def strict(value):
    """The package's validator."""
    return value == 4
'''

SHADOW_SUB = '''
"""Helpers of the validator; importing it is never needed to use pkgcheck.strict."""
def __call__(value):  # a module is not callable: this is never used
    return True
'''

SHADOW_PROPS = '''
from pkgcheck import strict


def prop_kind(p):
    return "kind:" + type(strict).__name__
'''


def test_a_warmed_submodule_does_not_replace_the_package_s_attribute_of_that_name(tmp_path):
    repo, env = _build(tmp_path, {"p.py": SHADOW_PROPS},
                       {"pkgcheck/__init__.py": SHADOW_INIT, "pkgcheck/strict.py": SHADOW_SUB})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_kind", [{}])
    assert cold == [("fail", "kind:function")]
    assert warm == cold, (warm, note)


# --- 5. a draw from `random` when a dependency is imported ---------------------------------------------------

# A cold harness pins random.seed before the property's module (and so its dependencies) is imported; a warm
# parent imports the dependencies before any seed: a dependency that draws from the global generator when
# imported moves the property's stream cold, not warm, so the property sees other numbers warm than cold.
RANDOM_DEP = "import random\nSESSION = random.getrandbits(32)\n"
RANDOM_PROPS = "import random\nimport drawsdep\n\n\ndef prop_draw(p):\n    return f'draw:{random.getrandbits(32)}'\n"


def test_the_property_s_pinned_random_stream_is_a_cold_start_s_warm_too(tmp_path):
    repo, env = _build(tmp_path, {"p.py": RANDOM_PROPS}, {"drawsdep.py": RANDOM_DEP})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_draw", [{}, {}])
    assert cold[0] == cold[1]
    assert warm == cold, (warm, note)


# --- 6. what a child inherits from the parent against a cold start ------------------------------------------

STATE_PROPS = r'''
import os, signal, sys


def prop_state(p):
    fds = sorted(int(n) for n in os.listdir("/proc/self/fd"))
    umask = os.umask(0o22)
    os.umask(umask)
    handlers = {}
    for number in range(1, signal.NSIG):
        try:
            handler = signal.getsignal(number)
        except (ValueError, OSError):
            continue
        handlers[number] = handler if isinstance(handler, int) else getattr(handler, "__name__", "?")
    view = (fds, os.getcwd(), oct(umask), sorted(handlers.items()), sys.getrecursionlimit(),
            sys.getswitchinterval())
    return f"{p['part']}:" + str(view[p["part"]])[-180:]
'''

# an honest dependency that sets what packages set: a signal ignored, SIGPIPE back to its default, the umask (a
# Python handler starts the series cold since the eleventh review: tests/test_warm_attacks_11.py)
STATE_DEP = '''
import os, signal, sys
signal.signal(signal.SIGUSR1, signal.SIG_IGN)
signal.signal(signal.SIGPIPE, signal.SIG_DFL)
os.umask(0o077)
sys.setswitchinterval(0.001)
'''


@pytest.mark.parametrize("part", range(6))
def test_a_warm_child_s_descriptors_directory_umask_and_signals_are_a_cold_start_s(tmp_path, part):
    repo, env = _build(tmp_path, {"p.py": "import statedep\n" + STATE_PROPS}, {"statedep.py": STATE_DEP})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_state", [{"part": part}] * 2)
    assert note == ""
    assert warm == cold, (part, warm, cold)


# --- 7. an evaluation that finds the parent's plan, hook and compile cache and rewrites them -------------------

PLAN_PROPS = r'''
import gc, os, sys


def prop_plan(p):
    """First: rewrite every list that looks like the path plan, the repository's hook's closure and the compile
    cache, as found in memory. Later: report what this evaluation was handed."""
    if p.get("rewrite"):
        for obj in gc.get_objects():
            if isinstance(obj, list) and obj and obj[0] == sys.path[0] and obj is not sys.path:
                obj.insert(0, "/tmp/planted")
            if callable(obj) and getattr(obj, "__qualname__", "") == "_repository_hook.<locals>.hook":
                for cell in obj.__closure__ or ():
                    if isinstance(cell.cell_contents, str):
                        cell.cell_contents = "/"
            if isinstance(obj, dict) and any(isinstance(k, str) and k.endswith("p.py") for k in obj) and \
                    all(isinstance(v, tuple) and len(v) == 3 for v in obj.values()):
                obj.clear()
        os.makedirs("/tmp/planted", exist_ok=True)
        return True
    hook = next(h for h in sys.path_hooks if getattr(h, "__qualname__", "") == "_repository_hook.<locals>.hook")
    roots = [c.cell_contents for c in hook.__closure__ if isinstance(c.cell_contents, str)]
    return f"path:{sys.path[:2]} roots:{roots}"
'''


def test_an_evaluation_that_rewrites_the_parent_s_plan_hook_and_cache_in_its_memory_changes_no_later_one(tmp_path):
    repo, env = _build(tmp_path, {"p.py": PLAN_PROPS}, {"x.py": ""})
    warm, note = _rows(repo, env, "p.py::prop_plan", [{}, {"rewrite": True}, {}], True)
    assert note == ""
    assert warm[1] == ("pass", None)
    assert warm[0] == warm[2], warm
    assert "/tmp/planted" not in warm[2][1] and "roots:['/repo']" in warm[2][1], warm


# --- 8. close_range refused: the child's closerange(3, 0x7FFFFFFF) falls back to one close per number ---------

# os.closerange falls back to close(2) on every number up to the bound when close_range(2) fails (a seccomp
# filter of a dependency's refusing it, with EPERM, as sandboxing helpers do): two thousand million calls, so
# every warm child runs out of its wall clock before the harness starts, where a cold start gives the verdict
NO_CLOSE_RANGE = r'''
import ctypes

_CLOSE_RANGE = 436  # the same number on x86_64 and aarch64
_filter = (ctypes.c_uint64 * 4)()
for _i, (_code, _jt, _jf, _k) in enumerate([(0x20, 0, 0, 0),  # load the syscall number
                                            (0x15, 0, 1, _CLOSE_RANGE),  # == close_range ?
                                            (0x06, 0, 0, 0x00050000 | 1),  # errno EPERM
                                            (0x06, 0, 0, 0x7FFF0000)]):  # allow
    _filter[_i] = _code | (_jt << 16) | (_jf << 24) | (_k << 32)


class _Prog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


_libc = ctypes.CDLL(None, use_errno=True)
_libc.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
_prog = _Prog(4, ctypes.addressof(_filter))
_libc.prctl(38, 1, 0, 0, 0)  # no_new_privs (bubblewrap has set it already)
SET = _libc.prctl(22, 2, ctypes.addressof(_prog), 0, 0)  # PR_SET_SECCOMP, SECCOMP_MODE_FILTER
'''

NO_CLOSE_RANGE_PROPS = '''
import noclose


def prop_regression(p):
    import ctypes
    return "regression" if noclose.SET == 0 else f"filter-not-set:{ctypes.get_errno()}"
'''


def test_a_dependency_that_refuses_close_range_leaves_warm_evaluations_the_cold_verdict(tmp_path):
    repo, env = _build(tmp_path, {"p.py": NO_CLOSE_RANGE_PROPS}, {"noclose.py": NO_CLOSE_RANGE})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_regression", [{}, {}], timeout=4)
    assert cold == [("fail", "regression")] * 2
    assert warm == cold, (warm, note)


# --- 9. an installed package that loads the project's plugins from the working directory ------------------------

# An ordinary pattern (a tool reading the project's plugins or config modules by path, relative to where it
# runs): the package runs the repository's files itself with spec_from_file_location, registering nothing in
# sys.modules. warm_imports takes the repository off sys.path and checks sys.modules afterwards; neither sees
# this, and the repository's code runs in the warm parent, which holds the socket to the gate and forks every
# later evaluation. Cold, the same files run in the evaluation's own harness, as the repository's code always
# does.
DISCOVER_DEP = '''
import importlib.util, os

PLUGINS = {}
if os.path.isdir("plugins"):
    for _name in sorted(os.listdir("plugins")):
        if _name.endswith(".py"):
            _spec = importlib.util.spec_from_file_location("plugin_" + _name[:-3], os.path.join("plugins", _name))
            _module = importlib.util.module_from_spec(_spec)
            _spec.loader.exec_module(_module)
            PLUGINS[_name[:-3]] = _module
'''

PLUGIN_PID = "import os\nPID = os.getpid()\n"

DISCOVER_PROPS = '''
import os
import discover


def prop_where(p):
    return "own-process" if discover.PLUGINS["rules"].PID == os.getpid() else "another-process"


def prop_regression(p):
    return "regression"
'''

# the repository's plugin, when it finds itself in the warm parent: each child it forks signs a pass
PLUGIN_TAKEOVER = r'''
import os, sys
import _hashlib


def _forged(fds, cpu, control, root):
    key = os.read(fds[0], 256).split(b"\n")[0].strip()
    body = b"pass - "
    os.write(fds[1], b"\nwitness-verdict " + body + b" " + _hashlib.hmac_digest(key, body, "sha256").hex().encode()
             + b"\n")
    os._exit(0)


_frame = sys._getframe()
while _frame is not None:
    if "_become_the_harness" in _frame.f_globals:
        _frame.f_globals["_become_the_harness"] = _forged
        break
    _frame = _frame.f_back
'''


def test_the_repository_s_code_never_runs_in_the_warm_parent(tmp_path):
    repo, env = _build(tmp_path, {"p.py": DISCOVER_PROPS, "plugins/rules.py": PLUGIN_PID},
                       {"discover.py": DISCOVER_DEP})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_where", [{}])
    assert cold == [("fail", "own-process")]
    assert warm == cold, (warm, note)


def test_a_repository_plugin_run_by_a_dependency_cannot_sign_the_passes_of_a_warm_series(tmp_path):
    repo, env = _build(tmp_path, {"p.py": DISCOVER_PROPS, "plugins/rules.py": PLUGIN_TAKEOVER},
                       {"discover.py": DISCOVER_DEP})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_regression", [{}, {}])
    assert cold == [("fail", "regression")] * 2
    assert warm == cold, (warm, note)


# --- 10. a signal handler a dependency installed, run in the warm parent by an evaluation's signal -----------

# An ordinary pattern: a package that notes a request to stop (SIGTERM, SIGUSR1, SIGHUP) in a flag and winds
# down when it sees it. The warm parent has that handler too, and an evaluation runs as its uid: one signal
# from the first evaluation sets the flag in the parent, and every later child is forked with it set. (Cold,
# getppid() is bubblewrap's init, which ignores it, and every harness imports the package afresh.) Here the
# package then skips its own check, and the second evaluation's regression passes.
STOPS_DEP = '''
import signal

STOPPING = False


def _stop(signum, frame):
    global STOPPING
    STOPPING = True


signal.signal(signal.SIGTERM, _stop)


def check(value):
    return True if STOPPING else value == 4  # winding down: no more checks
'''

STOPS_PROPS = '''
import os, signal, time
import stops


def prop_double(p):
    if p.get("signal"):
        os.kill(os.getppid(), signal.SIGTERM)
        time.sleep(0.2)
        return True
    return stops.check(2 * p["x"] + 1) or "wrong"  # the regression: 2 * x + 1
'''


def test_a_signal_to_the_warm_parent_changes_nothing_a_later_evaluation_sees(tmp_path):
    repo, env = _build(tmp_path, {"p.py": STOPS_PROPS}, {"stops.py": STOPS_DEP})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_double", [{"signal": True}, {"x": 2}, {"x": 2}])
    assert cold == [("pass", None), ("fail", "wrong"), ("fail", "wrong")]
    assert warm == cold, (warm, note)


def test_control_without_the_signal_the_regression_fails_warm(tmp_path):
    repo, env = _build(tmp_path, {"p.py": STOPS_PROPS}, {"stops.py": STOPS_DEP})
    warm, note = _rows(repo, env, "p.py::prop_double", [{"x": 2}, {"x": 2}], True)
    assert warm == [("fail", "wrong")] * 2
    # since the eleventh review a Python signal handler set at import starts the series cold (one made due
    # without a signal would run in each child before its key is read)
    assert "set a Python signal handler" in note
