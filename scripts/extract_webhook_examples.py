"""Extract the webhook payloads the tests use from GitHub's own examples (npm @octokit/webhooks-examples).

    python scripts/extract_webhook_examples.py            # fetch with npm, write tests/support/ghdouble/webhook_examples.json
    python scripts/extract_webhook_examples.py index.json # from a copy of the package's api.github.com/index.json

The tests build every webhook from one of these payloads and change only ids, shas, names and
the fields a test is about (tests/support/ghdouble/webhooks.py), so a payload GitHub would never send
cannot slip into a test. Re-run this to move to a newer package, or when a test needs another event.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

PACKAGE = "@octokit/webhooks-examples@7.6.1"
# (event, action, index among that event's examples): each one delivered to an App (it has `installation`)
CHOSEN = [
    ("pull_request", "opened", 12),
    ("pull_request", "synchronize", 22),
    ("pull_request", "reopened", 18),
    ("pull_request", "ready_for_review", 16),
    ("pull_request", "closed", 3),
    ("pull_request", "labeled", 8),
    ("issue_comment", "created", 3),  # on an issue: tests add issue.pull_request, as GitHub sends on a pull request
    ("check_run", "requested_action", 6),
    ("check_run", "rerequested", 7),  # its pull_requests list is empty, as for a head in a fork
    ("check_suite", "rerequested", 7),
    ("merge_group", "checks_requested", 0),
    ("ping", None, 0),
]
OUT = Path(__file__).resolve().parent.parent / "tests" / "support" / "ghdouble" / "webhook_examples.json"


def fetch_index() -> dict | list:
    """The package's api.github.com/index.json, through npm pack (no install, nothing run)."""
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(["npm", "pack", PACKAGE, "--silent", "--pack-destination", tmp], check=True,
                       stdout=subprocess.DEVNULL)
        [tgz] = Path(tmp).glob("*.tgz")
        with tarfile.open(tgz) as archive:
            member = archive.extractfile("package/api.github.com/index.json")
            if member is None:
                sys.exit(f"{PACKAGE} has no api.github.com/index.json; pick another version in PACKAGE")
            return json.load(member)


def extract(index: list[dict]) -> dict[str, dict]:
    by_event = {entry["name"]: entry["examples"] for entry in index}
    out = {}
    for event, action, position in CHOSEN:
        examples = by_event.get(event)
        if examples is None or position >= len(examples):
            sys.exit(f"{PACKAGE}: no example {position} of `{event}`; fix CHOSEN in {Path(__file__).name}")
        payload = examples[position]
        if payload.get("action") != action:
            sys.exit(f"{PACKAGE}: example {position} of `{event}` is action {payload.get('action')!r}, "
                     f"not {action!r}; fix CHOSEN in {Path(__file__).name}")
        out[f"{event}.{action}" if action else event] = payload
    return out


def main(argv: list[str]) -> int:
    index = json.loads(Path(argv[1]).read_text()) if len(argv) > 1 else fetch_index()
    examples = extract(index)
    OUT.write_text(json.dumps({"source": PACKAGE, "examples": examples}, indent=1, sort_keys=True) + "\n")
    print(f"wrote {len(examples)} examples to {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
