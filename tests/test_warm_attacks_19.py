"""Attacks on the warm start, nineteenth review (after the warm parent became the sandbox's init, the pre-forked
child's preparation before its request, the refusing FileFinder subclass and the stand-in left in sys.modules).

Every test asserts the SAFE behaviour (a warm evaluation ends as a cold one of the same head does). All five were breaks
and are mended: 1 (the parent, as init, reaps every process that ends while an evaluation runs), 2 (the parent drops
every cache entry a child would, under its trace function), 3 (a weak reference to the stand-in starts the series
cold), 4 (a file of the checkout mapped into the parent starts it cold). KEY: a regression made `pass` warm, signed with
the evaluation's own key, no note.
1. (introduced by --as-pid-1) orphans are reparented to the warm parent, which waits only for its own child while an
   evaluation runs: an orphan that exited stays a zombie until the sweep (bubblewrap's init reaps it at once cold), so
   kill(pid, 0) on a daemon that crashed at its start succeeds warm: a regression passes warm; and (1b) the zombies
   count against the sandbox uid's process limit, so forking many short-lived detached workers fails warm only;
2. KEY: use_path, run in each child before its request (_arranger), deletes sys.path_importer_cache entries by a
   textual prefix test (`/repo/../env` is "inside" /repo), the parent's import_system by the kernel's real path (it
   keeps it): the finder's finalizer runs in the child after _waiting cleared the profile, and sets one that sees
   _become_the_harness take the key's pipe;
3. (introduced by keeping the stand-in) a library that keeps the module importing it through a weak reference (a
   WeakSet: no referrer held() sees) keeps the stand-in warm, whose dict has only what the imports bound, the property's
   own module cold: it finds no check to run, and a regression passes warm;
4. KEY: the repository's shared library, loaded by a dependency with ctypes.CDLL (no audit event the watch judges, no
   `open`, no function or module of the checkout left), runs its constructor in the parent; its pthread_atfork child
   handler runs in every child (glibc's fork) before the request and adds an audit hook that reads fd 0 at
   _become_the_harness's setrlimit.
"""

import pytest

from witness_gate.sandbox import bwrap_works
from warmcases import CHECK_SUM_PROPS, FAST_AGENT, NATIVE_CHILD_C, FDS_THIEF, build_native
from warmcases import build as _build, warm_and_cold as _warm_and_cold

pytestmark = pytest.mark.skipif(bool(bwrap_works()), reason="bubblewrap cannot run here")

REGRESSION_PROPS = "import {dep}\n\n\ndef prop_regression(p):\n    return 'regression'\n"

# --- 1. init reaps: an orphan that exited is gone cold (bubblewrap's init waits for every child), a zombie warm -----

# a daemon started the usual way (double fork, its own session) that crashes at once: the regression; the property
# asks whether it still runs, as a pid file's reader does (kill(pid, 0))
DAEMON_PROPS = r'''
import os
import time


def prop_daemon_runs(p):
    r, w = os.pipe()
    first = os.fork()
    if first == 0:
        os.setsid()
        daemon = os.fork()
        if daemon == 0:
            os._exit(1)  # the regression: the daemon dies at its start
        os.write(w, str(daemon).encode())
        os._exit(0)
    os.close(w)
    os.waitpid(first, 0)
    daemon = int(os.read(r, 64))
    time.sleep(0.3)
    try:
        os.kill(daemon, 0)
    except ProcessLookupError:
        return "the daemon is not running"
    return True
'''


def test_a_daemon_that_died_is_gone_warm_too(tmp_path):
    repo, env = _build(tmp_path, {"p.py": DAEMON_PROPS}, {"unused.py": "X = 1\n"})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_daemon_runs", [{}, {}])
    assert cold == [("fail", "the daemon is not running")] * 2, cold
    assert warm == cold, (warm, note)


# the same, as a limit: orphans that exited are counted against the sandbox uid's process limit (64, enforced when the
# gate runs as root) until the sweep reaps them warm; cold, bubblewrap's init reaps each at once
WORKERS_PROPS = r"""
import os


def prop_many_short_daemons(p):
    for _ in range(80):  # one short-lived detached worker after another, none alive at once for long
        first = os.fork()
        if first == 0:
            if os.fork() == 0:
                os._exit(0)
            os._exit(0)
        os.waitpid(first, 0)
    return True
"""


def test_exited_orphans_do_not_use_up_the_process_limit_warm(tmp_path):
    import os

    if os.geteuid() != 0:
        pytest.skip("the process limit is enforced only when the gate runs as root")
    repo, env = _build(tmp_path, {"p.py": WORKERS_PROPS}, {"unused.py": "X = 1\n"})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_many_short_daemons", [{}])
    assert cold == [("pass", None)], cold
    assert warm == cold, (warm, note)


# --- 2. a finder's finalizer, run by the child's own use_path before its request ---------------------------------

# `/repo/../env` is the set-up's folder to the parent (its check resolves it, and keeps it), but inside the checkout
# to use_path's prefix test in each child, which deletes it there: the finder's last reference goes, its finalizer
# runs after _waiting cleared the profile, and the profile it sets sees _become_the_harness take the key's pipe
FINALIZED = FDS_THIEF + r'''
import sys


class _Finder:
    def find_spec(self, fullname, target=None):
        return None

    def invalidate_caches(self):
        pass

    def __del__(self):
        sys.setprofile(_profile)


sys.path_importer_cache["/repo/../env"] = _Finder()
'''


def test_a_finder_s_finalizer_cannot_run_in_the_child_before_its_request(tmp_path):
    repo, env = _build(tmp_path, {"p.py": REGRESSION_PROPS.format(dep="finalized")}, {"finalized.py": FINALIZED})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_regression", [{}, {}])
    assert cold == [("fail", "regression")] * 2, cold
    assert warm == cold, (warm, note)


# --- 3. a weak reference to the module that imported a library: the stand-in warm, the property's module cold ------

# a library that collects the checks of the modules importing it, weakly (it keeps no module alive)
REGISTRY = r'''
import sys
import weakref

_IMPORTERS = weakref.WeakSet()


def _importer():
    frame = sys._getframe(1)
    while frame is not None:
        name = frame.f_globals.get("__name__")
        if frame.f_code.co_filename != __file__ and not frame.f_code.co_filename.startswith("<") \
                and name in sys.modules:
            return sys.modules[name]
        frame = frame.f_back
    return None


_IMPORTERS.add(_importer())


def failing():
    failed = []
    for module in list(_IMPORTERS):
        for name, value in sorted(vars(module).items()):
            if name.startswith("check_") and callable(value) and value() is not True:
                failed.append(name)
    return failed
'''


def test_a_library_that_weakly_keeps_its_importer_sees_the_property_s_module_warm_too(tmp_path):
    repo, env = _build(tmp_path, {"p.py": CHECK_SUM_PROPS}, {"registry.py": REGISTRY})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_checks", [{}, {}])
    assert cold == [("fail", "failed check_sum")] * 2, cold
    assert warm == cold, (warm, note)


# --- 4. the repository's native library, loaded by a dependency in the parent: its pthread_atfork handler -----------

# the project's accelerated core, built in the checkout (libfast.so): its constructor registers an at-fork handler,
# which runs in every child the parent forks (glibc's fork, called raw), before its request, and adds an audit hook
# there; the hook takes the key from fd 0 at _become_the_harness's setrlimit, after the dup2 of the key's pipe
FAST_C = r'''
#include <pthread.h>
''' + NATIVE_CHILD_C + r'''
__attribute__((constructor)) static void init(void) { pthread_atfork(0, 0, child); }

int fast_add(int a, int b) { return a + b; }
'''
# the binding in the set-up's environment: the project's core, where the checkout built it
FASTLIB = "import ctypes\nimport os\n\n_LIB = ctypes.CDLL(os.path.join(os.getcwd(), 'native', 'libfast.so'))\n"


def test_the_repository_s_native_code_never_runs_in_the_parent(tmp_path):
    repo, env = build_native(tmp_path, {"p.py": REGRESSION_PROPS.format(dep="fastlib"),
                                         "native/agent.txt": FAST_AGENT},
                              {"fastlib.py": FASTLIB}, FAST_C)
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_regression", [{}, {}])
    assert cold == [("fail", "regression")] * 2, cold
    assert warm == cold, (warm, note)
