"""Article 001's module, as the article names it: its snippets hold against this one with only the import line
changed. What it decides lives in witness_gate/rules/failure_kind.py and rules/path_split.py; `retain` writes a file
(witness_gate/records/retained.py)."""

from witness_gate.model.canonical import witness_hash
from witness_gate.records.retained import retain
from witness_gate.rules.failure_kind import classify, freeze_allowed
from witness_gate.rules.path_split import split_paths

__all__ = ["classify", "freeze_allowed", "retain", "split_paths", "witness_hash"]
