"""Text from the code under test (reasons, notes, exception names, paths) in every renderer: the terminal's rich markup,
the check run's Markdown and the record page's HTML. Over arbitrary text, each renderer never raises and shows the text
as the one visible line `display.shown` makes of it, with nothing read as markup (a reason holding `[/]` once ended
`witness-gate run` with a rich MarkupError and no verdict line)."""

from __future__ import annotations

import html
import io
import re

from hypothesis import example, given, settings, strategies as st
from unittest.mock import patch

from rich.console import Console

from witness_gate.cli import report
from witness_gate.model.evidence import Binding, Evidence
from witness_gate.pipeline.discover import PropertyTarget
from witness_gate.model.display import shown
from witness_gate.model.evaluation import Evaluation
from witness_gate.pipeline.session import PropertyResult
from witness_gate.rules.verdict import Verdict
from worker.checks import md_code, md_text

# what a hostile string reaches for: markup openers and closers, entities, mentions, links, cells, controls, bidi
hostile = st.text(st.sampled_from(list("[]/\\`*<>|~&!#@:.w _-ab\n\r\x1b\u202e\u2028\t=\"'{}()")) | st.characters(),
                  max_size=80)

_MARKDOWN = "\\`*[]<>|~&!#"


@settings(max_examples=200, deadline=None)
@given(hostile, hostile, hostile)
@example(name="test_fold[a-b]", reason="\\[", hold="ends in a backslash \\")  # a parametrized test's id, rich's misses
def test_the_terminal_report_prints_the_text_and_reads_no_markup_in_it(name, reason, hold):
    # through the real report: a regression's witness line, a hold's reasons, and the verdict line naming them
    evidence = Evidence(pinned_hash="h", target_reason=reason, witness={"x": 1}, witness_hash="w" * 64,
                        replays=[Evaluation("fail", "r", "", 0.01, "split-cold")] * 3)
    target = PropertyTarget(name, f"p.py::x@abc", "tests/properties/p.py", 1, None)
    binding = Binding("p" * 64, target.property_id, name, None, "f" * 64, "1")
    results = [PropertyResult(target, binding, evidence, Verdict("regression", failures=3, runs=3),
                              {"reason": reason, "label": "regression"}),
               PropertyResult(target, binding, None, Verdict("hold", hold_reasons=[hold]), {"label": "hold"})]
    out = io.StringIO()
    console = Console(file=out, width=10_000, color_system=None, highlight=False, soft_wrap=True)
    with patch.object(report, "console_for", lambda stream: console):
        report.print_report(results, "header", "regression", 1, "out", stream=out)
    printed = out.getvalue().split("\n")
    shown_name = shown(name)
    assert f"witness {shown_name} ({shown(reason)}; the accepted freeze's witness, replayed as it was kept):" in printed
    assert f"{shown_name}: hold because {shown(hold, None)}" in printed
    assert printed[-2].startswith("verdict: regression (exit 1")


@settings(max_examples=300, deadline=None)
@given(hostile)
def test_markdown_text_escapes_every_opener_and_says_the_text_back(text):
    rendered = md_text(text, None)
    assert "\n" not in rendered and "://" not in rendered and not re.search(r"(^|[^\w])@\w", rendered)
    # outside a backslash pair and the entities it writes itself, no character that opens Markdown or HTML is left
    bare = re.sub(r"&#(64|58|46);", "", re.sub(r"\\.", "", rendered))
    assert not set(bare) & set(_MARKDOWN), rendered
    said = re.sub(r"\\(.)", r"\1", rendered).replace("&#64;", "@").replace("&#58;//", "://").replace("www&#46;", "www.")
    assert said == shown(text, None)


@settings(max_examples=300, deadline=None)
@given(hostile)
def test_a_markdown_code_span_cannot_be_closed_early_or_split_a_table_row(text):
    rendered = md_code(text, None)
    fence = re.match(r"`+", rendered).group()
    inner = rendered[len(fence):-len(fence)]
    assert rendered.endswith(fence) and fence not in inner and "\n" not in rendered
    assert not re.search(r"(?<!\\)\|", rendered)


@settings(max_examples=200, deadline=None)
@given(hostile, hostile)
def test_the_record_page_shows_the_text_escaped_and_no_tag_of_its_own(reason, note):
    from bot.pages import record_page

    app = _app()
    with app.app_context():
        page = record_page({"label": "regression", "assertion_id": "prop_x", "reason": reason, "notes": [note],
                            "witness": {"x": 1}, "replays": [{"outcome": "fail", "reason": reason, "seconds": 0.1}],
                            "hold_reasons": [note], "failures": 1, "runs": 1})
    for text in (reason, note):
        assert html.escape(shown(text, None), quote=False) in page.replace("&#39;", "'").replace("&#34;", '"')
    assert page.count("<script") == page.count("</script>") and "<img" not in page


def _app():
    from flask import Flask

    return Flask("pages")
