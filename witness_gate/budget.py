"""Article 004's module, as the article names it (`replay_budget_gate`): its snippets hold against this one with only
the import line changed. The table is witness_gate/rules/replay_budget.py; the contract and rows, model/contract.py."""

from witness_gate.model.canonical import fixture_id
from witness_gate.model.contract import Contract, Observation, RunnerClass
from witness_gate.rules.replay_budget import Decision, decide

__all__ = ["Contract", "Decision", "Observation", "RunnerClass", "decide", "fixture_id"]
