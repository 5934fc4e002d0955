"""The structural shrinker (SPEC §3): a failing payload made smaller, keeping its reason, by moves that learn from
the candidates refuted before them."""

from witness_gate.shrink.local_stop import shrink_until_local_stop
from witness_gate.shrink.structural import ShrinkResult, shrink, single_deletions

__all__ = ["ShrinkResult", "shrink", "shrink_until_local_stop", "single_deletions"]
