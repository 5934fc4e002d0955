"""Server-rendered pages: a record page anyone with its id can open, and admin listings behind a token."""

from __future__ import annotations

import hmac
import json
from datetime import datetime, timezone
from typing import Any

from flask import render_template_string

from witness_gate.model.display import shown
from witness_gate.records.ledger import aware, iso

STYLE = """
body{font:14px/1.45 system-ui,sans-serif;margin:2rem auto;max-width:72rem;color:#1f2328;padding:0 1rem}
h1{font-size:1.4rem}h2{font-size:1.1rem;margin-top:2rem}table{border-collapse:collapse;width:100%}
td,th{border-bottom:1px solid #d0d7de;padding:.35rem .5rem;text-align:left;vertical-align:top}
code,pre{font:12px ui-monospace,monospace}pre{background:#f6f8fa;padding:.75rem;overflow:auto;max-height:24rem}
.label{font-weight:600}.pass,.success,.accepted{color:#1a7f37}.regression,.failure,.mixed_edit,.revoked{color:#cf222e}
.flake,.hold,.action_required,.oracle_defect,.not_reproduced,.proposed{color:#9a6700}.frozen,.neutral{color:#0969da}
.expired{color:#57606a}.muted{color:#57606a}
"""

PAGE = """<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{{ title }}</title>
<style>{{ style }}</style></head><body>{{ body|safe }}</body></html>"""

RECORD = """
<h1>witness-gate · <span class="label {{ r.label }}" id="label">{{ r.label }}</span> · <code>{{ r.assertion_id }}</code></h1>
<table id="identifiers">
{% for name, value in identifiers %}<tr><th>{{ name }}</th><td><code>{{ value }}</code></td></tr>{% endfor %}
</table>
<h2>replays of the witness</h2>
{{ strip|safe }}
{% if r.unshrunk_replays %}<h2>replays of the unshrunk input</h2>{{ unshrunk|safe }}{% endif %}
{% if r.witness is not none %}<h2>witness ({{ r.reason }})</h2><pre id="witness">{{ witness }}</pre>{% endif %}
{% if r.freeze %}<h2>proposed freeze</h2><pre id="freeze">{{ freeze }}</pre>{% endif %}
{% if r.notes %}<h2>notes</h2><ul>{% for n in r.notes %}<li>{{ n }}</li>{% endfor %}</ul>{% endif %}
<p class="muted"><a href="?download=1">download the record (JSON)</a></p>
"""

RUN = """
<h1>witness-gate · <span class="label {{ run.label }}" id="label">{{ run.label or run.status }}</span> ·
<code>{{ shown(run.repo) }}#{{ run.pr_number }}</code></h1>
<table id="identifiers">
<tr><th>head</th><td><code>{{ run.head_sha }}</code></td></tr>
<tr><th>base</th><td><code>{{ run.base_sha }}</code></td></tr>
<tr><th>patch digest</th><td><code>{{ run.patch_digest }}</code></td></tr>
<tr><th>conclusion</th><td class="{{ run.conclusion }}">{{ run.conclusion or "-" }}</td></tr>
</table>
<h2>properties</h2>
<table id="attempts"><tr><th>property</th><th>label</th><th>replays</th><th>failures/runs</th><th>freeze</th></tr>
{% for a in attempts %}<tr><td><a href="{{ a.id }}"><code>{{ shown(a.record.assertion_id) }}</code></a></td>
<td class="{{ a.label }}">{{ shown(a.label) }}</td><td>{{ strips[a.id]|safe }}</td>
<td>{{ a.record.failures }}/{{ a.record.runs }}</td><td>{{ freezes[a.id] }}</td></tr>{% endfor %}</table>
"""

ADMIN = """
<h1>witness-gate · admin</h1>
<h2>freezes</h2>
<table id="freezes"><tr><th>assertion</th><th>repository</th><th>state</th><th>accepted by</th><th>time left</th>
<th>witness</th><th>proposed</th></tr>
{% for f in freezes %}<tr><td><code>{{ shown(f.assertion_id) }}</code></td><td>{{ shown(f.repo) }}#{{ f.pr_number }}</td>
<td class="{{ f.state }}">{{ f.state }}</td><td>{{ ("@" + shown(f.accepted_by)) if f.accepted_by else "-" }}</td>
<td class="left">{{ left(f) }}</td><td><code>{{ f.witness_hash[:12] }}</code></td><td>{{ when(f.proposed_at) }}</td></tr>
{% else %}<tr><td colspan="7" class="muted">no freezes yet</td></tr>{% endfor %}</table>
<h2>recent attempts</h2>
<table id="recent-attempts"><tr><th>property</th><th>pull request</th><th>label</th><th>failures/runs</th><th>when</th></tr>
{% for a, run in attempts %}<tr><td><a href="/records/{{ a.id }}"><code>{{ shown(a.assertion_id) }}</code></a></td>
<td>{{ shown(run.repo) }}#{{ run.pr_number }}</td><td class="{{ a.label }}">{{ shown(a.label) }}</td>
<td>{{ a.record.failures }}/{{ a.record.runs }}</td><td>{{ when(a.created_at) }}</td></tr>
{% else %}<tr><td colspan="5" class="muted">no attempts yet</td></tr>{% endfor %}</table>
<h2>recent gate runs</h2>
<table id="runs"><tr><th>pull request</th><th>head</th><th>label</th><th>conclusion</th><th>when</th></tr>
{% for run in runs %}<tr><td><a href="/records/{{ run.id }}">{{ shown(run.repo) }}#{{ run.pr_number }}</a></td>
<td><code>{{ run.head_sha[:12] }}</code></td><td class="{{ run.label }}">{{ run.label or run.status }}</td>
<td class="{{ run.conclusion }}">{{ run.conclusion or "-" }}</td><td>{{ when(run.created_at) }}</td></tr>
{% else %}<tr><td colspan="5" class="muted">no runs yet</td></tr>{% endfor %}</table>
"""

MARK = {"pass": "#1a7f37", "fail": "#cf222e", "transport": "#8c959f"}


def strip_svg(rows: list[dict[str, Any]], *, element_id: str = "strip") -> str:
    """The replay series as a strip of marks: green pass, red fail, grey no verdict."""
    size, gap = 14, 3
    width = max(1, len(rows)) * (size + gap)
    marks = []
    for i, row in enumerate(rows):
        outcome = row.get("outcome", "transport")
        title = outcome if outcome == "pass" else f"{outcome}: {row.get('reason')}"
        outcome = outcome if outcome in MARK else "transport"  # the class attribute takes known words only
        marks.append(f'<rect class="mark {outcome}" x="{i * (size + gap)}" y="0" width="{size}" height="{size}" '
                     f'rx="2" fill="{MARK.get(outcome, MARK["transport"])}"><title>{_esc(shown(title, None))}</title></rect>')
    return (f'<svg id="{element_id}" xmlns="http://www.w3.org/2000/svg" width="{width}" height="{size}" '
            f'viewBox="0 0 {width} {size}" role="img" aria-label="{len(rows)} replays">{"".join(marks)}</svg>')


def _esc(text: str) -> str:
    return (str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")
            .replace("'", "&#39;"))


def _page(title: str, body: str) -> str:
    # render_template_string autoescapes every {{ }}; only `body`, built here from escaped parts, is |safe
    return render_template_string(PAGE, title=shown(title, None), style=STYLE, body=body)


def _shown_record(record: dict[str, Any]) -> dict[str, Any]:
    """The record's repo-controlled strings made one visible line each (HTML escaping is Jinja's)."""
    view = dict(record)
    for key in ("label", "assertion_id", "reason"):
        if view.get(key) is not None:
            view[key] = shown(view[key], None)
    view["notes"] = [shown(n, None) for n in record.get("notes") or []]
    return view


def record_page(record: dict[str, Any]) -> str:
    identifiers = [(k, shown(record.get(k), None)) for k in ("record_id", "assertion_id", "property_id", "patch_digest",
                                                             "contract_digest", "fixture_digest", "witness_hash",
                                                             "seed")]
    identifiers.append(("failures / runs", f"{record.get('failures', 0)} / {record.get('runs', 0)}"))
    if record.get("hold_reasons"):
        identifiers.append(("hold", shown(", ".join(str(h) for h in record["hold_reasons"]), None)))
    if record.get("frozen_by"):
        frozen = record["frozen_by"]
        identifiers.append(("frozen", shown(f"until {frozen['expires_at']} by @{frozen.get('accepted_by') or '?'}",
                                            None)))
    standing = record.get("freeze_standing")
    if standing:
        said = standing_said(standing)
        trail = "; ".join(f"{e['at']} {e['action']} by {e['actor']}" for e in standing.get("events") or [])
        identifiers.append(("freeze", shown(said, None)))
        identifiers.append(("freeze trail", shown(trail, None)))
    rows = record.get("replays") or record.get("first_runs") or []
    body = render_template_string(
        RECORD, r=_Obj(_shown_record(record)), identifiers=identifiers, strip=strip_svg(rows),
        unshrunk=strip_svg(record.get("unshrunk_replays") or [], element_id="unshrunk"),
        witness=json.dumps(record.get("witness"), indent=2, sort_keys=True),
        freeze=json.dumps(record.get("freeze"), indent=2, sort_keys=True))
    return _page(f"{record.get('label')} · {record.get('assertion_id')}", body)


def run_page(run, standings) -> str:
    """A gate run's page: each attempt (with where the freeze of its witness stands, `standings` pairs them)."""
    attempts = [a for a, _ in standings]
    strips = {a.id: strip_svg(a.record.get("replays") or a.record.get("first_runs") or [], element_id=f"strip-{a.id}")
              for a in attempts}
    freezes = {a.id: shown(standing_said(standing), None) if standing else "-" for a, standing in standings}
    return _page(f"{run.repo}#{run.pr_number}", render_template_string(RUN, run=run, attempts=attempts, strips=strips,
                                                                       freezes=freezes, shown=_shown_none))


def standing_said(standing: dict[str, Any]) -> str:
    """A freeze's standing in one line: its state, who accepted it and until when, who ended it and when."""
    said = f"{standing['state']}"
    if standing.get("accepted_by"):
        said += f" by @{standing['accepted_by']}"
    if standing.get("expires_at"):
        said += f" until {standing['expires_at']}"
    if standing.get("ended_by"):
        said += f"; ended by @{standing['ended_by']} at {standing['ended_at']}"
    return said


def admin_page(runs, attempts, freezes, now: datetime | None = None) -> str:
    now = now or datetime.now(timezone.utc)

    def left(freeze) -> str:
        if freeze.state != "accepted" or freeze.expires_at is None:
            return "-"
        seconds = (aware(freeze.expires_at) - now).total_seconds()
        if seconds <= 0:
            return "expired"
        hours, rest = divmod(int(seconds), 3600)
        return f"{hours}h {rest // 60:02d}m (until {iso(freeze.expires_at)})"

    body = render_template_string(ADMIN, runs=runs, attempts=attempts, freezes=freezes, left=left, when=iso,
                                  shown=_shown_none)
    return _page("witness-gate admin", body)


def _shown_none(text: Any) -> str:
    return shown(text, None)


def admin_allowed(configured: str, header: str | None, query: str | None) -> bool:
    """The admin token, from `Authorization: Bearer …` or `?token=`; none configured means no admin pages."""
    if not configured:
        return False
    offered = (header or "").removeprefix("Bearer ").strip() or (query or "")
    return hmac.compare_digest(offered.encode(), configured.encode())


class _Obj(dict):
    """Lets a template read a record's keys as attributes (missing keys are None)."""

    def __getattr__(self, name: str) -> Any:
        return self.get(name)
