r"""Review 13 (session 10, from session 9's report-only findings): a standard-library module or object reached in ways
the scan's write rules did not read as the module, then changed where every importer — the oracle too — sees it:
`importlib.import_module("math")`, `__import__("math")`, `sys.modules["math"]`, `sys.modules.get("math")` (bound to
a name, a walrus' name, or written through directly), and an object imported from the standard library
(`from fractions import Fraction`, `from os import path as p`) whose attribute the patch sets. Each form scanned clean
before and made `math.isclose` (or `Fraction`'s comparison, `os.path.join`) lie for the oracle. Mended in tamper._program:
those expressions and names are read as the module (or `module.object`) they are, so `stdlib_patch` sees the write.
"""

from __future__ import annotations

import pytest

from reviewcases import gate as _gate
from test_hostile_review_12 import MEAN, MEAN_PROPS  # math.isclose(mean(xs), sum(xs) / len(xs))
from witness_gate import tamper

LIE = "lambda *a, **k: True"


@pytest.mark.parametrize("source", [
    f'import importlib\n_m = importlib.import_module("math")\n_m.isclose = {LIE}\n',
    f'import importlib\nimportlib.import_module("math").isclose = {LIE}\n',
    f'm = __import__("math")\nm.isclose = {LIE}\n',
    f'import sys\nm = sys.modules.get("math")\nm.isclose = {LIE}\n',
    f'import sys\nsys.modules["math"].isclose = {LIE}\n',
    f'import importlib\nif (m := importlib.import_module("math")):\n    m.isclose = {LIE}\n',
    f'from fractions import Fraction\nFraction._richcmp = {LIE}\n',
    'from os import path as p\np.join = lambda *a: "x"\n',
])
def test_a_standard_library_module_reached_by_another_way_and_changed_is_a_finding(source):
    assert [f.reason.split("@")[0] for f in tamper.scan_text("src/calc.py", "", source)] == ["tamper:stdlib_patch"]


def test_reaching_the_standard_library_that_way_without_changing_it_is_no_finding():
    source = ('from os import path\nfrom fractions import Fraction\nimport importlib\njson = importlib.import_module('
              '"json")\n\n\ndef f(x):\n    return path.join("a", x), Fraction(1, 3), json.dumps(x)\n')
    assert tamper.scan_text("src/calc.py", "", source) == []


# the regression (the mean of a list is its first element), with the oracle's isclose made to agree
LYING = f'import importlib\n_m = importlib.import_module("math")\n_m.isclose = {LIE}\n\n\ndef mean(xs):\n    return xs[0]\n'


def test_math_changed_through_import_module_cannot_turn_a_regression_into_a_pass(git_repo, tmp_path):
    git_repo.commit({".witness.yml": "version: 1\npolicy:\n  runs: 4\n", "src/calc.py": MEAN,
                     "tests/properties/test_calc.py": MEAN_PROPS,
                     "tests/fixtures/prop_mean.json": {"xs": [1.0, 2.0, 6.0]}}, "base")
    git_repo.git("checkout", "-q", "-b", "patch")
    git_repo.commit({"src/calc.py": LYING}, "the patch")
    [result] = _gate(git_repo, tmp_path / "out").results
    assert result.verdict.label != "pass", result.verdict
    assert any(r.startswith("tamper:stdlib_patch@src/calc.py") for r in result.verdict.hold_reasons), result.verdict


# Review 33 (report-only, session 10), the plainest of its bypasses of the forms above, mended the same way: an alias of
# an alias, `setattr` or `vars` with an alias, an object taken from a module by attribute (`F = fractions.Fraction`, a
# walrus too), a `for` or comprehension over a literal list of modules, an unpacking.
@pytest.mark.parametrize("source", [
    f'import math\n_m = math\n_n = _m\n_n.isclose = {LIE}\n',
    f'import math\n_m = math\nsetattr(_m, "isclose", {LIE})\n',
    f'import importlib\nm = importlib.import_module("math")\nsetattr(m, "isclose", {LIE})\n',
    f'import fractions\nF = fractions.Fraction\nF._richcmp = {LIE}\n',
    f'import fractions\n(F := fractions.Fraction)._richcmp = {LIE}\n',
    f'import math\nfor _m in (math,):\n    _m.isclose = {LIE}\n',
    f'import math\nm, = [math]\nm.isclose = {LIE}\n',
    f'import math\nm, n = math, 1\nm.isclose = {LIE}\n',
    f'import math\n[setattr(m, "isclose", {LIE}) for m in [math]]\n',
    f'import math\nm = math\nvars(m)["isclose"] = {LIE}\n',
])
def test_an_alias_of_an_alias_an_attribute_or_a_setattr_is_read_as_the_module(source):
    assert [f.reason.split("@")[0] for f in tamper.scan_text("src/calc.py", "", source)] == ["tamper:stdlib_patch"]


def test_an_instance_of_a_standard_library_class_is_no_module():
    source = 'import fractions\nF = fractions.Fraction\nx = F(1)\nx.note = "ours"\nsetattr(x, "other", 2)\n'
    assert tamper.scan_text("src/calc.py", "", source) == []
