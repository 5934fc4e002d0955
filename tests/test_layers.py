"""Import layers: what decides loads nothing that runs code, and the web receiver loads no sandbox. Each module is
imported in a fresh interpreter, so what it loads is its own doing (issue "A house a newcomer can read in an hour":
`import witness_gate.rules.verdict` loaded 28 modules, the sandbox and the warm start among them)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# what starts, stages or speaks to processes: a decision never needs it
RUNS_CODE = ("witness_gate.sandbox", "witness_gate.sandbox.runner", "witness_gate.sandbox.warm_settings", "witness_gate.sandbox.staging",
             "witness_gate.sandbox.processes", "witness_gate.sandbox.seccomp", "witness_gate.pipeline.session", "witness_gate.cli.local")
DECIDES = ("witness_gate.model.outcomes", "witness_gate.gate", "witness_gate.labels", "witness_gate.budget",
           "witness_gate.rules.plan", "witness_gate.rules.verdict", "witness_gate.records.ledger", "witness_gate.model.display")


def loaded_by(module: str) -> list[str]:
    code = f"import json, sys, {module}; print(json.dumps(sorted(sys.modules)))"
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


@pytest.mark.parametrize("module", DECIDES)
def test_what_decides_loads_nothing_that_runs_code(module):
    reached = [name for name in loaded_by(module) if name.startswith(RUNS_CODE)]
    assert reached == [], f"{module} loads {reached}: import what it decides with, not what runs it"


def test_the_web_receiver_loads_no_sandbox_and_no_worker():
    # it verifies and enqueues (rq's Queue); the jobs' code is the worker's
    reached = [name for name in loaded_by("bot.app") if name.startswith((*RUNS_CODE, "worker"))]
    assert reached == [], f"the webhook receiver loads {reached}"


def test_the_layer_check_can_fail():
    # the check itself sees a layer reached the wrong way: the runner loads the sandbox
    assert any(name.startswith("witness_gate.sandbox") for name in loaded_by("witness_gate.sandbox.runner"))
