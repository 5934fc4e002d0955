"""What the double serves for fetching code exactly: git's smart HTTP, and the compare API's merge base.

github.com serves `https://github.com/<owner>/<repo>.git` (GHES `https://HOST/<owner>/<repo>.git`) to
an installation token as HTTP Basic `x-access-token:<token>`; the double runs `git http-backend` as
CGI on the test's repository, fetch only (no push), behind the same check of token and installation.
GitHub lets a client fetch any commit by its id (protocol v2), so the backend allows any wanted id.
"""

from __future__ import annotations

import base64
import re
import subprocess
import time
from typing import TYPE_CHECKING

from flask import Flask, Response, request

if TYPE_CHECKING:
    from .double import GitHubDouble

GIT_PATH = re.compile(r"^/[^/]+/[^/]+\.git/")
SERVICES = ("info/refs", "git-upload-pack")  # fetching; git-receive-pack (push) is never served


def is_git(path: str) -> bool:
    """A git request, not the REST API: the OpenAPI description does not cover it."""
    return bool(GIT_PATH.match(path))


def install(app: Flask, double: "GitHubDouble") -> None:
    app.add_url_rule("/<owner>/<name>.git/<path:rest>", view_func=lambda owner, name, rest: serve(
        double, owner, name, rest), methods=["GET", "POST"], endpoint="git_http")
    app.add_url_rule("/repos/<owner>/<name>/compare/<path:basehead>", view_func=lambda owner, name, basehead:
                     compare(double, owner, name, basehead), endpoint="compare")


def _denied(status: int, message: str) -> Response:
    response = Response(message + "\n", status=status, mimetype="text/plain")
    if status == 401:
        response.headers["WWW-Authenticate"] = 'Basic realm="GitHub"'
    return response


def _token() -> str:
    scheme, _, value = request.headers.get("Authorization", "").partition(" ")
    if scheme.lower() != "basic":
        return ""
    user, _, password = base64.b64decode(value).decode("utf-8", "replace").partition(":")
    return password if user == "x-access-token" else ""


def serve(double: "GitHubDouble", owner: str, name: str, rest: str) -> Response:
    full = f"{owner}/{name}"
    entry = double.tokens.get(_token())
    if entry is None or entry[1] < time.time():
        return _denied(401, "remote: Invalid username or token.")
    repo = double.repos.get(full)
    if repo is None or full not in double.installations.get(entry[0], set()):
        return _denied(404, "remote: Repository not found.")
    if rest not in SERVICES or request.args.get("service", "git-upload-pack") != "git-upload-pack":
        return _denied(403, "remote: Write access to repository not granted.")
    env = {"GIT_PROJECT_ROOT": str(repo.path), "PATH_INFO": f"/.git/{rest}", "GIT_HTTP_EXPORT_ALL": "1",
           "REQUEST_METHOD": request.method, "QUERY_STRING": request.query_string.decode(),
           "CONTENT_TYPE": request.headers.get("Content-Type", ""), "REMOTE_ADDR": request.remote_addr or "",
           "GIT_PROTOCOL": request.headers.get("Git-Protocol", ""), "PATH": "/usr/bin:/bin",
           "HTTP_CONTENT_ENCODING": request.headers.get("Content-Encoding", ""),
           "GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "uploadpack.allowAnySHA1InWant", "GIT_CONFIG_VALUE_0": "true"}
    done = subprocess.run(["git", "http-backend"], input=request.get_data(), env=env, capture_output=True,
                          check=False)
    if done.returncode != 0:  # as GitHub answers a backend that failed: a 5xx the client may try again
        return Response(f"git http-backend exited {done.returncode}: {done.stderr.decode(errors='replace')}",
                        status=502, mimetype="text/plain")
    head, _, body = done.stdout.partition(b"\r\n\r\n")
    response = Response(body, status=200)
    for line in head.decode("latin-1").split("\r\n"):
        key, _, value = line.partition(":")
        if key.lower() == "status":
            response.status = value.strip()
        elif key:
            response.headers[key] = value.strip()
    return response


def compare(double: "GitHubDouble", owner: str, name: str, basehead: str) -> Response:
    """GET /repos/{owner}/{repo}/compare/{base}...{head}: the merge base, as GitHub computes it."""
    from flask import jsonify

    from .double import _error, git

    repo = double._repo(owner, name)
    if isinstance(repo, Response):
        return repo
    base, dots, head = basehead.partition("...")
    try:
        shas = [git(repo.path, "rev-parse", ref).decode().strip() for ref in (base, head)]
        fork = git(repo.path, "merge-base", *shas).decode().strip()
        ahead = int(git(repo.path, "rev-list", "--count", f"{fork}..{shas[1]}"))
        behind = int(git(repo.path, "rev-list", "--count", f"{fork}..{shas[0]}"))
    except subprocess.CalledProcessError:
        return _error(404, "Not Found")
    url = f"{double.url}/repos/{repo.full_name}/compare/{basehead}"
    status = "identical" if ahead == behind == 0 else "ahead" if not behind else "behind" if not ahead else "diverged"
    return jsonify({"url": url, "html_url": url, "permalink_url": url, "diff_url": url, "patch_url": url,
                    "base_commit": {"sha": shas[0]}, "merge_base_commit": {"sha": fork}, "status": status,
                    "ahead_by": ahead, "behind_by": behind, "total_commits": ahead, "commits": []})
