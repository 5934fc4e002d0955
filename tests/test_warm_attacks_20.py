"""Attacks on the warm start, twentieth review (after the parent reaps every process while an evaluation runs, drops
every path-importer-cache entry a child would, refuses a weak reference to the stand-in and a file of the checkout
mapped into it).

Every test asserts the SAFE behaviour (a warm evaluation ends as a cold one of the same head does, or the series
starts cold with a reason). Mended since: 1 (the stand-in may be in sys.modules under its own name only), 2 (the
watch judges ctypes.dlopen of a file of the checkout: the library never loads in the parent, so it cannot hide its
mapping; a native library loaded another way that hides its own is code built to defeat the gate, given up), 3
(importlib.metadata's listing of the path is the import system's), 4 (a name in the stand-in's namespace that its
making and the import statements did not put there starts the series cold). KEY: a regression made `pass` warm,
signed with the evaluation's own key, no note.
1. (break) a library that keeps its importer under a second name in sys.modules keeps the stand-in: held() takes every
   referrer that is sys.modules for the gate's own, modules() skips the stand-in by identity; a regression passes warm;
2. KEY (break) the repository's shared library, loaded by a dependency through ctypes as in review 19, replaces its own
   file mappings with anonymous copies (mremap) in its constructor: _mapped_from sees no file of the checkout, and its
   pthread_atfork child handler steals every child's key;
3. (false positive, plain) importlib.metadata.version() at import lists /repo: every such library's series is cold;
4. (break) a name a library writes into its importer's globals at import lands in the stand-in warm, in the
   property's module cold; nothing compares the stand-in's namespace with what the import statements bind;
5. (failed) a detached process forking short-lived orphans without end: the parent reaps them, the sweep ends it.
"""

import pytest

from witness_gate.sandbox import bwrap_works
from warmcases import CHECK_SUM_PROPS, FAST_AGENT, NATIVE_CHILD_C, build_native
from warmcases import build as _build, rows as _rows, warm_and_cold as _warm_and_cold

pytestmark = pytest.mark.skipif(bool(bwrap_works()), reason="bubblewrap cannot run here")

REGRESSION_PROPS = "import {dep}\n\n\ndef prop_regression(p):\n    return 'regression'\n"


# --- 1. the stand-in kept under a second name in sys.modules: held() counts sys.modules as the gate's own ----------

# a library that registers the module configuring it under a well-known name (as a settings module is), and later
# runs the checks that module defines; strongly held, but only by sys.modules, which held() takes for the gate's
ALIASED = r'''
import sys


def _importer():
    frame = sys._getframe(1)
    while frame is not None:
        name = frame.f_globals.get("__name__")
        if frame.f_code.co_filename != __file__ and not frame.f_code.co_filename.startswith("<") \
                and name in sys.modules:
            return sys.modules[name]
        frame = frame.f_back
    return None


sys.modules.setdefault("registry_configured", _importer())


def failing():
    module = sys.modules["registry_configured"]
    return [name for name, value in sorted(vars(module).items())
            if name.startswith("check_") and callable(value) and value() is not True]
'''


def test_the_stand_in_kept_under_another_name_in_sys_modules(tmp_path):
    repo, env = _build(tmp_path, {"p.py": CHECK_SUM_PROPS}, {"registry.py": ALIASED})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_checks", [{}, {}])
    assert cold == [("fail", "failed check_sum")] * 2, cold
    assert warm == cold, (warm, note)


# --- 2. the repository's native library, loaded in the parent, that hides its own mapping -------------------------

# review 19's libfast.so, whose constructor also replaces each of its file mappings by an anonymous copy of the same
# bytes at the same address (mremap over it): /proc/self/maps no longer names the checkout, its code still runs, and
# its pthread_atfork child handler runs in every child before its request
HIDDEN_C = r'''
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
''' + NATIVE_CHILD_C + r'''
__attribute__((constructor)) static void init(void) {
    static char buf[1 << 17];
    unsigned long starts[64], ends[64];
    int prots[64], count = 0;
    ssize_t n, total = 0;
    pthread_atfork(0, 0, child);
    int fd = open("/proc/self/maps", O_RDONLY);
    while ((n = read(fd, buf + total, sizeof buf - 1 - total)) > 0) total += n;
    close(fd);
    buf[total] = 0;
    for (char *line = buf, *nl; line && *line && count < 64; line = nl ? nl + 1 : 0) {
        nl = strchr(line, '\n');
        if (nl) *nl = 0;
        char perms[8];
        if (strstr(line, "libfast.so") && sscanf(line, "%lx-%lx %7s", &starts[count], &ends[count], perms) == 3) {
            prots[count++] = (perms[0] == 'r' ? PROT_READ : 0) | (perms[1] == 'w' ? PROT_WRITE : 0)
                             | (perms[2] == 'x' ? PROT_EXEC : 0);
        }
    }
    for (int i = 0; i < count; i++) {
        size_t len = ends[i] - starts[i];
        if (!(prots[i] & PROT_READ)) {
            mmap((void *)starts[i], len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
            continue;
        }
        void *copy = mmap(0, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        memcpy(copy, (void *)starts[i], len);
        mprotect(copy, len, prots[i]);
        mremap(copy, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, (void *)starts[i]);
    }
}

int fast_add(int a, int b) { return a + b; }
'''

# the binding in the set-up's environment, as review 19's: the project's core, where the checkout built it
FASTLIB = ("import ctypes\nimport os\n\n_LIB = ctypes.CDLL(os.path.join(os.getcwd(), 'native', 'libfast.so'))\n"
           "assert _LIB.fast_add(2, 3) == 5\n")


def test_the_repository_s_native_code_cannot_hide_its_mapping(tmp_path):
    repo, env = build_native(tmp_path, {"p.py": REGRESSION_PROPS.format(dep="fastlib"),
                                         "native/agent.txt": FAST_AGENT},
                              {"fastlib.py": FASTLIB}, HIDDEN_C)
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_regression", [{}, {}])
    assert cold == [("fail", "regression")] * 2, cold
    assert warm == cold, (warm, note)


# --- 3. false positive: a library that reads its own version from its metadata when imported ----------------------

VERSIONED = "import importlib.metadata\n\n__version__ = importlib.metadata.version('versioned')\n"
VERSIONED_META = "Metadata-Version: 2.1\nName: versioned\nVersion: 1.2.3\n"
VERSIONED_PROPS = "import versioned\n\n\ndef prop_version(p):\n    return versioned.__version__ == '1.2.3'\n"


def test_a_library_reading_its_version_from_metadata_stays_warm(tmp_path):
    """A false positive, mended: `importlib.metadata.version(...)` in a package's __init__ (very common) walks
    sys.path in order and lists /repo (before site-packages and /env) with os.listdir: the watch noted a listing of
    the checkout and every series of such a library started cold. The listing finds the same entries warm and cold
    (the checkout is read-only), and what it may lead to (an import, a read of a file) is judged on its own."""
    repo, env = _build(tmp_path, {"p.py": VERSIONED_PROPS},
                       {"versioned/__init__.py": VERSIONED, "versioned-1.2.3.dist-info/METADATA": VERSIONED_META})
    warm, note = _rows(repo, env, "p.py::prop_version", [{}, {}], True)
    assert warm == [("pass", None)] * 2, (warm, note)
    assert note == "", note


# the repository's own distribution, found by that listing: reading its metadata is a read of the checkout
REPO_VERSIONED = "import importlib.metadata\n\n__version__ = importlib.metadata.version('shop')\n"


def test_a_library_reading_the_repository_s_own_metadata_starts_cold(tmp_path):
    repo, env = _build(tmp_path, {"p.py": VERSIONED_PROPS.replace("'1.2.3'", "'0.9'"),
                                  "shop-0.9.dist-info/METADATA": "Metadata-Version: 2.1\nName: shop\nVersion: 0.9\n"},
                       {"versioned/__init__.py": REPO_VERSIONED})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_version", [{}, {}])
    assert cold == [("pass", None)] * 2 and warm == cold, (warm, cold)
    assert "read the repository's" in note, note


# --- 4. a name written into the importer's namespace at import: the stand-in's warm, the property module's cold ------

# a library that switches itself on for the module importing it (a flag in that module's globals, as a doctest or
# contracts helper does), and whose check() asks the caller's globals: the flag lands in the stand-in warm, which no
# check compares with what the import statements bind, and the child's fresh property module has none
SWITCHED = r'''
import sys

_frame = sys._getframe(1)
while _frame.f_code.co_filename.startswith("<"):  # past the import system's frames, to the importing module
    _frame = _frame.f_back
_frame.f_globals["__checks_on__"] = True
del _frame


def check(condition, message):
    if not sys._getframe(1).f_globals.get("__checks_on__", False):
        return True  # not switched on for this module
    return True if condition else message
'''
SWITCHED_PROPS = r'''import checks


def prop_sum(p):
    return checks.check(1 + 1 == 3, "regression")
'''


def test_a_name_a_library_sets_in_its_importer_is_in_the_property_module_warm_too(tmp_path):
    repo, env = _build(tmp_path, {"p.py": SWITCHED_PROPS}, {"checks.py": SWITCHED})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_sum", [{}, {}])
    assert cold == [("fail", "regression")] * 2, cold
    assert warm == cold, (warm, note)


# --- 5. the reap loop under a storm of short-lived orphans -------------------------------------------------------

# an evaluation that leaves a detached process forking short-lived children as fast as it can: the parent, as init,
# reaps each while it waits, then the sweep must end the storm; the next evaluation must start as the first
STORM_PROPS = r'''
import os


def prop_storm(p):
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            while True:
                try:
                    if os.fork() == 0:
                        os._exit(0)
                except OSError:
                    pass
        os._exit(0)
    os.wait()
    return os.getppid() != 0
'''


def test_a_storm_of_orphans_does_not_outlive_its_evaluation(tmp_path):
    repo, env = _build(tmp_path, {"p.py": STORM_PROPS}, {"unused.py": "X = 1\n"})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_storm", [{}, {}, {}])
    assert cold == [("pass", None)] * 3, cold
    assert warm == cold, (warm, note)
