"""A runner-protocol command (`properties.command`, any language): oracle and implementation in one process, as the
command has them (`isolation: shared`)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from witness_gate.model.canonical import canonical_bytes
from witness_gate.model.evaluation import Evaluation
from witness_gate.sandbox import settle, stage_root
from witness_gate.sandbox.readout import verdict_of_process
from witness_gate.sandbox.sides import hash_seed

if TYPE_CHECKING:
    from witness_gate.sandbox.runner import PropertyRunner


def evaluate_command(runner: PropertyRunner, scratch: Path, payload: Any) -> Evaluation:
    """A runner-protocol command: oracle and implementation in one process, as the command has them."""
    (scratch / "fixture.json").write_bytes(canonical_bytes(payload))
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "PYTHONHASHSEED": hash_seed(runner.seed),
           "PYTHONBREAKPOINT": "0", "WITNESS_PROPERTY": runner.selector,
           "WITNESS_FIXTURE": runner.sandbox.scratch_path(scratch, "fixture.json"), "WITNESS_SEED": runner.seed}
    mounts = runner._mounts()
    if mounts:
        seen = runner.sandbox.seen(mounts[0])
        env.update(WITNESS_ENV=seen, PATH=f"{seen}/bin:{env['PATH']}", PYTHONPATH=seen)
    for tree in (runner.repo, stage_root() / "gate", scratch, *(m.source for m in mounts)):
        settle(tree)  # the first evaluation of a series looks exactly like every later one
    done = runner.sandbox.run(list(runner.command), repo=runner.repo, scratch=scratch, env=env, mounts=mounts,
                            limits=runner._limits(), timeout=runner.timeout_seconds)
    row = verdict_of_process(done)
    return Evaluation(row.outcome, row.reason, row.detail, row.seconds, "shared")
