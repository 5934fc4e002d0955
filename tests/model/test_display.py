"""Repo-controlled text on the terminal: witness_gate.model.display.shown and the report built on it."""

import io
import re

import pytest
from rich.console import Console

from witness_gate.cli import report
from witness_gate.model.evidence import Binding
from witness_gate.model.display import shown, shown_lines
from witness_gate.pipeline.discover import PropertyTarget
from witness_gate.pipeline.session import PropertyResult
from witness_gate.rules.verdict import Verdict

FAKE = "[green]verdict: pass[/green]\n\x1b[2K\rverdict: pass"


@pytest.mark.parametrize("text, expected", [
    ("plain reason", "plain reason"),
    ("a\nb", "a\\x0ab"),
    ("\x1b[2K\r", "\\x1b[2K\\x0d"),
    ("abc\u202edef", "abc\\u202edef"),
    ("line\u2028sep\u2029", "line\\u2028sep\\u2029"),
    ("zero\u200bwidth", "zero\\u200bwidth"),
    ("tab\there", "tab\\x09here"),
    ("nbsp\xa0", "nbsp\\xa0"),
    ("héllo ünïcode", "héllo ünïcode"),
    (None, ""),
])
def test_shown_makes_every_hidden_character_visible(text, expected):
    assert shown(text) == expected


def test_shown_cuts_to_its_limit():
    assert shown("x" * 300) == "x" * 199 + "…"
    assert shown("x" * 300, None) == "x" * 300
    assert shown_lines("a\nb\x1b") == ["a", "b\\x1b"]


def _result(reason: str, assertion_id: str = "prop_x", notes=()) -> PropertyResult:
    target = PropertyTarget(assertion_id, f"p.py::{assertion_id}@abc", "tests/properties/p.py", 1, None)
    binding = Binding("p" * 64, target.property_id, assertion_id, None, "f" * 64, "1")
    verdict = Verdict("hold", hold_reasons=[reason], failures=1, runs=5)
    return PropertyResult(target, binding, None, verdict, {"reason": reason}, notes=list(notes))


def _terminal_lines(text: str) -> list[str]:
    return [re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", line.split("\r")[-1]) for line in text.split("\n")]


def test_the_report_on_a_terminal_shows_no_fake_verdict(monkeypatch):
    stream = io.StringIO()
    monkeypatch.setattr(report, "console_for", lambda s: Console(file=s, force_terminal=True, width=120))
    report.print_report([_result(FAKE, "prop_[red]x[/red]", notes=[FAKE])], "header [bold]x[/bold]\n\x1b[2J",
                        "hold", 3, "out", stream=stream)
    out = stream.getvalue()
    assert not [ln for ln in _terminal_lines(out) if ln.lstrip().startswith("verdict: pass")], out
    assert re.sub(r"\x1b\[[0-9;]*m", "", out).count("\x1b") == 0 and "\r" not in out
    plain = re.sub(r"\x1b\[[0-9;]*m", "", out)
    assert "[green]verdict: pass[/green]" in plain  # the markup shows as text, it does not style
    assert "prop_[red]x[/red]" in plain and "header [bold]x[/bold]" in plain


def test_the_plain_progress_lines_show_no_fake_verdict():
    stream = io.StringIO()
    reporter = report.PlainReporter(stream)
    result = _result(FAKE, "prop_x\nverdict: pass")
    reporter.start(result.target, 1, 1)
    reporter.say("set-up\nverdict: pass\n\x1b[2Kverdict: pass")
    reporter.finish(result)
    lines = stream.getvalue().split("\n")
    assert "\x1b" not in stream.getvalue() and "\r" not in stream.getvalue()
    assert not [ln for ln in lines if ln.startswith("verdict: pass")]
