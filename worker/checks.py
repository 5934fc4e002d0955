"""What the `witness-gate` check run says (SPEC §7). Pure: results in, the check run's fields out."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from witness_gate.model import outcomes
from witness_gate.model.display import shown, shown_lines
from witness_gate.rules.verdict import overall_label
from witness_gate.sandbox.judge.examples import recorded, reproduce_failure

CHECK_NAME = "witness-gate"
MARKER = "<!-- witness-gate -->"
OUTPUT_LIMIT = 65535  # bytes, for summary and for text
ANNOTATIONS_PER_REQUEST = 50
CONCLUSIONS = {label.name: label.conclusion for label in outcomes.TABLE}  # the one table's column
REPLAY = {"label": "Replay", "description": "Gate this head again", "identifier": "replay"}
ACCEPT = {"label": "Accept freeze", "description": "Silence this flake until it expires",
          "identifier": "accept_freeze"}


@dataclass
class CheckOutput:
    conclusion: str
    title: str
    summary: str
    text: str = ""
    annotations: list[dict[str, Any]] = field(default_factory=list)
    actions: list[dict[str, str]] = field(default_factory=lambda: [dict(REPLAY)])

    def bodies(self, details_url: str, external_id: str) -> list[dict[str, Any]]:
        """The PATCH bodies that complete the check run: annotations go 50 to a request."""
        batches = [self.annotations[i:i + ANNOTATIONS_PER_REQUEST]
                   for i in range(0, len(self.annotations), ANNOTATIONS_PER_REQUEST)] or [[]]
        output = {"title": self.title[:255], "summary": self.summary, "text": self.text}
        first = {"status": "completed", "conclusion": self.conclusion, "details_url": details_url,
                 "external_id": external_id, "actions": self.actions,
                 "output": {**output, "annotations": batches[0]}}
        return [first] + [{"output": {**output, "annotations": batch}} for batch in batches[1:]]


def conclusion_for(label: str, overrides: dict[str, str] | None = None) -> str:
    return outcomes.conclusion(label, overrides)


def fit(text: str, limit: int = OUTPUT_LIMIT, pointer: str = "") -> str:
    """Cut `text` to `limit` UTF-8 bytes, ending with `pointer` when anything was cut."""
    raw = text.encode("utf-8")
    if len(raw) <= limit:
        return text
    tail = f"\n\n… cut to fit GitHub's limit. {pointer}".encode("utf-8")
    return raw[: limit - len(tail)].decode("utf-8", errors="ignore") + tail.decode("utf-8")


def render_results(attempts: list[dict[str, Any]], *, patch_digest: str, details_url: str,
                   overrides: dict[str, str] | None = None) -> CheckOutput:
    """The check run of a head whose properties ran; `attempts` are attempt records."""
    labels = [a["label"] for a in attempts]
    label = overall_label(labels)
    source = next((a for a in attempts if a["label"] == label), None)
    title = one_line(f"{label}: {source['assertion_id']}" if source else label)
    rows = ["| property | label | failures/runs | reason | witness | fixture | seed |",
            "|---|---|---|---|---|---|---|"]
    for a in attempts:
        holds = ", ".join(str(h) for h in a.get("hold_reasons") or [])
        reason = " ".join(filter(None, [str(a.get("reason") or ""), f"(hold: {holds})" if holds else ""])) or "-"
        rows.append(f"| {md_code(a['assertion_id'])} | {md_text(a['label'])} | "
                    f"{_int(a.get('failures'))}/{_int(a.get('runs'))} | "
                    f"{md_text(reason)} | {md_code(_short(a.get('witness_hash')))} | "
                    f"{md_code(_short(a.get('fixture_digest')))} | {md_code(a.get('seed') or '-')} |")
    notes = [f"- {md_code(a['assertion_id'])}: {md_text(n, NOTE_LIMIT)}" for a in attempts for n in a.get("notes", [])]
    frozen = [a for a in attempts if a.get("frozen_by")]
    summary = "\n".join([MARKER, *rows, "", f"patch digest {md_code(patch_digest)}", ""]
                        + ([f"frozen until {md_text(a['frozen_by']['expires_at'])} by "
                            f"@{md_text(a['frozen_by'].get('accepted_by') or '?')}"
                            for a in frozen]) + (["", "**notes**", *notes] if notes else []))
    text_parts = []
    failed_setup = next((a["setup"] for a in attempts if (a.get("setup") or {}).get("failed")), None)
    if failed_setup:  # one head, one set-up: its output once, whole, where a person can read it
        text_parts.append(f"### set-up failed ({md_text(failed_setup['failed'])}): {md_code(failed_setup['step'])}\n"
                          "No property ran. Fix the set-up (its command is in `.witness.yml` on the base branch, its "
                          "input in this pull request), then Replay.\n"
                          + md_block(str(failed_setup['output']).strip()))
    for a in attempts:
        if a.get("freeze"):
            text_parts.append(f"### proposed freeze: {md_code(a['assertion_id'])}\nIt silences nothing until a person "
                              "with write access accepts it (button or `/witness freeze accept <hours>h`).\n"
                              + md_block(json.dumps(a['freeze'], indent=2, sort_keys=True), "json"))
    records = details_url.rsplit("/", 1)[0]  # the attempt's record sits beside the run's
    for a in attempts:
        if a.get("witness") is not None:
            replay = f"witness-gate replay {records}/{a['record_id']}" if a.get("record_id") else ""
            paste = reproduce_failure(a["witness"]) if recorded(a["witness"]) else ""
            text_parts.append(f"### witness: {md_code(a['assertion_id'])} ({md_text(a.get('reason'))})\n"
                              + md_block(json.dumps(a['witness'], sort_keys=True), "json")
                              + (f"\nReplay it on a clone at this head:\n{md_block(replay, 'sh')}" if replay else "")
                              + (f"\nOr run the test itself on that one example, with Hypothesis's decorator on it:\n"
                                 f"{md_block(paste, 'python')}" if paste else ""))
    pointer = f"The full record: {details_url}"
    actions = [dict(REPLAY)]
    if any(a.get("freeze") for a in attempts):
        actions.append(dict(ACCEPT))
    annotations = [_annotation(a) for a in attempts if a["label"] in ("regression", "flake", "hold", "not_reproduced")
                   and a.get("relpath") and shown(a["relpath"], None) == a["relpath"]]  # GitHub refuses odd paths
    return CheckOutput(conclusion_for(label, overrides), title, fit(summary, pointer=pointer),
                       fit("\n\n".join(text_parts), pointer=pointer), annotations, actions)


def render_refusal(label: str, title: str, summary: str, *, files: list[str] = (), line_of: dict[str, int] | None = None,
                   overrides: dict[str, str] | None = None) -> CheckOutput:
    """A head refused or skipped before any property ran: mixed edit, bad config, nothing to gate."""
    title = one_line(title)
    annotations = [{"path": f, "start_line": (line_of or {}).get(f, 1), "end_line": (line_of or {}).get(f, 1),
                    "annotation_level": "failure", "message": title} for f in files if shown(f, None) == f]
    return CheckOutput(conclusion_for(label, overrides), title, fit(f"{MARKER}\n{summary}"), "", annotations)


NO_CONFIG_HELP = ("witness-gate reads `.witness.yml` from the base branch. Add one there, for example:\n\n"
                  "```yaml\nversion: 1\npaths:\n  impl: [\"src/\"]\n  oracle: [\"tests/properties/\", "
                  "\"tests/fixtures/\"]\nproperties:\n  fixtures: {\"*\": tests/fixtures/orders.json}\n```")


def render_plan_refusal(refusal: Any, overrides: dict[str, str] | None = None) -> CheckOutput:
    """A head the planner (witness_gate.rules.plan) refused before anything was fetched or ran."""
    if refusal.label == "no_config":
        return render_refusal("no_config", refusal.title, NO_CONFIG_HELP)
    if refusal.label == "invalid_config":
        return render_refusal("invalid_config", refusal.title,
                              md_block(refusal.reason) + "\nFix it on the base branch; the gate never reads it from "
                              "the head.", files=list(refusal.files), line_of={f: refusal.line for f in refusal.files})
    if refusal.label == "mixed_edit":
        return render_refusal("mixed_edit", refusal.title, (
            "This pull request edits implementation paths and oracle paths at once, so its own checker cannot "
            "certify it. Split it: change the oracle in its own pull request, reviewed on its own.\n\n"
            "oracle paths changed:\n" + "\n".join(f"- {md_code(p, None)}" for p in refusal.files)),
            files=list(refusal.files[:ANNOTATIONS_PER_REQUEST]), overrides=overrides)
    if refusal.ignored:
        return render_refusal("skipped", refusal.title,
                              "Every path this pull request changes matches `paths.ignore` of `.witness.yml`:\n"
                              + "\n".join(f"- {md_code(p, None)}" for p in refusal.ignored[:50]), overrides=overrides)
    return render_refusal("skipped", refusal.title, "This pull request changes no file.", overrides=overrides)


def with_head_config(output: CheckOutput, review: dict[str, Any] | None) -> CheckOutput:
    """A pull request that edits `.witness.yml`: the base's version gated it; what the new one would mean is
    said beside the result (each problem annotated at its line), never in force before it merges."""
    if not review:
        return output
    lines = ["### the new `.witness.yml` (this pull request's; the base's version gated it)"]
    annotations = []
    if review.get("deleted"):
        lines.append("This pull request deletes `.witness.yml`: once merged, pull requests get no check run.")
    for line, problem in review.get("problems") or []:
        lines.append(f"- {md_text(problem, NOTE_LIMIT)}")
        annotations.append({"path": ".witness.yml", "start_line": _int(line) or 1, "end_line": _int(line) or 1,
                            "annotation_level": "warning", "message": shown(problem, NOTE_LIMIT),
                            "title": "witness-gate: the new .witness.yml would be refused"})
    if review.get("reclassified"):
        lines += ["It would classify this pull request's own paths differently:", "",
                  "| path | under the base's | under this one |", "|---|---|---|"]
        lines += [f"| {md_code(path, None)} | {md_text(was)} | {md_text(now)} |"
                  for path, was, now in review["reclassified"][:50]]
    elif not review.get("problems") and not review.get("deleted"):
        lines.append("It is valid, and classifies this pull request's paths as the base's does.")
    text = "\n".join(lines) + ("\n\n" + output.text if output.text else "")
    room = ANNOTATIONS_PER_REQUEST * 20 - len(output.annotations)  # GitHub keeps at most 1,000 in all
    return CheckOutput(output.conclusion, output.title, output.summary, fit(text),
                       [*output.annotations, *annotations[:max(room, 0)]], output.actions)


def replay_answer(attempts: list[dict[str, Any]], runs: int, details_url: str) -> str:
    """The one comment that answers `/witness replay N`: per failing property, k of N failed, seed, witness."""
    failing = [a for a in attempts if _int(a.get("failures"))]
    lines = [f"{MARKER}\n**witness-gate replayed each failing witness {runs} times** ({details_url})", ""]
    lines += [f"- {md_code(a['assertion_id'])}: {_int(a.get('failures'))} of {_int(a.get('runs'))} failed"
              f" ({md_text(a.get('reason') or '-')}), seed {md_code(a.get('seed') or '-')}, "
              f"witness {md_code(_short(a.get('witness_hash')))}" for a in failing]
    if not failing:
        lines.append(f"No property failed: {len(attempts)} passed their {runs} runs each.")
    return fit("\n".join(lines))


def render_ended(newer_head: str) -> CheckOutput:
    """Work on this head stopped: the pull request was closed, or a newer push replaced it."""
    if newer_head == "closed":
        return CheckOutput("cancelled", "pull request closed",
                           f"{MARKER}\nThe pull request was closed before the gate finished.", actions=[])
    return CheckOutput("cancelled", "superseded by a newer push",
                       f"{MARKER}\nA newer head ({newer_head[:12]}) replaced this one; its own check run has "
                       "the verdict.", actions=[])


def render_fault(reason: str, details_url: str) -> CheckOutput:
    """The gate could not finish: never leave the check run in progress."""
    summary = (f"{MARKER}\nwitness-gate could not finish this head: {md_text(reason, NOTE_LIMIT)}\n\n"
               "Press **Replay** or comment `/witness replay` to try again.")
    return CheckOutput("action_required", "witness-gate could not finish", fit(summary, pointer=details_url))


def _annotation(attempt: dict[str, Any]) -> dict[str, Any]:
    level = "failure" if attempt["label"] == "regression" else "warning"
    reason = attempt.get("reason") or ", ".join(str(h) for h in attempt.get("hold_reasons") or [])
    message = (f"{shown(attempt['label'])}: {shown(attempt['assertion_id'])} failed {_int(attempt.get('failures'))}/"
               f"{_int(attempt.get('runs'))} replays ({shown(reason, NOTE_LIMIT)}); "
               f"witness {shown(_short(attempt.get('witness_hash')))}")
    if isinstance(attempt.get("observed"), str) and attempt["observed"]:  # what the judge saw: pytest's message
        message += "\n\n" + "\n".join(shown_lines(attempt["observed"][:NOTE_LIMIT]))
    line = _int(attempt.get("line")) or 1
    return {"path": attempt["relpath"], "start_line": line, "end_line": line, "annotation_level": level,
            "message": message[:64000], "title": one_line(f"witness-gate: {attempt['label']}")}


def _short(digest: str | None) -> str:
    return str(digest)[:12] if digest else "-"


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


# -- repo-controlled text in the check run ---------------------------------------------------------
# Reasons, assertion ids, notes and paths come from the repository (or from an older record): each is
# made one visible line first (witness_gate.model.display.shown), then escaped for where it lands.
NOTE_LIMIT = 500
_MENTION = re.compile(r"(^|[^\w])@(?=\w)")
_MARKUP = re.compile(r"([\\`*\[\]<>|~&!#])")  # what starts code, links, images, HTML, entities, cells


def one_line(text: Any, limit: int = 255) -> str:
    """A check run title or annotation title: plain text, one line, at most `limit` characters."""
    return shown(text, limit)


def md_text(text: Any, limit: int | None = 200) -> str:
    """Repo-controlled text as literal Markdown inline text (also inside a table cell): one line, and
    every character that could open a code span, link, image, HTML tag, entity or table cell is
    backslash-escaped, so no `|`, `<img>`, `[x](url)` or `# heading` survives."""
    escaped = _MARKUP.sub(r"\\\1", shown(text, limit))
    # no live link and no mention from a reason: GitHub links bare URLs and notifies @names
    escaped = _MENTION.sub(r"\1&#64;", escaped)  # "@team" notifies; "tamper:ctypes@src/x.py" does not
    return escaped.replace("://", "&#58;//").replace("www.", "www&#46;")


def md_code(text: Any, limit: int | None = 200) -> str:
    """Repo-controlled text as an inline code span that cannot be closed early or split a table row."""
    value = shown(text, limit).replace("|", "\\|")
    longest = max((len(run) for run in re.findall(r"`+", value)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if value.startswith("`") or value.endswith("`") or longest else ""
    return f"{fence}{pad}{value}{pad}{fence}"


def md_block(text: str, info: str = "") -> str:
    """A fenced block whose fence is longer than any backtick run inside, each line made visible."""
    body = "\n".join(shown(line, None) for line in str(text).split("\n"))
    longest = max((len(run) for run in re.findall(r"`{3,}", body)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{info}\n{body}\n{fence}"
