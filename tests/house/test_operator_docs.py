"""What operators read stays true: the configuration reference, app.yml's permissions, docs that stand on their own."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

# GitHub's "Permissions required for GitHub Apps" (docs.github.com, REST API), for each call the App makes
PERMISSION_OF = {
    ("get", "/app/installations"): None,  # the App's JWT, no installation permission
    ("post", "/app-manifests/{code}/conversions"): None,  # no authentication at all
    ("post", "/app/installations/{installation_id}/access_tokens"): None,
    ("get", "/installation/repositories"): None,
    ("get", "/repos/{owner}/{repo}"): ("metadata", "read"),
    ("get", "/repos/{owner}/{repo}/collaborators/{username}/permission"): ("metadata", "read"),
    ("get", "/repos/{owner}/{repo}/pulls"): ("pull_requests", "read"),
    ("get", "/repos/{owner}/{repo}/pulls/{pull_number}"): ("pull_requests", "read"),
    ("get", "/repos/{owner}/{repo}/pulls/{pull_number}/files"): ("pull_requests", "read"),
    ("get", "/repos/{owner}/{repo}/contents/{path}"): ("contents", "read"),
    ("get", "/repos/{owner}/{repo}/tarball/{ref}"): ("contents", "read"),
    ("get", "/repos/{owner}/{repo}/git/commits/{commit_sha}"): ("contents", "read"),
    ("get", "/repos/{owner}/{repo}/compare/{basehead}"): ("contents", "read"),
    ("post", "/repos/{owner}/{repo}/check-runs"): ("checks", "write"),
    ("get", "/repos/{owner}/{repo}/check-runs/{check_run_id}"): ("checks", "read"),
    ("patch", "/repos/{owner}/{repo}/check-runs/{check_run_id}"): ("checks", "write"),
    ("get", "/repos/{owner}/{repo}/commits/{ref}/check-runs"): ("checks", "read"),
    # listed under Issues only: the one call that needs issues: write (pull_requests: write does not do)
    ("post", "/repos/{owner}/{repo}/issues/comments/{comment_id}/reactions"): ("issues", "write"),
    # listed under Issues and under Pull requests: either write permission does
    ("post", "/repos/{owner}/{repo}/issues/{issue_number}/comments"): ("issues", "write"),
}
# GitHub's webhook docs: the permission an App needs to subscribe to each event
EVENT_NEEDS = {"check_run": "checks", "check_suite": "checks", "pull_request": "pull_requests",
               "issue_comment": "issues", "merge_group": "merge_queues"}
LEVEL = {"read": 1, "write": 2}


def operations() -> list[tuple[str, str]]:
    """Every REST call the App makes: the list scripts/reduce_openapi.py keeps in the double's description."""
    spec = importlib.util.spec_from_file_location("reduce_openapi", ROOT / "scripts" / "reduce_openapi.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.OPERATIONS


def test_app_yml_asks_for_what_the_app_does_and_nothing_more():
    manifest = yaml.safe_load((ROOT / "app.yml").read_text())
    needed: dict[str, str] = {"metadata": "read"}  # GitHub gives every App metadata: read

    def need(permission: str, level: str) -> None:
        if LEVEL[level] > LEVEL.get(needed.get(permission, ""), 0):
            needed[permission] = level

    for operation in operations():
        assert operation in PERMISSION_OF, (f"{operation}: add it to PERMISSION_OF with the permission GitHub's "
                                            "'Permissions required for GitHub Apps' names, and to app.yml")
        if PERMISSION_OF[operation]:
            need(*PERMISSION_OF[operation])
    for event in manifest["default_events"]:
        assert event in EVENT_NEEDS, f"{event}: which permission does GitHub require to subscribe to it?"
        need(EVENT_NEEDS[event], "read")
    assert manifest["default_permissions"] == needed


def test_the_operators_guide_says_why_each_permission_is_asked_for():
    guide = (ROOT / "docs" / "OPERATING.md").read_text()
    section = guide.split("## Permissions", 1)[1].split("\n## ", 1)[0]
    for permission, level in yaml.safe_load((ROOT / "app.yml").read_text())["default_permissions"].items():
        assert re.search(rf"^\| `{permission}` \| {level} \| \S", section, re.M), f"{permission}: say why, in a row"


def test_the_configuration_reference_is_what_the_schema_says():
    check = subprocess.run([sys.executable, str(ROOT / "scripts" / "config_reference.py"), "--check"],
                           capture_output=True, text=True)
    assert check.returncode == 0, check.stderr
    from witness_gate.config.schema import SCHEMA

    reference = (ROOT / "docs" / "CONFIG.md").read_text()
    assert all(f"| `{key}` |" in reference for key, *_ in SCHEMA)


def test_readme_and_docs_point_nowhere_outside_the_repository():
    outside = re.compile(r"\.\./(?:\.\./|shared)|\bSPEC(?:\.md|\s*§)|PLATFORM\.md|STYLE\.md|DEVELOPERS\.md|\bshared/")
    for doc in DOCS:
        text = doc.read_text()
        for number, line in enumerate(text.splitlines(), 1):
            assert not outside.search(line), f"{doc.name}:{number} points outside the repository: {line.strip()}"
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            if re.match(r"[a-z]+:", target) or target.startswith("#"):
                continue  # a web address or an anchor
            place = (doc.parent / target.split("#")[0]).resolve()
            assert place.exists() and ROOT in place.parents, f"{doc.name}: the link {target} leads out of the repository"


def test_the_module_map_names_every_module_and_folder():
    # a newcomer reads docs/ARCHITECTURE.md's map after README.md: it missed 17 modules once; every folder of the
    # package and every module in it is named, under its folder
    arch = (ROOT / "docs" / "ARCHITECTURE.md").read_text()
    found = arch[arch.index("## Module map"):]
    missing = []
    for package in ("witness_gate", "worker", "bot", "appcore"):
        folders = [ROOT / package] + sorted(f for f in (ROOT / package).rglob("*") if f.is_dir()
                                            and "__pycache__" not in f.parts and "migrations" not in f.parts)
        for folder in folders:
            if folder != ROOT / package and f"{folder.name}/" not in found:
                missing.append(f"{folder.relative_to(ROOT)}/")
            for module in sorted(folder.glob("*.py")):
                if module.name != "__init__.py" and not re.search(rf"\b{re.escape(module.stem)}(\.py)?\b", found):
                    missing.append(str(module.relative_to(ROOT)))
    assert missing == [], f"docs/ARCHITECTURE.md's module map does not name {missing}"


def test_every_path_the_architecture_names_is_in_the_tree():
    # the path of a pull request through the code names real files: a module that moved is a path that leads nowhere
    arch = (ROOT / "docs" / "ARCHITECTURE.md").read_text()
    named = sorted(set(re.findall(r"\b((?:witness_gate|worker|bot|appcore)/[\w/]+\.py)", arch)))
    assert named and [path for path in named if not (ROOT / path).exists()] == []
