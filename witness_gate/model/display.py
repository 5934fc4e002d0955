"""Showing repo-controlled text: one line, no control or format characters, bounded.

Reasons, assertion ids, notes, hold reasons and paths all come, one way or another, from the
repository under test (or from a record an older version wrote). Wherever the gate shows one —
the terminal report, the check run, the record page — it goes through `shown` first, and then
through the renderer's own escaping (rich markup, Markdown, HTML), so a reason cannot print a
fake verdict line, move the cursor, reorder text with bidi overrides or start a table row.
"""

from __future__ import annotations

from typing import Any

from witness_gate.model.reasons import clean_reason

REASON_LIMIT = 200


def shown(text: Any, limit: int | None = REASON_LIMIT) -> str:
    """`text` made safe to show on one line: every control, format or non-printable character
    (newlines, ESC, CR, U+202E, U+2028, …) becomes a visible `\\xNN` / `\\uNNNN` escape — the harness's own
    cleaning, so a reason reads the same wherever it is made and shown — and the result is cut to
    `limit` characters (ending in `…`) when `limit` is set. None shows as ''."""
    if text is None:
        return ""
    result = clean_reason(str(text))
    if limit is not None and len(result) > limit:
        result = result[: max(0, limit - 1)] + "…"
    return result


def shown_lines(text: Any, limit: int | None = None) -> list[str]:
    """A multi-line text (a note, a set-up's output) as lines, each of them `shown`."""
    return [shown(line, limit) for line in str(text if text is not None else "").split("\n")]
