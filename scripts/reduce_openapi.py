"""Reduce GitHub's official OpenAPI description (npm @octokit/openapi) to the operations the App uses.

    python scripts/reduce_openapi.py            # fetch with npm, write tests/support/ghdouble/openapi.json

The GitHub double in the tests validates every request against the reduced file, so the double
cannot accept a request that real GitHub would refuse. Re-run this when the App starts calling
another endpoint, or to move to a newer description.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

PACKAGE = "@octokit/openapi@23.0.2"
OPERATIONS = [
    ("get", "/app/installations"),
    ("post", "/app-manifests/{code}/conversions"),  # the manifest flow's last step (bot/registration.py)
    ("post", "/app/installations/{installation_id}/access_tokens"),
    ("get", "/installation/repositories"),
    ("get", "/repos/{owner}/{repo}"),
    ("get", "/repos/{owner}/{repo}/pulls"),
    ("get", "/repos/{owner}/{repo}/pulls/{pull_number}"),
    ("get", "/repos/{owner}/{repo}/pulls/{pull_number}/files"),
    ("get", "/repos/{owner}/{repo}/contents/{path}"),
    ("get", "/repos/{owner}/{repo}/tarball/{ref}"),
    ("get", "/repos/{owner}/{repo}/git/commits/{commit_sha}"),
    ("get", "/repos/{owner}/{repo}/compare/{basehead}"),
    ("post", "/repos/{owner}/{repo}/check-runs"),
    ("get", "/repos/{owner}/{repo}/check-runs/{check_run_id}"),
    ("patch", "/repos/{owner}/{repo}/check-runs/{check_run_id}"),
    ("get", "/repos/{owner}/{repo}/commits/{ref}/check-runs"),
    ("get", "/repos/{owner}/{repo}/collaborators/{username}/permission"),
    ("post", "/repos/{owner}/{repo}/issues/comments/{comment_id}/reactions"),
    ("post", "/repos/{owner}/{repo}/issues/{issue_number}/comments"),
]
OUT = Path(__file__).resolve().parent.parent / "tests" / "support" / "ghdouble" / "openapi.json"


def fetch(workdir: Path) -> dict:
    subprocess.run(["npm", "pack", PACKAGE, "--silent"], cwd=workdir, check=True, capture_output=True)
    [tgz] = workdir.glob("*.tgz")
    with tarfile.open(tgz) as tar:
        member = tar.extractfile("package/generated/api.github.com.json")
        return json.load(member)


def refs_in(value) -> set[str]:
    found = set()
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            if isinstance(item.get("$ref"), str):
                found.add(item["$ref"])
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return found


def strip_examples(value):
    if isinstance(value, dict):
        return {k: strip_examples(v) for k, v in value.items() if k not in ("examples", "example", "x-github")}
    if isinstance(value, list):
        return [strip_examples(v) for v in value]
    return value


def reduce(spec: dict) -> dict:
    paths: dict = {}
    for method, path in OPERATIONS:
        item = spec["paths"][path]
        paths.setdefault(path, {k: v for k, v in item.items() if k == "parameters"})[method] = item[method]
    reduced = {"openapi": spec["openapi"], "info": spec["info"], "servers": spec["servers"],
               "paths": strip_examples(paths), "components": {}}
    pending = refs_in(reduced["paths"])
    done: set[str] = set()
    while pending:
        ref = pending.pop()
        if ref in done:
            continue
        done.add(ref)
        _, _, kind, name = ref.split("/", 3)
        body = strip_examples(spec["components"][kind][name])
        reduced["components"].setdefault(kind, {})[name] = body
        pending |= refs_in(body) - done
    return reduced


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        spec = fetch(Path(tmp))
    reduced = reduce(spec)
    OUT.write_text(json.dumps(reduced, indent=1, sort_keys=True) + "\n")
    print(f"{OUT}: {len(OPERATIONS)} operations, "
          f"{sum(len(v) for v in reduced['components'].values())} components from {PACKAGE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
