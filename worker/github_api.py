"""The narrow GitHub client the worker needs, and its PyGithub adapter with a shared token cache."""

from __future__ import annotations

import json
import logging
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Protocol

import requests
from github import Auth, Github, GithubException, GithubIntegration
from redis import Redis

from appcore.settings import Settings

log = logging.getLogger("witness_gate.worker")
TOKEN_MARGIN = 300  # refresh installation tokens five minutes before GitHub expires them
FILES_LIMIT = 3000  # GET /pulls/{n}/files stops here


class GitHubError(RuntimeError):
    """A GitHub call failed; `status` is the HTTP status (0 when nothing answered)."""

    def __init__(self, message: str, status: int = 0) -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True)
class PullInfo:
    number: int
    state: str
    head_sha: str
    base_sha: str
    author: str
    updated_at: str = ""  # ISO 8601, GitHub's clock: orders it against deliveries


class GitHubApi(Protocol):
    """What the worker needs of GitHub for one repository; PyGithubApi is the real one."""

    def pull(self, number: int) -> PullInfo: ...
    def open_pulls(self) -> list[PullInfo]: ...
    def repo_id(self) -> int: ...
    def changed_files(self, number: int) -> tuple[list[str], bool]: ...
    def file_at(self, path: str, ref: str) -> bytes | None: ...
    def tarball(self, ref: str) -> bytes: ...
    def commit_tree(self, sha: str) -> str: ...
    def create_check_run(self, head_sha: str, body: dict[str, Any]) -> int: ...
    def update_check_run(self, check_run_id: int, body: dict[str, Any]) -> None: ...
    def permission(self, username: str) -> str: ...
    def react(self, comment_id: int, content: str) -> None: ...
    def comment(self, number: int, body: str) -> None: ...


def installation_token(settings: Settings, redis: Redis, installation_id: int, *, fresh: bool = False) -> str:
    """An installation token, shared by every job through Redis until shortly before it expires."""
    key = f"witness:token:{settings.app_id}:{installation_id}"
    if not fresh:
        cached = redis.get(key)
        if cached:
            return cached.decode()
    integration = GithubIntegration(auth=Auth.AppAuth(settings.app_id, settings.private_key),
                                    base_url=settings.api_url)
    try:
        access = integration.get_access_token(installation_id)
    except GithubException as exc:
        raise GitHubError(f"installation {installation_id}: no token ({exc.status} {_message(exc)})",
                          exc.status) from None
    expires = access.expires_at or datetime.fromtimestamp(time.time() + 3600, timezone.utc)
    ttl = int((expires - datetime.now(timezone.utc)).total_seconds()) - TOKEN_MARGIN
    redis.set(key, access.token, ex=max(ttl, 30))
    return access.token


class PyGithubApi:
    """GitHubApi for one repository of one installation, over PyGithub."""

    def __init__(self, settings: Settings, redis: Redis, installation_id: int, repo: str) -> None:
        self.settings, self.redis, self.installation_id, self.repo_name = settings, redis, installation_id, repo
        self.policy = settings.retry
        self._connect(installation_token(settings, redis, installation_id))

    def _connect(self, token: str) -> None:
        # retries are ours (_call): PyGithub's own would not retry 429 and would stack on ours
        self.gh = Github(auth=Auth.Token(token), base_url=self.settings.api_url, lazy=True, per_page=100,
                         seconds_between_requests=None, seconds_between_writes=None, retry=None,
                         timeout=max(1, round(self.policy.timeout)))  # PyGithub takes whole seconds
        self.repo = self.gh.get_repo(self.repo_name, lazy=True)

    def _call(self, what: str, fn):
        """Run one GitHub call with bounded retries: 5xx and timeouts back off, rate limits wait as
        told (up to a cap), an expired token is refreshed once; anything else fails at once."""
        refreshed = False
        for attempt in range(1, self.policy.attempts + 1):
            try:
                return fn()
            except GithubException as exc:
                if exc.status == 401 and not refreshed:  # the cached token was revoked or expired early
                    refreshed = True
                    self._connect(installation_token(self.settings, self.redis, self.installation_id, fresh=True))
                    continue
                wait = self.policy.wait(exc.status, exc.headers or {}, attempt)
                failure = GitHubError(f"{what}: {exc.status} {_message(exc)}", exc.status)
            except requests.RequestException as exc:
                wait = self.policy.wait(0, {}, attempt)
                failure = GitHubError(f"{what}: {type(exc).__name__} (no answer)")
            if wait is None or attempt == self.policy.attempts:
                raise failure
            log.warning("%s; retrying in %.2fs (attempt %d of %d)", failure, wait, attempt, self.policy.attempts)
            time.sleep(wait)
        raise AssertionError("unreachable")

    def pull(self, number: int) -> PullInfo:
        def get() -> PullInfo:
            p = self.repo.get_pull(number)  # lazy objects fetch on first attribute: read them here
            updated = p.updated_at.strftime("%Y-%m-%dT%H:%M:%SZ") if p.updated_at else ""
            return PullInfo(p.number, p.state, p.head.sha, p.base.sha, p.user.login, updated)

        return self._call(f"GET pull {number}", get)

    def open_pulls(self) -> list[PullInfo]:
        def get() -> list[PullInfo]:
            return [PullInfo(p.number, p.state, p.head.sha, p.base.sha, p.user.login)
                    for p in self.repo.get_pulls(state="open")]

        return self._call("GET open pulls", get)

    def repo_id(self) -> int:
        return int(self._request("GET", f"/repos/{self.repo_name}")["id"])

    def changed_files(self, number: int) -> tuple[list[str], bool]:
        """Every changed path (renames at both paths), and whether GitHub's 3,000-file cap cut the list."""

        def collect() -> list[str]:
            paths = []
            for f in self.repo.get_pull(number).get_files():
                paths.append(f.filename)
                if f.previous_filename:
                    paths.append(f.previous_filename)
            return paths

        paths = self._call(f"GET pull {number} files", collect)
        return sorted(set(paths)), len(paths) >= FILES_LIMIT

    def file_at(self, path: str, ref: str) -> bytes | None:
        """A file's bytes at a commit; None when there is no such file."""

        def get():
            try:
                return self.repo.get_contents(path, ref=ref)
            except GithubException as exc:
                if exc.status == 404:
                    return None
                raise

        content = self._call(f"GET {path}@{ref[:12]}", get)
        if content is None or isinstance(content, list):  # missing, or a directory
            return None
        return content.decoded_content

    def tarball(self, ref: str) -> bytes:
        def download() -> bytes:
            link = self.repo.get_archive_link("tarball", ref)
            # the link carries its own short-lived credential: the installation token never leaves us
            response = requests.get(link, timeout=120)
            if response.status_code != 200:
                raise GithubException(response.status_code, {"message": "tarball download failed"},
                                      dict(response.headers))
            return response.content

        return self._call(f"GET tarball {ref[:12]}", download)

    def commit_tree(self, sha: str) -> str:
        return self._call(f"GET commit {sha[:12]}", lambda: self.repo.get_git_commit(sha).tree.sha)

    def create_check_run(self, head_sha: str, body: dict[str, Any]) -> int:
        data = self._request("POST", f"/repos/{self.repo_name}/check-runs", {"name": "witness-gate",
                                                                              "head_sha": head_sha, **body})
        return int(data["id"])

    def update_check_run(self, check_run_id: int, body: dict[str, Any]) -> None:
        self._request("PATCH", f"/repos/{self.repo_name}/check-runs/{check_run_id}", body)

    def permission(self, username: str) -> str:
        try:
            data = self._request("GET", f"/repos/{self.repo_name}/collaborators/{username}/permission")
        except GitHubError as exc:
            if exc.status == 404:
                return "none"  # not a collaborator
            raise
        return str(data.get("permission", "none"))

    def react(self, comment_id: int, content: str) -> None:
        self._request("POST", f"/repos/{self.repo_name}/issues/comments/{comment_id}/reactions", {"content": content})

    def comment(self, number: int, body: str) -> None:
        self._request("POST", f"/repos/{self.repo_name}/issues/{number}/comments", {"body": body})

    def _request(self, method: str, path: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
        def send() -> dict[str, Any]:
            _headers, data = self.gh.requester.requestJsonAndCheck(method, path, input=body)
            return data

        return self._call(f"{method} {path}", send)


def _message(exc: GithubException) -> str:
    data = exc.data if isinstance(exc.data, dict) else {}
    return str(data.get("message") or json.dumps(exc.data)[:200])


def installed_repositories(settings: Settings, redis: Redis) -> list[tuple[int, str]]:
    """(installation id, owner/name) of every repository the App is installed on."""
    integration = GithubIntegration(auth=Auth.AppAuth(settings.app_id, settings.private_key),
                                    base_url=settings.api_url)
    out = []
    try:
        installations = [i.id for i in integration.get_installations()]
    except GithubException as exc:
        raise GitHubError(f"GET /app/installations: {exc.status} {_message(exc)}", exc.status) from None
    for installation_id in installations:
        token = installation_token(settings, redis, installation_id)
        gh = Github(auth=Auth.Token(token), base_url=settings.api_url, seconds_between_requests=None,
                    seconds_between_writes=None)
        page = 1
        while True:
            try:
                _headers, data = gh.requester.requestJsonAndCheck(
                    "GET", "/installation/repositories", parameters={"per_page": 100, "page": page})
            except GithubException as exc:
                raise GitHubError(f"GET /installation/repositories: {exc.status} {_message(exc)}",
                                  exc.status) from None
            out.extend((installation_id, repo["full_name"]) for repo in data["repositories"])
            if len(data["repositories"]) < 100:
                break
            page += 1
    return out
