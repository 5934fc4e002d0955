"""What a person reads: the property table, witnesses, freeze proposals, and progress while it runs."""

from __future__ import annotations

import json
import shlex
import sys
from typing import Any, TextIO

from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table
from rich.text import Text

from witness_gate.model import outcomes
from witness_gate.model.display import shown, shown_lines
from witness_gate.pipeline.discover import PropertyTarget
from witness_gate.pipeline.session import PropertyResult
from witness_gate.sandbox.judge.examples import recorded, reproduce_failure

PHASES = {
    "run": "first run",
    "shrink": "shrinking",
    "replay": "replaying witness",
    "replay-unshrunk": "replaying unshrunk input",
    "replay-example": "replaying another example the search saw fail",
    "replay-frozen": "replaying the frozen witness",
}
STYLE = {
    "pass": "green", "frozen": "cyan", "skipped": "dim",
    "regression": "bold red", "mixed_edit": "bold red",
    "flake": "yellow", "oracle_defect": "yellow", "not_reproduced": "yellow", "hold": "yellow",
    "pre_existing": "cyan",
}


def console_for(stream: TextIO) -> Console:
    return Console(file=stream, highlight=False, width=None if stream.isatty() else 120)


def _raw(console: Console, text: str) -> None:
    """JSON and paths are printed unwrapped, so they copy and paste whole (one line, escaped)."""
    console.print(Text(shown(text, None)), markup=False, highlight=False, soft_wrap=True)


def _safe(text: Any, limit: int | None = 200) -> str:
    """Our own text inside a markup string (a phase's name): one line, no control characters, no markup."""
    return escape(shown(text, limit))


def _line(*parts: str | tuple[str, str]) -> Text:
    """A line whose parts are plain text, never markup (repo-controlled text is among them): a str, or (str, style).
    rich's escape() misses some (a backslash before '['), so nothing from the repository is ever markup."""
    return Text.assemble(*parts)


class PlainReporter:
    """One line per phase: for logs and pipes."""

    def __init__(self, stream: TextIO = sys.stderr) -> None:
        self.stream = stream
        self.phase = ""
        self.last = (0, 0)

    def start(self, target: PropertyTarget, index: int, total: int) -> None:
        self.phase = ""
        print(f"[{index}/{total}] {shown(target.assertion_id)}", file=self.stream, flush=True)

    def progress(self, phase: str, done: int, total: int) -> None:
        if phase != self.phase:
            self._close_phase()
            self.phase = phase
        self.last = (done, total)

    def _close_phase(self) -> None:
        if self.phase:
            done, total = self.last
            unit = "evaluations" if self.phase == "shrink" else f"of {total}"
            print(f"    {PHASES.get(self.phase, self.phase)}: {done} {unit}", file=self.stream, flush=True)

    def say(self, text: str) -> None:
        """A line about the run as a whole, such as the set-up phase starting."""
        first, *rest = shown_lines(text)
        print("\n".join([first, *("    " + line for line in rest)]), file=self.stream, flush=True)

    def finish(self, result: PropertyResult) -> None:
        self._close_phase()
        self.phase = ""
        v = result.verdict
        why = f" ({shown(', '.join(v.hold_reasons), None)})" if v.hold_reasons else ""
        print(f"    -> {shown(v.label)}{why}", file=self.stream, flush=True)


class LiveReporter(PlainReporter):
    """A live bar per phase on a terminal."""

    def __init__(self, stream: TextIO = sys.stderr) -> None:
        super().__init__(stream)
        self.bar = Progress(
            TextColumn("  {task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
            console=Console(file=stream), transient=True,
        )
        self.task = None

    def start(self, target: PropertyTarget, index: int, total: int) -> None:
        super().start(target, index, total)
        self.bar.start()

    def progress(self, phase: str, done: int, total: int) -> None:
        if phase != self.phase or self.task is None:
            if self.task is not None:
                self.bar.remove_task(self.task)
            self.task = self.bar.add_task(_safe(PHASES.get(phase, phase)), total=total)
        self.bar.update(self.task, completed=done, total=total)
        super().progress(phase, done, total)

    def _close_phase(self) -> None:
        pass

    def finish(self, result: PropertyResult) -> None:
        if self.task is not None:
            self.bar.remove_task(self.task)
            self.task = None
        self.bar.stop()
        super().finish(result)


def reporter_for(stream: TextIO = sys.stderr) -> PlainReporter:
    return LiveReporter(stream) if stream.isatty() else PlainReporter(stream)


def short(digest: str | None) -> str:
    return digest[:12] if digest else "-"


def results_table(results: list[PropertyResult]) -> Table:
    table = Table(title="properties", title_justify="left", show_lines=False)
    for column in ("property", "label", "failures/runs", "reason", "witness", "fixture", "seed"):
        table.add_column(column, overflow="fold")
    for r in results:
        v = r.verdict
        reason = r.record.get("reason") or ("; ".join(v.hold_reasons) if v.hold_reasons else "-")
        table.add_row(  # Text, never markup: every cell but the counts comes from the repository
            Text(shown(r.target.assertion_id)),
            Text(shown(v.label), style=STYLE.get(v.label, "")),
            _failures(r),
            Text(shown(reason, None)),
            Text(shown(short(r.record.get("witness_hash")))),
            Text(shown(short(r.binding.fixture_digest))),
            Text(shown(r.binding.seed or "-")),
        )
    return table


def print_report(results: list[PropertyResult], header: str, overall: str, code: int,
                 out_dir: Any, stream: TextIO = sys.stdout) -> None:
    console = console_for(stream)
    _raw(console, header)
    console.print(results_table(results))
    for r in results:
        v = r.verdict
        name = shown(r.target.assertion_id)
        if v.hold_reasons and v.label == "hold":
            console.print(_line((name, "yellow"), ": hold because ", shown(", ".join(v.hold_reasons), None)))
        for note in r.notes:
            first, *rest = shown_lines(note)
            _raw(console, f"  {r.target.assertion_id}: {first}")
            for line in rest:
                _raw(console, f"      {line}")
        if r.evidence is not None and r.evidence.failed_once:
            shrink = r.evidence.shrink
            example = r.evidence.witness if recorded(r.evidence.witness) else None
            how = (f"shrunk in {shrink.steps} steps, {shrink.evaluations} evaluations; "
                   f"{'local stop' if shrink.stopped else 'budget hit'}") if shrink is not None else \
                "the accepted freeze's witness, replayed as it was kept"
            if example is not None:
                how = f"Hypothesis's own shrunk example of {shown(example['case'])}"
            console.print(_line(("witness", "bold"), f" {name} (", shown(r.record.get("reason")), f"; {how}):"))
            _raw(console, "  " + json.dumps(r.evidence.witness, sort_keys=True))
            if r.record.get("observed"):  # what the judge saw fail: pytest's message, Hypothesis's example
                console.print("  observed:")
                for line in shown_lines(str(r.record["observed"]))[:20]:
                    _raw(console, f"    {line}")
            if r.witness_path:
                _raw(console, f"  file: {r.witness_path}")
            if r.record_path:  # one line a reviewer pastes to see it again, here or on a fresh clone at the head
                _raw(console, f"  replay: {replay_command(str(r.record_path))}")
            if example is not None:  # the same example in the project's own test run
                _raw(console, f"  reproduce: {shown(reproduce_failure(example))}")
        if r.freeze:
            console.print(_line(("proposed freeze", "bold"), f" for {name} (silences nothing until a person accepts it):"))
            for line in json.dumps(r.freeze, indent=2, sort_keys=True).split("\n"):  # ASCII: json escapes the rest
                _raw(console, line)
        if v.frozen_by:
            console.print(_line(f"{name}: frozen until {shown(v.frozen_by.expires_at)}",
                                f" by @{shown(v.frozen_by.accepted_by)}" if v.frozen_by.accepted_by else ""))
    _raw(console, f"records: {out_dir}")
    # every label has a style (an empty one made "[]" markup, a crash after a pre_existing run: found by a reviewer)
    console.print(_line(("verdict: ", "bold"), (shown(overall), f"bold {STYLE.get(overall) or ''}".strip()),
                        f" ({_exit_said(results, overall, code)})"))


def _exit_said(results: list[PropertyResult], overall: str, code: int) -> str:
    """The exit code, and when it is not the overall label's own (a hold beside a regression: the label is the
    strictest, the exit blocks), the properties whose labels set it."""
    if code == outcomes.exit_of(overall):
        return f"exit {code}"
    setting = [r for r in results if outcomes.exit_of(r.verdict.label) == code]
    named = ", ".join(f"{shown(r.target.assertion_id)} is {r.verdict.label}" for r in setting[:3])
    return f"exit {code}: {named}" + (f" and {len(setting) - 3} more" if len(setting) > 3 else "")


def _failures(r: PropertyResult) -> str:
    """failures/runs of the series that decided; a property that failed once and then never again says so, so that
    0/N beside its witness reads as what it is."""
    v = r.verdict
    if not v.runs:
        return "-"
    if v.failures == 0 and r.evidence is not None and r.evidence.failed_once:
        return f"0/{v.runs} replays (failed once)"
    return f"{v.failures}/{v.runs}"


def run_json(results: list[PropertyResult], overall: str, code: int, records: Any, reason: str | None = None
             ) -> dict[str, Any]:
    """`--json`: the run's one verdict and exit code, how many properties got each label, where the records are,
    and each property's row (a change refused or skipped whole has no rows, and says why in `reason`)."""
    counts: dict[str, int] = {}
    for r in results:
        counts[r.verdict.label] = counts.get(r.verdict.label, 0) + 1
    return {"verdict": overall, "exit_code": code, "reason": reason, "counts": dict(sorted(counts.items())),
            "records": str(records), "properties": results_json(results)}


def results_json(results: list[PropertyResult]) -> list[dict[str, Any]]:
    return [
        {
            "assertion_id": r.target.assertion_id,
            "label": r.verdict.label,  # the one label: the table's, the record's, the exit code's
            "reason": r.record.get("reason"),  # the failure's reason code
            "hold_reasons": list(r.verdict.hold_reasons),
            "tables": r.verdict.tables or None,  # each table's own result (SPEC §6), which the label combines
            "failures": r.verdict.failures,
            "runs": r.verdict.runs,
            "witness_hash": r.record.get("witness_hash"),
            "fixture_digest": r.binding.fixture_digest,
            "verdict": r.verdict.label,
            **({"replay": replay_command(str(r.record_path))}
               if r.record_path and r.evidence is not None and r.evidence.failed_once else {}),
            **({"reproduce": reproduce_failure(r.evidence.witness)}
               if r.evidence is not None and recorded(r.evidence.witness) else {}),
            # how many unseen inputs ran, and which exposed the failure (the record's, docs/CONFIG.md)
            **({"broader_sample": r.record["broader_sample"]} if r.record.get("broader_sample") else {}),
        }
        for r in results
    ]


def replay_command(record: str) -> str:
    """The one-line command that replays a recorded witness (the console script: safe inside a checkout)."""
    return f"witness-gate replay {shlex.quote(record)}"


def review_lines(review: Any) -> list[str]:
    """What a change's new .witness.yml would mean (witness_gate.rules.plan.ConfigReview), for the report."""
    if review is None:
        return []
    lines = ["the new .witness.yml (this change's; the base's version gated it):"]
    if review.deleted:
        lines.append("  it is deleted: once merged, the embedded defaults apply")
    lines += [f"  would be refused: {shown(problem, 500)}" for _line, problem in review.problems]
    lines += [f"  would classify {shown(path, 200)} as {now}, not {was}" for path, was, now in review.reclassified]
    if len(lines) == 1:
        lines.append("  valid, and classifies this change's paths as the base's does")
    return lines
