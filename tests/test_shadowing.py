"""A module the patch adds under the name of an installed package: the repository comes before installed packages and
the set-up's environment on the import path, so the property would import the patch's module in the package's place
(docs/SECURITY.md, "What the scan cannot see"). The gate flags a new top-level name that one of them provides."""

from __future__ import annotations

import os

import pytest

from reviewcases import YAML_INSTALLED, gate as _gate
from witness_gate import shadowing

needs_yaml = pytest.mark.skipif(not YAML_INSTALLED, reason="the sandbox's interpreter has no PyYAML installed")

# the oracle reads its expected values with an installed package (PyYAML, in the sandbox interpreter's dist-packages)
PROPS = '''
import yaml
from calc import double
from witness_gate import contract


@contract(invariant="double(x) is x + x", domain="integers")
def prop_double(fixture):
    expected = yaml.safe_load("[" + ", ".join(str(x + x) for x in fixture["xs"]) + "]")
    return [double(x) for x in fixture["xs"]] == expected or "double-wrong"
'''
CALC = "def double(x):\n    return 2 * x\n"
REGRESSED = "def double(x):\n    return 27\n"
FAKE_YAML = "def safe_load(text):\n    return [27] * (text.count(',') + 1)\n"


def _repo(git_repo, patch: dict):
    git_repo.commit({".witness.yml": "version: 1\npolicy:\n  runs: 4\n", "src/calc.py": CALC,
                     "tests/properties/test_calc.py": PROPS, "tests/fixtures/prop_double.json": {"xs": [1, 2, 3]}},
                    "base")
    git_repo.git("checkout", "-q", "-b", "patch")
    git_repo.commit(patch, "the patch")
    return git_repo


@needs_yaml
def test_a_module_added_under_an_installed_package_s_name_cannot_pass_a_regression(git_repo, tmp_path, monkeypatch):
    monkeypatch.setenv("WITNESS_WARM", os.environ.get("WITNESS_WARM", "on"))
    outcome = _gate(_repo(git_repo, {"src/calc.py": REGRESSED, "src/yaml.py": FAKE_YAML}), tmp_path / "out")
    [result] = outcome.results
    assert result.verdict.label != "pass", result.verdict
    assert "tamper:shadows_installed@src/yaml.py:1" in result.verdict.hold_reasons, result.verdict.hold_reasons


@needs_yaml
def test_control_the_regression_alone_is_a_regression(git_repo, tmp_path):
    [result] = _gate(_repo(git_repo, {"src/calc.py": REGRESSED}), tmp_path / "out").results
    assert result.verdict.label == "regression", result.verdict


# --- the pieces -------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("path, name", [
    ("yaml.py", "yaml"), ("src/yaml.py", "yaml"), ("yaml/__init__.py", "yaml"), ("src/yaml/loader.py", "yaml"),
    ("src/ns/deep/mod.py", "ns"), ("README.md", None), ("src", None), ("src.py", "src"), ("my-pkg/x.py", None),
    ("tests/properties/test_calc.py", "tests"),
])
def test_the_top_level_module_a_path_gives_the_import_path(path, name):
    assert shadowing.top_level_module(path) == name


def test_only_a_name_the_base_did_not_have_is_new(tmp_path):
    for path in ("src/calc.py", "src/yaml.py", "requests/__init__.py", "requests/api.py", "lib/old.py", "lib/new.py"):
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text("x = 1\n")
    at_base = {"src/calc.py", "lib/old.py"}
    changed = ["src/calc.py", "src/yaml.py", "requests/api.py", "lib/new.py", "README.md"]
    assert shadowing.new_top_modules(tmp_path, changed, at_base.__contains__) == {
        "yaml": "src/yaml.py", "requests": "requests/api.py"}  # calc and lib were at the base: a library's own


def test_installed_names_come_from_the_folders_of_the_import_path_and_the_environment(tmp_path):
    env = tmp_path / "env"
    for entry in ("flat.py", "pkg/__init__.py", "Pkg-1.0.dist-info/METADATA", "fast.cpython-311-x86_64-linux-gnu.so",
                  "notes.txt", "extra.pth", "../vendored/inner.py"):
        (env / entry).parent.mkdir(parents=True, exist_ok=True)
        (env / entry).write_text("../vendored\nimport this_never_runs\n" if entry == "extra.pth" else "")
    names = shadowing.installed_names("/nonexistent/python", env)
    assert {"flat", "pkg", "fast", "inner"} <= names
    assert not {"notes", "extra", "Pkg-1", "this_never_runs"} & names


def test_findings_name_each_new_module_an_installed_package_provides():
    new = {"yaml": "src/yaml.py", "mine": "src/mine.py"}
    assert shadowing.findings(new, frozenset({"yaml", "requests"})) == ["tamper:shadows_installed@src/yaml.py:1"]


def _layout(root, paths):
    for path in paths:
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text("x = 1\n")


def test_a_module_file_added_beside_a_folder_the_base_had_is_new(tmp_path):
    # review 33: the base's data folder alembic/ (a script in it, no __init__.py) made a new alembic.py look old
    _layout(tmp_path, ["alembic/env.py", "alembic.py", "pkg/__init__.py", "pkg/mod.py"])
    at_base = {"alembic/env.py", "pkg/mod.py"}
    assert shadowing.new_top_modules(tmp_path, ["alembic.py", "pkg/__init__.py"], at_base.__contains__) == {
        "alembic": "alembic.py", "pkg": "pkg/__init__.py"}


def test_a_folder_of_data_is_no_module(tmp_path):
    # review 33: a folder of configuration named like an installed package was a finding
    _layout(tmp_path, ["yaml/config.yml", "ns/part/mod.py"])
    assert shadowing.new_top_modules(tmp_path, ["yaml/config.yml", "ns/part/mod.py"], lambda path: False) == {
        "ns": "ns/part/mod.py"}  # a namespace portion with Python in it still counts
