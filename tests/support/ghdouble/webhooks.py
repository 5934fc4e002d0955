"""Webhook payloads for the tests, made from GitHub's own examples (webhook_examples.json).

Each builder takes one example and changes only what names this test's objects (ids, shas, refs,
logins, the repository) and the fields the event is about; everything else stays as GitHub sent
it. The double decides what GitHub would: a head in a fork gets an empty `pull_requests` list.
scripts/extract_webhook_examples.py writes the examples from npm @octokit/webhooks-examples.
"""

from __future__ import annotations

import copy
import functools
import json
import time
from pathlib import Path
from typing import Any

EXAMPLES = Path(__file__).resolve().parent / "webhook_examples.json"


@functools.lru_cache(maxsize=1)
def _examples() -> dict[str, dict[str, Any]]:
    return json.loads(EXAMPLES.read_text())["examples"]


def example(name: str, **top: Any) -> dict[str, Any]:
    """A fresh copy of GitHub's example `event.action` (or `event`), with top-level fields replaced."""
    try:
        payload = copy.deepcopy(_examples()[name])
    except KeyError:
        raise KeyError(f"no webhook example {name!r} in {EXAMPLES.name}; add it to CHOSEN in "
                       "scripts/extract_webhook_examples.py and run it") from None
    payload.update(top)
    return payload


def app_payload(name: str, *, repo_id: int = 9, full_name: str = "o/r", installation_id: int = 7,
                sender: str = "octocat", **top: Any) -> dict[str, Any]:
    """An example delivered to our App on repository `full_name` of installation `installation_id`."""
    payload = example(name, **top)
    owner, repo_name = full_name.split("/")
    payload["repository"].update(id=repo_id, full_name=full_name, name=repo_name)
    payload["repository"]["owner"]["login"] = owner
    payload["installation"] = {**payload.get("installation", {}), "id": installation_id}
    payload["sender"].update(login=sender, type="Bot" if sender.endswith("[bot]") else "User")
    return payload


def now_iso() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


# -- events about the double's repositories ------------------------------------------------------
def _on(double, full_name: str, name: str, installation_id: int, sender: str, **top: Any) -> dict[str, Any]:
    return app_payload(name, repo_id=double.repos[full_name].id, full_name=full_name,
                       installation_id=installation_id, sender=sender, **top)


def _pull_ref(double, full_name: str, number: int) -> dict[str, Any]:
    """A pull request as GitHub lists it inside check_run and check_suite payloads."""
    pull = double.repos[full_name].pulls[number]
    repo = {"id": double.repos[full_name].id, "url": f"{double.url}/repos/{full_name}", "name": full_name.split("/")[1]}
    return {"url": f"{double.url}/repos/{full_name}/pulls/{number}", "id": number * 10, "number": number,
            "head": {"ref": pull.head_ref, "sha": double.sha(full_name, pull.head_ref), "repo": repo},
            "base": {"ref": pull.base_ref, "sha": double.sha(full_name, pull.base_ref), "repo": repo}}


def attached_pulls(double, full_name: str, number: int) -> list[dict[str, Any]]:
    """GitHub attaches only pull requests whose head is in the repository itself: a fork's is never listed."""
    pull = double.repos[full_name].pulls[number]
    return [] if pull.fork else [_pull_ref(double, full_name, number)]


def pull_request_event(double, full_name: str, number: int, action: str = "opened",
                       installation_id: int = 77) -> dict[str, Any]:
    pull = double.repos[full_name].pulls[number]
    payload = _on(double, full_name, f"pull_request.{action}" if action in (
        "opened", "synchronize", "reopened", "ready_for_review", "closed", "labeled") else "pull_request.opened",
        installation_id, pull.user, action=action, number=number)
    body = payload["pull_request"]
    body.update(number=number, state="closed" if action == "closed" else "open", updated_at=now_iso())
    body["user"].update(login=pull.user, type="User")
    head_repo = double.fork_json(pull) if pull.fork else {**payload["repository"], "fork": False}
    body["head"].update(ref=pull.head_ref, sha=double.sha(full_name, pull.head_ref), repo=head_repo,
                        label=f"{head_repo['owner']['login']}:{pull.head_ref}")
    body["base"].update(ref=pull.base_ref, sha=double.sha(full_name, pull.base_ref), repo=payload["repository"])
    return payload


def comment_event(double, full_name: str, number: int, body: str, author: str, comment_id: int = 555,
                  installation_id: int = 77, author_type: str = "User") -> dict[str, Any]:
    payload = _on(double, full_name, "issue_comment.created", installation_id, author)
    payload["sender"]["type"] = author_type
    payload["issue"]["number"] = number
    # the one field that tells a pull request's comment from an issue's
    payload["issue"]["pull_request"] = {"url": f"{double.url}/repos/{full_name}/pulls/{number}",
                                        "html_url": f"https://github.invalid/{full_name}/pull/{number}",
                                        "diff_url": "https://github.invalid/d", "patch_url": "https://github.invalid/p",
                                        "merged_at": None}
    payload["comment"].update(id=comment_id, body=body, author_association="CONTRIBUTOR")
    payload["comment"]["user"].update(login=author, type=author_type)
    return payload


def check_run_event(double, full_name: str, number: int, check_run: dict[str, Any], action: str,
                    actor: str, identifier: str = "", installation_id: int = 77) -> dict[str, Any]:
    """`check_run.<action>` for one of the double's check runs (our App's: it carries our external_id)."""
    payload = _on(double, full_name, f"check_run.{action}", installation_id, actor)
    payload["check_run"].update(
        id=check_run["id"], name=check_run["name"], head_sha=check_run["head_sha"], status=check_run["status"],
        conclusion=check_run["conclusion"], external_id=check_run.get("external_id") or "",
        pull_requests=attached_pulls(double, full_name, number))
    payload["check_run"]["app"].update(id=double.app_id, slug=double.app_slug)
    payload["check_run"]["check_suite"]["head_sha"] = check_run["head_sha"]
    if identifier:
        payload["requested_action"] = {"identifier": identifier}
    else:
        payload.pop("requested_action", None)
    return payload


def check_suite_event(double, full_name: str, number: int, head_sha: str, actor: str,
                      installation_id: int = 77) -> dict[str, Any]:
    payload = _on(double, full_name, "check_suite.rerequested", installation_id, actor)
    suite = payload["check_suite"]
    suite.update(head_sha=head_sha, after=head_sha, pull_requests=attached_pulls(double, full_name, number))
    suite["app"].update(id=double.app_id, slug=double.app_slug)
    return payload


def merge_group_event(double, full_name: str, head_sha: str, base_sha: str, number: int,
                      base_ref: str = "main", installation_id: int = 77) -> dict[str, Any]:
    """`merge_group.checks_requested` for the queue's merge commit of pull request `number`."""
    payload = _on(double, full_name, "merge_group.checks_requested", installation_id, "octocat")
    group = payload["merge_group"]
    group.update(head_sha=head_sha, base_sha=base_sha, base_ref=f"refs/heads/{base_ref}",
                 head_ref=f"refs/heads/gh-readonly-queue/{base_ref}/pr-{number}-{base_sha}")
    group["head_commit"]["id"] = head_sha
    return payload
