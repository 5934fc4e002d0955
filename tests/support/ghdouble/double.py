"""A local GitHub for the tests: real HTTP, real git content, every request checked against the OpenAPI description.

One double serves every test. It speaks the REST operations the App uses (see
scripts/reduce_openapi.py), serves repository content computed with git from repositories the
tests build, authenticates the App's JWT and installation tokens as GitHub does, records every
call, and collects problems (a request the description refuses, a route it does not know) so
that a test fails on an unexpected call; `expect()` fails it on a missing one.
"""

from __future__ import annotations

import base64
import json
import re
import secrets
import subprocess
import threading
import time
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from flask import Flask, Response, jsonify, request
from openapi_core import OpenAPI
from openapi_core.contrib.werkzeug import WerkzeugOpenAPIRequest
import logging

from werkzeug.serving import make_server

from . import git_http, manifest

logging.getLogger("werkzeug").setLevel(logging.WARNING)

SPEC = Path(__file__).resolve().parent / "openapi.json"
API_VERSION = "2022-11-28"
# path parameters that GitHub lets carry slashes; OpenAPI templates never match one
SLASHED = re.compile(r"^(/repos/[^/]+/[^/]+/(?:contents|tarball|commits))/(.+?)(/check-runs)?$")


class GitHubRequest(WerkzeugOpenAPIRequest):
    """The request as the description sees it: a slashed path parameter travels encoded."""

    def get_path(self, path: str) -> str:
        m = SLASHED.match(path)
        if m:
            path = m.group(1) + "/" + m.group(2).replace("/", "%2F") + (m.group(3) or "")
        return super().get_path(path)
ISO = "%Y-%m-%dT%H:%M:%SZ"


def now_iso(delta: float = 0) -> str:
    return (datetime.now(timezone.utc) + timedelta(seconds=delta)).strftime(ISO)


def git(repo: Path, *args: str) -> bytes:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True).stdout


@dataclass
class Pull:
    number: int
    head_ref: str
    base_ref: str
    state: str = "open"
    user: str = "agent-bot"
    fork: str = ""  # owner/name of the fork the head lives in: the installation cannot read it
    stale_heads: list[str] = field(default_factory=list)  # served once each by the next reads, as after a push


@dataclass
class Call:
    method: str
    path: str
    status: int
    body: Any = None


@dataclass
class Repo:
    full_name: str
    path: Path
    id: int
    pulls: dict[int, Pull] = field(default_factory=dict)
    permissions: dict[str, str] = field(default_factory=dict)


class GitHubDouble:
    def __init__(self) -> None:
        self.app_id = 4242
        self.app_slug = "witness-gate-test"
        key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.private_key_pem = key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.TraditionalOpenSSL,
            serialization.NoEncryption()).decode()
        self.public_key = key.public_key()
        self.installations: dict[int, set[str]] = {}
        self.repos: dict[str, Repo] = {}
        self.tokens: dict[str, tuple[int, float]] = {}  # token -> (installation, expires at)
        self.check_runs: dict[int, dict[str, Any]] = {}
        self.comments: list[dict[str, Any]] = []
        self.reactions: list[dict[str, Any]] = []
        self.calls: list[Call] = []
        self.problems: list[str] = []
        self.faults: list[tuple] = []  # (method, path fragment, status, headers, delay, message), each used once
        self.lock = threading.Lock()
        self._ids = iter(range(2**31 + 1000, 2**31 + 10**9))  # GitHub's ids passed 2^31 years ago
        spec = json.loads(SPEC.read_text())
        self.spec_dict = spec
        self.manifests = manifest.ManifestFlow(self)  # registration through the manifest flow
        self.app = self._build_app()
        self.server = make_server("127.0.0.1", 0, self.app, threaded=True)
        self.url = f"http://127.0.0.1:{self.server.server_port}"
        spec["servers"] = [{"url": self.url}]
        self.openapi = OpenAPI.from_dict(spec)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    # -- lifecycle and test helpers ----------------------------------------------------------
    def start(self) -> "GitHubDouble":
        self.thread.start()
        return self

    def stop(self) -> None:
        self.server.shutdown()

    def reset(self) -> None:
        with self.lock:
            self.installations.clear()
            self.repos.clear()
            self.tokens.clear()
            self.check_runs.clear()
            self.comments.clear()
            self.reactions.clear()
            self.calls.clear()
            self.problems.clear()
            self.faults.clear()
            self.manifests.reset()

    def fail_next(self, method: str, fragment: str, status: int = 0, *, headers: dict | None = None,
                  delay: float = 0.0, times: int = 1, message: str = "injected fault") -> None:
        """The next `times` matching requests: wait `delay`, then answer `status` (0: answer normally)."""
        for _ in range(times):
            self.faults.append((method, fragment, status, headers or {}, delay, message))

    def next_id(self) -> int:
        return next(self._ids)

    def add_repo(self, full_name: str, path: Path, installation_id: int = 77) -> Repo:
        repo = Repo(full_name, path, self.next_id())
        self.repos[full_name] = repo
        self.installations.setdefault(installation_id, set()).add(full_name)
        return repo

    def open_pull(self, full_name: str, head_ref: str, base_ref: str = "main", number: int = 1,
                  fork: str = "") -> Pull:
        """A pull request of `head_ref` (a branch of the fork `fork` when given) into `base_ref`."""
        pull = Pull(number, head_ref, base_ref, fork=fork)
        self.repos[full_name].pulls[number] = pull
        return pull

    def serve_stale_read(self, full_name: str, number: int, head_sha: str) -> None:
        """The next read of the pull request still shows `head_sha`, as GitHub may right after `synchronize`."""
        self.repos[full_name].pulls[number].stale_heads.append(head_sha)

    def fork_json(self, pull: Pull) -> dict[str, Any]:
        """The head repository of a pull request from a fork, as GitHub shows it; the double serves none of it."""
        owner, name = pull.fork.split("/")
        fork_id = 10**9 + sum(map(ord, pull.fork))
        return {"id": fork_id, "node_id": f"R_{fork_id}", "name": name, "full_name": pull.fork, "private": False,
                "fork": True, "owner": _user(owner), "html_url": f"https://github.invalid/{pull.fork}",
                "url": f"{self.url}/repos/{pull.fork}", "default_branch": "main"}

    def sha(self, full_name: str, ref: str) -> str:
        return git(self.repos[full_name].path, "rev-parse", ref).decode().strip()

    def calls_to(self, method: str, fragment: str) -> list[Call]:
        return [c for c in self.calls if c.method == method and fragment in c.path]

    def expect(self, method: str, fragment: str, times: int | None = None) -> list[Call]:
        """Fail the test when an expected call never happened (or not `times` times)."""
        found = self.calls_to(method, fragment)
        assert found, f"expected {method} {fragment}; calls were:\n" + "\n".join(
            f"  {c.method} {c.path} -> {c.status}" for c in self.calls)
        if times is not None:
            assert len(found) == times, f"expected {times} x {method} {fragment}, got {len(found)}"
        return found

    def runs_for(self, head_sha: str) -> list[dict[str, Any]]:
        return [run for run in self.check_runs.values() if run["head_sha"] == head_sha]

    # -- the HTTP app ---------------------------------------------------------------------
    def _build_app(self) -> Flask:
        app = Flask("github-double")
        double = self

        @app.before_request
        def validate() -> Response | None:
            rest = not (request.path.startswith("/_codeload/") or manifest.is_web(request.path)
                        or git_http.is_git(request.path))  # the web and git's HTTP are not the REST API
            try:
                if rest:
                    double.openapi.validate_request(GitHubRequest(request))
            except Exception as exc:  # noqa: BLE001 - any refusal by the description is a problem
                detail = "; ".join(str(e) for e in getattr(exc, "schema_errors", []) or []) or str(exc)
                double.problems.append(f"{request.method} {request.full_path}: {type(exc).__name__}: {detail}")
                return _error(422, f"request refused by the OpenAPI description: {detail}")
            if rest and request.headers.get("X-GitHub-Api-Version") != API_VERSION:  # GitHub: say which version
                double.problems.append(f"{request.method} {request.path}: no X-GitHub-Api-Version: {API_VERSION}")
            with double.lock:
                fault = next((f for f in double.faults if f[0] == request.method and f[1] in request.path), None)
                if fault is not None:
                    double.faults.remove(fault)
            if fault is not None:
                _method, _fragment, status, headers, delay, message = fault
                time.sleep(delay)
                if status:
                    response = _error(status, message)
                    response.headers.update(headers)
                    return response
            return None

        @app.after_request
        def record(response: Response) -> Response:
            body = request.get_json(silent=True) if request.data else None
            double.calls.append(Call(request.method, request.path, response.status_code, body))
            return response

        @app.errorhandler(404)
        def unknown(_exc) -> Response:
            double.problems.append(f"unexpected call: {request.method} {request.full_path}")
            return _error(404, "Not Found")

        app.add_url_rule("/app/installations/<int:installation_id>/access_tokens", view_func=self.access_token,
                         methods=["POST"])
        app.add_url_rule("/app/installations", view_func=self.list_installations)
        self.manifests.install(app)
        git_http.install(app, self)  # git's smart HTTP and the compare API: fetching exactly one commit
        app.add_url_rule("/installation/repositories", view_func=self.installation_repositories)
        app.add_url_rule("/repos/<owner>/<name>/pulls", view_func=self.list_pulls)
        app.add_url_rule("/repos/<owner>/<name>", view_func=self.get_repo)
        app.add_url_rule("/repos/<owner>/<name>/pulls/<int:number>", view_func=self.get_pull)
        app.add_url_rule("/repos/<owner>/<name>/pulls/<int:number>/files", view_func=self.pull_files)
        app.add_url_rule("/repos/<owner>/<name>/contents/<path:path>", view_func=self.contents)
        app.add_url_rule("/repos/<owner>/<name>/tarball/<path:ref>", view_func=self.tarball)
        app.add_url_rule("/_codeload/<owner>/<name>/<sha>.tar.gz", view_func=self.codeload)
        app.add_url_rule("/repos/<owner>/<name>/git/commits/<sha>", view_func=self.git_commit)
        app.add_url_rule("/repos/<owner>/<name>/check-runs", view_func=self.create_check_run, methods=["POST"])
        app.add_url_rule("/repos/<owner>/<name>/check-runs/<int:run_id>", view_func=self.get_check_run)
        app.add_url_rule("/repos/<owner>/<name>/check-runs/<int:run_id>", view_func=self.update_check_run,
                         methods=["PATCH"], endpoint="update_check_run")
        app.add_url_rule("/repos/<owner>/<name>/commits/<path:ref>/check-runs", view_func=self.list_check_runs)
        app.add_url_rule("/repos/<owner>/<name>/collaborators/<user>/permission", view_func=self.permission)
        app.add_url_rule("/repos/<owner>/<name>/issues/comments/<int:comment_id>/reactions",
                         view_func=self.react, methods=["POST"])
        app.add_url_rule("/repos/<owner>/<name>/issues/<int:number>/comments", view_func=self.comment,
                         methods=["POST"])
        return app

    # -- authentication, as GitHub does it ------------------------------------------------
    def _bearer(self) -> str:
        header = request.headers.get("Authorization", "")
        scheme, _, value = header.partition(" ")
        return value if scheme.lower() in ("bearer", "token") else ""

    def _installation_for(self, full_name: str) -> int | Response:
        token = self._bearer()
        entry = self.tokens.get(token)
        if entry is None or entry[1] < time.time():
            return _error(401, "Bad credentials")
        installation, _ = entry
        if full_name not in self.installations.get(installation, set()):
            return _error(404, "Not Found")
        return installation

    def _repo(self, owner: str, name: str) -> Repo | Response:
        full = f"{owner}/{name}"
        if full not in self.repos:
            return _error(404, "Not Found")
        auth = self._installation_for(full)
        if isinstance(auth, Response):
            return auth
        return self.repos[full]

    def _app_jwt(self) -> dict | Response:
        try:
            claims = jwt.decode(self._bearer(), self.public_key, algorithms=["RS256"],
                                options={"require": ["iat", "exp", "iss"]})
        except jwt.PyJWTError as exc:
            return _error(401, f"A JSON web token could not be decoded: {exc}")
        if str(claims["iss"]) != str(self.app_id):
            return _error(401, "'Issuer' claim ('iss') must be the App's id")
        return claims

    def list_installations(self) -> Response:
        claims = self._app_jwt()
        if isinstance(claims, Response):
            return claims
        return jsonify([{"id": i, "account": _user("acme"), "app_id": self.app_id, "target_type": "Organization",
                         "repository_selection": "selected", "access_tokens_url": f"{self.url}/app/installations/{i}/access_tokens",
                         "repositories_url": f"{self.url}/installation/repositories", "html_url": "https://github.invalid",
                         "permissions": {}, "events": [], "created_at": now_iso(), "updated_at": now_iso(),
                         "single_file_name": None, "app_slug": self.app_slug, "target_id": 1,
                         "suspended_at": None, "suspended_by": None}
                        for i in sorted(self.installations)])

    def installation_repositories(self) -> Response:
        entry = self.tokens.get(self._bearer())
        if entry is None or entry[1] < time.time():
            return _error(401, "Bad credentials")
        names = sorted(self.installations.get(entry[0], set()))
        per_page = min(int(request.args.get("per_page", 30)), 100)
        page = int(request.args.get("page", 1))
        chunk = names[(page - 1) * per_page : page * per_page]
        return jsonify({"total_count": len(names), "repositories": [self._repo_json(self.repos[n]) for n in chunk]})

    def list_pulls(self, owner: str, name: str) -> Response:
        repo = self._repo(owner, name)
        if isinstance(repo, Response):
            return repo
        state = request.args.get("state", "open")
        out = []
        for number, pull in sorted(repo.pulls.items()):
            if state in (pull.state, "all"):
                out.append({"number": number, "state": pull.state, "id": number * 10,
                            "url": f"{self.url}/repos/{repo.full_name}/pulls/{number}",
                            "head": {"ref": pull.head_ref, "sha": self.sha(repo.full_name, pull.head_ref)},
                            "base": {"ref": pull.base_ref, "sha": self.sha(repo.full_name, pull.base_ref)},
                            "user": _user(pull.user), "updated_at": now_iso()})
        return jsonify(out)

    def access_token(self, installation_id: int) -> Response:
        claims = self._app_jwt()
        if isinstance(claims, Response):
            return claims
        if claims["exp"] - time.time() > 600:
            return _error(401, "'Expiration time' claim ('exp') is too far in the future")
        if installation_id not in self.installations:
            return _error(404, "Not Found")
        token = f"ghs_{secrets.token_hex(18)}"
        self.tokens[token] = (installation_id, time.time() + 3600)
        return jsonify({"token": token, "expires_at": now_iso(3600), "permissions": {"checks": "write"},
                        "repository_selection": "selected"}), 201

    # -- repository content from git -------------------------------------------------------
    def _repo_json(self, repo: Repo) -> dict[str, Any]:
        owner, name = repo.full_name.split("/")
        base = f"{self.url}/repos/{repo.full_name}"
        return {"id": repo.id, "node_id": f"R_{repo.id}", "name": name, "full_name": repo.full_name,
                "private": False, "owner": _user(owner), "html_url": f"https://github.invalid/{repo.full_name}",
                "url": base, "default_branch": "main", "clone_url": f"{self.url}/{repo.full_name}.git"}

    def get_repo(self, owner: str, name: str) -> Response:
        repo = self._repo(owner, name)
        return repo if isinstance(repo, Response) else jsonify(self._repo_json(repo))

    def _pull(self, owner: str, name: str, number: int) -> tuple[Repo, Pull] | Response:
        repo = self._repo(owner, name)
        if isinstance(repo, Response):
            return repo
        pull = repo.pulls.get(number)
        return _error(404, "Not Found") if pull is None else (repo, pull)

    def get_pull(self, owner: str, name: str, number: int) -> Response:
        found = self._pull(owner, name, number)
        if isinstance(found, Response):
            return found
        repo, pull = found
        head, base = self.sha(repo.full_name, pull.head_ref), self.sha(repo.full_name, pull.base_ref)
        with self.lock:
            head = pull.stale_heads.pop(0) if pull.stale_heads else head
        head_repo = self.fork_json(pull) if pull.fork else self._repo_json(repo)
        label = f"{pull.fork.split('/')[0]}:{pull.head_ref}" if pull.fork else pull.head_ref
        url = f"{self.url}/repos/{repo.full_name}/pulls/{number}"
        return jsonify({
            "id": number * 10, "number": number, "state": pull.state, "title": f"PR {number}", "url": url,
            "updated_at": now_iso(),
            "html_url": f"https://github.invalid/{repo.full_name}/pull/{number}", "user": _user(pull.user),
            "head": {"ref": pull.head_ref, "sha": head, "repo": head_repo, "label": label},
            "base": {"ref": pull.base_ref, "sha": base, "repo": self._repo_json(repo), "label": pull.base_ref},
        })

    def pull_files(self, owner: str, name: str, number: int) -> Response:
        found = self._pull(owner, name, number)
        if isinstance(found, Response):
            return found
        repo, pull = found
        base = git(repo.path, "merge-base", pull.base_ref, pull.head_ref).decode().strip()
        out = git(repo.path, "diff", "--name-status", "-M", "-z", base, pull.head_ref).decode().split("\0")
        files, i = [], 0
        while i < len(out) and out[i]:
            status = out[i]
            if status[0] == "R":
                files.append({"filename": out[i + 2], "previous_filename": out[i + 1], "status": "renamed"})
                i += 3
            else:
                kind = {"A": "added", "D": "removed", "M": "modified"}.get(status[0], "changed")
                files.append({"filename": out[i + 1], "status": kind})
                i += 2
        files = files[:3000]  # GitHub lists at most 3,000 files of a pull request
        per_page = min(int(request.args.get("per_page", 30)), 100)
        page = int(request.args.get("page", 1))
        chunk = files[(page - 1) * per_page : page * per_page]
        body = [{"sha": "0" * 40, "additions": 1, "deletions": 0, "changes": 1,
                 "blob_url": "https://github.invalid/b", "raw_url": "https://github.invalid/r",
                 "contents_url": "https://github.invalid/c", **f} for f in chunk]
        response = jsonify(body)
        last = max(1, -(-len(files) // per_page))
        if page < last:
            base_url = f"{self.url}{request.path}?per_page={per_page}"
            response.headers["Link"] = (f'<{base_url}&page={page + 1}>; rel="next", '
                                        f'<{base_url}&page={last}>; rel="last"')
        return response

    def contents(self, owner: str, name: str, path: str) -> Response:
        repo = self._repo(owner, name)
        if isinstance(repo, Response):
            return repo
        ref = request.args.get("ref", "main")
        try:
            data = git(repo.path, "show", f"{ref}:{path}")
        except subprocess.CalledProcessError:
            return _error(404, "Not Found")
        url = f"{self.url}/repos/{repo.full_name}/contents/{path}?ref={ref}"
        return jsonify({"type": "file", "encoding": "base64", "size": len(data), "name": path.rsplit("/", 1)[-1],
                        "path": path, "content": base64.b64encode(data).decode(), "sha": "0" * 40, "url": url,
                        "git_url": url, "html_url": url, "download_url": url,
                        "_links": {"self": url, "git": url, "html": url}})

    def tarball(self, owner: str, name: str, ref: str) -> Response:
        repo = self._repo(owner, name)
        if isinstance(repo, Response):
            return repo
        try:
            sha = self.sha(repo.full_name, ref)
        except subprocess.CalledProcessError:
            return _error(404, "Not Found")
        response = Response(status=302)
        response.headers["Location"] = f"{self.url}/_codeload/{owner}/{name}/{sha}.tar.gz?token={secrets.token_hex(8)}"
        return response

    def codeload(self, owner: str, name: str, sha: str) -> Response:
        """Like codeload.github.com: a gzipped tar with one top folder `<owner>-<repo>-<sha7>/`."""
        repo = self.repos.get(f"{owner}/{name}")
        if repo is None:
            return _error(404, "Not Found")
        prefix = f"{owner}-{name}-{sha[:7]}/"
        data = git(repo.path, "archive", "--format=tar.gz", f"--prefix={prefix}", sha)
        return Response(data, mimetype="application/x-gzip")

    def git_commit(self, owner: str, name: str, sha: str) -> Response:
        repo = self._repo(owner, name)
        if isinstance(repo, Response):
            return repo
        try:
            tree = git(repo.path, "rev-parse", f"{sha}^{{tree}}").decode().strip()
        except subprocess.CalledProcessError:
            return _error(404, "Not Found")
        who = {"name": "Test", "email": "test@example.invalid", "date": now_iso()}
        url = f"{self.url}/repos/{repo.full_name}/git/commits/{sha}"
        return jsonify({"sha": sha, "node_id": "C_1", "url": url, "html_url": url, "author": who,
                        "committer": who, "message": "commit", "parents": [],
                        "tree": {"sha": tree, "url": url},
                        "verification": {"verified": False, "reason": "unsigned", "signature": None,
                                         "payload": None, "verified_at": None}})

    # -- checks ---------------------------------------------------------------------------
    def _check_run_json(self, run: dict[str, Any]) -> dict[str, Any]:
        return {**run, "url": f"{self.url}/repos/{run['repo']}/check-runs/{run['id']}",
                "html_url": f"https://github.invalid/{run['repo']}/runs/{run['id']}", "node_id": f"CR_{run['id']}",
                "app": {"id": self.app_id, "slug": self.app_slug}, "pull_requests": [],
                "check_suite": {"id": 1}}

    def create_check_run(self, owner: str, name: str) -> Response:
        repo = self._repo(owner, name)
        if isinstance(repo, Response):
            return repo
        body = request.get_json()
        with self.lock:
            run_id = self.next_id()
            run = {"id": run_id, "repo": repo.full_name, "name": body["name"], "head_sha": body["head_sha"],
                   "status": body.get("status", "queued"), "conclusion": body.get("conclusion"),
                   "external_id": body.get("external_id"), "details_url": body.get("details_url"),
                   "output": {**{"title": None, "summary": None, "text": None}, **body.get("output", {})},
                   "annotations": list(body.get("output", {}).get("annotations", [])),
                   "actions": body.get("actions", []), "started_at": now_iso(), "completed_at": None,
                   "history": [dict(body)]}
            if run["status"] == "completed" or body.get("conclusion"):
                run["status"], run["completed_at"] = "completed", now_iso()
            self.check_runs[run_id] = run
        return jsonify(self._check_run_json(run)), 201

    def get_check_run(self, owner: str, name: str, run_id: int) -> Response:
        repo = self._repo(owner, name)
        if isinstance(repo, Response):
            return repo
        run = self.check_runs.get(run_id)
        return _error(404, "Not Found") if run is None else jsonify(self._check_run_json(run))

    def update_check_run(self, owner: str, name: str, run_id: int) -> Response:
        repo = self._repo(owner, name)
        if isinstance(repo, Response):
            return repo
        body = request.get_json()
        with self.lock:
            run = self.check_runs.get(run_id)
            if run is None:
                return _error(404, "Not Found")
            run["history"].append(dict(body))
            for key in ("status", "conclusion", "external_id", "details_url", "actions"):
                if key in body:
                    run[key] = body[key]
            if "output" in body:
                output = body["output"]
                run["annotations"].extend(output.get("annotations", []))  # each PATCH appends
                run["output"].update({k: v for k, v in output.items() if k != "annotations"})
            if body.get("conclusion"):
                run["status"], run["completed_at"] = "completed", now_iso()
        return jsonify(self._check_run_json(run))

    def list_check_runs(self, owner: str, name: str, ref: str) -> Response:
        repo = self._repo(owner, name)
        if isinstance(repo, Response):
            return repo
        runs = [self._check_run_json(r) for r in self.check_runs.values()
                if r["repo"] == repo.full_name and r["head_sha"] == ref
                and request.args.get("check_name", r["name"]) == r["name"]]
        return jsonify({"total_count": len(runs), "check_runs": runs})

    # -- people ---------------------------------------------------------------------------
    def permission(self, owner: str, name: str, user: str) -> Response:
        repo = self._repo(owner, name)
        if isinstance(repo, Response):
            return repo
        level = repo.permissions.get(user, "none")
        if level == "none" and user not in repo.permissions:
            return _error(404, "Not Found")  # not a collaborator at all
        return jsonify({"permission": level, "role_name": level, "user": _user(user)})

    def react(self, owner: str, name: str, comment_id: int) -> Response:
        repo = self._repo(owner, name)
        if isinstance(repo, Response):
            return repo
        body = request.get_json()
        self.reactions.append({"comment_id": comment_id, "content": body["content"]})
        return jsonify({"id": self.next_id(), "node_id": "RE_1", "user": _user(self.app_slug + "[bot]"),
                        "content": body["content"], "created_at": now_iso()}), 201

    def comment(self, owner: str, name: str, number: int) -> Response:
        repo = self._repo(owner, name)
        if isinstance(repo, Response):
            return repo
        body = request.get_json()
        entry = {"id": self.next_id(), "issue_number": number, "body": body["body"]}
        self.comments.append(entry)
        url = f"{self.url}/repos/{repo.full_name}/issues/comments/{entry['id']}"
        return jsonify({"id": entry["id"], "node_id": "IC_1", "url": url, "html_url": url, "body": body["body"],
                        "user": _user(self.app_slug + "[bot]"), "created_at": now_iso(), "updated_at": now_iso(),
                        "issue_url": url, "author_association": "NONE"}), 201


def _user(login: str) -> dict[str, Any]:
    return {"login": login, "id": abs(hash(login)) % 10**6, "node_id": "U_1", "type": "User",
            "url": f"https://github.invalid/users/{login}", "html_url": f"https://github.invalid/{login}",
            "avatar_url": "https://github.invalid/a.png"}


def _error(status: int, message: str) -> Response:
    response = jsonify({"message": message, "documentation_url": "https://docs.github.com/rest"})
    response.status_code = status
    return response
