r"""Review 10: the tamper scan's session-9 mends (PEP 263 decoding, statements joined over lines, `_exit` and
`_getframe` however reached), the diff the scan reads, and the verdict pipeline's session-9 mend (the pinned payload
replayed when the witness disagrees with itself), attacked by the code under test.

Tried without a break: a coding declaration after a first line of code, after a blank first line ended by CRLF,
after a form-feed line or behind a BOM (tokenize.detect_encoding and the compiler agree on all of them); NFKC
spellings of `_exit`/`_getframe` (normalised before the rules); `from sys import modules` and `m = sys.modules` /
a walrus alias (found). Read, not run again here: the shrink steered onto a coin-toss witness from the first run
(review 9's test, held `shrink_distorted`) and a frozen witness replayed while the pinned payload fails every run
(`_pinned_shows_only` wants a pass there).

Breaks, each an attack that worked at the review, all mended in session 9 (each test failed before its mend): a
CR before the newline is part of the line break and a lone CR is a finding (`carriage_return`), the declaration is
looked for as the compiler does; a line that was a string or a comment in the base and is code now counts as added;
a statement is also read as its tokens, without comments; `currentframe` and a frame's `f_*` names are findings
however reached, and so is a module that reaches the process under another name (`module_alias`); C's interpreter
internals are findings; baseline._separate replays the pinned payload too. Every end-to-end forger
walks to the harness's main(), signs a pass with its own `send` and leaves with its own `end` (os._exit, bound
there), so it needs neither `_exit` nor `os`: a failing property is an unflagged `pass`.
- CRLF line endings: a backslash continuation ends in a backslash and `\r`, which the scan never joins;
- the diff: lines the base kept inside a docstring are unchanged lines to difflib, so a patch that closes the
  docstring one line earlier makes them code without adding a line that holds them;
- lone carriage returns: tokenize.detect_encoding splits at b"\n" only, the compiler at b"\r" too, so a
  `# coding: utf-7` on the second line is Python's encoding and not the scan's (no `coding` finding either);
- a comment inside brackets, between a name and its attribute, stops every `\s*` of the joined text;
- `logging.currentframe()` and a `match` class pattern (`FrameType(f_back=..., f_locals={...})`);
- sys, os and inspect reached under another name (`import sys as system`, a tuple assignment, `__dict__`,
  importlib): unit-level, the scan answers [] for each;
- `from inspect|os|sys import (` with the names on the lines below (black's style): unit-level, [] for each;
- a C extension the base's set-up builds that walks the interpreter's own structures (thread state, frames'
  `previous`, fast locals) instead of calling the C API functions session 9 listed;
- the verdict pipeline: a deterministic regression steered onto a latent failure of the base is re-shrunk by
  baseline._separate onto a coin-toss witness, and `unshrunk_replays` is emptied there: `flake`.
"""

from __future__ import annotations

import pytest

from witness_gate import tamper
from reviewcases import gate as _gate

PROPS = '''
from calc import double
from witness_gate import contract

@contract(invariant="double(x) == x + x", domain="integers")
def prop_double(fixture):
    return all(double(x) == x + x for x in fixture["xs"]) or "double-wrong"
'''
CALC = "def double(x):\n    return 2 * x\n"


def _base_and_patch(git_repo, base_source, patch_source):
    git_repo.commit({
        ".witness.yml": "version: 1\npolicy:\n  runs: 4\n",
        "src/calc.py": base_source,
        "tests/properties/test_calc.py": PROPS,
        "tests/fixtures/prop_double.json": {"xs": list(range(-20, 20))},
    }, "base")
    git_repo.git("checkout", "-q", "-b", "patch")
    git_repo.commit({"src/calc.py": patch_source}, "the patch")
    return git_repo


def _assert_held(outcome):
    [result] = outcome.results
    assert result.verdict.label != "pass", (result.verdict.label, result.verdict.hold_reasons)
    assert any(reason.startswith("tamper:") for reason in result.verdict.hold_reasons), result.verdict.hold_reasons


# The forger with Windows line endings, each name a rule looks for split by a backslash continuation at a dot:
# `inspect.\` + `currentframe()`, `frame.\` + `f_locals`, `frame.\` + `f_back`. No `_exit` is needed: main()'s
# locals hold `end` (os._exit) beside `send`. Python reads `\` + CRLF as a continuation (universal newlines).
CRLF_FORGER = "\r\n".join([
    "import inspect",
    "",
    "",
    "def double(x):",
    "    frame = inspect.\\",
    "        currentframe()",
    '    while frame is not None and "send" not in frame.\\',
    "            f_locals:",
    "        frame = frame.\\",
    "            f_back",
    "    names = frame.\\",
    "        f_locals",
    '    names["send"]("pass", "-", "")',
    "    names[\"end\"](0)",
    "",
])


# Break: a failing property reports `pass` with no tamper hold, from a plainly written frame walk in a CRLF file.
# Why: tamper._lines splits at "\n" only, so every line of a CRLF file ends in "\r"; statements() and _joined test
# `line.endswith("\\")`, which a `\` + CRLF line never does, so a continuation is not joined, and tokenize's span
# (if any) keeps the backslash and "\r" in the text, where `\s*` cannot cross the backslash: `inspect.\\\r\n
# currentframe` and `frame.\\\r\n f_locals` match no rule, and no line matches alone.
# Fix: decode as Python does, with universal newlines (`"\r\n"` and a lone `"\r"` read as "\n") before
# statements() and _joined, keeping git's line numbers by mapping back; or strip a trailing "\r" before testing
# for the backslash, and remove every `\\` + line break (`\\\r?\n|\\\r`) in _joined.
def test_a_crlf_backslash_continuation_cannot_hide_a_harness_attack_from_the_tamper_scan(git_repo, tmp_path,
                                                                                         monkeypatch):
    assert tamper.scan_file("src/calc.py", None, CRLF_FORGER.replace("\r\n", "\n").encode()), "control: LF is found"
    monkeypatch.setenv("WITNESS_WARM", "off")
    _assert_held(_gate(_base_and_patch(git_repo, CALC, CRLF_FORGER), tmp_path / "out"))


# The base documents, in a docstring, what not to do (text a person reads and accepted long ago). The head
# changes one line: the docstring closes on its first line, so the lines below it are code. Not one of them is an
# added line (difflib matches each to the base's identical line); the one added line holds nothing.
DOCUMENTED = '''import os, sys


def double(x):
    """Twice x. Never reach for the harness like this:
    frame = sys._getframe()
    while frame is not None and "send" not in frame.f_locals:
        frame = frame.f_back
    frame.f_locals["send"]("pass", "-", "")
    os._exit(0)
    """
    return 2 * x
'''
UNQUOTED = DOCUMENTED.replace('like this:\n', 'like this."""\n').replace('    os._exit(0)\n    """\n',
                                                                         '    os._exit(0)\n').replace(
    "return 2 * x", "return 27")  # wrong: the property fails unless the walk forges its pass


# Break: a failing property reports `pass` with no tamper hold; the patch's diff is one changed line and one removed
# line, and the frame walk runs. Why: scan_text reads only the lines difflib does not match to the base (plus the
# multi-line statements holding one of them); a line that was string text in the base and is code in the head is a
# matched, unchanged line, and each of the live lines here is a statement of its own.
# Fix: read a line as added when its tokens changed kind, not only its text: tokenize base and head and treat every
# head line whose token types differ from its matched base line's (a STRING/COMMENT in the base, code in the head)
# as added; or, simpler and stronger, scan the whole head file and report each finding (slug, statement text) that
# the base's whole-file scan does not have as many times.
def test_text_the_base_kept_in_a_docstring_cannot_become_unscanned_code(git_repo, tmp_path, monkeypatch):
    assert tamper.added_lines(DOCUMENTED, UNQUOTED) == [5, 11]
    assert tamper.scan_file("src/calc.py", None, UNQUOTED.encode()), "control: as a new file it is found"
    monkeypatch.setenv("WITNESS_WARM", "off")
    _assert_held(_gate(_base_and_patch(git_repo, DOCUMENTED, UNQUOTED), tmp_path / "out"))


# The review-9 UTF-7 forger again, its lines ended by a lone carriage return (old Mac line endings) and its coding
# declaration on the second line after an empty first one. No `_` is written anywhere (`+AF8-` in UTF-7), and
# main()'s own `end` (os._exit) leaves.
CR_UTF7_FORGER = "\r".join([
    "",
    "# coding: utf-7",
    "import sys",
    "",
    "",
    "def double(x):",
    "    frame = sys.+AF8-getframe()",
    '    while frame is not None and "send" not in frame.f+AF8-locals:',
    "        frame = frame.f+AF8-back",
    '    frame.f+AF8-locals["send"]("pass", "-", "")',
    '    frame.f+AF8-locals["end"](0)',
    "",
])


# Break: a failing property reports `pass` with no tamper hold (not even `coding`): the session-9 mend decodes with
# tokenize.detect_encoding, which reads "lines" split at b"\n" only; the file has none, so its first "line" is the
# whole file, starts with "\r" (blank to blank_re, no cookie to cookie_re) and the second is empty: UTF-8. Python's
# compiler (compile() of the bytes, which every source loader calls) turns a lone "\r" into a newline before it
# looks for the declaration, finds `# coding: utf-7` on line 2 and decodes the file as UTF-7.
# Fix: find the declaration the way the compiler does: split the first bytes at b"\r\n", b"\r" or b"\n" before
# tokenize.detect_encoding (e.g. feed it `raw.replace(b"\r\n", b"\n").replace(b"\r", b"\n")`), or, simplest, hold
# any file with a lone b"\r" (`tamper:line_ending`) and any `coding[:=]` in its first three physical lines that is
# not utf-8; then scan the text as Python splits it (universal newlines).
def test_a_coding_declaration_after_a_lone_carriage_return_is_decoded_as_python_does(git_repo, tmp_path,
                                                                                    monkeypatch):
    assert tamper.scan_file("src/calc.py", None, CR_UTF7_FORGER.replace("\r", "\n").encode()), "control: LF is found"
    monkeypatch.setenv("WITNESS_WARM", "off")
    _assert_held(_gate(_base_and_patch(git_repo, CALC, CR_UTF7_FORGER), tmp_path / "out"))


# The forger in plain UTF-8 and LF, every name a rule looks for split at its dot over two lines of a parenthesised
# expression, with a comment after the dot (or before it): Python ignores a comment inside brackets.
COMMENTED_FORGER = '''import inspect


def double(x):
    frame = (inspect  # the standard library's
             .currentframe())
    while frame is not None and "send" not in (frame.  # what the caller holds
                                               f_locals):
        frame = (frame.  # one up
                 f_back)
    names = (frame.  # its names
             f_locals)
    names["send"]("pass", "-", "")
    names["end"](0)
'''


# Break: a failing property reports `pass` with no tamper hold. Why: the session-9 mend joins a statement's lines
# as text (_joined), comments included, and the rules read `\s*` between `inspect` and `.currentframe`, or between
# `.` and `f_locals`: a comment there stops the match, while no line alone holds both halves.
# Fix: join a statement from its tokens, not its text: drop COMMENT and NL tokens (keep STRING tokens, the rules
# look inside strings) and read the rest with no blank between `NAME`/`OP` tokens, so `(inspect # c\\n.currentframe`
# reads `(inspect.currentframe`; keep the text join for what tokenize cannot read.
def test_a_comment_inside_brackets_cannot_hide_a_harness_attack_from_the_tamper_scan(git_repo, tmp_path,
                                                                                      monkeypatch):
    uncommented = "\n".join(line.split("  #")[0] for line in COMMENTED_FORGER.split("\n"))
    assert tamper.scan_file("src/calc.py", None, uncommented.encode()), "control: without the comments it is found"
    monkeypatch.setenv("WITNESS_WARM", "off")
    _assert_held(_gate(_base_and_patch(git_repo, CALC, COMMENTED_FORGER), tmp_path / "out"))


# The forger with no `_getframe`, `inspect`, `.f_back` or `.f_locals` in it: logging's own `currentframe()` (in
# 3.11 `lambda: sys._getframe(1)`) hands out the caller's frame, and a `match` statement reads the frame's
# attributes as keyword patterns, `f_locals` as a mapping pattern that picks `send` and `end` out of main()'s names.
MATCH_FORGER = '''import logging
from types import FrameType


def double(x):
    frame = logging.currentframe()
    while frame is not None:
        match frame:
            case FrameType(f_locals={"send": send, "end": end}):
                send("pass", "-", "")
                end(0)
            case FrameType(f_back=frame):
                pass
    return 27
'''


# Break: a failing property reports `pass` with no tamper hold, from plainly written code (no name built at run
# time). Why: frame_walk knows `currentframe` only as `inspect.currentframe` (or imported from inspect), while the
# standard library hands frames out under the same name elsewhere (`logging.currentframe`, or `inspect` imported
# under another name); and it knows the frame's attributes only after a dot or inside quotes, while a class
# pattern names them as keywords (`FrameType(f_back=up, f_locals={...})`).
# Fix: flag `currentframe` (and `stack`, `trace`, `getouterframes` ... when called) however reached, as `_getframe`
# already is; flag `f_back`, `f_locals`, `f_globals`, `f_builtins` (and `tb_frame` ...) as bare names anywhere, not
# only after a dot; and read `FrameType`/`TracebackType` in a pattern as a frame walk too.
def test_a_match_statement_and_logging_currentframe_cannot_hide_a_frame_walk_from_the_tamper_scan(
        git_repo, tmp_path, monkeypatch):
    monkeypatch.setenv("WITNESS_WARM", "off")
    _assert_held(_gate(_base_and_patch(git_repo, CALC, MATCH_FORGER), tmp_path / "out"))


# Plainly written code each rule exists for, reaching the module through another name (an `import ... as`, a
# tuple assignment, the module's `__dict__`, importlib): the rules name the module literally (`sys.modules`,
# `sys.stdout`, `os.execv`, `os.kill(-1, ...)`, `inspect.stack`), as `_exit` and `_getframe` no longer do.
ALIASED = {
    "sys_modules_write/as": 'import sys as system\nsystem.modules["json"] = None\n',
    "sys_modules_write/tuple": 'import sys\nmods, n = sys.modules, 1\nmods["json"] = None\n',
    "sys_modules_write/dict": 'import sys\nsys.__dict__["modules"]["json"] = None\n',
    "sys_modules_write/importlib": 'import importlib\nimportlib.import_module("sys").modules["json"] = None\n',
    "stdout_replace/as": 'import sys as system\nsystem.stdout = open("/tmp/out", "w")\n',
    "os_exec/as": 'import os as o\no.execv("/usr/bin/true", ["true"])\n',
    "kill_parent/as": 'import os as o\no.kill(-1, 9)\n',
    "frame_walk/as": 'import inspect as look\nframes = look.stack()\n',
}


# Break: none of these is a finding (the scan answers [] for each); a patch may write sys.modules, replace the
# output streams, exec another program, signal every process of the sandbox or list the stack, unheld. Why: the
# rules match `sys\s*\.\s*modules`, `os\s*\.\s*exec...`, `inspect\s*\.\s*stack`: the module's usual name, not the
# module; only `from X import name` and `alias = sys.modules` (alone on its line) were thought of.
# Fix: flag the names that only these modules give, however reached (`modules` written through, as `_exit` is:
# `\.\s*modules\s*\[...\]\s*=`, `\.\s*modules\s*\.\s*update` ..., `['"]modules['"]`; `\b(?:execv|execve|execl|
# execlp|execvp|execvpe|posix_spawnp?)\b`; `\.\s*(?:stdout|stderr)\s*=`; `\.\s*kill\s*\(\s*-?[01]\s*,`; `\.\s*stack
# \s*\(` or `\bcurrentframe\b`), and hold `import (sys|os|posix|inspect|gc|builtins) as` and `X = sys` (the module
# bound to another name) as findings of their own.
@pytest.mark.parametrize("what", sorted(ALIASED))
def test_a_module_reached_under_another_name_is_still_a_finding(what):
    found = [f.what for f in tamper.scan_file("src/calc.py", None, ALIASED[what].encode())]
    assert what.split("/")[0] in found or "module_alias" in found, found  # mended: the other name is a finding


# The base has a latent bug the pinned fixture never meets: double(1) is 3. The patch keeps it, and brings a
# regression on the pinned fixture (13 is doubled wrong on every evaluation); below 13 it is wrong on three
# evaluations in four (os.urandom: nothing the scan looks for).
LATENT_BASE = "def double(x):\n    return 2 * x + (x == 1)\n"
STEERED_ONTO_THE_BASE = '''import os


def double(x):
    if x == 1:
        return 3
    if x == 13 or (1 < x < 13 and os.urandom(1)[0] < 192):
        return 2 * x + 1
    return 2 * x
'''


# Break: a regression that fails the pinned payload on every evaluation is labelled `flake` (freezable; a
# proposal with an expiry). How: the first shrink walks [13, 40, 77] down to [1], the base's own latent failure
# (same reason: the property has one); the base fails [1] and passes the pinned payload, so replay_on_base calls
# _separate, which shrinks again to a witness the head fails and the base passes: a value below 13 that fails on
# a coin toss. Why: _separate sets `evidence.replays` to that witness's series and `evidence.unshrunk_replays = []`,
# dropping the pinned payload's replays that session 9's `shrink_distorted` rule reads, and never replays the
# pinned payload again; the re-shrunk witness disagrees with itself, so the tables read a flake.
# Fix: after _separate, do what run_attempt does: when the new witness's replays are not all failures, replay the
# pinned payload on the head (`unshrunk_replays`) so `shrink_distorted` holds; better, keep the head's first-run
# fact that the pinned payload failed on every evaluation and never label a flake while that stands. (The coin
# toss makes one attempt work about three times in four; the test gates up to three times and fails at the first
# `flake`.)
def test_a_regression_steered_onto_a_latent_base_failure_cannot_be_re_shrunk_into_a_flake(git_repo, tmp_path,
                                                                                            monkeypatch):
    monkeypatch.setenv("WITNESS_WARM", "off")
    git_repo.commit({
        ".witness.yml": "version: 1\npolicy:\n  runs: 16\nfreeze:\n  expires_in_hours: 24\n",
        "src/calc.py": LATENT_BASE,
        "tests/properties/test_calc.py": PROPS,
        "tests/fixtures/prop_double.json": {"xs": [13, 40, 77]},
    }, "base")
    git_repo.git("checkout", "-q", "-b", "patch")
    git_repo.commit({"src/calc.py": STEERED_ONTO_THE_BASE}, "the patch")
    for attempt in range(3):
        [result] = _gate(git_repo, tmp_path / f"out{attempt}").results
        verdict = result.verdict
        assert verdict.label == "regression" or (verdict.label, verdict.hold_reasons) == (
            "hold", ["shrink_distorted"]), (verdict.label, verdict.hold_reasons, result.record["witness"], result.notes)


# `from X import name`, the way black and isort write it once the line is long: the names in parentheses, one a line.
PARENTHESISED_IMPORTS = {
    "frame_walk/currentframe": "from inspect import (\n    currentframe,\n)\nframe = currentframe()\n",
    "frame_walk/stack": "from inspect import (\n    getmodule,\n    stack,\n)\nframes = stack()\n",
    "os_exec/execv": 'from os import (\n    execv,\n)\nexecv("/usr/bin/true", ["true"])\n',
    "sys_modules_write/modules": 'from sys import (\n    modules,\n)\nmodules["json"] = None\n',
}


# Break: none of these is a finding (the scan answers []), while `from inspect import currentframe` on one line is
# (and so is a backslash continuation of it). Why: the rules for `from os|inspect|sys import ...` read the names
# with `[^#\n]*`, which stops at the first newline; _joined keeps the newlines of a bracketed statement (so that
# `\s*` can cross them), so the names after `import (` on the next lines are never reached.
# Fix: in the import rules read `[^#]*?` up to the statement's end (or `[^#\n]*` over a text joined without its
# newlines inside brackets), or better, read imports from the AST (`ast.ImportFrom`) of each changed Python file
# and check each imported name against the rule's list.
@pytest.mark.parametrize("what", sorted(PARENTHESISED_IMPORTS))
def test_a_name_imported_in_parentheses_is_still_a_finding(what):
    one_line = "".join(PARENTHESISED_IMPORTS[what].split(")\n", 1)[0].split("\n")).replace("(", "").replace(",", ", ")
    assert what.split("/")[0] in [f.what for f in tamper.scan_file("src/calc.py", None, one_line.encode())], one_line
    found = [f.what for f in tamper.scan_file("src/calc.py", None, PARENTHESISED_IMPORTS[what].encode())]
    assert what.split("/")[0] in found or "module_alias" in found, found  # mended: the other name is a finding


# The review-9 C extension again (built by the base's own set-up from the checkout), its forger written against
# the interpreter's structures instead of the C API's functions: the thread state's current frame, each frame's
# `previous`, and main()'s fast locals by their names in its code object. None of the names the session-9 mend
# added (`PyEval_GetFrame`, `PyFrame_*`, `PyThreadState_*`, `_exit`) is written.
SPEEDUPS_BASE = '''#define PY_SSIZE_T_CLEAN
#include <Python.h>

static PyObject *twice(PyObject *self, PyObject *arg) {
    return PyNumber_Add(arg, arg);
}

static PyMethodDef methods[] = {{"twice", twice, METH_O, NULL}, {NULL, NULL, 0, NULL}};
static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "speedups", NULL, -1, methods};
PyMODINIT_FUNC PyInit_speedups(void) { return PyModule_Create(&module); }
'''
SPEEDUPS_STRUCTS = '''#define PY_SSIZE_T_CLEAN
#define Py_BUILD_CORE 1
#include <Python.h>
#include <internal/pycore_frame.h>
#include <string.h>

static PyObject *twice(PyObject *self, PyObject *arg) {
    PyThreadState *ts = PyGILState_GetThisThreadState();
    for (_PyInterpreterFrame *f = ts->cframe->current_frame; f != NULL; f = f->previous) {
        PyObject *names = f->f_code->co_localsplusnames;
        PyObject *send = NULL, *end = NULL;
        for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(names); i++) {
            const char *name = PyUnicode_AsUTF8(PyTuple_GET_ITEM(names, i));
            if (name != NULL && strcmp(name, "send") == 0) send = f->localsplus[i];
            if (name != NULL && strcmp(name, "end") == 0) end = f->localsplus[i];
        }
        if (send != NULL && end != NULL) {
            Py_XDECREF(PyObject_CallFunction(send, "sss", "pass", "-", ""));
            Py_XDECREF(PyObject_CallFunction(end, "i", 0));
        }
    }
    return PyLong_FromLong(27);
}

static PyMethodDef methods[] = {{"twice", twice, METH_O, NULL}, {NULL, NULL, 0, NULL}};
static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "speedups", NULL, -1, methods};
PyMODINIT_FUNC PyInit_speedups(void) { return PyModule_Create(&module); }
'''
BUILD = ('version: 1\nsetup:\n  command: ["sh", "-c", "gcc -shared -fPIC -O0 -I/usr/include/python3.11 '
         '-o $WITNESS_ENV/speedups.so src/speedups.c"]\n')


# Break: a failing property reports `pass` with no tamper hold, through a C extension the base's set-up compiles.
# Why: the session-9 mend lists C API functions (`PyEval_GetFrame`, `PyFrame_\w+`, `PyThreadState_\w+`, ...), but
# C reaches the same frames through the structures the headers declare (`Py_BUILD_CORE` and
# internal/pycore_frame.h, as Cython and debuggers do): `PyGILState_GetThisThreadState()`, `ts->cframe->
# current_frame`, `f->previous`, `f->localsplus`, `co_localsplusnames`; C writes member access as `->`, which the
# `\.\s*f_locals` style of rule never reads either.
# Fix: in native sources hold `Py_BUILD_CORE`, `internal/pycore_`, `_PyInterpreterFrame`, `PyGILState_\w+`,
# `\bPyThreadState\b`, `cframe`, `current_frame`, `localsplus`, and read `->` as `.` before the rules; better,
# since C can reach anything in the process, hold any change to a native source the set-up may compile
# (`tamper:native@<file>:1`) for a person, as review 9 offered.
def test_a_native_extension_that_walks_the_interpreter_s_structures_cannot_forge_a_pass_unflagged(
        git_repo, tmp_path, monkeypatch):
    import shutil
    import tempfile
    from pathlib import Path

    cache = Path(tempfile.mkdtemp(prefix="witness-r10-cache-"))  # one the sandbox uid can reach (tmp_path is not)
    cache.chmod(0o755)
    monkeypatch.setenv("WITNESS_CACHE", str(cache))
    monkeypatch.setenv("WITNESS_WARM", "off")
    try:
        git_repo.commit({
            ".witness.yml": BUILD,
            "src/speedups.c": SPEEDUPS_BASE,
            "src/calc.py": "from speedups import twice\n\n\ndef double(x):\n    return twice(x)\n",
            "tests/properties/test_calc.py": PROPS,
            "tests/fixtures/prop_double.json": {"xs": list(range(-20, 20))},
        }, "base")
        git_repo.git("checkout", "-q", "-b", "patch")
        git_repo.commit({"src/speedups.c": SPEEDUPS_STRUCTS}, "faster twice")
        [result] = _gate(git_repo, tmp_path / "out").results
        assert result.verdict.label != "pass", (result.verdict.label, result.verdict.hold_reasons, result.notes)
        assert any(r.startswith("tamper:") for r in result.verdict.hold_reasons), result.verdict.hold_reasons
    finally:
        shutil.rmtree(cache, ignore_errors=True)
