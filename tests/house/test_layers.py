"""Import layers, checked on the folders (issue "A house a newcomer can read in an hour"): model/ loads only model/;
rules/ loads only model/, config/ and rules/; nothing that decides loads what runs code; the web receiver loads no
sandbox and no worker; what is staged into the sandbox imports only what is staged. Each module is imported in a fresh
interpreter, so what it loads is its own doing (`import witness_gate.verdict` once loaded 28 modules, the sandbox and
the warm start among them)."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "witness_gate"
# what starts, stages or speaks to processes: a decision never needs it
RUNS_CODE = ("witness_gate.sandbox", "witness_gate.setup", "witness_gate.pipeline", "witness_gate.records",
             "witness_gate.cli", "witness_gate.sources")
# each folder, and the folders its modules may load (the SPEC's public modules at the top re-export rules/)
MAY_LOAD = {
    "model": ("model",),
    "rules": ("model", "rules", "config"),
    "shrink": ("model", "shrink"),
}
# what the sandbox is given of the gate (sandbox/staging.py's HARNESS_FILES and STAGED_PACKAGES)
STAGED = ("witness_gate.sandbox.judge", "witness_gate.sandbox.subject", "witness_gate.sandbox.wire",
          "witness_gate.model.reasons", "witness_gate.contracts")


def loaded_by(module: str) -> list[str]:
    code = f"import json, sys, {module}; print(json.dumps(sorted(sys.modules)))"
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def modules_in(folder: str) -> list[str]:
    return sorted(f"witness_gate.{folder}." + ".".join(path.relative_to(PACKAGE / folder).with_suffix("").parts)
                  for path in (PACKAGE / folder).rglob("*.py") if path.name != "__init__.py")


def ours(names: list[str]) -> list[str]:
    return [name for name in names if name.startswith("witness_gate.")]


def folder_of(name: str) -> str:
    return name.split(".")[1]


@pytest.mark.parametrize("module", [m for folder in MAY_LOAD for m in modules_in(folder)])
def test_each_layer_loads_only_the_layers_beneath_it(module):
    allowed = MAY_LOAD[folder_of(module)]
    reached = [name for name in ours(loaded_by(module)) if folder_of(name) not in allowed
               and name not in ("witness_gate.contracts",)]
    assert reached == [], f"{module} loads {reached}: {folder_of(module)}/ may load only {', '.join(allowed)}/"


@pytest.mark.parametrize("module", ["witness_gate.gate", "witness_gate.budget", *modules_in("rules")])
def test_what_decides_loads_nothing_that_runs_code(module):
    reached = [name for name in loaded_by(module) if name.startswith(RUNS_CODE)]
    assert reached == [], f"{module} loads {reached}: import what it decides with, not what runs it"


def test_the_web_receiver_loads_no_sandbox_and_no_worker():
    # it verifies and enqueues (rq's Queue); the jobs' code is the worker's
    reached = [name for name in loaded_by("bot.app") if name.startswith(("witness_gate.sandbox", "worker"))]
    assert reached == [], f"the webhook receiver loads {reached}"


def test_what_the_sandbox_runs_imports_only_what_is_staged():
    # read, not run: the staged copy holds these and nothing else of the gate, so any other import fails in there
    strays = []
    for folder in ("judge", "subject", "wire"):
        for path in sorted((PACKAGE / "sandbox" / folder).glob("*.py")):
            for node in ast.walk(ast.parse(path.read_text())):
                names = ([node.module or ""] if isinstance(node, ast.ImportFrom)
                         else [alias.name for alias in node.names] if isinstance(node, ast.Import) else [])
                strays += [f"{path.relative_to(ROOT)}: {name}" for name in names
                           if name.startswith("witness_gate") and name != "witness_gate"
                           and not name.startswith(STAGED)]
    assert strays == [], f"staged code imports what the sandbox is not given: {strays}"


def test_the_layer_check_can_fail():
    # the check itself sees a layer reached the wrong way: the runner loads the sandbox, the pipeline loads records
    assert any(name.startswith("witness_gate.sandbox.processes") for name in loaded_by("witness_gate.sandbox.runner"))
    assert "witness_gate.records" in ours(loaded_by("witness_gate.pipeline.session"))
