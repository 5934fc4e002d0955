"""`witness-gate init`: a `.witness.yml` from a repository's layout, each choice said with its reason, nothing else
changed; what it writes parses, and gates the repository's own tests."""

from __future__ import annotations

import json

import pytest

from conftest import run_cli
from witness_gate.config.schema import parse_config
from witness_gate.cli.init import INSTALL, Layout, propose, read_layout


@pytest.mark.parametrize("layout, impl, oracle, tests", [
    (Layout(folders=("src", "tests", "docs")), ["src/"], ["tests/"], ("tests/",)),
    (Layout(folders=("mypkg", "tests"), packages=("mypkg",)), ["mypkg/"], ["tests/"], ("tests/",)),
    # pytest's own testpaths win over the folder names
    (Layout(folders=("natsort", "tests", "extra"), packages=("natsort",), testpaths=("tests", "extra/test_x.py"),
            config_file="setup.cfg"), ["natsort/"], ["tests/", "extra/test_x.py"], ("tests/", "extra/test_x.py")),
    # bidict: testpaths name the package (its doctests) and docs/: the code and the documentation, not tests
    (Layout(folders=("bidict", "tests"), packages=("bidict",), testpaths=("bidict", "tests", "docs"),
            config_file="pytest.ini"), ["bidict/"], ["tests/"], ("tests/",)),
    # a single-module project with its tests beside it, and a conftest.py at the top: the oracle's
    (Layout(modules=("bidi.py", "conftest.py", "setup.py", "test_bidi.py")), ["bidi.py"],
     ["test_bidi.py", "conftest.py"], ("test_bidi.py",)),
    # the gate's own properties and fixtures stay oracle beside the tests
    (Layout(folders=("src", "tests"), properties=True, fixtures=True), ["src/"], ["tests/"], ("tests/",)),
    (Layout(folders=("src", "checks"), properties=False), ["src/"], ["tests/"], ()),
])
def test_init_proposes_a_config_from_the_layout(layout, impl, oracle, tests):
    text, why = propose(layout)
    config = parse_config(text)  # what init writes is a valid .witness.yml
    assert list(config.impl) == impl and list(config.oracle) == oracle and config.pytest == tests
    assert "**/*.md" in config.ignore and "docs/" in config.ignore
    assert all(line.split(":", 1)[0] in ("paths.impl", "paths.oracle", "paths.ignore", "properties.pytest",
                                         "freeze.expires_in_hours", "setup.command")
               for line in why)
    assert any(line.startswith("properties.pytest: none") for line in why) == (not tests)


def test_init_reads_pytest_configuration_without_running_anything(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("raise SystemExit('imported')\n")
    (tmp_path / "t").mkdir()
    (tmp_path / "pyproject.toml").write_text('[tool.pytest.ini_options]\ntestpaths = ["t"]\n')
    (tmp_path / "setup.cfg").write_text("[tool:pytest]\ntestpaths = other\n")  # pyproject.toml comes first
    layout = read_layout(tmp_path)
    assert (layout.packages, layout.testpaths, layout.config_file) == (("pkg",), ("t",), "pyproject.toml")
    (tmp_path / "pyproject.toml").write_text("[tool.pytest.ini_options\nbroken")  # unreadable: the next one
    assert read_layout(tmp_path).testpaths == ("other",)


def test_init_writes_the_config_says_why_and_changes_nothing_else(git_repo):
    git_repo.commit({"src/calc.py": "def double(x):\n    return 2 * x\n",
                     "tests/test_calc.py": "from calc import double\n\ndef test_double():\n    assert double(2) == 4\n",
                     "README.md": "calc\n"}, "base")
    before = git_repo.git("status", "--porcelain")
    done = run_cli("init", "--repo", str(git_repo.path), cwd=git_repo.path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "properties.pytest: tests/: the tests' folder" in done.stdout and "paths.impl: src/" in done.stdout
    assert git_repo.git("status", "--porcelain") == (before + "\n" if before else "") + "?? .witness.yml"
    config = parse_config((git_repo.path / ".witness.yml").read_text())
    assert config.pytest == ("tests/",)
    again = run_cli("init", "--repo", str(git_repo.path), cwd=git_repo.path)  # never overwrites
    assert again.returncode == 2 and "already has a .witness.yml" in again.stderr
    # and it gates: commit it, then a regression in a branch is blocked by the repository's own test
    git_repo.commit({}, "adopt witness-gate")
    git_repo.git("checkout", "-q", "-b", "patch")
    git_repo.commit({"src/calc.py": "def double(x):\n    return 2 * x + 1\n"}, "off by one")
    done = run_cli("run", "--repo", str(git_repo.path), "--base", "main", "--head", "patch", "--out",
                   str(git_repo.path.parent / "out"), cwd=git_repo.path)
    assert done.returncode == 1 and "tests.test_calc.test_double" in done.stdout, done.stdout + done.stderr


def test_init_writes_what_a_hostile_configuration_names_as_data_and_never_crashes(tmp_path):
    # found by a reviewer: testpaths pasted into YAML unescaped, a deep TOML array and a number crashed init
    (tmp_path / "tests").mkdir()
    (tmp_path / "pyproject.toml").write_text('[tool.pytest.ini_options]\n'
                                            'testpaths = ["tests/.", "zz\\"]\\n  ignore: [\\"**\\"]\\n#", "../up", "/etc"]\n')
    text, _why = propose(read_layout(tmp_path))
    config = parse_config(text)
    assert config.pytest == ("tests/", 'zz"]\n  ignore: ["**"]\n#/') and "**" not in config.ignore
    for broken in ("testpaths = 5\n", "testpaths = " + "[" * 5000 + "]" * 5000 + "\n"):
        (tmp_path / "pyproject.toml").write_text("[tool.pytest.ini_options]\n" + broken)
        text, why = propose(read_layout(tmp_path))  # unreadable: init falls back to the folders it sees
        assert parse_config(text).pytest == ("tests/",) and "the tests' folder" in " ".join(why)


def test_init_proposes_a_set_up_that_installs_the_project_s_declared_dependencies(tmp_path):
    # found gating bidict: its runtime dependency (typing_extensions) was nowhere in the subject, so every test gave
    # no verdict (transport:missing_package) until a set-up was written by hand
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "tests").mkdir()
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "pkg"\ndependencies = ["typing_extensions>=4.0; python_version<\'3.12\'", "attrs",'
        ' "--index-url=http://elsewhere.invalid", "-e .", "a\\"]\\n  ignore: [\\"**\\"]"]\n')
    text, why = propose(read_layout(tmp_path))
    config = parse_config(text)
    # each requirement one argument after the script, options of pip's left out, quotes and newlines kept as data
    assert config.setup_command == INSTALL + ("typing_extensions>=4.0; python_version<'3.12'", "attrs",
                                              'a"]\n  ignore: ["**"]'), config.setup_command
    assert "**" not in config.ignore
    assert any(line.startswith("setup.command: pip installs the project's dependencies") for line in why)
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "pkg"\n')  # none declared: no set-up
    assert parse_config(propose(read_layout(tmp_path))[0]).setup_command is None


def test_a_project_gated_with_the_config_init_wrote_gets_its_dependencies_and_a_verdict(git_repo):
    import socket

    try:
        socket.create_connection(("pypi.org", 443), timeout=5).close()
    except OSError:
        pytest.skip("pypi.org is not reachable from this machine")
    pyproject = ('[project]\nname = "calc"\ndependencies = ["typing_extensions>=4.0"]\n')
    code = "from typing_extensions import Literal\n\n\ndef double(x):\n    return 2 * x\n"
    git_repo.commit({"pyproject.toml": pyproject, "calc/__init__.py": code,
                     "tests/test_calc.py": "from calc import double\n\ndef test_double():\n    assert double(2) == 4\n"},
                    "base")
    assert run_cli("init", "--repo", str(git_repo.path), cwd=git_repo.path).returncode == 0
    git_repo.commit({}, "adopt witness-gate")
    git_repo.git("checkout", "-q", "-b", "patch")
    git_repo.commit({"calc/__init__.py": code.replace("2 * x", "2 * x + 1")}, "off by one")
    done = run_cli("run", "--repo", str(git_repo.path), "--base", "main", "--head", "patch", "--out",
                   str(git_repo.path.parent / "out"), "--json", cwd=git_repo.path)
    # without the set-up every test of it was transport:missing_package (a hold); with it, the regression is seen
    summary = json.loads(done.stdout)
    assert (summary["verdict"], summary["exit_code"]) == ("regression", 1), done.stdout[-800:] + done.stderr[-800:]
