"""Attacks on the warm start, fifth review: commit c853c5f (the series goes cold when the parent's imports ask
for a repository name, leave a function or module of the repository's files, change sys.path, draw from
random, map shared memory that may be made writable, or leave close_range refused; once warm the parent
blocks every signal).

Every test asserts the SAFE behaviour: a warm evaluation ends as a cold one of the same head does, and one
evaluation of a series cannot reach the next. The review found the breaks below, all mended in
witness_gate/warm_parent.py and warm_imports.py (the pass over sys.modules since the seventh review: only
what the property's module imports before anything else runs is warmed): an
audit hook added before the imports starts the series cold when they add an audit hook, read a file of
the checkout or list a folder other than the import system does; a trace or profile function, an armed
timer or a garbage-collection callback starts it cold; once warm the parent collects no garbage; only
imports that run when a module is imported are warmed.

The breaks, most severe first (each a regression every cold start showed that the warm start, the default,
passed, or one evaluation reaching the next):
1. the repository's code still runs in the warm parent unseen: a plugin loader that exec's the project's files
   under a name of its own ("<plugin x>", its own __file__, a cache path), or a settings file run by path
   (spec_from_file_location, runpy) whose module is then freed and which defines no function; end to end, such
   code rebinds the parent's fork path or the harness partial's `judge` (functools.partial(next,
   itertools.repeat(("pass", None))), no function at all) and every evaluation signs a pass (sections 1, 6);
2. a dependency's audit hook or profile function is inherited by each forked child and runs before the harness
   has read its key (os.chdir in _become_the_harness; the call of read_key): it reads the key from fd 0 and
   signs a pass, the at-fork hook's route by another name (section 7);
3. a dependency's Python code keeps running in the warm parent after the checks and between evaluations (an
   audit hook on the sweep's os.kill, os.remove): a flag it sets, the names of the files an evaluation left,
   or a shared page it maps after the smaps check reach every later child (sections 4, 9);
4. import-time work happens at another moment warm: a dependency the repository imports lazily (inside a
   function) is imported by the parent first, so its process-wide settings (recursion limit, int-digit limit,
   environment) hold warm where cold they do not yet; a dependency that scans sys.path (pkgutil.iter_modules,
   importlib.metadata entry points of the checkout's egg-info) or sys.modules when imported sees the
   repository cold and never warm (sections 2, 3, 8);
5. an interval timer a dependency arms when imported is not inherited by fork(2): a time budget that fails a
   slow patch cold never fires warm (section 5).
"""

import pytest

from witness_gate.sandbox import bwrap_works
from warmcases import KEY_THIEF_MODULE, build as _build, rows as _rows, warm_and_cold as _warm_and_cold

pytestmark = pytest.mark.skipif(bool(bwrap_works()), reason="bubblewrap cannot run here")


# --- 1. the repository's code run in the parent under a name that is not its file -----------------------------

# c853c5f looks for functions and modules whose co_filename / __file__ is a file of the repository. A plugin
# loader that reads the project's plugin files itself and runs them with exec(compile(source, <name>, "exec"))
# names the code as it likes: "<plugin rules>" (what linecache-free loaders do) or its own file. The repository's
# code then runs in the warm parent and nothing of it names the checkout.
DISCOVER_DEP = '''
import os

PLUGINS = {}
if os.path.isdir("plugins"):
    for _name in sorted(os.listdir("plugins")):
        if _name.endswith(".py"):
            with open(os.path.join("plugins", _name), encoding="utf-8") as _handle:
                _source = _handle.read()
            _namespace = {"__name__": "plugin_" + _name[:-3]}
            exec(compile(_source, FILENAME, "exec"), _namespace)
            PLUGINS[_name[:-3]] = _namespace
'''

FILENAMES = {"angle": 'f"<plugin {_name[:-3]}>"', "own-file": "__file__",
             "cache": 'os.path.join(os.environ.get("HOME", "/tmp"), ".cache", _name)'}

PLUGIN_PID = "import os\nPID = os.getpid()\n"

DISCOVER_PROPS = '''
import os
import discover


def prop_where(p):
    return "own-process" if discover.PLUGINS["rules"]["PID"] == os.getpid() else "another-process"


def prop_regression(p):
    return "regression"
'''

# the repository's plugin, when it finds itself in the warm parent: each child it forks signs a pass
PLUGIN_TAKEOVER = r'''
import os, sys
import _hashlib


def _forged(fds, *rest):
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


def _discover(filename):
    return {"discover.py": DISCOVER_DEP.replace("FILENAME", FILENAMES[filename])}


@pytest.mark.parametrize("filename", ["angle", "own-file", "cache"])
def test_the_repository_s_code_never_runs_in_the_warm_parent_whatever_its_code_is_named(tmp_path, filename):
    repo, env = _build(tmp_path, {"p.py": DISCOVER_PROPS, "plugins/rules.py": PLUGIN_PID}, _discover(filename))
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_where", [{}])
    assert cold == [("fail", "own-process")]
    assert warm == cold, (warm, note)


def test_a_repository_plugin_exec_d_under_another_name_cannot_sign_the_passes_of_a_warm_series(tmp_path):
    repo, env = _build(tmp_path, {"p.py": DISCOVER_PROPS, "plugins/rules.py": PLUGIN_TAKEOVER}, _discover("angle"))
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_regression", [{}, {}])
    assert cold == [("fail", "regression")] * 2
    assert warm == cold, (warm, note)


def test_control_the_plugin_compiled_under_its_own_path_sends_the_series_cold(tmp_path):
    env = {"discover.py": DISCOVER_DEP.replace("FILENAME", 'os.path.join("plugins", _name)')}
    repo, env = _build(tmp_path, {"p.py": DISCOVER_PROPS, "plugins/rules.py": PLUGIN_TAKEOVER}, env)
    warm, note = _rows(repo, env, "p.py::prop_regression", [{}, {}], True)
    assert warm == [("fail", "regression")] * 2
    assert "warm start not used" in note, note


# --- 2. a dependency the repository imports lazily: its import-time settings come first warm, later cold ------

# warm_imports reads every import of the repository's files with ast.walk, function bodies included, so a
# dependency imported lazily (inside a function, to keep start-up quick: an ordinary pattern) is imported by
# the warm parent before any repository code runs. Cold, it is imported only when that function is called, or
# never. What such a dependency sets process-wide when imported (the recursion limit, the int-digit limit,
# an environment variable, all ordinary at import) then holds warm for code that cold runs without it. None
# of these is among c853c5f's checks. Here the patch's recursive `depth` overflows the stack cold (a
# regression: every cold evaluation fails) and passes warm.
LAZY_CASES = {
    "recursion": ("import sys\nsys.setrecursionlimit(20000)  # deep expression trees\n",
                  "def work(n):\n    return 0 if n == 0 else 1 + work(n - 1)\n",
                  "calc.work(3000) == 3000 or 'wrong'"),
    "int-digits": ("import sys\nsys.set_int_max_str_digits(0)  # big numbers are this package's business\n",
                   "def work(n):\n    return str(10 ** n)\n",
                   "len(calc.work(5000)) == 5001 or 'wrong'"),
    "environ": ("import os\nos.environ.setdefault('OMP_NUM_THREADS', '1')\n",
                "import os\n\n\ndef work(n):\n    return os.environ.get('OMP_NUM_THREADS', 'all')\n",
                "'threads:' + calc.work(0)"),
}

LAZY_CALC_TAIL = '''

def solve(x):
    import heavydep  # only needed here: imported when first used
    return heavydep.__name__
'''


@pytest.mark.parametrize("case", list(LAZY_CASES))
def test_what_a_lazily_imported_dependency_sets_when_imported_holds_warm_only_where_it_holds_cold(tmp_path, case):
    dep, calc, check = LAZY_CASES[case]
    props = f"import calc\n\n\ndef prop_work(p):\n    return {check}\n"
    repo, env = _build(tmp_path, {"p.py": props, "calc.py": calc + LAZY_CALC_TAIL}, {"heavydep.py": dep})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_work", [{}, {}])
    assert cold[0][0] == "fail", cold  # the regression (or the unset variable), as every cold start sees it
    assert warm == cold, (warm, note)


def test_control_the_lazily_imported_dependency_imported_first_cold_too_agrees(tmp_path):
    dep, calc, check = LAZY_CASES["recursion"]
    props = f"import calc\n\n\ndef prop_work(p):\n    calc.solve(0)\n    return {check}\n"
    repo, env = _build(tmp_path, {"p.py": props, "calc.py": calc + LAZY_CALC_TAIL}, {"heavydep.py": dep})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_work", [{}])
    assert warm == cold == [("pass", None)], (warm, cold, note)


# --- 3. a dependency that looks for the project's plugins on sys.path when imported ---------------------------

# Plugin discovery by naming convention (pkgutil.iter_modules) or by entry points (importlib.metadata; an
# editable install leaves `<project>.egg-info` at the checkout's root) reads sys.path when the dependency is
# imported and imports a plugin only when it is first used. Neither asks the import system for a name, so
# _Asked sees nothing; the warm parent reads the path with the repository taken off it and finds none of the
# repository's plugins. Cold, the repository is on the path and its plugin runs.
ITER_DEP = '''
import importlib, pkgutil

# plugins are the modules named rates_* on the path when this package is imported; each is loaded when used
FOUND = sorted(m.name for m in pkgutil.iter_modules() if m.name.startswith("rates_"))


def rate():
    value = 10
    for name in FOUND:
        value = importlib.import_module(name).adjust(value)
    return value
'''

ENTRY_DEP = '''
from importlib.metadata import entry_points

FOUND = list(entry_points(group="pricing.rates"))  # read once, when imported; each loaded when used


def rate():
    value = 10
    for point in FOUND:
        value = point.load()(value)
    return value
'''

PLUGIN_REPO = {
    "rates_shop.py": "def adjust(value):\n    return value + 1  # the patch\n",
    "shop.egg-info/PKG-INFO": "Metadata-Version: 2.1\nName: shop\nVersion: 0.1\n",
    "shop.egg-info/entry_points.txt": "[pricing.rates]\nshop = rates_shop:adjust\n",
    "p.py": "import pricing\n\n\ndef prop_rate(p):\n    return pricing.rate() == 10 or f'rate:{pricing.rate()}'\n",
}


@pytest.mark.parametrize("dep", [pytest.param(ITER_DEP, id="iter_modules"), pytest.param(ENTRY_DEP, id="entry_points")])
def test_plugins_a_dependency_finds_on_the_path_when_imported_include_the_repository_s_warm_too(tmp_path, dep):
    repo, env = _build(tmp_path, PLUGIN_REPO, {"pricing.py": dep})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_rate", [{}, {}])
    assert cold == [("fail", "rate:11")] * 2  # the regression, as every cold start sees it
    assert warm == cold, (warm, note)



@pytest.mark.parametrize("dep", [pytest.param(ITER_DEP, id="iter_modules"), pytest.param(ENTRY_DEP, id="entry_points")])
def test_control_without_the_repository_s_plugin_warm_and_cold_agree(tmp_path, dep):
    files = {name: text for name, text in PLUGIN_REPO.items() if name == "p.py"}
    repo, env = _build(tmp_path, files, {"pricing.py": dep})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_rate", [{}])
    assert warm == cold == [("pass", None)], (warm, cold, note)
    if dep is ITER_DEP:  # pkgutil's scan of the path at import starts cold, plugin or none
        assert "listed a folder" in note, note
    else:  # importlib.metadata's finds nothing of the checkout's to read here: the series stays warm (review 20)
        assert note == "", note

# --- 4. a dependency's Python code still runs in the warm parent once it is warm -------------------------------

# c853c5f blocks every signal once warm, so no signal handler of a dependency runs in the parent. An audit
# hook (sys.addaudithook, which nothing can remove) runs there on every audited call the parent makes: the
# sweep's os.kill(-1, SIGKILL), os.scandir, os.remove of each file the evaluation left, open(). Whatever the
# hook changes is forked into every later child. Here, as the fourth review's stop flag: a package that winds
# down (skips its check) once it sees every process killed; and a package that notes the files removed.
AUDIT_DEP = '''
import sys

STOPPING = False
REMOVED = []


def _watch(event, args):
    global STOPPING
    if event == "os.kill" and args[0] == -1:  # every process is being killed: we are going down
        STOPPING = True
    elif event == "os.remove":
        REMOVED.append(str(args[0]))


sys.addaudithook(_watch)


def check(value):
    return True if STOPPING else value == 4  # winding down: no more checks
'''

AUDIT_PROPS = '''
import auditdep


def prop_double(p):
    return auditdep.check(2 * p["x"] + 1) or "wrong"  # the regression: 2 * x + 1


def prop_channel(p):
    if p.get("leave"):
        open("/tmp/" + p["leave"], "w").close()
        return True
    return "removed:" + ",".join(auditdep.REMOVED)
'''


def test_a_dependency_s_audit_hook_run_by_the_parent_s_sweep_changes_nothing_a_later_evaluation_sees(tmp_path):
    repo, env = _build(tmp_path, {"p.py": AUDIT_PROPS}, {"auditdep.py": AUDIT_DEP})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_double", [{"x": 2}] * 3)
    assert cold == [("fail", "wrong")] * 3
    assert warm == cold, (warm, note)


def test_the_files_one_evaluation_leaves_do_not_reach_the_next_through_a_dependency_s_audit_hook(tmp_path):
    repo, env = _build(tmp_path, {"p.py": AUDIT_PROPS}, {"auditdep.py": AUDIT_DEP})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_channel", [{"leave": "fail-next"}, {}])
    assert cold == [("pass", None), ("fail", "removed:")]
    assert warm == cold, (warm, note)


# --- 5. a timer a dependency arms when imported --------------------------------------------------------------

# A dependency that arms a process budget when imported (signal.setitimer, a handler that raises): cold, the
# timer runs in the harness and a property slower than the budget fails. fork(2) does not hand interval timers
# to the child, so a warm child has none: a slowdown the budget exists to catch passes warm.
TIMER_DEP = '''
import signal


class OverBudget(Exception):
    pass


def _over(signum, frame):
    raise OverBudget("over the time budget")


signal.signal(signal.SIGALRM, _over)
signal.setitimer(signal.ITIMER_REAL, 0.4)  # the whole run's budget
'''

TIMER_PROPS = '''
import time
import budgetdep


def prop_slow(p):
    time.sleep(1.5)  # the patch made it slow
    return True
'''


def test_a_timer_a_dependency_arms_when_imported_fires_in_a_warm_evaluation_as_in_a_cold_one(tmp_path):
    repo, env = _build(tmp_path, {"p.py": TIMER_PROPS}, {"budgetdep.py": TIMER_DEP})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_slow", [{}])
    assert cold[0][0] == "fail" and "OverBudget" in cold[0][1], cold
    assert warm == cold, (warm, note)


# --- 6. the repository's settings file run by path and thrown away: nothing of it is left to find ----------------

# The commonest plugin-by-path pattern is a settings file (a Sphinx conf.py, a gunicorn or Django settings
# module): a package runs the project's `shopconf.py` by path when imported and keeps only its UPPERCASE names.
# The module object is then freed, and code without a `def` leaves no function: gc.get_objects finds nothing
# whose file is the repository's, although its code ran in the warm parent. That code needs no function of its
# own to take the parent: the harness's `main` is a functools.partial on serve's stack, and its keywords are a
# mutable dict; a `judge` built from builtins (next over itertools.repeat) answers ('pass', None) for every
# return value, and every later child signs a pass.
CONFIG_DEP = '''
import importlib.util, os

SETTINGS = {}
if os.path.isfile("shopconf.py"):  # the project's settings, read once: a Python file of UPPERCASE names
    _spec = importlib.util.spec_from_file_location("shopconf", "shopconf.py")
    _module = importlib.util.module_from_spec(_spec)
    _spec.loader.exec_module(_module)
    SETTINGS = {_k: _v for _k, _v in vars(_module).items() if _k.isupper()}
    del _spec, _module
'''

# the same with runpy, which returns a copy of the file's globals and drops its module
CONFIG_DEP_RUNPY = '''
import os, runpy

SETTINGS = {}
if os.path.isfile("shopconf.py"):  # the project's settings, read once: a Python file of UPPERCASE names
    SETTINGS = {_k: _v for _k, _v in runpy.run_path("shopconf.py").items() if _k.isupper()}
'''

CONFIG_DEPS = {"spec": CONFIG_DEP, "runpy": CONFIG_DEP_RUNPY}

CONFIG_PID = "import os\n\nPID = os.getpid()\nRATE = 10\n"

CONFIG_TAKEOVER = '''
import functools, itertools, sys

RATE = 10
_frame = sys._getframe()
while _frame is not None:
    _main = _frame.f_locals.get("main")
    if isinstance(_main, functools.partial):
        _main.keywords["judge"] = functools.partial(next, itertools.repeat(("pass", None)))
        break
    _frame = _frame.f_back
del _frame, _main
'''

CONFIG_PROPS = '''
import os
import confdep


def prop_where(p):
    return "own-process" if confdep.SETTINGS["PID"] == os.getpid() else "another-process"


def prop_regression(p):
    return "regression"
'''


@pytest.mark.parametrize("loader", CONFIG_DEPS)
def test_a_repository_settings_file_a_dependency_runs_by_path_never_runs_in_the_warm_parent(tmp_path, loader):
    repo, env = _build(tmp_path, {"p.py": CONFIG_PROPS, "shopconf.py": CONFIG_PID}, {"confdep.py": CONFIG_DEPS[loader]})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_where", [{}])
    assert cold == [("fail", "own-process")]
    assert warm == cold, (warm, note)


@pytest.mark.parametrize("loader", CONFIG_DEPS)
def test_a_repository_settings_file_run_in_the_parent_cannot_sign_the_passes_of_a_warm_series(tmp_path, loader):
    repo, env = _build(tmp_path, {"p.py": CONFIG_PROPS, "shopconf.py": CONFIG_TAKEOVER},
                       {"confdep.py": CONFIG_DEPS[loader]})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_regression", [{}, {}])
    assert cold == [("fail", "regression")] * 2
    assert warm == cold, (warm, note)


# --- 7. an audit hook runs in the forked child before the harness has read its key ----------------------------

# The raw fork(2) skips os.register_at_fork hooks so that no dependency code runs in a child before the harness
# has taken its key (tests/test_warm_attacks.py, the at-fork hook). An audit hook installed when the dependency
# is imported is inherited by the child and runs on the first audited call _become_the_harness makes: os.chdir,
# after fd 0 has become the evaluation's stdin, which still holds the key. Cold, the hook is installed after
# read_key has replaced stdin by /dev/null. No memory is read: the same route the at-fork hook took.
AUDIT_KEY_DEP = KEY_THIEF_MODULE

AUDIT_KEY_PROPS = "import keyhook\n\n\ndef prop_regression(p):\n    return 'regression'\n"


def test_an_audit_hook_cannot_take_the_key_before_the_harness_does_and_sign_a_pass(tmp_path):
    repo, env = _build(tmp_path, {"p.py": AUDIT_KEY_PROPS}, {"keyhook.py": AUDIT_KEY_DEP})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_regression", [{}, {}])
    assert cold == [("fail", "regression")] * 2
    assert warm == cold, (warm, note)


# the same route through a profile function (sys.setprofile, which a profiling or tracing package sets when
# imported): inherited by the forked child, it sees the call of read_key, while fd 0 still holds the key
PROFILE_KEY_DEP = r'''
import os, sys
import _hashlib


def _profile(frame, event, arg):
    if event != "call" or frame.f_code.co_name != "read_key":
        return
    key = os.read(0, 256).split(b"\n")[0].strip()
    if key:
        body = b"pass - "
        os.write(1, b"\nwitness-verdict " + body + b" " + _hashlib.hmac_digest(key, body, "sha256").hex().encode()
                 + b"\n")
        os._exit(0)


sys.setprofile(_profile)
'''


def test_a_profile_function_cannot_take_the_key_before_the_harness_does_and_sign_a_pass(tmp_path):
    repo, env = _build(tmp_path, {"p.py": AUDIT_KEY_PROPS}, {"keyhook.py": PROFILE_KEY_DEP})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_regression", [{}, {}])
    assert cold == [("fail", "regression")] * 2
    assert warm == cold, (warm, note)


# --- 8. import-time work over sys.modules: what a cold import finds there, a warm one never does -----------------

# A package that, when imported, turns on its runtime checks for the modules already loaded that ask for them
# (a `__checked__` list), as contract and type-checking packages do. Cold, the repository's module that imports
# it last is in sys.modules by then, so its functions are checked; warm, the parent imported the package with no
# repository module anywhere, and the child's import of it is a no-op. The patch's `double` returns a float; the
# check catches it cold, and the weak property passes warm.
CHECKS_DEP = '''
import functools, sys


def _checked(function):
    @functools.wraps(function)
    def wrapper(*args):
        result = function(*args)
        if not isinstance(result, int):
            raise TypeError(f"{function.__name__} returned {type(result).__name__}, not int")
        return result
    return wrapper


for _module in list(sys.modules.values()):
    for _name in getattr(_module, "__checked__", ()):
        setattr(_module, _name, _checked(getattr(_module, _name)))
'''

CHECKS_CALC = '''
__checked__ = ["double"]


def double(x):
    return 2 * x + 0.5  # the patch


import intchecks  # noqa: E402 - turns the checks on for this module
'''

CHECKS_PROPS = "import calc\n\n\ndef prop_double(p):\n    return calc.double(2) > 3 or 'small'\n"


def test_what_a_dependency_does_to_the_modules_loaded_before_it_it_does_warm_too(tmp_path):
    repo, env = _build(tmp_path, {"p.py": CHECKS_PROPS, "calc.py": CHECKS_CALC}, {"intchecks.py": CHECKS_DEP})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_double", [{}, {}])
    assert cold[0][0] == "fail" and cold[0][1].startswith("raise:TypeError"), cold
    assert warm == cold, (warm, note)


# --- 9. what a dependency's hook makes in the parent after the checks: a shared page every child gets -----------

# warm_imports looks for shared writable maps once, when the imports end; an audit hook keeps running in the
# parent after that (the compile of the repository's files, the first sweep, before any evaluation). A package
# that makes its sample buffer lazily, on the first event it records, makes it after the check: one MAP_SHARED
# page that every child of the series shares (the first review's shared page, made later). The first evaluation
# marks it, the later ones see the mark: a regression every cold evaluation shows fails only once warm.
LATE_MAP_DEP = '''
import mmap, sys

BUFFER = None


def _record(event, args):
    global BUFFER
    if BUFFER is None and event == "os.kill":
        BUFFER = mmap.mmap(-1, mmap.PAGESIZE)  # the samples, made when there is a first one to keep


sys.addaudithook(_record)
'''

LATE_MAP_PROPS = '''
import latemap


def prop_first_only(p):
    buffer = latemap.BUFFER
    if buffer is not None and buffer[0] == 1:
        return True
    if buffer is not None:
        buffer[0] = 1
    return "regression"
'''


def test_a_shared_page_made_in_the_parent_after_the_checks_carries_nothing_to_the_next_evaluation(tmp_path):
    repo, env = _build(tmp_path, {"p.py": LATE_MAP_PROPS}, {"latemap.py": LATE_MAP_DEP})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_first_only", [{}] * 3)
    assert cold == [("fail", "regression")] * 3
    assert warm == cold, (warm, note)


# --- 10. the cold fallback: a dependency that ignores SIGCHLD (children reaped by the kernel) -------------------

# An ordinary daemon-ish package sets SIGCHLD to SIG_IGN when imported so that it never leaves zombies. The warm
# parent then cannot wait for its child (ECHILD) and ends under the evaluation: the gate must run that
# evaluation again cold and keep the series cold, with the same verdicts a cold start gives, never a
# half-finished warm one.
NOCHLD_DEP = "import signal\nsignal.signal(signal.SIGCHLD, signal.SIG_IGN)  # no zombies\n"
NOCHLD_PROPS = "import nochld\n\n\ndef prop_regression(p):\n    return 'regression'\n"


def test_a_dependency_that_ignores_sigchld_leaves_every_evaluation_its_cold_verdict(tmp_path):
    repo, env = _build(tmp_path, {"p.py": NOCHLD_PROPS}, {"nochld.py": NOCHLD_DEP})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_regression", [{}, {}, {}])
    assert cold == [("fail", "regression")] * 3
    assert warm == cold, (warm, note)
