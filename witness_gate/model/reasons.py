"""A reason as every evaluation records it: one clean printable line, short. Both sides use it: the judge makes
reasons, the host reads them back (staged for the sandbox beside contracts.py: the judge imports it there)."""

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
