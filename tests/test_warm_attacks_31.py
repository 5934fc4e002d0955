"""Attacks on the warm start, thirty-first review (session 10's changes: replays at once followed from one thread,
warm parents pinned to one core each, classmethod/staticmethod/property functions on the surface, real paths of
the repository's folders resolved once, warm modules without platform/socket/signal).

Breaks (each kept below as a test, which failed before its mend in session 10):

1. Pinning changes what every evaluation of the series sees, and a regression that shows only with more than one
   CPU passes warm. With WITNESS_PARALLEL > 1 (its default is the cores the gate may use, so every multi-core
   machine) every warm parent is bound to ONE core before bubblewrap starts (Limits.core, sandbox.preexec
   sched_setaffinity), and each child, forked from it, inherits that one-core mask: `os.sched_getaffinity(0)` (and
   so `len(os.sched_getaffinity(0))`, the usual "how many workers" of a library, multiprocessing's and
   concurrent.futures' callers, joblib/loky's cpu count) says 1 in every evaluation, first run included, while a
   cold evaluation (and production) sees every allowed core. A library whose work is split per usable CPU and that
   drops a chunk when there is more than one (the regression below) fails on every cold run and passes on every
   warm one: a signed `pass` for a property that always fails cold, with no hostile code at all (a hostile
   property or dependency can key on the same bit on purpose). docs/SECURITY.md accepts "an evaluation of such a
   series sees that one core in its affinity" as parent state, but, unlike a pid, it is state every evaluation of
   the series sees identically and that differs from cold on every run, so no replay, cold fallback or
   `not_reproduced` rule catches it. Suggested fix: keep the parent (its imports, its sweeps, its forks) on its
   core, but give each child the gate's full allowed set back right after the fork, before anything of the
   harness runs (sched_setaffinity(0, allowed) in `_taken`, the allowed set read by the gate and handed in the
   settings), and have warm_and_cold-style tests compare `sched_getaffinity` warm and cold; or do not pin at all
   (the measured gain was 0.62x against 0.70x).

2. The repository's folders' real paths resolved once, in the parent, go stale (change 4 of the session). The parent
   resolves `/repo` and `/repo/src` before any import and hands the pairs to every child's repository hook, which
   uses them instead of os.path.realpath. "The checkout is mounted read-only: they stay true" holds for the
   checkout's own entries but not for a symlink in it that points into a writable root: with `src -> /tmp/lib`,
   /tmp/lib does not exist when the parent resolves (so `/repo/src` is "/tmp/lib", outside the repository), and the
   property module (run fresh in every child, as cold) makes `/tmp/lib -> /repo/real` and puts /repo/src on its
   path. Cold, the hook resolves /repo/src now, inside the repository, and reads it with SourceOnlyLoader; warm, the
   hook takes the stale "/tmp/lib", refuses the folder as outside, and the interpreter's own FileFinder takes it,
   which loads a sourceless `fixed.pyc` the patch left in `real/` (staging drops only `__pycache__`): the correct
   implementation is imported warm, the regressed source cold. A signed `pass` of a property that always fails
   cold; the same hole loads an extension module (native code) from the checkout in every warm child. Suggested fix:
   use the parent's answer only when the child's own path text names no symlink (resolve once in the parent with
   lstat and keep only folders with no link on their way, else call realpath in the child), or refuse (raise) for a
   `known` folder whose parent-time real path lies outside the repository instead of falling through to the
   bytecode finder; better, make every folder under the repository's mount (by its path text, not its target)
   source-only, so the decision never depends on resolution. Control: with `resolved` returning () the test
   passes (warm and cold both fail).

Mended in session 10: each warm parent binds itself to its core only once its imports ran, and each child gets the
gate's cores back before anything of the harness runs (WITNESS_WARM_CORE, WITNESS_WARM_CORES), so the imports and every
evaluation see a cold start's cores (1); a folder's real path is resolved once in the parent only when it is its own
real path, a folder reached through a link is resolved by each child as it imports from it (2); the hazard below is
mended too (an OSError from the parent's socket is an empty answer; a look at what ended comes before any deadline is
judged).

What was tried and held:

- Reading one lane's output from another's, or a parent answering for another lane: every Reading registers its
  own pipes and its own parent's control socket (key.data names the reading), each answer must carry that
  parent's word, and a lane's descriptors are unregistered before they are closed, so a reused fd number is never
  read for the wrong lane.
- A lane that floods stdout: it gets `output_limit` after ~16 reads of 64 KiB, its sandbox ends, the other lane
  goes on (rows are then mixed, so the series is replayed one at a time).
- A lane that hangs: it gets `timeout`; closing its parent blocks the one gate thread up to 2 s (proc.wait(2)
  before the kill), during which the other lanes are not read, and a lane near its own deadline can then be marked
  `timeout` although it had finished (pump skips the select once the nearest deadline has passed). Only a
  transport row in a series at once, which is never kept (not unanimous) and is replayed one at a time: no change
  of verdict.
- Lane-dependent behaviour (reading the pinned core to fail on one lane and pass on another): replays at once that
  disagree are thrown away and the one-at-a-time series decides; that series runs on one parent (the idle list is
  LIFO), so its rows agree among themselves; no flake from lanes alone.
- Moving the parent's affinity from an evaluation (sched_setaffinity on the parent's pid): the sweep's fingerprint
  includes the affinity, the parent answers `broken` and the series goes cold. Widening the evaluation's own
  affinity only changes that evaluation.
- Replacing a staticmethod/classmethod/property function's __code__ (the path_hook attack of review 30) is now
  seen.
- A warm module importing platform/socket/signal lazily: none of the four warm modules binds anything from them after
  the change (grep), and `_SIGNALS` is now sorted, so the order is the same as before.
- Crashing the gate through the at-once path (not confirmed end to end, kept here as a hazard): when a warm parent
  dies with the gate's next request still unread in its socket, Linux ends the gate's side of the SOCK_SEQPACKET
  pair with ECONNRESET (checked: send on one end, close the other unread, `recv` raises ConnectionResetError), and
  `Reading.ready` calls `control.recv` unguarded; in the threaded path `WarmSeries.run` turns any exception of the
  job into a cold re-run, but `evaluate_at_once` re-raises it, so `replay_series` (and the attempt) would end with
  an exception. A dependency can time its parent's death: it burns the parent's CPU during its import up to just
  under the series' CPU limit (soft = hard: SIGKILL at the limit) and maps ~50,000 private pages and 800 MiB so
  that each pre-fork costs ~35 ms of the parent's CPU, right when the gate sends the next request. In a handful of
  runs the parent did die under the replays at once, but each time before the request was sent or after the child
  took it ("the warm parent ended during an evaluation", a cold re-run): the window was never hit. Suggested fix
  anyway: in `Reading.ready`, treat an OSError from `recv` as an empty answer (the parent is gone), as the threaded
  path effectively does.
"""

import pytest

from witness_gate.sandbox import bwrap_works
from witness_gate.runner import PropertyRunner
from witness_gate.sandbox import Sandbox
from warmcases import build as _build

pytestmark = pytest.mark.skipif(bool(bwrap_works()), reason="bubblewrap cannot run here")


def _rows(repo, env, selector, payloads, warm, parallel):
    runner = PropertyRunner(repo, selector, "17", Sandbox("bwrap"), timeout_seconds=10, environment=env,
                            warm=warm, parallel=parallel)
    try:
        return [(r.outcome, r.reason) for r in (runner(p) for p in payloads)], runner.note
    finally:
        runner.close()


# --- 1. a regression that shows only with more than one usable CPU ----------------------------------------------------

# the checkout's library: work split in one chunk per usable CPU; the regression drops the last chunk when there is
# more than one (an off-by-one in the chunking), which a one-core affinity never reaches
SPLIT = r'''import os


def total(values):
    workers = len(os.sched_getaffinity(0))
    size = -(-len(values) // workers)
    chunks = [values[i:i + size] for i in range(0, len(values), size)]
    return sum(sum(chunk) for chunk in chunks[:workers - 1 or 1])  # the regression: `chunks[:workers]` was right
'''
SPLIT_PROPS = r'''import split


def prop_total(p):
    values = list(range(100))
    return split.total(values) == sum(values) or "lost-a-chunk"
'''


def test_a_regression_that_shows_with_more_than_one_cpu_is_not_hidden_by_the_pinned_parent(tmp_path):
    import os
    if len(os.sched_getaffinity(0)) < 2:
        pytest.skip("needs two cores the gate may use")
    repo, env = _build(tmp_path, {"p.py": SPLIT_PROPS, "split.py": SPLIT}, {})
    cold, _ = _rows(repo, env, "p.py::prop_total", [{}, {}], False, 2)
    assert cold == [("fail", "lost-a-chunk")] * 2, cold
    warm, note = _rows(repo, env, "p.py::prop_total", [{}, {}], True, 2)  # the default on a 2-core machine
    assert warm == cold, (warm, note)


# --- 2. the repository's `src` folder resolved once, at the parent's start -------------------------------------------

# `src` in the checkout is a link to /tmp/lib, which does not exist when the warm parent resolves the repository's
# folders (before any import); the property links /tmp/lib to a folder of the checkout and puts /repo/src on its
# path: cold, /repo/src resolves inside the repository and is read source-only, so the sourceless `fixed.pyc` the
# patch left there is not seen and the regressed `split` runs; warm, the child's hook takes the parent's stale answer
# ("/tmp/lib", outside the repository), the interpreter's own FileFinder takes the folder and loads the bytecode
LINKED_PROPS = r'''import os
import sys

os.symlink("/repo/real", "/tmp/lib")
sys.path.append("/repo/src")
try:
    from fixed import total
except ImportError:
    from split import total


def prop_total(p):
    values = list(range(100))
    return total(values) == sum(values) or "lost-a-chunk"
'''
REAL_SPLIT = r'''def total(values):
    return sum(values[:-1])  # the regression
'''
FIXED = "def total(values):\n    return sum(values)\n"


def _linked(name, base):
    if name != "repo":
        return
    import py_compile
    (base / "real").mkdir()
    (base / "real" / "split.py").write_text(REAL_SPLIT)
    (base / "fixed_src.py").write_text(FIXED)
    py_compile.compile(str(base / "fixed_src.py"), cfile=str(base / "real" / "fixed.pyc"), doraise=True)
    (base / "fixed_src.py").unlink()
    (base / "src").symlink_to("/tmp/lib")


def test_the_repository_folders_real_path_is_the_childs_own(tmp_path):
    repo, env = _build(tmp_path, {"p.py": LINKED_PROPS}, {}, before_staging=_linked)
    cold, _ = _rows(repo, env, "p.py::prop_total", [{}, {}], False, 1)
    assert cold == [("fail", "lost-a-chunk")] * 2, cold
    warm, note = _rows(repo, env, "p.py::prop_total", [{}, {}], True, 1)
    assert warm == cold, (warm, note)
