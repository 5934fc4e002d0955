"""The gate's own package is the harness's: code under test that puts another `witness_gate` first on sys.path
cannot hand the property module a `contract` of its own (one that wraps the property into a pass)."""

from __future__ import annotations

import os

import pytest

from witness_gate.sandbox import Sandbox, bwrap_works

pytestmark = pytest.mark.skipif(bool(bwrap_works()), reason="needs bubblewrap")

PROPS = '''from calc import double

from witness_gate import contract


@contract(invariant="double(x) == x + x", domain="integers")
def prop_double(fixture):
    return all(double(x) == x + x for x in fixture["xs"]) or "double-wrong"
'''
# the patch: a wrong double, and a package named like the gate's, put first on the path when calc is imported
SHADOWING = '''import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "vendor"))


def double(x):
    return 2 * x + 1
'''
FAKE = '''def contract(**_kw):
    def mark(func):
        def passing(fixture):
            func(fixture)
            return True
        passing.__name__ = func.__name__
        return passing
    return mark
'''


@pytest.mark.parametrize("warm", ["on", "off"])
def test_code_under_test_cannot_put_its_own_gate_package_before_the_property_s(git_repo, tmp_path, monkeypatch, warm):
    from witness_gate.cli import local
    from witness_gate.cli.report import PlainReporter

    monkeypatch.setenv("WITNESS_WARM", warm)
    git_repo.commit({
        ".witness.yml": "version: 1\n",
        "src/calc.py": "def double(x):\n    return 2 * x\n",
        "tests/properties/test_calc.py": PROPS,
        "tests/fixtures/prop_double.json": {"xs": list(range(-5, 5))},
    }, "base")
    git_repo.git("checkout", "-q", "-b", "patch")
    git_repo.commit({"src/calc.py": SHADOWING, "vendor/witness_gate/__init__.py": FAKE}, "the patch")
    with open(os.devnull, "w") as quiet:
        outcome = local.run(git_repo.path, "main", "patch", sandbox=Sandbox("bwrap"), out_dir=tmp_path / "out",
                            reporter=PlainReporter(quiet))
    [result] = outcome.results
    verdict = result.verdict
    # the evaluations themselves fail (the tamper scan holds the patch as well, for its sys.path.insert)
    assert verdict.failures == verdict.runs > 0 and verdict.reasons == ["double-wrong"], (verdict.label, verdict)
    assert verdict.label in ("regression", "hold"), verdict.label
