"""The dependencies are installed from locks of exact versions with hashes (issue 15.8)."""

import re
import sys
import tomllib
from pathlib import Path

from conftest import ROOT

sys.path.insert(0, str(ROOT / "bench"))
from shrink_engine import TESTED_HYPOTHESIS  # noqa: E402


def pins(lock: str) -> dict[str, str]:
    text = (ROOT / "requirements" / lock).read_text()
    return {m.group(1).lower(): m.group(2) for m in re.finditer(r"^([A-Za-z0-9_.-]+)==(\S+) \\$", text, re.M)}


def declared(*extras: str) -> set[str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    names = list(project["dependencies"]) + [d for e in extras for d in project["optional-dependencies"][e]]
    return {re.match(r"[A-Za-z0-9_.-]+", d).group(0).lower() for d in names if not d.startswith("witness-gate")}


def test_every_declared_dependency_is_locked_with_a_hash():
    for lock, extras in (("gate.lock", ()), ("dev.lock", ("app", "dev"))):
        locked = pins(lock)
        assert declared(*extras) <= set(locked), (lock, declared(*extras) - set(locked))
        text = (ROOT / "requirements" / lock).read_text()
        assert text.count(" \\\n    --hash=sha256:") >= len(locked)  # every pin carries its hashes


def test_the_lock_holds_the_hypothesis_the_shrink_benchmark_was_checked_against():
    assert pins("dev.lock")["hypothesis"] == TESTED_HYPOTHESIS


def test_the_set_up_installs_from_the_locks_into_the_projects_own_environment():
    setup = (ROOT / "scripts" / "setup.sh").read_text()
    assert "--require-hashes" in setup and "requirements/dev.lock" in setup and "python3 -m venv .venv" in setup
    assert 'export PATH="$PWD/.venv/bin:$PATH"' in (ROOT / "scripts" / "test.sh").read_text()
