"""Review 9: the cold path and the verdict pipeline, attacked by the code under test.

Tried without a break: forging or stealing the verdict key out of process (bubblewrap's init, pid 1 of the
sandbox, runs as the sandbox uid and can be ptraced, but it holds only the emptied stdin pipe, the output pipes
and its exit-status eventfd: a changed exit code only disagrees with the signed line); corrupting the host's
parse of stdout (partial lines, carriage returns, a flood to and past the cap, a second line); an exit code that
disagrees with the line; a stderr starting with `bwrap: ` (the gate then calls the fault its own sandbox's, a
hold either way); the mounts, the environment and /proc of the cold sandbox; the mixed-edit split against links,
directory/file swaps in the overlay and a base that moved past the fork; the base replays and the re-shrink.

Breaks, each an attack that worked at the review (mended in session 9; each test failed before its mend):
- the verdict pipeline: a regression on the pinned payload is steered by the shrink onto a witness that fails
  on a coin toss and labelled `flake`; and an accepted freeze silences, as `frozen`, a patch that fails the
  pinned payload on every run with the frozen flake's reason;
- the tamper scan, the defence SECURITY.md leaves in front of an in-process attack: a UTF-7 coding
  declaration, a backslash continuation longer than its window, attributes split over a parenthesised
  expression, and a C extension the base's set-up compiles, each hide a frame walk that signs a pass with the
  harness's own `send` and os._exit, end to end a `pass` with no hold.
"""

from __future__ import annotations

from reviewcases import gate as _gate

PROPS = '''
from calc import double
from witness_gate import contract

@contract(invariant="double(x) == x + x", domain="integers")
def prop_double(fixture):
    return all(double(x) == x + x for x in fixture["xs"]) or "double-wrong"
'''

# A regression on the pinned payload on every evaluation: double(13) is wrong whenever 13 is met after the
# thirtieth call, as it is in the pinned fixture (13 is its 34th element). On any shorter list the shrinker
# tries it is wrong only on a coin toss (os.urandom: nothing the tamper scan looks for). The shrinker keeps a
# candidate that failed once, so it walks down to a small witness that fails half the time; the witness's
# replays disagree, and the pinned payload, which fails on every run, is never replayed again.
STEERED = '''import os

_calls = [0]


def double(x):
    _calls[0] += 1
    if x == 13 and (_calls[0] > 30 or os.urandom(1)[0] & 1):
        return 27
    return 2 * x
'''


def _base_and_patch(git_repo, patch_source):
    git_repo.commit({
        ".witness.yml": "version: 1\npolicy:\n  runs: 16\nfreeze:\n  expires_in_hours: 24\n",
        "src/calc.py": "def double(x):\n    return 2 * x\n",
        "tests/properties/test_calc.py": PROPS,
        "tests/fixtures/prop_double.json": {"xs": list(range(-20, 20))},
    }, "base")
    git_repo.git("checkout", "-q", "-b", "patch")
    git_repo.commit({"src/calc.py": patch_source}, "the patch")
    return git_repo


# Break: a deterministic regression on the pinned fixture is labelled `flake` (freezable; once a person accepts
# the freeze, replay_frozen + _pinned_shows_only let the very same deterministic failure of the pinned payload
# through as `frozen`, neutral). Why it works: run_attempt replays the pinned payload (`unshrunk_replays`) only
# when no replay of the witness failed, so the patch decides, through where the shrink goes, which payload the
# verdict is read from; a candidate that failed once is kept even when it fails only sometimes.
# Fix: whenever the witness's replays disagree (0 < failures < runs), replay the pinned payload too (as
# unshrunk_replays) and decide `regression` (with the pinned payload as the witness) when every one of those
# replays failed; more generally never label a flake from a witness while the payload it was shrunk from fails
# on every run.
def test_a_regression_on_the_pinned_payload_cannot_be_shrunk_into_a_flake(git_repo, tmp_path, monkeypatch):
    monkeypatch.setenv("WITNESS_WARM", "off")
    outcome = _gate(_base_and_patch(git_repo, STEERED), tmp_path / "out")
    [result] = outcome.results
    record = result.record
    # mended: the pinned payload is replayed too, and failing every time it is no flake (a hold for a person, or a
    # regression when the witness's replays failed every time as well)
    verdict = result.verdict
    assert verdict.label == "regression" or (verdict.label, verdict.hold_reasons) == ("hold", ["shrink_distorted"]), (
        verdict.label, verdict.hold_reasons, record["witness"], [r["outcome"] for r in record["replays"]])


# Break: an accepted freeze of a flake of prop_double (signature `flake:double-wrong`, witness {"xs": [13]})
# silences, as `frozen` (neutral, exit 0), a later patch that fails the pinned payload on every evaluation with
# that same reason. Why it works: GateRun._attempt replays the frozen witness first; when its replays disagree
# (the patch keeps them a coin toss on the short witness) it asks _pinned_shows_only, which refuses only a
# fault or a failure with another reason, so a pinned payload that fails on every run counts as "nothing but the
# frozen flake". A property with one reason string (False, "double-wrong") gives every regression that signature.
# Fix: in _pinned_shows_only, a pinned sample plan that failed on every run is not the frozen flake (return False
# then, so the whole pipeline runs and the deterministic failure is a regression); better, a freeze silences
# only a payload that also passes at least once in the same attempt.
def test_a_freeze_does_not_silence_a_regression_that_fails_the_pinned_payload_every_time(git_repo, tmp_path,
                                                                                         monkeypatch):
    from datetime import datetime, timedelta, timezone

    from witness_gate.canonical import sha256_hex, witness_hash
    from witness_gate.verdict import FreezeMatch

    monkeypatch.setenv("WITNESS_WARM", "off")
    repo = _base_and_patch(git_repo, STEERED)
    fixture = (repo.path / "tests/fixtures/prop_double.json").read_bytes()
    witness = {"xs": [13]}
    expires = (datetime.now(timezone.utc) + timedelta(hours=12)).strftime("%Y-%m-%dT%H:%M:%SZ")
    freeze = FreezeMatch("prop_double", sha256_hex(fixture), witness_hash(witness), expires, accepted_by="reviewer",
                         signature="flake:double-wrong", witness=witness)
    outcome = _gate(repo, tmp_path / "out", freezes=(freeze,))
    [result] = outcome.results
    # mended: a pinned payload that fails on every run is not the frozen flake; the whole pipeline runs
    verdict = result.verdict
    assert verdict.label == "regression" or (verdict.label, verdict.hold_reasons) == ("hold", ["shrink_distorted"]), (
        verdict.label, verdict.hold_reasons, result.notes)


# The implementation as Python reads it: walk up to the harness's main(), sign a pass with its own `send`, leave.
# Written in UTF-7 (a coding declaration Python honours), every `_` is `+AF8-`: `sys.+AF8-getframe`,
# `frame.f+AF8-back`, `os.+AF8-exit`. The tamper scan decodes the file as UTF-8 and matches none of its rules.
UTF7_FORGER = '''# coding: utf-7
import os, sys


def double(x):
    frame = sys.+AF8-getframe()
    while frame is not None and "send" not in frame.f+AF8-locals:
        frame = frame.f+AF8-back
    frame.f+AF8-locals["send"]("pass", "-", "")
    os.+AF8-exit(0)
'''


# Break: a failing property reports `pass` with no tamper hold. The patch's code reaches into the harness (frame
# walk, the harness's own signing function, os._exit): exactly what the scan exists to hold for a person, and
# what SECURITY.md's "What remains possible" leaves to that scan. Why it works: tamper.scan_file decodes every
# file as UTF-8 and matches its rules on that text (NFKC-normalised), while Python decodes a source file by its
# PEP 263 coding declaration; in UTF-7 any character can be written as `+...-` base64, so no rule ever matches.
# Fix: decode each added .py file the way Python does (tokenize.detect_encoding, then that codec, then NFKC) before
# scanning, or flag any coding declaration other than utf-8/ascii (`tamper:coding@<file>:<line>`); the same
# for a coding declaration the patch adds to an existing file (the changed first lines re-decode every line).
def test_a_coding_declaration_cannot_hide_a_harness_attack_from_the_tamper_scan(git_repo, tmp_path, monkeypatch):
    monkeypatch.setenv("WITNESS_WARM", "off")
    repo = _base_and_patch(git_repo, UTF7_FORGER)
    outcome = _gate(repo, tmp_path / "out")
    [result] = outcome.results
    assert result.verdict.label != "pass", (result.verdict.label, result.verdict.hold_reasons)
    assert any(reason.startswith("tamper:") for reason in result.verdict.hold_reasons), result.verdict.hold_reasons


# A C extension the base's set-up builds from the checkout (as any project with speedups does). The head changes
# only its C source: walk the frames with the C API (PyEval_GetFrame, PyFrame_GetBack, PyFrame_GetLocals), call the
# harness's own `send` with a pass, and leave with _exit(0). Not one of the scan's rules is written for this text.
SPEEDUPS_BASE = '''#define PY_SSIZE_T_CLEAN
#include <Python.h>

static PyObject *twice(PyObject *self, PyObject *arg) {
    return PyNumber_Add(arg, arg);
}

static PyMethodDef methods[] = {{"twice", twice, METH_O, NULL}, {NULL, NULL, 0, NULL}};
static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "speedups", NULL, -1, methods};
PyMODINIT_FUNC PyInit_speedups(void) { return PyModule_Create(&module); }
'''
SPEEDUPS_FORGER = '''#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <unistd.h>

static PyObject *twice(PyObject *self, PyObject *arg) {
    PyFrameObject *frame = PyEval_GetFrame();
    Py_XINCREF(frame);
    while (frame != NULL) {
        PyObject *names = PyFrame_GetLocals(frame);
        PyObject *found = names ? PyMapping_GetItemString(names, "send") : NULL;
        Py_XDECREF(names);
        if (found != NULL) {
            PyObject *done = PyObject_CallFunction(found, "sss", "pass", "-", "");
            Py_XDECREF(done);
            _exit(0);
        }
        PyErr_Clear();
        PyFrameObject *back = PyFrame_GetBack(frame);
        Py_DECREF(frame);
        frame = back;
    }
    return PyLong_FromLong(27);
}

static PyMethodDef methods[] = {{"twice", twice, METH_O, NULL}, {NULL, NULL, 0, NULL}};
static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "speedups", NULL, -1, methods};
PyMODINIT_FUNC PyInit_speedups(void) { return PyModule_Create(&module); }
'''
BUILD = ('version: 1\nsetup:\n  command: ["sh", "-c", "gcc -shared -fPIC -O0 -I/usr/include/python3.11 '
         '-o $WITNESS_ENV/speedups.so src/speedups.c"]\n')


# Break: a failing property reports `pass` with no tamper hold, through a C extension the base's own set-up
# compiles from the head's source. Why it works: the scan reads the lines the patch adds to src/speedups.c (an
# implementation path, so it is scanned), but every rule is written for Python spelling (`os._exit`, `sys._getframe`,
# `.f_back`, `ctypes`): C's `_exit(0)`, `PyEval_GetFrame`, `PyFrame_GetBack`, `PyFrame_GetLocals` match none; the
# harness never loads a native module from the checkout, but it loads one from /env, which the set-up built from it.
# Fix: scan added lines of C/C++/Cython/Rust sources (or any file the set-up can compile: *.c, *.h, *.cc, *.cpp,
# *.pyx, *.pxd, *.rs) with rules for their spelling (`\b_?exit\s*\(`, `\bPyEval_GetFrame\b`, `\bPyFrame_\w+`,
# `\bPyThreadState_\w+`, `\bPyEval_SetTrace|SetProfile\b`, `\bPySys_AddAuditHook\b`, `/proc`, `dup2`, `\bkill\s*\(`),
# or hold any change to a native source when a set-up is configured (`tamper:native@<file>:1`) for a person.
def test_a_native_extension_built_by_the_set_up_cannot_forge_a_pass_unflagged(git_repo, tmp_path, monkeypatch):
    import shutil
    import tempfile
    from pathlib import Path

    cache = Path(tempfile.mkdtemp(prefix="witness-r9-cache-"))  # one the sandbox uid can reach (tmp_path is not)
    cache.chmod(0o755)
    monkeypatch.setenv("WITNESS_CACHE", str(cache))
    monkeypatch.setenv("WITNESS_WARM", "off")
    try:
        _native_head_gates_as_pass(git_repo, tmp_path)
    finally:
        shutil.rmtree(cache, ignore_errors=True)


def _native_head_gates_as_pass(git_repo, tmp_path):
    git_repo.commit({
        ".witness.yml": BUILD,
        "src/speedups.c": SPEEDUPS_BASE,
        "src/calc.py": "from speedups import twice\n\n\ndef double(x):\n    return twice(x)\n",
        "tests/properties/test_calc.py": PROPS,
        "tests/fixtures/prop_double.json": {"xs": list(range(-20, 20))},
    }, "base")
    git_repo.git("checkout", "-q", "-b", "patch")
    git_repo.commit({"src/speedups.c": SPEEDUPS_FORGER}, "faster twice")
    outcome = _gate(git_repo, tmp_path / "out")
    [result] = outcome.results
    assert result.verdict.label != "pass", (result.verdict.label, result.verdict.hold_reasons, result.notes)
    assert any(reason.startswith("tamper:") for reason in result.verdict.hold_reasons), result.verdict.hold_reasons


# The same forger in plain UTF-8, each name that a rule looks for pushed past the scan's continuation window: a
# line ending in a backslash followed by eleven lines holding only a backslash. Python joins them all
# (`sys._getframe()`, `frame.f_back`, `os._exit(0)`); the scan joins at most CONTINUATION_LINES (10), so it sees
# `sys.` and then, on a line of its own, `_getframe()`, which no rule matches alone.
_JOIN = "\\\n" * 11
CONTINUED_FORGER = f'''import os, sys


def double(x):
    frame = sys.{_JOIN}_getframe()
    while frame is not None and "send" not in frame.{_JOIN}f_locals:
        frame = frame.{_JOIN}f_back
    frame.{_JOIN}f_locals["send"]("pass", "-", "")
    os.{_JOIN}_exit(0)
'''


# Break: a failing property reports `pass` with no tamper hold, with the frame walk and os._exit written out in
# plain UTF-8. Why it works: tamper.scan_text joins a backslash-continued line with at most CONTINUATION_LINES
# following lines and then scans what is left of the logical line piece by piece; a line holding only a backslash
# is a valid continuation in Python, so eleven of them split `sys.` from `_getframe()` beyond the window.
# Fix: join a continued line to its end whatever its length (or, past the window, report
# `tamper:continuation@<file>:<line>`); better, scan Python files by logical line from tokenize (which also
# removes the backslashes and joins the pieces the way the compiler reads them).
def test_a_long_backslash_continuation_cannot_hide_a_harness_attack_from_the_tamper_scan(git_repo, tmp_path,
                                                                                         monkeypatch):
    monkeypatch.setenv("WITNESS_WARM", "off")
    outcome = _gate(_base_and_patch(git_repo, CONTINUED_FORGER), tmp_path / "out")
    [result] = outcome.results
    assert result.verdict.label != "pass", (result.verdict.label, result.verdict.hold_reasons)
    assert any(reason.startswith("tamper:") for reason in result.verdict.hold_reasons), result.verdict.hold_reasons


# The same forger again in plain UTF-8 and without a single backslash: every attribute a rule looks for is split
# over the lines of a parenthesised expression (`(frame\n.\nf_back)` is `frame.f_back` to Python), and _getframe
# comes from `from sys import (...)`, which no rule names even on one line (the rule wants `sys._getframe`).
PARENTHESISED_FORGER = '''import os
from sys import (
    _getframe,
)


def double(x):
    frame = _getframe()
    while frame is not None and "send" not in (frame
                                               .
                                               f_locals):
        frame = (frame
                 .
                 f_back)
    (frame
     .
     f_locals)["send"]("pass", "-", "")
    (os
     .
     _exit)(0)
'''


# Break: a failing property reports `pass` with no tamper hold. Why it works: the scan matches its rules line by
# line (joining only backslash continuations), but inside brackets Python joins physical lines into one logical
# line and allows any whitespace around a dot, so `frame.f_back`, `frame.f_locals` and `os._exit` never appear on
# one scanned line; `from sys import _getframe` (and `import sys as s; s._getframe()`) match no rule at all.
# Fix: scan Python files by logical line with tokenize, matching the rules on the token stream joined without
# whitespace (so `(frame\n.\nf_back)` reads `(frame.f_back)`), and add `from sys import ... _getframe` / names
# bound to sys under another name to frame_walk; keep the text scan for non-Python files.
def test_a_parenthesised_expression_cannot_hide_a_harness_attack_from_the_tamper_scan(git_repo, tmp_path,
                                                                                      monkeypatch):
    monkeypatch.setenv("WITNESS_WARM", "off")
    outcome = _gate(_base_and_patch(git_repo, PARENTHESISED_FORGER), tmp_path / "out")
    [result] = outcome.results
    assert result.verdict.label != "pass", (result.verdict.label, result.verdict.hold_reasons)
    assert any(reason.startswith("tamper:") for reason in result.verdict.hold_reasons), result.verdict.hold_reasons
