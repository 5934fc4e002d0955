"""What a property's return value and a reason string come to: the runner protocol's verdict, as the judge reads it."""

from __future__ import annotations

MAX_REASON = 200


def clean_reason(text: str) -> str:
    """One printable line: control, format and separator characters escaped as \\xNN or \\uNNNN."""
    out = []
    for ch in text:
        if ch.isprintable():
            out.append(ch)
        elif ord(ch) < 0x100:
            out.append(f"\\x{ord(ch):02x}")
        else:
            out.append(f"\\u{ord(ch):04x}" if ord(ch) < 0x10000 else f"\\U{ord(ch):08x}")
    return "".join(out)


def usable_reason(text: str) -> str:
    """A reason as every evaluation records it: one clean line of at most MAX_REASON characters, else the
    protocol's own fallback `exit:1` (a reason too long or spread over lines is not a reason)."""
    reason = clean_reason(text)
    return reason if reason and "\n" not in text and len(reason) <= MAX_REASON else "exit:1"


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
