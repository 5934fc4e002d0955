"""The narrow GitHub client the worker needs, and its PyGithub adapter with a shared token cache."""

from __future__ import annotations

import base64
import json
import logging
import re
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Protocol

import requests
from github import Auth, Github, GithubException, GithubIntegration
from github.Requester import Requester
from redis import Redis

from appcore.settings import Settings
from witness_gate.sources import gitrepo

log = logging.getLogger("witness_gate.worker")
TOKEN_MARGIN = 300  # refresh installation tokens five minutes before GitHub expires them
FILES_LIMIT = 3000  # GET /pulls/{n}/files stops here
API_VERSION = "2022-11-28"  # sent on every request: GitHub answers as this version documents


class GitHubError(RuntimeError):
    """A GitHub call failed; `status` is the HTTP status (0 when nothing answered)."""

    def __init__(self, message: str, status: int = 0) -> None:
        super().__init__(message)
        self.status = status


class RateLimited(GitHubError):
    """GitHub asked us to wait `retry_in` seconds, longer than a worker should sleep: the job is run again
    that much later (worker.failures.on_job_failure)."""

    def __init__(self, message: str, status: int, retry_in: float) -> None:
        super().__init__(message, status)
        self.retry_in = retry_in


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
    def merge_base(self, base: str, head: str) -> str: ...
    def fetch(self, store: Path, shas: list[str], max_bytes: int) -> None: ...
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
    integration = _integration(settings)
    errors = waits = 0
    while True:  # as every other call: no answer and 5xx are tried again, a rate limit is waited for
        try:
            access = integration.get_access_token(installation_id)
            break
        except GithubException as exc:
            status, headers, message = exc.status, exc.headers or {}, _message(exc)
        except requests.RequestException as exc:
            status, headers, message = 0, {}, f"{type(exc).__name__} (no answer)"
        step = settings.retry.step(status, headers, errors=errors, waits=waits)
        failure = f"installation {installation_id}: no token ({status} {message})"
        if step.kind == "defer":
            raise RateLimited(f"{failure} (retry in {step.seconds:.0f}s)", status, step.seconds)
        if step.kind == "fail":
            raise GitHubError(failure, status)
        errors, waits = errors + (step.kind == "retry"), waits + (step.kind == "wait")
        log.warning("%s; %s %.2fs", failure, step.kind, step.seconds)
        time.sleep(step.seconds)
    expires = access.expires_at or datetime.fromtimestamp(time.time() + 3600, timezone.utc)
    ttl = int((expires - datetime.now(timezone.utc)).total_seconds()) - TOKEN_MARGIN
    redis.set(key, access.token, ex=max(ttl, 30))
    return access.token


class PyGithubApi:
    """GitHubApi for one repository of one installation, over PyGithub."""

    def __init__(self, settings: Settings, redis: Redis, installation_id: int, repo: str) -> None:
        self.settings, self.redis, self.installation_id, self.repo_name = settings, redis, installation_id, repo
        self.policy = settings.retry
        self._clone_url = ""
        self._connect(installation_token(settings, redis, installation_id))

    def _connect(self, token: str) -> None:
        self._token = token  # held in memory only: it reaches git through the environment of one command
        self.gh = _github(self.settings, token, lazy=True)
        self.repo = self.gh.get_repo(self.repo_name)

    def _call(self, what: str, fn):
        """Run one GitHub call: 5xx and timeouts back off (`attempts` tries), rate limits wait as told
        with a budget of their own (`waits`), a wait too long to sleep through raises RateLimited, an
        expired token is refreshed once; anything else fails at once."""
        refreshed, errors, waits = False, 0, 0
        while True:
            try:
                return fn()
            except GithubException as exc:
                if exc.status == 401 and not refreshed:  # the cached token was revoked or expired early
                    refreshed = True
                    self._refresh()
                    continue
                status, headers, message = exc.status, exc.headers or {}, _message(exc)
            except requests.RequestException as exc:
                status, headers, message = 0, {}, f"{type(exc).__name__} (no answer)"
            step = self.policy.step(status, headers, errors=errors, waits=waits,
                                    secondary=Requester.isSecondaryRateLimitError(message))
            failure = f"{what}: {status} {message}" if status else f"{what}: {message}"
            if step.kind == "defer":
                raise RateLimited(f"{failure} (retry in {step.seconds:.0f}s)", status, step.seconds)
            if step.kind == "fail":
                raise GitHubError(failure, status)
            errors, waits = errors + (step.kind == "retry"), waits + (step.kind == "wait")
            log.warning("%s; %s %.2fs (%d errors, %d waits so far)", failure, step.kind, step.seconds, errors, waits)
            time.sleep(step.seconds)

    def _refresh(self) -> None:
        self._connect(installation_token(self.settings, self.redis, self.installation_id, fresh=True))

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

    def merge_base(self, base: str, head: str) -> str:
        """Where head forked from base (the compare API's merge base): the diff starts there."""
        data = self._request("GET", f"/repos/{self.repo_name}/compare/{base}...{head}", parameters={"per_page": 1})
        return str(data["merge_base_commit"]["sha"])

    def fetch(self, store: Path, shas: list[str], max_bytes: int) -> None:
        """These commits, exactly, into the private git directory `store` over git's smart HTTP; a 5xx or
        no answer is tried again as the retry policy says, a refused token is refreshed once."""
        if not self._clone_url:
            self._clone_url = str(self._request("GET", f"/repos/{self.repo_name}")["clone_url"])
        refreshed, errors = False, 0
        while True:
            basic = base64.b64encode(f"x-access-token:{self._token}".encode()).decode()
            try:
                return gitrepo.fetch(store, self._clone_url, shas, header=f"Authorization: Basic {basic}",
                                     max_bytes=max_bytes, timeout=max(60.0, 20 * self.policy.timeout))
            except gitrepo.GitError as exc:
                if "could not read Username" in str(exc) and not refreshed:  # git's word for a 401 to our header
                    refreshed = True
                    self._refresh()
                    continue
                answered = re.search(r"returned error: (\d{3})|RPC failed; HTTP (\d{3})", str(exc))
                status = int(answered.group(1) or answered.group(2)) if answered else -1
                step = self.policy.step(status if status >= 500 else -1, {}, errors=errors, waits=0)
                if step.kind != "retry":
                    raise GitHubError(str(exc), max(status, 0)) from None
                errors += 1
                log.warning("%s; retry in %.2fs", exc, step.seconds)
                time.sleep(step.seconds)

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

    def _request(self, method: str, path: str, body: dict[str, Any] | None = None,
                 parameters: dict[str, Any] | None = None) -> dict[str, Any]:
        def send() -> dict[str, Any]:
            _headers, data = self.gh.requester.requestJsonAndCheck(method, path, parameters=parameters, input=body)
            return data

        return self._call(f"{method} {path}", send)


def _integration(settings: Settings) -> GithubIntegration:
    return GithubIntegration(auth=Auth.AppAuth(settings.app_id, settings.private_key), base_url=settings.api_url,
                             api_version=API_VERSION)


def _github(settings: Settings, token: str, **options: Any) -> Github:
    # retries are ours (_call): PyGithub's GithubRetry would sleep through every wait (README: "Retries")
    return Github(auth=Auth.Token(token), base_url=settings.api_url, per_page=100, seconds_between_requests=None,
                  seconds_between_writes=None, retry=None, api_version=API_VERSION,
                  timeout=max(1, round(settings.retry.timeout)), **options)  # PyGithub takes whole seconds


def _message(exc: GithubException) -> str:
    data = exc.data if isinstance(exc.data, dict) else {}
    return str(data.get("message") or json.dumps(exc.data)[:200])


def installed_repositories(settings: Settings, redis: Redis) -> list[tuple[int, str]]:
    """(installation id, owner/name) of every repository the App is installed on."""
    integration = _integration(settings)
    out = []
    try:
        installations = [i.id for i in integration.get_installations()]
    except GithubException as exc:
        raise GitHubError(f"GET /app/installations: {exc.status} {_message(exc)}", exc.status) from None
    for installation_id in installations:
        token = installation_token(settings, redis, installation_id)
        gh = _github(settings, token)
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
