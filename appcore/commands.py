"""`/witness` comment commands: anchored at the start of a line, never inside quotes, code blocks or HTML comments."""

from __future__ import annotations

import re
from dataclasses import dataclass

REPLAY_RE = re.compile(r"^/witness\s+replay(?:\s+(\d{1,12}))?\s*$")
FREEZE_ACCEPT_RE = re.compile(r"^/witness\s+freeze\s+accept(?:\s+(\d+(?:\.\d+)?)h)?\s*$")
FREEZE_REVOKE_RE = re.compile(r"^/witness\s+freeze\s+revoke\s*$")
HELP_RE = re.compile(r"^/witness\s+help\s*$")
ANY_RE = re.compile(r"^/witness(?:\s+(.*))?$")
FENCE_RE = re.compile(r"^\s*(```|~~~)")
HTML_COMMENT_RE = re.compile(r"<!--.*?-->")
CODE_SPAN_RE = re.compile(r"(`+).+?\1")  # `<!--` in a code span is text, and opens no comment
MAX_COMMANDS = 3  # acted on per comment; a comment of hundreds of lines gets one short reply, not hundreds

HELP_TEXT = """\
witness-gate commands (people with write access or more):
- `/witness replay [N]` — gate the current head again; with N, replay each failing witness N times and answer
  with what they did (at least `policy.runs`, at most `policy.max_runs`, 50 unless `.witness.yml` says otherwise).
- `/witness freeze accept [<hours>h]` — accept the proposed freeze of a flake, until that many hours from now.
- `/witness freeze revoke` — end an accepted freeze now.
- `/witness help` — this list."""


@dataclass(frozen=True)
class Command:
    name: str  # replay, freeze_accept, freeze_revoke, help, unknown
    hours: float | None = None
    text: str = ""  # the line as written
    runs: int | None = None  # `/witness replay N`


def command_lines(body: str) -> list[str]:
    """Lines that may hold a command: outside fenced code blocks, quotes and HTML comments, unindented."""
    lines, fenced, hidden = [], False, False
    for raw in (body or "").replace("\r\n", "\n").split("\n"):
        if hidden:  # GitHub shows nothing of an HTML comment, up to and including the line that closes it
            hidden = "-->" not in raw
            continue
        if FENCE_RE.match(raw):
            fenced = not fenced
            continue
        if fenced:
            continue
        raw = HTML_COMMENT_RE.sub("", raw)
        if "<!--" in CODE_SPAN_RE.sub("", raw):  # opens a comment that a later line closes
            raw, hidden = raw.split("<!--", 1)[0], True
        if raw.lstrip().startswith(">") or raw.startswith((" " * 4, "\t")):
            continue
        lines.append(raw.strip())
    return lines


def parse(body: str) -> list[Command]:
    """Every command in a comment, in order; a `/witness` line that is no command is `unknown`."""
    found = []
    for line in command_lines(body):
        if not ANY_RE.match(line):
            continue
        if m := REPLAY_RE.match(line):
            found.append(Command("replay", text=line, runs=int(m.group(1)) if m.group(1) else None))
        elif m := FREEZE_ACCEPT_RE.match(line):
            found.append(Command("freeze_accept", float(m.group(1)) if m.group(1) else None, line))
        elif FREEZE_REVOKE_RE.match(line):
            found.append(Command("freeze_revoke", text=line))
        elif HELP_RE.match(line):
            found.append(Command("help", text=line))
        else:
            found.append(Command("unknown", text=line))
    return found
