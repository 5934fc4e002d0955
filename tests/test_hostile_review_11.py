r"""Review 11: the harness's import environment and the objects the code under test can hand the property (the
oracle, from the base) in the cold path, with nothing the tamper scan flags.

Tried: objects of the implementation's own making that the oracle compares (a lying `__eq__`), a standard-library
function the oracle calls patched in place by the implementation at import, the oracle's own module reached
through a *read* of `sys.modules` (only writes to it are findings) while it is half-run, its globals given an `all`
that shadows the builtin, and a standard-library module the oracle imports after the implementation ran resolved
to the patch's own file by a patched `importlib.machinery.PathFinder.find_spec` (the scan's `import_path` rule
looks at `sys.meta_path`/`sys.path_hooks` only); and the debugger as a frame walker: `pdb.Pdb(stdin=...).set_trace()`,
or `breakpoint()` with a `.pdbrc` the patch adds, runs text commands (`up 4`, `!send(...)`, `!end(0)`) in the
harness's main(), signing a pass with its own key, with none of the frame-walk rules' names written.

Read, not run (no break found): the harness module's globals (reached through a read of `sys.modules`) that main()
and its helpers look up at run time (`VERDICT_MARK`, `traceback`, `sys`, `MAX_REASON`): changing them loses or
garbles the verdict (a transport fault, a hold) but cannot sign a pass; shadowing the standard library by a
repository module of the same name (the standard library is first on the path); the property module's own
imported names (its `from calc import double` rebinds them after the patch ran).

Each end-to-end test below gates a patch that makes the property fail (a deterministic regression: the same patch
without its trick is labelled `regression`) and was labelled `pass` with no tamper hold at the review; each is run
cold (WITNESS_WARM=off). Mended in session 9 (each test failed before): each trick is now a tamper finding
(`compare_hook`, `stdlib_patch`, `sys_modules_scan`, `import_machinery`, `debugger`, a `.pdbrc` file), and
`breakpoint()` is off in every evaluation (PYTHONBREAKPOINT=0). The scan stays a heuristic: the class is docs/
SECURITY.md's "Code built to attack the harness from inside its own interpreter".
"""

from __future__ import annotations

from witness_gate import tamper
from reviewcases import gate as _gate

DOUBLE_PROPS = '''
from calc import double
from witness_gate import contract

@contract(invariant="double(x) == x + x", domain="integers")
def prop_double(fixture):
    return all(double(x) == x + x for x in fixture["xs"]) or "double-wrong"
'''
CALC = "def double(x):\n    return 2 * x\n"


def _base_and_patch(git_repo, props, base_source, patch_source, fixture):
    git_repo.commit({
        ".witness.yml": "version: 1\npolicy:\n  runs: 4\n",
        "src/calc.py": base_source,
        "tests/properties/test_calc.py": props,
        "tests/fixtures/" + props.split("def ", 1)[1].split("(", 1)[0] + ".json": fixture,
    }, "base")
    git_repo.git("checkout", "-q", "-b", "patch")
    git_repo.commit(patch_source if isinstance(patch_source, dict) else {"src/calc.py": patch_source}, "the patch")
    return git_repo


def _assert_not_passed(outcome):
    [result] = outcome.results
    assert result.verdict.label != "pass", (result.verdict.label, result.verdict.hold_reasons)


# The patch returns a wrong number (27, not 2x) whose class says it equals anything.
LYING_EQ = '''class _Number(int):
    def __eq__(self, other):
        return True

    __hash__ = int.__hash__


def double(x):
    return _Number(27)
'''


# Break: a deterministic regression (double(x) is 27) is labelled `pass`, no tamper hold. Why: the oracle's `==`
# calls the left operand's `__eq__` first, and the left operand is the implementation's own object; nothing in the
# scan looks at comparison or truth dunders, and the harness judges only the property's return value.
# Fix: a tamper finding for comparison/truth/hash dunders (`__eq__`, `__ne__`, `__lt__`..., `__bool__`, `__len__`,
# `__hash__`, `__instancecheck__`) defined on lines the patch adds to implementation files, so a person looks; in
# the harness nothing short of a second process (values crossing as canonical JSON) closes it.
def test_an_object_with_a_lying_eq_cannot_turn_a_regression_into_a_pass(git_repo, tmp_path, monkeypatch):
    assert tamper.scan_file("src/calc.py", CALC.encode(), LYING_EQ.encode()) != []  # mended
    monkeypatch.setenv("WITNESS_WARM", "off")
    repo = _base_and_patch(git_repo, DOUBLE_PROPS, CALC, LYING_EQ, {"xs": list(range(-20, 20))})
    _assert_not_passed(_gate(repo, tmp_path / "out"))


MEAN_PROPS = '''
import math

from calc import mean
from witness_gate import contract

@contract(invariant="mean(xs) is the arithmetic mean", domain="lists of floats")
def prop_mean(fixture):
    xs = fixture["xs"]
    return math.isclose(mean(xs), sum(xs) / len(xs)) or "mean-wrong"
'''
MEAN = "def mean(xs):\n    return sum(xs) / len(xs)\n"
MEAN_PATCHED = '''import math


def mean(xs):
    return 0.0


math.isclose = lambda a, b, **tolerances: True
'''


# Break: a deterministic regression (mean is 0.0) is labelled `pass`, no tamper hold. Why: the property and the
# implementation share one `math` module object, and an assignment to a standard-library module's attribute is no
# rule of the scan (only `sys`, `builtins` and the import system are); the oracle calls the patched function.
# Fix: a tamper finding for an assignment (`=`, augmented, `setattr`, `vars(m)[..] =`, `m.__dict__` writes, `del`)
# to an attribute of an imported module, in lines the patch adds; or the harness binds, before the property module
# runs, snapshots of the stdlib modules' dicts and compares them after the call (a changed function: no verdict).
def test_a_stdlib_function_patched_by_the_implementation_cannot_pass_a_regression(git_repo, tmp_path, monkeypatch):
    assert tamper.scan_file("src/calc.py", MEAN.encode(), MEAN_PATCHED.encode()) != []  # mended
    monkeypatch.setenv("WITNESS_WARM", "off")
    repo = _base_and_patch(git_repo, MEAN_PROPS, MEAN, MEAN_PATCHED, {"xs": [1.0, 2.0, 4.5, 8.0]})
    _assert_not_passed(_gate(repo, tmp_path / "out"))


# The patch reads sys.modules (a read is no finding) while the property module is half-run (its `from calc import
# double` is what runs the patch), finds it by its file, and gives its globals an `all` that shadows the builtin.
GLOBALS_SHADOW = '''import sys


def double(x):
    return 27


for module in list(sys.modules.values()):
    if str(getattr(module, "__file__", "")).endswith("test_calc.py"):
        module.all = lambda checks: True
'''


# Break: a deterministic regression is labelled `pass`, no tamper hold. Why: the harness puts the property's module
# in sys.modules before running it (as any import does), the scan flags writes to sys.modules and the names
# `__main__`/`witness_property_`, but not iterating it, and a module global named like a builtin shadows it for the
# property's own code: the oracle's `all(...)` is the patch's. Same for any builtin the oracle calls (`sorted`,
# `len`, `isinstance`) and for names the property module binds before it imports the implementation.
# Fix: a tamper finding for reading `sys.modules` at all in added lines (`sys.modules` anywhere, `.values()`,
# `.items()`, iteration), or the harness loads the property module's code into a namespace it checks after the
# call: the property's globals after the import must hold no builtin's name that the base's module did not bind.
def test_the_property_modules_globals_cannot_be_given_a_lying_builtin(git_repo, tmp_path, monkeypatch):
    assert tamper.scan_file("src/calc.py", CALC.encode(), GLOBALS_SHADOW.encode()) != []  # mended
    monkeypatch.setenv("WITNESS_WARM", "off")
    repo = _base_and_patch(git_repo, DOUBLE_PROPS, CALC, GLOBALS_SHADOW, {"xs": list(range(-20, 20))})
    _assert_not_passed(_gate(repo, tmp_path / "out"))


STATS_PROPS = '''
from calc import mean
from statistics import fmean
from witness_gate import contract

@contract(invariant="mean(xs) == statistics.fmean(xs)", domain="lists of floats")
def prop_mean(fixture):
    xs = fixture["xs"]
    return mean(xs) == fmean(xs) or "mean-wrong"
'''
FINDER_PATCHED = '''import importlib.machinery
import importlib.util
import os

_find = importlib.machinery.PathFinder.find_spec
_HERE = os.path.dirname(os.path.abspath(__file__))


def _find_spec(name, path=None, target=None):
    if name == "statistics":
        return importlib.util.spec_from_file_location(name, os.path.join(_HERE, "_stats.py"))
    return _find(name, path, target)


importlib.machinery.PathFinder.find_spec = _find_spec


def mean(xs):
    return 0.0
'''
STATS_SHIM = "def fmean(xs):\n    return 0.0\n"


# Break: a deterministic regression (mean is 0.0) is labelled `pass`, no tamper hold. Why: the oracle imports
# `statistics` after `calc`, and the harness's own PathFinder (the class sys.meta_path holds) is patched in place by
# the implementation, so the oracle's `fmean` is the patch's `src/_stats.py`; `import_path` flags writes to
# `sys.path`/`sys.meta_path`/`sys.path_hooks`/`sys.path_importer_cache`, not to the finders or loaders they hold.
# Fix: a tamper finding for `importlib.machinery`/`importlib.abc`/`PathFinder`/`FileFinder`/`find_spec`/`exec_module`
# /`spec_from_file_location` in added implementation lines; and in the harness, bind the meta path's finders (and
# `PathFinder.find_spec`) before the property module runs and refuse a verdict (`no_verdict`) when any of them, or
# any standard-library module the property imported, came from outside the standard library's folders.
def test_a_patched_path_finder_cannot_hand_the_oracle_a_stdlib_module_of_its_own(git_repo, tmp_path, monkeypatch):
    assert tamper.scan_file("src/calc.py", MEAN.encode(), FINDER_PATCHED.encode()) != []  # mended
    assert tamper.scan_file("src/_stats.py", None, STATS_SHIM.encode()) == []  # the shim alone is plain code
    monkeypatch.setenv("WITNESS_WARM", "off")
    repo = _base_and_patch(git_repo, STATS_PROPS, MEAN, {"src/calc.py": FINDER_PATCHED, "src/_stats.py": STATS_SHIM},
                           {"xs": [1.0, 2.0, 4.5, 8.0]})
    _assert_not_passed(_gate(repo, tmp_path / "out"))


# The debugger walks the stack for the patch: it is handed the caller's frame by `set_trace()`, and its commands (text
# in a string) move up to the harness's main() and run there, where `send` and `end` (os._exit) are locals.
PDB_FORGER = '''import io
import pdb


def double(x):
    script = io.StringIO("up 4\\n!send('pass', '-', '')\\n!end(0)\\n")
    pdb.Pdb(stdin=script, stdout=io.StringIO()).set_trace()
    return 27
'''


# Break: a failing property reports a signed `pass`, no tamper hold. Why: the frame-walk rules list the standard
# library's ways to a frame (`_getframe`, `currentframe`, `f_back`, `inspect.stack`, `walk_stack`, ...), not the
# debugger, which takes the caller's frame itself and evaluates its commands, plain strings, in any frame of the
# stack: `up 4` is main(), `!send(...)` signs the pass with the harness's own key, `!end(0)` leaves.
# `set_trace` (with its underscore) is not `settrace`. `breakpoint()` with a `.pdbrc` the patch adds at the root
# (the working directory) does the same with no import at all.
# Fix: findings for `pdb`, `bdb`, `breakpoint`, `set_trace`, `Pdb`, `Bdb`, `code.interact`/`InteractiveConsole`
# and a `.pdbrc` path in a change; in the harness, run with PYTHONBREAKPOINT=0 and make `pdb`/`bdb` unimportable
# (a meta-path entry bound before the property's module that refuses them).
def test_the_debugger_cannot_walk_to_the_harness_and_sign_a_pass(git_repo, tmp_path, monkeypatch):
    assert tamper.scan_file("src/calc.py", CALC.encode(), PDB_FORGER.encode()) != []  # mended
    monkeypatch.setenv("WITNESS_WARM", "off")
    repo = _base_and_patch(git_repo, DOUBLE_PROPS, CALC, PDB_FORGER, {"xs": list(range(-20, 20))})
    _assert_not_passed(_gate(repo, tmp_path / "out"))


BREAKPOINT_FORGER = "def double(x):\n    breakpoint()\n    return 27\n"
PDBRC = "up 4\n!send('pass', '-', '')\n!end(0)\n"


# Break: as above with no import at all: the builtin `breakpoint()` starts pdb (PYTHONBREAKPOINT is not set in the
# sandbox), and pdb runs the `.pdbrc` of the working directory, the repository root, which the patch adds: its lines
# are scanned as implementation lines and hold no rule's name. Fix: as above (PYTHONBREAKPOINT=0 in the harness's
# environment, pdb unimportable, `breakpoint` and `.pdbrc` findings).
def test_breakpoint_and_a_pdbrc_cannot_sign_a_pass(git_repo, tmp_path, monkeypatch):
    assert tamper.scan_file("src/calc.py", CALC.encode(), BREAKPOINT_FORGER.encode()) != []  # mended
    assert tamper.scan_file(".pdbrc", None, PDBRC.encode()) != []  # mended
    monkeypatch.setenv("WITNESS_WARM", "off")
    repo = _base_and_patch(git_repo, DOUBLE_PROPS, CALC, {"src/calc.py": BREAKPOINT_FORGER, ".pdbrc": PDBRC},
                           {"xs": list(range(-20, 20))})
    _assert_not_passed(_gate(repo, tmp_path / "out"))
