"""What kind of failure a replay series shows (article 001): regression, flake, oracle_defect, mixed_edit,
not_reproduced or unclassified, and whether that kind may be frozen."""

from __future__ import annotations


def classify(failures: int, runs: int, impl_changed: bool, oracle_changed: bool) -> str:
    if runs < 1 or failures < 0 or failures > runs:
        return "unclassified"
    if impl_changed and oracle_changed:
        return "mixed_edit"
    if oracle_changed and not impl_changed:
        return "oracle_defect"
    if failures == runs:
        return "regression"
    if failures == 0:
        return "not_reproduced"
    return "flake"


def freeze_allowed(kind: str, witness_present: bool, digest_matches: bool) -> bool:
    return bool(witness_present and digest_matches and kind == "flake")
