r"""Review 12: the tamper scan's write and comparison rules (`compare_hook`, `stdlib_patch`, `builtins_write`,
`sys_modules_scan`, added in session 9), read for plainly written forms they miss, in the cold path
(WITNESS_WARM=off); each end-to-end test gates a patch that makes the property fail deterministically (the same
patch without its trick is labelled `regression`; checked by hand with a throwaway control) and is labelled `pass`
with no tamper hold.

Found: an always-equal object the standard library ships (`unittest.mock.ANY`) returned by the implementation; a
lying `__eq__` put on a class with `setattr(cls, "__eq__", ...)`; a standard-library module patched under an alias
(`import math as _m`), through its `__dict__`, or through a submodule (`urllib.parse.unquote = ...`); the thread's
decimal context lowered (`decimal.getcontext().prec = 1`), which the oracle's arithmetic shares; a lying `__sub__`
against the usual `abs(a - b) < tol` oracle; annotated assignments (`builtins.all: object = f`, `__eq__: object =
f`), unpacking, `for` and `with` targets (`builtins.all, _ = f, 0`, `for math.isclose in [f]`), none of which has the
`=` right after the target that every write rule needs; attributes set through the `__setattr__` method
(`builtins.__setattr__("all", f)`); `sys.modules` reached as `vars(sys)["modules"]` or `getattr(sys, "modules")`;
and a standard-library package's own `__path__` extended (`email.__path__.insert(0, ...)`), which hands the oracle's
later `from email.utils import ...` the patch's module. And context the base already had: the body of the base's own
`__eq__` rewritten (its `def` line, the one the rule reads, unchanged), and a module alias the base bound
(`import sys as _sys`) hiding the patch's `_sys.modules`/`_sys.path` uses.

Tried, no break: a frame reached without the flagged names (3.11 has no `threading.settrace_all_threads`; a trace
function's `f_lineno` jump needs a frame object, and every way to one is flagged); `object.__subclasses__()` towards
the key (it lives in a closure of main's frame, reachable only through gc or frames); the verdict channel
(`evaluation._harness_verdict`: one signed line, exit code must agree); the overlay and path split (renames count both
paths, `.gitattributes` is neutralised in `git archive`, a deletion of an oracle path is an oracle change).

Mended in session 9 (each test failed before): `compare_hook` reads the comparison dunders however they are set
(setattr, a class dict, an annotation) and arithmetic dunders defined, and `unittest.mock`; `stdlib_patch` reads
submodule chains, `__dict__`/`vars()`, `__setattr__`, annotated writes, a written decimal context, setcontext and
setlocale; `sys_modules_scan` reads `vars(sys)` and `getattr(sys, "modules")`; `import_path` reads a package's
`__path__`; and the scan now also reads a file that parses as the program it is (tamper._program): a module's
other name, wherever the file binds it, is read as the module's own; every target of an unpacking, `for` or `with`
statement as a plain assignment; a line added inside a comparison method's body as that method.
"""

from __future__ import annotations

import pytest

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


# The patch returns the standard library's always-equal object for every input.
ANY_RETURNED = '''from unittest.mock import ANY


def double(x):
    return ANY
'''


# Break: a deterministic regression (double returns no number at all) is labelled `pass`, no tamper hold. Why: the
# oracle's `double(x) == x + x` calls the left operand's `__eq__`, and `unittest.mock.ANY`'s says True to anything;
# the `compare_hook` rule looks only for a dunder *defined* on added lines, and the standard library ships objects
# whose comparisons lie (`mock.ANY`, also `mock.MagicMock` configured through `.__eq__.return_value`, a `nan`
# for `!=` checks). Fix: a tamper finding for `unittest.mock` (and `mock`) imported by implementation files (test
# doubles have no place in shipped code); in depth, the harness can refuse a property whose checked values are of a
# type from `unittest.mock` (the verdict's judge could check `type(value).__module__` of what the property compared
# only with a second process, so the scan is the practical fix).
def test_the_standard_library_s_always_equal_object_cannot_turn_a_regression_into_a_pass(git_repo, tmp_path,
                                                                                         monkeypatch):
    monkeypatch.setenv("WITNESS_WARM", "off")
    repo = _base_and_patch(git_repo, DOUBLE_PROPS, CALC, ANY_RETURNED, {"xs": list(range(-20, 20))})
    _assert_not_passed(_gate(repo, tmp_path / "out"))


# The patch puts a lying `__eq__` on its int subclass with setattr and a plain string literal.
SETATTR_EQ = '''class _Number(int):
    pass


setattr(_Number, "__eq__", lambda self, other: True)
setattr(_Number, "__hash__", int.__hash__)


def double(x):
    return _Number(27)
'''


# Break: a deterministic regression (double(x) is 27) is labelled `pass`, no tamper hold. Why: `compare_hook`
# matches `def __eq__` and `__eq__ =` only; `setattr(cls, "__eq__", f)` names the dunder as a string followed by a
# comma, and so does a class built by `type("N", (int,), {"__eq__": f})`. Fix: match the dunder names however they
# are written: `\b__(?:eq|ne|lt|le|gt|ge|bool|hash|instancecheck|subclasscheck|len|contains)__\b` anywhere in an added
# line (a string included, as the scan already does for `"_getframe"`).
def test_a_lying_eq_set_with_setattr_cannot_turn_a_regression_into_a_pass(git_repo, tmp_path, monkeypatch):
    monkeypatch.setenv("WITNESS_WARM", "off")
    repo = _base_and_patch(git_repo, DOUBLE_PROPS, CALC, SETATTR_EQ, {"xs": list(range(-20, 20))})
    _assert_not_passed(_gate(repo, tmp_path / "out"))


# The patch imports math under another name and sets its attribute through that name.
ALIASED_MATH = '''import math as _m


def mean(xs):
    return 0.0


_m.isclose = lambda a, b, **tolerances: True
'''


# Break: a deterministic regression (mean is 0.0) is labelled `pass`, no tamper hold. Why: `stdlib_patch` matches
# an assignment to `<stdlib module name>.<attr>`, and `module_alias` flags only `sys`, `os`, `posix`, `inspect`,
# `gc`, `importlib`, `signal`, `resource` imported `as` another name; `import math as _m` then `_m.isclose = ...`
# names no standard-library module on the line that writes (same for `from os import path as p; p.join = ...`).
# Fix: a finding for any standard-library module (or submodule: `import os.path as p`, `from os import path as p`)
# bound to another name, like `module_alias`; or, in depth, the harness snapshots the stdlib modules' dicts before
# the property module runs and compares them after the call.
def test_a_stdlib_module_patched_under_an_alias_cannot_pass_a_regression(git_repo, tmp_path, monkeypatch):
    monkeypatch.setenv("WITNESS_WARM", "off")
    repo = _base_and_patch(git_repo, MEAN_PROPS, MEAN, ALIASED_MATH, {"xs": [1.0, 2.0, 4.5, 8.0]})
    _assert_not_passed(_gate(repo, tmp_path / "out"))


# The patch writes the function into the module's namespace dict.
DICT_MATH = '''import math


def mean(xs):
    return 0.0


math.__dict__["isclose"] = lambda a, b, **tolerances: True
'''


# Break: a deterministic regression (mean is 0.0) is labelled `pass`, no tamper hold. Why: `stdlib_patch` needs an
# `=` right after `<module>.<attr>`; `math.__dict__["isclose"] = ...` has `[` there (and `vars(math)["isclose"] =
# ...`, `vars(math).update(...)`, `math.__dict__.update(...)` are flagged for `builtins` only). Fix: extend the rule
# with `<stdlib module>\s*\.\s*__dict__\b` and `vars\s*\(\s*<stdlib module>\s*\)` (as `builtins_write` does).
def test_a_stdlib_function_written_through_the_module_dict_cannot_pass_a_regression(git_repo, tmp_path,
                                                                                   monkeypatch):
    monkeypatch.setenv("WITNESS_WARM", "off")
    repo = _base_and_patch(git_repo, MEAN_PROPS, MEAN, DICT_MATH, {"xs": [1.0, 2.0, 4.5, 8.0]})
    _assert_not_passed(_gate(repo, tmp_path / "out"))


TOTAL_PROPS = '''
from decimal import Decimal

from calc import total
from witness_gate import contract

@contract(invariant="total(xs) is the exact sum", domain="lists of decimal strings")
def prop_total(fixture):
    xs = fixture["xs"]
    return total(xs) == sum(Decimal(x) for x in xs) or "total-wrong"
'''
TOTAL = "from decimal import Decimal\n\n\ndef total(xs):\n    return sum(Decimal(x) for x in xs)\n"
# The patch drops the last item and lowers the precision of the thread's decimal context, which the oracle shares.
TOTAL_PATCHED = '''import decimal
from decimal import Decimal

decimal.getcontext().prec = 1


def total(xs):
    return sum(Decimal(x) for x in xs[:-1])
'''


# Break: a deterministic regression (the last item is dropped) is labelled `pass`, no tamper hold. Why: the decimal
# context is the thread's, shared by the implementation and the oracle, and `stdlib_patch` matches only
# `<stdlib module>.<attr> =`: `decimal.getcontext().prec = 1` (also `decimal.DefaultContext.prec = 1`,
# `decimal.setcontext(...)`, `getcontext().traps[...] = ...`) changes how the oracle's own sum rounds (300.01 and 300
# are both 3E+2). Same for other process-wide standard-library state (`locale.setlocale`, `sys.set_int_max_str_digits`,
# `random.seed` when an oracle draws). Fix: findings for the decimal context (`getcontext`, `setcontext`,
# `DefaultContext`, `BasicContext`, `ExtendedContext` written through) and `locale.setlocale` in added lines; in
# depth the harness can run the property in a fresh `decimal.localcontext()` copied from the default it saw before
# the property module ran (no: the implementation runs inside it too); the scan is the practical fix.
def test_the_shared_decimal_context_lowered_by_the_implementation_cannot_pass_a_regression(git_repo, tmp_path,
                                                                                          monkeypatch):
    monkeypatch.setenv("WITNESS_WARM", "off")
    repo = _base_and_patch(git_repo, TOTAL_PROPS, TOTAL, TOTAL_PATCHED, {"xs": ["100", "200", "0.01"]})
    _assert_not_passed(_gate(repo, tmp_path / "out"))


NEAR_PROPS = '''
from calc import mean
from witness_gate import contract

@contract(invariant="mean(xs) is the arithmetic mean", domain="lists of floats")
def prop_mean(fixture):
    xs = fixture["xs"]
    return abs(mean(xs) - sum(xs) / len(xs)) < 1e-9 or "mean-wrong"
'''
# The patch returns a wrong mean whose subtraction says it is no distance from anything.
LYING_SUB = '''class _Mean(float):
    def __sub__(self, other):
        return 0.0


def mean(xs):
    return _Mean(0.0)
'''


# Break: a deterministic regression (mean is 0.0) is labelled `pass`, no tamper hold. Why: `compare_hook` lists the
# comparison and truth dunders, but the oracle's `abs(a - b) < tol` (the usual float check) first asks the
# implementation's value for `__sub__`, then compares the float it got; arithmetic dunders (`__sub__`, `__rsub__`,
# `__abs__`, `__float__`, `__round__`, `__len__`, `__iter__`, `__contains__`) lie as well as `__eq__` does. Fix: flag
# every dunder method defined (or set) on lines the patch adds to implementation files except a short list of
# harmless ones (`__init__`, `__repr__`, `__str__`, `__post_init__`, ...), so a person looks.
def test_a_value_with_a_lying_sub_cannot_turn_a_regression_into_a_pass(git_repo, tmp_path, monkeypatch):
    monkeypatch.setenv("WITNESS_WARM", "off")
    repo = _base_and_patch(git_repo, NEAR_PROPS, MEAN, LYING_SUB, {"xs": [1.0, 2.0, 4.5, 8.0]})
    _assert_not_passed(_gate(repo, tmp_path / "out"))


ROUND_TRIP_PROPS = '''
import urllib.parse

from calc import encode
from witness_gate import contract

@contract(invariant="unquote(encode(s)) == s", domain="strings")
def prop_round_trip(fixture):
    return all(urllib.parse.unquote(encode(s)) == s for s in fixture["xs"]) or "round-trip-wrong"
'''
ENCODE = "import urllib.parse\n\n\ndef encode(s):\n    return urllib.parse.quote(s, safe='')\n"
# The patch stops escaping "%" (and everything but spaces) and makes the oracle's decoder undo only what it does.
ENCODE_PATCHED = '''import urllib.parse


def encode(s):
    return s.replace(" ", "%20")


urllib.parse.unquote = lambda text, *args, **kwargs: text.replace("%20", " ")
'''


# Break: a deterministic regression ("100%41" no longer round-trips) is labelled `pass`, no tamper hold. Why:
# `stdlib_patch` matches `<top-level stdlib name>.<attr> =`; in `urllib.parse.unquote = ...` the name before the
# assigned attribute is `parse`, a submodule, and no top-level name is followed directly by `.<attr> =` (same for
# `os.path.join = ...`, `json.decoder.scanstring = ...`, `xml.etree.ElementTree.fromstring = ...`). Fix: allow a
# dotted chain after the stdlib name: `\b(?:<names>)(?:\s*\.\s*\w+)+\s*<_AUG>` (the last link is the attribute).
def test_a_stdlib_submodule_function_patched_by_the_implementation_cannot_pass_a_regression(git_repo, tmp_path,
                                                                                           monkeypatch):
    monkeypatch.setenv("WITNESS_WARM", "off")
    repo = _base_and_patch(git_repo, ROUND_TRIP_PROPS, ENCODE, ENCODE_PATCHED, {"xs": ["a b", "100%41", "x/y"]})
    _assert_not_passed(_gate(repo, tmp_path / "out"))


# The patch rebinds the builtin `all` with an annotated assignment (which assigns, like `=`).
ANNOTATED_BUILTIN = '''import builtins


def double(x):
    return 27


builtins.all: object = lambda checks: True
'''
# The patch gives its int subclass a lying `__eq__` with an annotated assignment in the class body.
ANNOTATED_EQ = '''class _Number(int):
    __eq__: object = lambda self, other: True
    __hash__: object = int.__hash__


def double(x):
    return _Number(27)
'''


# Break: a deterministic regression (double(x) is 27) is labelled `pass`, no tamper hold, twice: through the oracle's
# `all` rebound in `builtins`, and through a lying `__eq__`. Why: every write rule ends in `_AUG` (`=`, `+=`, ...) right
# after the target, but an annotated assignment (`target: annotation = value`, PEP 526) assigns to an attribute or a
# subscript just the same, with `: <annotation>` between the target and its `=`: `builtins.all: object = f`,
# `__eq__: object = f`, and likewise `math.isclose: object = f`, `sys.modules["x"]: object = m`,
# `sys.path[0:0]: list = [...]`, `sys.stdout: object = f` pass `builtins_write`, `compare_hook`, `stdlib_patch`,
# `sys_modules_write`, `import_path` and `stdout_replace`. Fix: let `_AUG` also accept an annotation:
# `(?::[^=\n]*)?(?:[-+*/%@&|^]|//|<<|>>|\*\*)?=(?!=)` (an annotation holds no `=` outside a default, which a
# type cannot have; a bare `x.attr: T` without a value assigns nothing), and `__eq__\s*:` for the class-body form.
def test_a_builtin_rebound_by_an_annotated_assignment_cannot_pass_a_regression(git_repo, tmp_path, monkeypatch):
    monkeypatch.setenv("WITNESS_WARM", "off")
    repo = _base_and_patch(git_repo, DOUBLE_PROPS, CALC, ANNOTATED_BUILTIN, {"xs": list(range(-20, 20))})
    _assert_not_passed(_gate(repo, tmp_path / "out"))


def test_a_lying_eq_bound_by_an_annotated_assignment_cannot_pass_a_regression(git_repo, tmp_path, monkeypatch):
    monkeypatch.setenv("WITNESS_WARM", "off")
    repo = _base_and_patch(git_repo, DOUBLE_PROPS, CALC, ANNOTATED_EQ, {"xs": list(range(-20, 20))})
    _assert_not_passed(_gate(repo, tmp_path / "out"))


@pytest.mark.parametrize("source", [
    "import math\nmath.isclose: object = lambda a, b, **k: True\n",
    "import sys\nsys.modules['json']: object = object()\n",
    "import sys\nsys.path[0:0]: list = ['vendor']\n",
    "import sys\nsys.stdout: object = open('/dev/null', 'w')\n",
])
def test_an_annotated_assignment_is_a_finding_like_a_plain_one(source):
    assert tamper.scan_file("src/calc.py", b"", source.replace(": object =", " =").replace(": list =", " =").encode())
    assert tamper.scan_file("src/calc.py", b"", source.encode())


# The patch rebinds the builtin `all` as one target of an unpacking assignment.
UNPACKED_BUILTIN = '''import builtins


def double(x):
    return 27


builtins.all, _unused = (lambda checks: True), 0
'''
# The patch rebinds `math.isclose` as the target of a for loop.
FOR_TARGET_MATH = '''import math


def mean(xs):
    return 0.0


for math.isclose in [lambda a, b, **tolerances: True]:
    pass
'''


# Break: a deterministic regression is labelled `pass`, no tamper hold. Why: the write rules need the target
# directly before its `=`; Python assigns to every target of an unpacking (`a.b, c = ...`, `[a.b] = [...]`), of a
# `for` loop (`for a.b in ...`), and of a `with ... as a.b`, none of which has the `=` there: `builtins.all, _ = f, 0`,
# `for math.isclose in [f]`, `__eq__, __hash__ = f, int.__hash__` in a class body, `sys.path[:0], _ = [...], 0`,
# `with open(...) as sys.stdout` pass `builtins_write`, `stdlib_patch`, `compare_hook`, `import_path` and
# `stdout_replace`. Fix: read the targets from the tokens (the statement text `statements()` already builds): for each
# statement, the expressions before each top-level `=`, after `for` up to `in`, and after `as` in a `with`, split at
# top-level commas, and apply the write rules to `<target> =` for each; or, simpler, flag the guarded names (`builtins.`,
# a stdlib module's attribute, `sys.path`, `sys.modules`, `sys.stdout`, a comparison dunder) wherever they are
# followed by `,`, `]`, `)` or `in` inside an assignment or a `for`/`with` target.
def test_a_builtin_rebound_as_an_unpacking_target_cannot_pass_a_regression(git_repo, tmp_path, monkeypatch):
    monkeypatch.setenv("WITNESS_WARM", "off")
    repo = _base_and_patch(git_repo, DOUBLE_PROPS, CALC, UNPACKED_BUILTIN, {"xs": list(range(-20, 20))})
    _assert_not_passed(_gate(repo, tmp_path / "out"))


def test_a_stdlib_function_rebound_as_a_for_target_cannot_pass_a_regression(git_repo, tmp_path, monkeypatch):
    monkeypatch.setenv("WITNESS_WARM", "off")
    repo = _base_and_patch(git_repo, MEAN_PROPS, MEAN, FOR_TARGET_MATH, {"xs": [1.0, 2.0, 4.5, 8.0]})
    _assert_not_passed(_gate(repo, tmp_path / "out"))


@pytest.mark.parametrize("plain, hidden", [
    ("class N(int):\n    __eq__ = lambda s, o: True\n",
     "class N(int):\n    __eq__, __hash__ = (lambda s, o: True), int.__hash__\n"),
    ("import sys\nsys.path[:0] = ['vendor']\n", "import sys\nsys.path[:0], _ = ['vendor'], 0\n"),
    ("import sys\nsys.stdout = open('/dev/null', 'w')\n",
     "import sys\nwith open('/dev/null', 'w') as sys.stdout:\n    pass\n"),
    ("import sys\nsys.modules['json'] = object()\n", "import sys\n[sys.modules['json']] = [object()]\n"),
])
def test_an_assignment_target_in_an_unpacking_for_or_with_is_a_finding_like_a_plain_one(plain, hidden):
    assert tamper.scan_file("src/calc.py", b"", plain.encode())
    assert tamper.scan_file("src/calc.py", b"", hidden.encode())


# Review 11's walk over sys.modules (to give the half-run property module an `all` of the patch's), with the mapping
# reached through `vars(sys)` instead of the attribute.
VARS_SYS_WALK = '''import sys


def double(x):
    return 27


for module in list(vars(sys)["modules"].values()):
    if str(getattr(module, "__file__", "")).endswith("test_calc.py"):
        module.all = lambda checks: True
'''


# Break: a deterministic regression (double(x) is 27) is labelled `pass`, no tamper hold. Why: `sys_modules_scan` and
# `sys_modules_write` read `sys.modules` spelled as an attribute (and `module_alias` `.__dict__["modules"]`), but
# `vars(sys)["modules"]` and `getattr(sys, "modules")` (a literal name, not one built at run time) reach the same
# dict; the walk finds the property's half-run module and shadows its builtin `all`. Fix: in `sys_modules_write`/
# `module_alias`, flag `vars\s*\(\s*sys\s*\)` and `getattr\s*\(\s*sys\s*,\s*['"]modules['"]` (and, generally,
# `getattr`/`vars` of `sys`, `os`, `builtins` with a literal naming anything a rule guards).
def test_a_walk_over_sys_modules_reached_through_vars_cannot_shadow_the_oracle_s_builtins(git_repo, tmp_path,
                                                                                         monkeypatch):
    monkeypatch.setenv("WITNESS_WARM", "off")
    repo = _base_and_patch(git_repo, DOUBLE_PROPS, CALC, VARS_SYS_WALK, {"xs": list(range(-20, 20))})
    _assert_not_passed(_gate(repo, tmp_path / "out"))


def test_sys_modules_reached_by_getattr_with_a_literal_name_is_a_finding():
    assert tamper.scan_file("src/calc.py", b"", b"import sys\nfor m in list(sys.modules.values()):\n    pass\n")
    assert tamper.scan_file("src/calc.py", b"", b"import sys\nfor m in list(getattr(sys, 'modules').values()):\n"
                                                b"    pass\n")


# The patch rebinds the builtin `all` through the module's own `__setattr__` method.
DUNDER_SETATTR_BUILTIN = '''import builtins


def double(x):
    return 27


builtins.__setattr__("all", lambda checks: True)
'''


# Break: a deterministic regression (double(x) is 27) is labelled `pass`, no tamper hold. Why: `builtins_write` and
# `stdlib_patch` flag the function `setattr(` / `delattr(` (with `\b` before it, which `__setattr__` does not have:
# `_` is a word character) and writes through `.update(`/`__setitem__(`, not the method `__setattr__`: the module's
# `builtins.__setattr__("all", f)`, `object.__setattr__(builtins, "all", f)`, `math.__setattr__("isclose", f)`,
# `type.__setattr__(cls, "__eq__", f)`, and `operator.setitem(vars(math), "isclose", f)` all assign. Fix: add
# `__setattr__`/`__delattr__` to `_DICT_WRITES`-like alternatives of each rule, drop the `\b` in front of
# `setattr|delattr` (match `_*setattr_*\s*\(`), and flag `vars\s*\(\s*<stdlib module>\s*\)` as `builtins_write` does for
# `builtins`.
def test_a_builtin_rebound_through_the_module_s_setattr_method_cannot_pass_a_regression(git_repo, tmp_path,
                                                                                        monkeypatch):
    monkeypatch.setenv("WITNESS_WARM", "off")
    repo = _base_and_patch(git_repo, DOUBLE_PROPS, CALC, DUNDER_SETATTR_BUILTIN, {"xs": list(range(-20, 20))})
    _assert_not_passed(_gate(repo, tmp_path / "out"))


@pytest.mark.parametrize("plain, hidden", [
    ("import builtins\nsetattr(builtins, 'all', lambda c: True)\n",
     "import builtins\nobject.__setattr__(builtins, 'all', lambda c: True)\n"),
    ("import math\nsetattr(math, 'isclose', lambda a, b, **k: True)\n",
     "import math\nmath.__setattr__('isclose', lambda a, b, **k: True)\n"),
    ("import math\nmath.isclose = lambda a, b, **k: True\n",
     "import math\nimport operator\noperator.setitem(vars(math), 'isclose', lambda a, b, **k: True)\n"),
    ("class N(int):\n    __eq__ = lambda s, o: True\n",
     "class N(int):\n    pass\n\n\ntype.__setattr__(N, '__eq__', lambda s, o: True)\n"),
])
def test_an_attribute_set_through_setattr_methods_is_a_finding_like_a_plain_one(plain, hidden):
    assert tamper.scan_file("src/calc.py", b"", plain.encode())
    assert tamper.scan_file("src/calc.py", b"", hidden.encode())


ADDRESS_PROPS = """
from calc import first_address
from witness_gate import contract

@contract(invariant="first_address(h) is the address getaddresses finds", domain="address headers")
def prop_first_address(fixture):
    from email.utils import getaddresses

    return all(first_address(h) == getaddresses([h])[0][1] for h in fixture["xs"]) or "address-wrong"
"""
ADDRESS = "def first_address(header):\n    return header.split('<')[-1].rstrip('>').strip()\n"
# The patch returns one fixed address and puts a folder of its own first on the path of the standard library's
# `email` package, whose `utils` the oracle imports after the implementation ran.
ADDRESS_PATCHED = {
    "src/calc.py": """import email
import os

email.__path__.insert(0, os.path.join(os.path.dirname(__file__), "shadow"))


def first_address(header):
    return "nobody@example.com"
""",
    "src/shadow/utils.py": """def getaddresses(fieldvalues):
    return [("", "nobody@example.com") for _ in fieldvalues]
""",
}


# Break: a deterministic regression (one fixed address) is labelled `pass`, no tamper hold. Why: `import_path` reads
# the interpreter's search path (`sys.path`, `sys.meta_path`, `sys.path_hooks`), but a package's own `__path__` (and
# its `__spec__.submodule_search_locations`, the same list) is where its submodules are looked for: the patch puts a
# folder of its own first on `email.__path__`, and the oracle's `from email.utils import getaddresses` (run inside the
# property, after the implementation was imported) loads the patch's `utils.py`. Any package of the standard library or
# of the installed ones whose submodule the oracle imports late is open the same way. Fix: flag writes to
# `__path__` and `submodule_search_locations` (`\b__path__\s*(?:\.\s*(?:insert|append|extend|...)|\[[^\]]*\]\s*=|=)`,
# `\bsubmodule_search_locations\b`) in `import_path`; in depth, the harness can refuse (no verdict) a stdlib package
# whose `__path__` no longer equals the one it recorded before the property module ran.
def test_a_stdlib_package_s_path_extended_by_the_implementation_cannot_pass_a_regression(git_repo, tmp_path,
                                                                                        monkeypatch):
    monkeypatch.setenv("WITNESS_WARM", "off")
    repo = _base_and_patch(git_repo, ADDRESS_PROPS, ADDRESS, ADDRESS_PATCHED,
                           {"xs": ["Ann <ann@example.org>", "bob@example.org"]})
    _assert_not_passed(_gate(repo, tmp_path / "out"))


MONEY_PROPS = """
from calc import Money, total
from witness_gate import contract

@contract(invariant="total(xs) is the sum of the cents", domain="lists of cents")
def prop_total(fixture):
    xs = fixture["xs"]
    return total(xs) == Money(sum(xs)) or "total-wrong"
"""
MONEY = """class Money:
    def __init__(self, cents):
        self.cents = cents

    def __eq__(self, other):
        return isinstance(other, Money) and self.cents == other.cents


def total(xs):
    return Money(sum(xs))
"""
# The patch drops the last item, and edits the body of the base's own `__eq__` (its `def` line stays as it was).
MONEY_PATCHED = """class Money:
    def __init__(self, cents):
        self.cents = cents

    def __eq__(self, other):
        return isinstance(other, Money)


def total(xs):
    return Money(sum(xs[:-1]))
"""


# Break: a deterministic regression (the last item is dropped) is labelled `pass`, no tamper hold. Why: `compare_hook`
# matches the `def __eq__` line, and the scan reads only the lines the patch adds (and a multi-line statement that
# holds one); the body of an `__eq__` the base already had is other lines, so a patch that only rewrites what an
# existing comparison method returns adds no line the rule can see. A value class with its own `__eq__` is common, and
# the oracle compares the implementation's values with it. Fix: report a finding for an added line inside the body of
# a `def` whose name a rule guards (`__eq__`, `__ne__`, `__lt__`..., `__bool__`, `__hash__`, `__instancecheck__`, and a
# `find_spec`/`exec_module`): map each added line to its enclosing function with `ast` (the head parses; `end_lineno`
# gives the span) and check the function's name against `compare_hook`'s and `import_machinery`'s `def` alternatives.
def test_a_rewritten_body_of_the_base_s_own_eq_cannot_turn_a_regression_into_a_pass(git_repo, tmp_path,
                                                                                    monkeypatch):
    monkeypatch.setenv("WITNESS_WARM", "off")
    repo = _base_and_patch(git_repo, MONEY_PROPS, MONEY, MONEY_PATCHED, {"xs": [100, 250, 1]})
    _assert_not_passed(_gate(repo, tmp_path / "out"))


# Break (scan): a base that already binds a module under another name (`import sys as _sys`, common in library code to
# keep a module's namespace clean) leaves every later use of that name unread: the patch's added
# `_sys.modules[...] = ...`, `_sys.path.insert(...)` and a walk over `_sys.modules.values()` are no findings, since the
# rules spell `sys` with a word boundary before it and `module_alias` flags the `import ... as` line only when the patch
# adds it. Review 11's walk (an `all` given to the half-run property module) and an import-path write then go unflagged.
# Fix: read the aliases from the whole head file (every `import <guarded module> as X`, `X = <guarded module>`), not only
# from the added lines, and apply the rules to the added lines with each alias replaced by the module's own name.
@pytest.mark.parametrize("added", [
    'for module in list(_sys.modules.values()):\n    module.all = lambda checks: True\n',
    '_sys.path.insert(0, "vendor")\n',
    '_sys.modules["json"] = object()\n',
])
def test_a_module_alias_bound_by_the_base_is_read_as_the_module(added):
    base = 'import sys as _sys\n\n\ndef double(x):\n    return 2 * x\n'
    assert tamper.scan_file("src/calc.py", base.encode(), (base + "\n\n" + added.replace("_sys.", "sys.")).encode())
    assert tamper.scan_file("src/calc.py", base.encode(), (base + "\n\n" + added).encode())
