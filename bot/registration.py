"""GET /setup: register the GitHub App from app.yml through GitHub's manifest flow, as Probot offers it.

Served only while the App has no credentials and the operator asked for it (WITNESS_REGISTRATION
with GITHUB_APP_FILE). The page posts app.yml as a manifest to GitHub (or the GHES host), with a
one-time `state`; GitHub sends the browser back to /setup/callback with a `code`, which is traded
once (`POST /app-manifests/{code}/conversions`) for the App's id, webhook secret and private key.
They go to GITHUB_APP_FILE, mode 0600, never to a log or a page; the page links to the App's
installation page.
"""

from __future__ import annotations

import json
import logging
import os
import re
import secrets
from pathlib import Path
from typing import Any

import requests
import yaml
from flask import Blueprint, Response, render_template_string, request

from bot.answers import answer, wired
from bot.pages import PAGE, STYLE

APP_YML = Path(__file__).resolve().parent.parent / "app.yml"
STATE_TTL = 3600  # GitHub: the whole flow within one hour
ORG = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$")  # a GitHub account login
log = logging.getLogger("witness_gate.bot")
registration = Blueprint("registration", __name__)


class RegistrationError(Exception):
    """A step of the flow failed; the message says what to do next."""

    def __init__(self, status: int, message: str) -> None:
        self.status = status
        super().__init__(message)


# -- the pure core: what to send, and what to keep ------------------------------------------------
def manifest_for(app_yml: str, public_url: str) -> dict[str, Any]:
    """app.yml as a manifest for this server: webhooks and the way back point at `public_url`."""
    manifest = yaml.safe_load(app_yml)
    if not isinstance(manifest, dict) or not manifest.get("default_permissions"):
        raise RegistrationError(500, "app.yml is not a GitHub App manifest (no default_permissions)")
    return {**manifest, "url": public_url, "hook_attributes": {"url": f"{public_url}/webhook", "active": True},
            "redirect_url": f"{public_url}/setup/callback"}


def registration_url(github_url: str, org: str, state: str) -> str:
    """GitHub's page that takes the manifest: a personal account's, or an organization's."""
    if org and not ORG.match(org):
        raise RegistrationError(400, f"organization {org!r} is not a GitHub account name (letters, digits, '-')")
    where = f"/organizations/{org}" if org else ""
    return f"{github_url}{where}/settings/apps/new?state={state}"


def credentials(conversion: dict[str, Any]) -> dict[str, str]:
    """What the App needs to start, under the environment variables' names (appcore.settings reads them)."""
    missing = [k for k in ("id", "slug", "webhook_secret", "pem", "html_url") if not conversion.get(k)]
    if missing:
        raise RegistrationError(502, f"GitHub's conversion answer lacks {', '.join(missing)}; start again at /setup")
    return {"GITHUB_APP_ID": str(conversion["id"]), "GITHUB_APP_SLUG": conversion["slug"],
            "GITHUB_WEBHOOK_SECRET": conversion["webhook_secret"], "GITHUB_PRIVATE_KEY": conversion["pem"],
            "installation_url": installation_url(conversion["html_url"])}


def installation_url(html_url: str) -> str:
    return f"{html_url.rstrip('/')}/installations/new"


# -- the shells: Redis for the state, GitHub for the code, the disk for the credentials ------------
def write_private(path: str, values: dict[str, str]) -> None:
    """Create `path` with mode 0600 from the start; never replace a file that is there."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    except FileExistsError:
        raise RegistrationError(409, f"{path} exists already: the App is registered; restart witness-gate with "
                                "GITHUB_APP_FILE set and WITNESS_REGISTRATION unset") from None
    except OSError as exc:
        raise RegistrationError(500, f"cannot create {path} ({exc.strerror}); make its folder and let this "
                                "process write there, then start again at /setup") from None
    with os.fdopen(fd, "w") as out:
        os.fchmod(out.fileno(), 0o600)  # whatever the umask
        json.dump(values, out, indent=1)
        out.write("\n")
        out.flush()
        os.fsync(out.fileno())


def exchange(api_url: str, code: str, timeout: float) -> dict[str, Any]:
    """POST /app-manifests/{code}/conversions: needs no authentication, works once, within the hour."""
    if not re.fullmatch(r"[A-Za-z0-9_-]{1,100}", code):
        raise RegistrationError(400, "the code GitHub sent back is malformed; start again at /setup")
    try:
        reply = requests.post(f"{api_url}/app-manifests/{code}/conversions", timeout=timeout,
                              headers={"Accept": "application/vnd.github+json", "X-GitHub-Api-Version": "2022-11-28"})
    except requests.RequestException as exc:
        raise RegistrationError(502, f"cannot reach GitHub at {api_url} ({type(exc).__name__}); check "
                                "GITHUB_API_URL, then start again at /setup") from None
    if reply.status_code == 404:
        raise RegistrationError(400, "GitHub does not know this code: it was used already or is over an hour old; "
                                "start again at /setup (delete the half-registered App in GitHub's settings)")
    if reply.status_code != 201:
        raise RegistrationError(502, f"GitHub answered {reply.status_code} to the code conversion; start again at /setup")
    return reply.json()


def _state_key(state: str) -> str:
    return f"witness:registration:{state}"


def _refusal() -> tuple[Response, int] | None:
    settings = wired("settings")
    if not settings.register_to:
        return answer(404, "registration is off: set WITNESS_REGISTRATION=on and GITHUB_APP_FILE on an App "
                      "that has no credentials yet")
    if Path(settings.register_to).exists():
        return answer(409, f"the App is registered ({settings.register_to} exists); restart witness-gate with "
                      "GITHUB_APP_FILE set and WITNESS_REGISTRATION unset")
    return None


@registration.get("/setup")
def setup() -> Response | tuple[Response, int]:
    refused = _refusal()
    if refused:
        return refused
    settings = wired("settings")
    state = secrets.token_urlsafe(32)
    try:
        action = registration_url(settings.github_url, request.args.get("org", "").strip(), state)
        manifest = manifest_for(APP_YML.read_text(), settings.public_url)
    except RegistrationError as exc:
        return answer(exc.status, str(exc))
    wired("redis").set(_state_key(state), "1", ex=STATE_TTL)
    return _page("Register witness-gate", SETUP, action=action, manifest=json.dumps(manifest),
                 github=settings.github_url, manifest_shown=json.dumps(manifest, indent=1))


@registration.get("/setup/callback")
def callback() -> Response | tuple[Response, int]:
    refused = _refusal()
    if refused:
        return refused
    settings, redis = wired("settings"), wired("redis")
    state, code = request.args.get("state", ""), request.args.get("code", "")
    if not state or not redis.delete(_state_key(state)):  # each state works once, for an hour
        return answer(400, "the state GitHub sent back is not one this server gave out (or it is over an hour "
                      "old, or used); nothing was registered here: start again at /setup")
    try:
        conversion = exchange(settings.api_url, code, settings.retry.timeout)
        values = credentials(conversion)
        write_private(settings.register_to, values)
    except RegistrationError as exc:
        return answer(exc.status, str(exc))
    owner = str((conversion.get("owner") or {}).get("login", "?"))  # so the operator sees whose App this is
    log.info("registered GitHub App %s (%s, owned by %s); its credentials are in %s", values["GITHUB_APP_ID"],
             values["GITHUB_APP_SLUG"], owner, settings.register_to)
    return _page("witness-gate is registered", DONE, app_id=values["GITHUB_APP_ID"], slug=values["GITHUB_APP_SLUG"],
                 owner=owner, path=settings.register_to, install=values["installation_url"])


def _page(title: str, template: str, **values: Any) -> Response:
    # Jinja autoescapes every {{ }}; the body is rendered first, then set in the house page
    body = render_template_string(template, **values)
    return Response(render_template_string(PAGE, title=title, style=STYLE, body=body), mimetype="text/html")


SETUP = """
<h1>Register witness-gate as a GitHub App</h1>
<p>This sends <code>app.yml</code> to <code>{{ github }}</code> as a manifest. GitHub asks you to name the App and
confirm, then sends you back here; this server then keeps the App's credentials and shows you where to install it.</p>
<form id="register" method="post" action="{{ action }}">
<input type="hidden" name="manifest" value="{{ manifest }}">
<button type="submit">Register on {{ github }}</button></form>
<form method="get" action="/setup"><p>For an organization instead of your own account:
<input name="org" placeholder="organization"> <button type="submit">use it</button></p></form>
<h2>the manifest</h2><pre id="manifest">{{ manifest_shown }}</pre>
"""

DONE = """
<h1>witness-gate is registered</h1>
<p>GitHub App <code id="slug">{{ slug }}</code> (id <code id="app-id">{{ app_id }}</code>), owned by
<code id="owner">{{ owner }}</code>. Its id, webhook secret
and private key are in <code id="path">{{ path }}</code> (mode 0600).</p>
<ol><li><a id="install" href="{{ install }}">Install the App</a> on the repositories to gate.</li>
<li>Restart witness-gate with <code>GITHUB_APP_FILE={{ path }}</code> and without <code>WITNESS_REGISTRATION</code>
(web receiver, workers and reconciler alike).</li></ol>
"""
