"""What a property's return value and a reason string come to: the runner protocol's verdict, as the judge reads it."""

from __future__ import annotations

from witness_gate.model.reasons import clean_reason, usable_reason

__all__ = ["clean_reason", "usable_reason", "verdict_of"]


def verdict_of(returned: object) -> tuple[str, str | None]:
    """('pass', None), ('fail', reason) or ('no_verdict', what was wrong) for a return value."""
    if returned is True or returned is None:
        return "pass", None
    if returned is False:
        return "fail", "false"
    if type(returned) is str and returned.strip():
        return "fail", usable_reason(returned.strip())
    kind = "an object of the implementation" if type(returned).__name__ == "Handle" else type(returned).__name__
    return "no_verdict", (
        f"the property returned {kind} {clean_reason(_shown(returned))[:60]}; return True or None to pass, "
        "False or a short reason string to fail"
    )


def _shown(value) -> str:
    try:
        return repr(value)
    except Exception:  # noqa: BLE001 - for people only
        return "?"
