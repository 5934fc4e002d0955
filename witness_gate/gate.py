"""Article 000's module, as the article names it (`gate_witness`): its snippets hold against this one with only the
import line changed. The table is witness_gate/rules/shrunk_witness.py; the loop, witness_gate/shrink/local_stop.py."""

from witness_gate.model.canonical import sha256_hex as sha256_bytes
from witness_gate.rules.shrunk_witness import Gate, Witness, decide
from witness_gate.shrink.local_stop import shrink_until_local_stop

__all__ = ["Gate", "Witness", "decide", "sha256_bytes", "shrink_until_local_stop"]
