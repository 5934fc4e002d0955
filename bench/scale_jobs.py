"""The job bench/scale.py queues for its worker curve: one attempt of a small property, sandboxed."""

from __future__ import annotations

from pathlib import Path

from witness_gate.model.evidence import Policy

from witness_gate.pipeline.attempt import run_attempt
from witness_gate.sandbox.runner import PropertyRunner
from witness_gate.sandbox import Sandbox, bwrap_works


def one_attempt(checkout: str, runs: int) -> int:
    sandbox = Sandbox("none" if bwrap_works() else "bwrap")
    runner = PropertyRunner(Path(checkout), "props.py::prop_sum", "1", sandbox, timeout_seconds=20)
    evidence = run_attempt({"xs": list(range(30))}, runner, Policy(runs=runs, min_reruns=3))
    return len(evidence.first) + len(evidence.replays)
