"""Attacks on the warm start, twenty-sixth review.

Every test asserts the SAFE behaviour (a warm evaluation ends as a cold one of the same head does, or the series
starts cold with a reason). All thirteen breaks below were mended in session 9, each test failing before its mend:
the parent's standard streams are pipes (1); what the imports set on the parent that a fork hands on otherwise —
limits, prctl flags, standard descriptors' flags, a freeze, POSIX timers, pending signals — moves the fingerprint
read before them (2, 3, 8, 12, 13), and the subreaper flag is set after them; a "missing" import needs the
interpreter's own finders and hooks and the import system's frames alone (5, 6); the gate's package is warmed only
among the first imports (4); the sweep drains the signals queued on the parent (7); a mapping marked to be wiped or
left out at a fork starts the series cold (9); every answer on the control socket carries the series' word, read
before any dependency runs (10); a file with a second name is not kept (11).

What this round tried: the interpreter state the warm parent's own start leaves every child that a cold harness's
start does not (its standard streams, made over other descriptors; the descriptors a dependency finds open while it
is imported, the control socket among them); process state a dependency sets on itself when imported that the
fork or the child's own set-up (_waiting, _become_the_harness, the collector's unfreeze) undoes, where a cold
harness keeps it (CPU limit, subreaper, gc.freeze, wipe-on-fork memory); where warm_parent._import's "missing" may
hide dependency code that ran; the gate's own package warmed out of its place; what the sweep puts back (hard links)
or leaves (signals queued on the blocked parent).
Tried and found closed or given up (no test kept): an abstract unix socket kept alive in flight by an SCM_RIGHTS
cycle (the kernel's unix GC frees it within milliseconds, before the sweep ends); the stack depth at which the parent
imports (the same as cold, 12 frames); a forged `done`/`broken` on the control socket after `ready` (a pass still
needs a line signed with the key); System V shm, message queues, semaphores, POSIX queues and keyrings (refused by
seccomp); nice, affinity, policy, I/O priority, OOM score and limits set on the parent (the fingerprint).

1. (break) the warm parent is started with /dev/null as its stdin, stdout and stderr (processes.spawn(quiet=True)),
   a cold harness with pipes (the key's on stdin, the gate's on stdout and stderr). The interpreter makes
   sys.stdin/stdout/stderr at start-up and io caches what it learnt of each descriptor there: TextIOWrapper's
   `seekable`/`telling` and FileIO's `seekable` (and BufferedReader's position). Each child dup2s its pipes onto 0-2
   but keeps the parent's stream objects, so `sys.stdin.seekable()` (and stdout's, stderr's) is True warm, False
   cold, and `sys.stdin.seek(0)` / `sys.stdin.tell()` works warm (fd 0 is /dev/null by then, which seeks) where cold
   it raises io.UnsupportedOperation: a regression that rewinds its input fails every cold evaluation and passes
   every warm one, no note. No dependency is needed at all. (A dependency that reads `os.fstat(1)` or counts its
   descriptors when imported sees /dev/null and the control socket warm, the gate's pipes and the channel cold.)
2. (break) each child sets RLIMIT_CPU to (cpu, cpu) in _become_the_harness, overwriting whatever the imports set on
   the parent; the fingerprint the sweep compares with is read after the imports, and no check asks whether they
   moved the CPU limit. A dependency that caps its process's CPU when imported (a runaway search ends instead of
   hanging: `setrlimit(RLIMIT_CPU, (2, hard))`) caps the property cold and never warm: a solver that refuses a
   search over its process's budget fails every cold evaluation and passes every warm one, no note (and a slow
   regression killed by SIGXCPU cold runs to its end warm; a hard limit lowered the same way makes every warm
   child exit 70 before the harness runs).
3. (break) the same for the process attributes _waiting sets in each child: PR_SET_CHILD_SUBREAPER 0 (and
   PR_SET_DUMPABLE 1 in _become_the_harness) overwrite what a dependency set on its process when imported, which a
   cold harness keeps (the parent sets both on itself before the imports, so a dependency's own call changes
   nothing any check reads). A process-supervision library that makes its process the subreaper of the daemons it
   starts (prctl through ctypes, no Py symbol) learns a crashed daemon's exit status cold and never warm (the orphan
   goes to the warm parent, which reaps it): a daemon that fails at its start fails every cold evaluation and
   passes every warm one, no note.
4. (break) the gate's own package is warmed "wherever the property imports it" (warm_imports.reached appends every
   `witness_gate` import at the property module's top, in a try or a class body, after its first imports), on the
   ground that nothing before it configures it. But what the property module runs before that import decides which
   `witness_gate` a cold start imports: a module that puts a folder of the checkout first on sys.path (tools/, where
   the project keeps its own copy of the decorator, to run its properties without the gate) imports that copy cold,
   and the gate's copy, already in sys.modules from the parent, warm. provided() looks at the root and src/ only, so
   nothing refuses it. The project's copy also tries each property on its domain's edge cases: a regression that
   only an edge case shows fails every cold evaluation and passes every warm one, no note.
5. (break, review 24's fourth by another door) a warmed import that raised starts the series cold, but
   warm_parent._import takes an ImportError whose `name` is the `from` statement's module, with that module
   imported, for "missing" (the name is not in it) without asking, as it asks of ModuleNotFoundError, whether any
   code but the import system's raised it. A submodule that runs, keeps state in its package, and raises
   `ImportError(..., name=<its package>)` on its first import (a build started on first use) is "missing": the
   warmed imports end but the series stays warm, and each child imports it again on top of what the parent's
   attempt left, where it succeeds. The property module's `try: from fastcalc import accel` takes the installed
   accelerator warm and the repository's fallback (with the regression) cold: fail cold, pass warm, no note.
6. (break, the same through a finder) the ModuleNotFoundError branch asks that sys.modules did not grow and that no
   frame but the statement's and importlib's is on the traceback; but a finder on sys.meta_path (appended by an
   earlier warmed import, which is let be: a cold start has it too) runs, keeps state and returns None, and its
   frame is gone by the time the import system raises. A build hook that starts a module's build on its first
   lookup and finds it from the second on makes `try: import fastcalc` "missing" in the parent (the series stays
   warm) and found in every child: the installed accelerator warm, the repository's fallback with its regression
   cold: fail cold, pass warm, no note.
7. (break, a number handed on, not listed among the give-ups) the warm parent blocks every signal once warm, and a
   blocked signal sent to it is queued there, never delivered and never drained: the sweep clears files and
   processes, not the parent's pending signals. An evaluation's `os.kill(1, SIGRTMIN + k)` (the parent is the
   sandbox's init: allowed, and a cold start's bubblewrap init simply drops it) queues one real-time signal per
   call, and every later evaluation of the series reads their count as its uid's queued signals (`SigQ:` in
   /proc/self/status); the SIGCHLD each child's exit leaves pending there also tells the first evaluation from the
   next with no sending at all. Cold the count is 0 in every evaluation. A property that trusts the count passes
   every evaluation after the first warm, none cold.
8. (break) the same overwrite as 2 and 3, for garbage collection: each child unfreezes every object (_waiting's
   gc.unfreeze, and read_key's freeze-then-unfreeze), undoing a gc.freeze() a dependency made when imported (the
   copy-on-write advice for forking servers), which a cold harness keeps: what it froze is never collected cold.
   A pool that opens a probe connection in a reference cycle when imported and then freezes keeps it alive for
   ever cold (a leak check over its live connections fails every cold evaluation) and has it collected in every
   warm child (the check passes), no note.
9. (break) memory a dependency marks MADV_WIPEONFORK when imported (Python's own mmap.madvise on a private
   anonymous map: no ctypes, no shared map, so neither the watch nor _shared_writable minds) reads as zeros in
   every forked child and as written in a cold harness. A checker that keeps its settings there (wiped in a forked
   worker, which falls back to lenient checks until it configures itself: the RNG-state idiom the flag exists for)
   is strict cold and lenient warm: a regression off by one fails every cold evaluation and passes every warm one,
   no note. (MADV_DONTFORK is the same seen from the other side: the map is gone in the child, which crashes on it.)
10. KEY (break) the warm parent holds its control socket to the gate (WITNESS_WARM_FD, a SOCK_SEQPACKET) open while
   it imports the dependencies: popping the variable hides nothing from a dependency that tries the descriptors
   (fstat, `socket.socket(fileno=fd).type`; no event the watch judges). A dependency that sends `ready` on it from
   its import is taken by the gate for the parent (WarmParent.start reads the first message), which then sends
   each request to it: the three descriptors, the first the pipe holding the evaluation's verdict key. It reads
   the key, writes a pass signed with it to the evaluation's stdout, answers `done 0`, and waits for the next,
   never returning from its import: every evaluation of the series passes, signed, with no note, and no child is
   ever forked. The docs say the parent "keeps its socket to the gate out of every child" and that the warm start
   closes the routes to the key that need no reaching into memory; this one needs none.
11. (break) what the imports wrote to the writable roots is kept and put back before every evaluation
   (warm_sweep.snapshot/_restore), one entry at a time: two names of one file (a hard link the dependency made, the
   publish-by-link idiom) come back as two files. A rate store that publishes `current` as a hard link of
   `rates.dat` when imported shares one inode between them cold and two warm: an implementation that stages a rate
   by writing rates.dat in place (the regression: through the published link) changes `current` cold and not warm,
   so "staging publishes nothing" fails every cold evaluation and passes every warm one, no note.
12. (break, review 5's timer by another call) a timer armed when imported is not inherited by fork(2), so final()
   starts the series cold on an interval timer (getitimer); but a POSIX timer (timer_create, through ctypes with no
   Py symbol) is neither inherited nor looked at. A watchdog a dependency arms when imported (SIGALRM after a
   second, default action) ends a slow regression cold (`transport signal:SIGALRM` on every evaluation) and never
   fires in a warm child (it fires in the parent, where SIGALRM is blocked and stays queued): `pass` warm, no note.
   (docs/SECURITY.md gives up that a regression only a timeout shows cold can pass warm because the imports' time is
   not counted; this is the timer itself gone, the case final()'s itimer check exists for.)
13. (break, 1 seen from a dependency) what a dependency sets on the standard descriptors when imported lands, warm,
   on the parent's /dev/null descriptors, which each child replaces with its own pipes (dup2, which also clears
   FD_CLOEXEC); cold it lands on the gate's pipes, which the property then uses. A library that keeps the programs
   its process starts out of its own output marks fds 1 and 2 close-on-exec when imported: cold, a shell step the
   implementation runs finds no stdout, `echo` fails and the step exits 1 on every evaluation; warm the child's
   fd 1 is inheritable and the step succeeds: fail cold, pass warm, no note. The same with O_NONBLOCK
   (os.set_blocking(1, False), as an event loop writing the process's output does): cold a large print meets a full
   pipe and raises BlockingIOError (or the verdict's own write fails: no_verdict) on most evaluations, warm never
   (seen here, racy, so not kept as a test). No check compares the descriptors' flags, only their numbers.
"""

import pytest

from witness_gate.sandbox import bwrap_works
from warmcases import build as _build, warm_and_cold as _warm_and_cold

pytestmark = pytest.mark.skipif(bool(bwrap_works()), reason="bubblewrap cannot run here")


# --- 1. the standard streams are made over /dev/null in the warm parent, over pipes cold ------------------------------

COUNT_PROPS = "from lines import count_lines\n\n\ndef prop_count(p):\n    return count_lines() == 0\n"
COUNT_LINES = r'''import sys


def count_lines(stream=None):
    """Lines of the input (standard input by default), read from its start."""
    stream = sys.stdin if stream is None else stream
    stream.seek(0)  # the regression: a pipe cannot be rewound
    return sum(1 for _ in stream)
'''


# BREAKS: warm [('pass', None), ('pass', None)]; cold [('fail', 'raise:UnsupportedOperation@lines.py:7')] * 2; no note.
# Suggested fix: start the warm parent with pipes as its stdin, stdout and stderr, as a cold harness has them (stdin a
# pipe whose write end is closed, stdout and stderr pipes the host drains and drops), so the interpreter's streams
# are made over the same kinds of descriptor; or start the series cold unless fds 0-2 are FIFOs at start-up.
def test_a_regression_that_rewinds_standard_input_fails_warm_too(tmp_path):
    repo, env = _build(tmp_path, {"p.py": COUNT_PROPS, "lines.py": COUNT_LINES}, {"x.py": "X = 1\n"})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_count", [{}, {}])
    assert cold[0][0] == "fail", cold  # the regression, seen on every cold evaluation
    assert warm == cold or note, (warm, cold, note)


# --- 2. a CPU limit a dependency sets when imported is overwritten in every child ---------------------------------------

SOLVE_PROPS = "import cpubudget\n\nfrom solver import solve\n\n\ndef prop_solve(p):\n    return solve()\n"
SOLVER = r'''import cpubudget


def solve():
    """Refuses a search its process cannot finish rather than be killed half way."""
    estimate = 5.0  # the regression: an exhaustive search where a greedy one took a tenth of a second
    if not cpubudget.allowed(estimate):
        return f"search needs {estimate}s of CPU, over the process's budget"
    return True
'''
CPUBUDGET = r'''"""Caps this process's CPU time when imported (a runaway search ends, not hangs); tells callers what fits."""
import resource

_soft, _hard = resource.getrlimit(resource.RLIMIT_CPU)
LIMIT = 2 if _hard == resource.RLIM_INFINITY else min(2, _hard)
resource.setrlimit(resource.RLIMIT_CPU, (LIMIT, _hard))


def allowed(seconds):
    """Whether `seconds` more CPU fit in this process's limit."""
    return seconds < resource.getrlimit(resource.RLIMIT_CPU)[0]
'''


# BREAKS: warm [('pass', None)] * 2; cold [('fail', "search needs 5.0s of CPU, over the process's budget")] * 2; no
# note. Suggested fix: read RLIMIT_CPU right after the imports and start the series cold when it is not what the
# parent was started with (or give each child min(the imports' soft limit, cpu) and the imports' hard limit, so the
# limit a dependency set holds in the child as it holds in a cold harness).
def test_a_cpu_limit_a_dependency_sets_when_imported_holds_warm_too(tmp_path):
    repo, env = _build(tmp_path, {"p.py": SOLVE_PROPS, "solver.py": SOLVER}, {"cpubudget.py": CPUBUDGET})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_solve", [{}, {}])
    assert cold[0][0] == "fail", cold  # the regression, seen on every cold evaluation
    assert warm == cold or note, (warm, cold, note)


# --- 3. a subreaper a dependency makes of its process when imported is undone in every child --------------------------

DAEMON_PROPS = ("import reaper\n\nfrom service import main\n\n\ndef prop_daemon(p):\n    status = reaper.run_daemon(main)\n"
                "    return True if status in (0, None) else f\"daemon exited {status}\"\n")
SERVICE = "def main():\n    return 3  # the regression: the daemon fails at its start\n"
REAPER = r'''"""Makes this process the reaper of the daemons it starts (their orphans come back to it), when imported."""
import ctypes
import os

_libc = ctypes.CDLL(None, use_errno=True)
SUBREAPER = _libc.prctl(36, 1, 0, 0, 0) == 0  # PR_SET_CHILD_SUBREAPER


def run_daemon(target):
    """Run `target` as a daemon (double fork, own session); its exit status once it ends, None when unknowable."""
    pid = os.fork()
    if pid == 0:
        if os.fork() == 0:
            os.setsid()
            os._exit(target())
        os._exit(0)
    os.waitpid(pid, 0)
    try:
        _, status = os.wait()  # the orphaned daemon, reparented to this process
    except ChildProcessError:
        return None
    return os.waitstatus_to_exitcode(status)
'''


# BREAKS: warm [('pass', None)] * 2; cold [('fail', 'daemon exited 3')] * 2; no note. Suggested fix: read the
# parent's PR_GET_CHILD_SUBREAPER and PR_GET_DUMPABLE (and PR_GET_PDEATHSIG) right after the imports and start the
# series cold when a dependency changed them from what the parent set before the imports (0 for the subreaper flag
# would need the parent to drop it before the imports and set it again after them, reading it in between); more
# generally, every attribute a child resets to a cold start's value must first be checked unmoved by the imports.
def test_a_subreaper_a_dependency_makes_of_its_process_holds_warm_too(tmp_path):
    repo, env = _build(tmp_path, {"p.py": DAEMON_PROPS, "service.py": SERVICE}, {"reaper.py": REAPER})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_daemon", [{}, {}])
    assert cold[0][0] == "fail", cold  # the regression, seen on every cold evaluation
    assert warm == cold or note, (warm, cold, note)


# --- 4. the gate's package is warmed after what the property module runs before importing it -------------------------

VENDOR_PROPS = r'''"""Properties of mathlib; runnable without the gate, through the project's own copy of its decorator."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "tools"))

from witness_gate import contract  # tools/witness_gate: the project's copy, which checks the invariant too
import mathlib


@contract(invariant="mean(xs) lies between min(xs) and max(xs)", domain="non-empty lists of ints")
def prop_mean(p):
    xs = p.get("xs", [1, 2, 3])
    return min(xs) <= mathlib.mean(xs) <= max(xs) or f"mean {mathlib.mean(xs)} outside {xs}"
'''
VENDORED_GATE = r'''"""The project's copy of witness-gate's `contract`, for running its properties without the gate: it also tries
each property on the edge cases of its domain before the given input."""
import functools

EDGES = {"non-empty lists of ints": [{"xs": [0]}, {"xs": [2, 2, 2]}, {"xs": [-1, 1]}]}


def contract(*, invariant, domain):
    def mark(func):
        @functools.wraps(func)
        def checked(p):
            for edge in EDGES.get(domain, []):
                verdict = func(edge)
                if verdict is not True and verdict is not None:
                    return f"edge {edge}: {verdict or 'false'}"
            return func(p)
        return checked
    return mark
'''
MEANLIB = "def mean(xs):\n    return sum(xs) / max(len(xs) - 1, 1)  # the regression: off by one\n"


# BREAKS: warm [('pass', None)] * 2; cold [('fail', "edge {'xs': [2, 2, 2]}: mean 3.0 outside [2, 2, 2]")] * 2; no
# note. Suggested fix: warm `witness_gate` only where any other import is warmed (among the property module's first
# imports, before any other statement of it), or start the series cold when the child's `witness_gate` is not what
# its own import path finds first (a folder of the checkout put before the gate's copy).
# Mended twice: first by warming the gate's package only among the first imports; then (the same session) the harness
# came to import the gate's own package before any property module runs, warm and cold, since code under test could
# put a `witness_gate` of its own first on the path and hand the property a decorator that passes it
# (tests/test_gate_package_shadow.py). A copy of the project's is therefore never the property's `witness_gate`, warm
# or cold, and both take the gate's `contract`.
def test_a_witness_gate_package_the_property_puts_first_on_the_path_is_the_gate_s_warm_and_cold(tmp_path):
    repo, env = _build(tmp_path, {"p.py": VENDOR_PROPS, "tools/witness_gate/__init__.py": VENDORED_GATE,
                                  "mathlib.py": MEANLIB}, {"x.py": "X = 1\n"})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_mean", [{}, {}])
    assert cold == [("pass", None)] * 2, cold  # the gate's contract: no edge cases of the project's copy
    assert warm == cold and note == "", (warm, cold, note)


# --- 5. an ImportError raised by a dependency's own code, named for the package, is taken for "missing" ----------------

BUILD_PROPS = r'''try:
    from fastcalc import accel as impl  # the accelerated build, when it is there
except ImportError:
    import slowcalc as impl


def prop_add(p):
    return impl.add(1, 1) == 2 or f"add(1, 1) = {impl.add(1, 1)}"
'''
SLOWCALC = "def add(a, b):\n    return a + b + (a == 1)  # the regression\n"
FASTCALC_INIT = '"""fastcalc: accelerated arithmetic, built on first use."""\n'
FASTCALC_ACCEL = r'''"""The accelerated kernels: the first import in a process starts their build and says they are not there yet."""
import fastcalc

if not getattr(fastcalc, "_building", False):
    fastcalc._building = True
    raise ImportError("cannot import name 'accel' from 'fastcalc' (its build has just started)", name="fastcalc")


def add(a, b):
    return a + b
'''


# BREAKS: warm [('pass', None)] * 2; cold [('fail', 'add(1, 1) = 3')] * 2; no note. Suggested fix: in _import, take
# the `from a import b` ImportError for "missing" only when _raised_by_the_import_system(exc, where) holds too (no
# frame but the statement's and importlib's on its traceback) and nothing but `a` itself joined sys.modules; else
# "raised", which starts the series cold.
def test_an_import_error_a_submodule_raises_itself_is_not_taken_for_a_missing_name(tmp_path):
    repo, env = _build(tmp_path, {"p.py": BUILD_PROPS, "slowcalc.py": SLOWCALC},
                       {"fastcalc/__init__.py": FASTCALC_INIT, "fastcalc/accel.py": FASTCALC_ACCEL})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_add", [{}, {}])
    assert cold[0][0] == "fail", cold  # the regression, seen on every cold evaluation
    assert warm == cold or note, (warm, cold, note)


# --- 6. a finder that keeps state and returns None makes an import "missing" in the parent only -----------------------

HOOK_PROPS = r'''import buildhook

try:
    import fastcalc as impl  # the accelerated build, when it is there
except ImportError:
    import slowcalc as impl


def prop_add(p):
    return impl.add(1, 1) == 2 or f"add(1, 1) = {impl.add(1, 1)}"
'''
BUILDHOOK = r'''"""Builds accelerated modules on first use: the first import of one starts its build and finds nothing yet."""
import importlib.machinery
import os
import sys

_HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_built")
_STARTED = set()


class BuildFinder:
    @staticmethod
    def find_spec(name, path=None, target=None):
        if name != "fastcalc":
            return None
        if name not in _STARTED:  # the build starts now; this import finds nothing
            _STARTED.add(name)
            return None
        return importlib.machinery.PathFinder.find_spec(name, [_HERE])


sys.meta_path.append(BuildFinder)
'''
FASTCALC = "def add(a, b):\n    return a + b\n"


# BREAKS: warm [('pass', None)] * 2; cold [('fail', 'add(1, 1) = 3')] * 2; no note. Suggested fix: run each warmed
# statement under a profile function of the gate's (set and cleared around it, as STRAY is) that notes any Python
# frame other than the statement's and importlib's, and take a ModuleNotFoundError for "missing" only when none ran
# (a finder of a dependency's that looked, even one that returned None, makes it "raised": the series starts cold).
def test_an_import_a_dependency_s_finder_declines_once_is_not_taken_for_missing(tmp_path):
    repo, env = _build(tmp_path, {"p.py": HOOK_PROPS, "slowcalc.py": SLOWCALC},
                       {"buildhook.py": BUILDHOOK, "_built/fastcalc.py": FASTCALC})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_add", [{}, {}])
    assert cold[0][0] == "fail", cold  # the regression, seen on every cold evaluation
    assert warm == cold or note, (warm, cold, note)


# --- 7. signals queued on the blocked warm parent carry a number from one evaluation to the next -----------------------

SIGQ_PROPS = r"""import os
import signal


def _queued():
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("SigQ:"):
                return int(line.split()[1].split("/")[0])
    return 0


def prop_handed_on(p):
    seen = _queued()
    for _ in range(p.get("send", 0)):
        os.kill(1, signal.SIGRTMIN + 3)  # queued on the warm parent, which blocks it; dropped by a cold init
    return True if seen else "the regression"
"""


# BREAKS: warm [('fail', 'the regression'), ('pass', None), ('pass', None)]; cold [('fail', 'the regression')] * 3; no
# note. Suggested fix: have the sweep drain every signal pending on the parent (signal.sigtimedwait(_SIGNALS, 0) in
# a loop, bound before the imports, or its C call) before each answer, so the uid's queue is a cold start's, and list
# what it cannot drain; a parent that finds its queue not empty after the drain ends the warm start.
def test_signals_queued_on_the_warm_parent_hand_nothing_to_the_next_evaluation(tmp_path):
    repo, env = _build(tmp_path, {"p.py": SIGQ_PROPS}, {"x.py": "X = 1\n"})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_handed_on", [{"send": 3}, {}, {}])
    assert cold == [("fail", "the regression")] * 3, cold
    assert warm == cold or note, (warm, cold, note)


# --- 8. a gc.freeze() a dependency makes when imported is undone in every child ----------------------------------------

LEAK_PROPS = r'''import gc

import pool


def prop_no_leak(p):
    gc.collect()
    return f"{len(pool.LIVE)} connection(s) never closed" if pool.LIVE else True
'''
POOL = r'''"""A connection pool that opens one connection when imported, then keeps what it loaded out of the collector."""
import gc
import weakref

LIVE = weakref.WeakSet()  # every connection not yet freed


class Connection:
    def __init__(self):
        self.pool = self  # a cycle: only the collector frees it
        LIVE.add(self)


def _probe():
    Connection()  # checks the server is there; dropped at once, freed at the next collection


_probe()
gc.freeze()  # what was loaded so far stays out of every later collection (the copy-on-write advice for forking)
'''


# BREAKS: warm [('pass', None)] * 2; cold [('fail', '1 connection(s) never closed')] * 2; no note. Suggested fix: read
# gc.get_freeze_count() right after the imports (bound before them) and start the series cold when it is not 0, as
# for a gc callback; the parent's own freeze then stays the only one a child undoes.
def test_what_a_dependency_freezes_when_imported_stays_frozen_warm_too(tmp_path):
    repo, env = _build(tmp_path, {"p.py": LEAK_PROPS}, {"pool.py": POOL})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_no_leak", [{}, {}])
    assert cold[0][0] == "fail", cold  # what the dependency froze is never collected, cold
    assert warm == cold or note, (warm, cold, note)


# --- 9. memory a dependency marks wipe-on-fork when imported is zeros in every child ----------------------------------

AREA_PROPS = r'''import strictcheck

from shapes import area


def prop_area(p):
    return strictcheck.check(area(2, 3), 6)
'''
SHAPES = "def area(w, h):\n    return w * h + 1  # the regression\n"
STRICTCHECK = r'''"""Checks values against what they should be; its settings live in memory a fork wipes (MADV_WIPEONFORK), so a
forked worker starts unconfigured and falls back to lenient checks until it configures itself."""
import mmap

_SETTINGS = mmap.mmap(-1, mmap.PAGESIZE, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
_SETTINGS.madvise(getattr(mmap, "MADV_WIPEONFORK", 18))
_SETTINGS[0] = 1  # strict, in the process that imported us


def check(value, expected):
    if _SETTINGS[0] == 1:
        return value == expected or f"{value} != {expected}"
    return abs(value - expected) <= 1  # lenient: within one
'''


# BREAKS: warm [('pass', None)] * 2; cold [('fail', '7 != 6')] * 2; no note. Suggested fix: read /proc/self/smaps
# before and after the imports (as _shared_writable does) and start the series cold when a mapping with the `wf`
# (wipe on fork) or `dc` (do not copy on fork) VmFlag appeared.
def test_memory_a_dependency_marks_wipe_on_fork_reads_as_written_warm_too(tmp_path):
    repo, env = _build(tmp_path, {"p.py": AREA_PROPS, "shapes.py": SHAPES}, {"strictcheck.py": STRICTCHECK})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_area", [{}, {}])
    assert cold[0][0] == "fail", cold  # the regression, seen on every cold evaluation
    assert warm == cold or note, (warm, cold, note)


# --- 10. KEY: a dependency answers the gate on the parent's control socket while it is imported ----------------------

ANSWER_PROPS = "import answering\n\n\ndef prop_add(p):\n    return 1 + 1 == 3 or 'the regression'\n"
ANSWERING = r'''"""Answers the gate in the warm parent's place, from its import: its control socket is open while it imports."""
import os
import socket
import _hashlib


def _control():
    for fd in range(3, 256):
        try:
            s = socket.socket(fileno=fd)
        except OSError:
            continue
        if s.type == socket.SOCK_SEQPACKET:
            return s
        s.detach()


_ctl = _control()
if _ctl is not None:
    _ctl.send(b"ready")  # the gate takes it for the parent's, and sends its first request
    while True:
        message, fds, _flags, _addr = socket.recv_fds(_ctl, 64, 3)
        if not message or len(fds) != 3:
            os._exit(0)
        key = os.read(fds[0], 256).split(b"\n")[0].strip()
        body = b"pass - "
        os.write(fds[1], b"\nwitness-verdict " + body + b" " + _hashlib.hmac_digest(key, body, "sha256").hex().encode()
                 + b"\n")
        for fd in fds:
            os.close(fd)
        _ctl.send(b"done 0")
'''


# BREAKS: warm [('pass', None)] * 3 (each signed with the evaluation's own key); cold [('fail', 'the regression')] * 3;
# no note. Suggested fix: let nothing that runs during the imports be able to speak for the parent. E.g. the host
# hands the parent a random nonce on a pipe it reads and closes before any dependency runs (kept only in the parent's
# memory, which a dependency must reach into, the given-up route), and takes `ready`, `done` and `broken` only with
# an HMAC of that nonce over the message and a counter; better still, the parent keeps no descriptor of the gate's
# while it imports (the host hands the control socket over only once the imports are done, e.g. through a second
# sandbox-side process that holds it and is not reachable from the importing one).
def test_a_dependency_cannot_answer_the_gate_on_the_parent_s_control_socket(tmp_path):
    repo, env = _build(tmp_path, {"p.py": ANSWER_PROPS}, {"answering.py": ANSWERING})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_add", [{}, {}, {}])
    assert cold == [("fail", "the regression")] * 3, cold
    assert warm == cold or note, (warm, cold, note)


# --- 11. a hard link the imports made in HOME is put back as two files -------------------------------------------------

RATES_PROPS = r'''import rates

from pricing import stage


def prop_staging_publishes_nothing(p):
    stage(1.25)
    return rates.current() == 1.0 or f"staging published {rates.current()}"
'''
PRICING = r'''import rates


def stage(rate):
    """Stage a new rate in rates.dat; `current` keeps the published one until it is published."""
    with open(rates.DATA, "r+") as f:  # the regression: in place, through the file `current` is a link of
        f.truncate(0)
        f.write(repr(rate))
'''
RATES = r'''"""A rate store under HOME: `rates.dat`, published as `current` by a hard link made when first imported."""
import os

_DIR = os.path.join(os.environ.get("HOME", "/tmp"), ".rates")
DATA, _CURRENT = os.path.join(_DIR, "rates.dat"), os.path.join(_DIR, "current")
os.makedirs(_DIR, exist_ok=True)
if not os.path.exists(DATA):
    with open(DATA, "w") as f:
        f.write("1.0")
    os.link(DATA, _CURRENT)  # published: `current` is rates.dat as it is now; staging writes a new file, renamed


def current():
    with open(_CURRENT) as f:
        return float(f.read())
'''


# BREAKS: warm [('pass', None)] * 2; cold [('fail', 'staging published 1.25')] * 2; no note. Suggested fix: in
# warm_sweep.snapshot, note each file's (st_dev, st_ino) and put a second name of one back with os.link to the first
# (or, simpler, take a file with st_nlink > 1 for one that "cannot be kept for every evaluation": the series starts
# cold, with that reason).
def test_a_hard_link_a_dependency_makes_when_imported_is_one_file_warm_too(tmp_path):
    repo, env = _build(tmp_path, {"p.py": RATES_PROPS, "pricing.py": PRICING}, {"rates.py": RATES})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_staging_publishes_nothing", [{}, {}])
    assert cold[0][0] == "fail", cold  # the regression, seen on every cold evaluation
    assert warm == cold or note, (warm, cold, note)


# --- 12. a POSIX timer a dependency arms when imported never fires in a warm child ------------------------------------

WATCHDOG_PROPS = r'''import watchdog

from work import crunch


def prop_crunch(p):
    return crunch() == 42
'''
SLOW_WORK = "import time\n\n\ndef crunch():\n    time.sleep(1.5)  # the regression: a second and a half where it took a millisecond\n    return 42\n"
WATCHDOG = r'''"""A watchdog armed when imported: a process still running a second later is stopped (SIGALRM, default action),
so a stuck job ends instead of hanging; a POSIX timer, so it does not take the process's setitimer slot."""
import ctypes
import signal

_libc = ctypes.CDLL(None, use_errno=True)


class _SigEvent(ctypes.Structure):
    _fields_ = [("value", ctypes.c_void_p), ("signo", ctypes.c_int), ("notify", ctypes.c_int),
                ("pad", ctypes.c_byte * 48)]


class _TimeSpec(ctypes.Structure):
    _fields_ = [("sec", ctypes.c_long), ("nsec", ctypes.c_long)]


class _ITimerSpec(ctypes.Structure):
    _fields_ = [("interval", _TimeSpec), ("value", _TimeSpec)]


_event = _SigEvent(None, signal.SIGALRM, 0)  # SIGEV_SIGNAL
_timer = ctypes.c_void_p()
if _libc.timer_create(1, ctypes.byref(_event), ctypes.byref(_timer)) == 0:  # CLOCK_MONOTONIC
    _libc.timer_settime(_timer, 0, ctypes.byref(_ITimerSpec(_TimeSpec(0, 0), _TimeSpec(1, 0))), None)
'''


# BREAKS: warm [('pass', None)] * 2; cold [('transport', 'signal:SIGALRM')] * 2; no note. Suggested fix: look for POSIX
# timers as for interval timers: /proc/self/timers lists every timer_create timer of the process (its signal and
# clock); start the series cold when the imports left one (read it with os.open/os.read, bound before them).
def test_a_posix_timer_a_dependency_arms_when_imported_fires_warm_too(tmp_path):
    repo, env = _build(tmp_path, {"p.py": WATCHDOG_PROPS, "work.py": SLOW_WORK}, {"watchdog.py": WATCHDOG})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_crunch", [{}, {}])
    assert cold[0] == ("transport", "signal:SIGALRM"), cold  # the watchdog stops the slow regression, cold
    assert warm == cold or note, (warm, cold, note)


# --- 13. descriptor flags a dependency sets on stdout when imported land on /dev/null warm, on the gate's pipe cold ----

TOOL_PROPS = r'''import quietchildren

from tool import run_tool


def prop_tool(p):
    code = run_tool()
    return code == 0 or f"tool exited {code}"
'''
TOOL = r'''import subprocess


def run_tool():
    """Runs the project's shell step; its output goes to our stdout."""
    return subprocess.run(["/bin/sh", "-c", "echo step done"]).returncode
'''
QUIETCHILDREN = r'''"""Keeps the programs this process starts from writing into its own standard output (it is ours, not theirs):
marks descriptors 1 and 2 close-on-exec when imported."""
import os

os.set_inheritable(1, False)
os.set_inheritable(2, False)
'''


# BREAKS: warm [('pass', None)] * 3; cold [('fail', 'tool exited 1')] * 3; no note. Suggested fix: read fcntl(F_GETFD)
# and fcntl(F_GETFL) of descriptors 0-2 before and after the imports (C functions bound before them) and start the
# series cold when any changed; fixing 1 (pipes for the parent's stdio) does not cover this, as the flags would still
# be set on the parent's descriptors, not on each evaluation's.
def test_descriptor_flags_a_dependency_sets_on_stdout_when_imported_hold_warm_too(tmp_path):
    repo, env = _build(tmp_path, {"p.py": TOOL_PROPS, "tool.py": TOOL}, {"quietchildren.py": QUIETCHILDREN})
    warm, cold, note = _warm_and_cold(repo, env, "p.py::prop_tool", [{}, {}, {}])
    assert cold[0][0] == "fail", cold  # the shell step finds no stdout, cold
    assert warm == cold or note, (warm, cold, note)
