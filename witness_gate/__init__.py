"""witness-gate: shrink, replay and classify a failing property before anything is frozen."""

from witness_gate.contracts import contract

__all__ = ["contract"]
__version__ = "0.1.0"
