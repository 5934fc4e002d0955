"""The GitHub App manifest flow, as the double plays it: GitHub's registration page and the code conversion.

GitHub's side of the flow has two halves. On the web (github.com, or the GHES host), a POST of a
`manifest` form to `/settings/apps/new` (or `/organizations/<org>/settings/apps/new`), with a
`state` in the query, shows the person a page to confirm; once they do, GitHub registers the App
and sends the browser to the manifest's `redirect_url` with a temporary `code` and the same
`state`. On the REST API, `POST /app-manifests/{code}/conversions` (no authentication) trades the
code, once and within an hour, for the App's id, slug, webhook secret and private key.

The double confirms at once, like a person who clicks "Create GitHub App", and the App it
registers becomes the double's App: its id and key are the ones the double's JWT checks accept
from then on (`restore()` brings the test App back).
"""

from __future__ import annotations

import json
import re
import secrets
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode, urlsplit

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from flask import Flask, Response, jsonify, request

CODE_TTL = 3600  # GitHub: all three steps of the flow within one hour
WEB_PATH = re.compile(r"^(?:/organizations/[^/]+)?/settings/apps/new$")


def is_web(path: str) -> bool:
    """GitHub's registration page lives on the web host, not in the REST API's description."""
    return bool(WEB_PATH.match(path))


@dataclass
class Registered:
    manifest: dict[str, Any]
    owner: str
    state: str
    created: float = field(default_factory=time.time)
    converted: bool = False


class ManifestFlow:
    def __init__(self, double) -> None:
        self.double = double
        self.pending: dict[str, Registered] = {}  # code -> what the person confirmed
        self.converted: list[dict[str, Any]] = []  # every conversion answered, secrets included
        self._test_app = (double.app_id, double.app_slug, double.private_key_pem, double.public_key)

    def install(self, app: Flask) -> None:
        app.add_url_rule("/settings/apps/new", view_func=self.register, methods=["POST"])
        app.add_url_rule("/organizations/<org>/settings/apps/new", view_func=self.register, methods=["POST"],
                         endpoint="register_for_org")
        app.add_url_rule("/app-manifests/<code>/conversions", view_func=self.conversion, methods=["POST"])

    def reset(self) -> None:
        self.pending.clear()
        self.converted.clear()
        self.restore()

    def restore(self) -> None:
        d = self.double
        d.app_id, d.app_slug, d.private_key_pem, d.public_key = self._test_app

    # -- the web page: the person confirms, GitHub redirects with a code -------------------------
    def register(self, org: str | None = None) -> Response:
        raw = request.form.get("manifest", "")
        try:
            manifest = json.loads(raw)
        except ValueError:
            return _page(422, "Invalid GitHub App configuration: the manifest is not JSON")
        problem = _refusal(manifest)
        if problem:
            return _page(422, f"Invalid GitHub App configuration: {problem}")
        code = secrets.token_hex(16)
        state = request.args.get("state", "")
        self.pending[code] = Registered(manifest, org or "octocat", state)
        query = {"code": code, **({"state": state} if state else {})}
        response = Response(status=302)
        response.headers["Location"] = f"{manifest['redirect_url']}?{urlencode(query)}"
        return response

    # -- the REST API: the code, once, for the credentials --------------------------------------
    def conversion(self, code: str) -> Response | tuple[Response, int]:
        entry = self.pending.get(code)
        if entry is None or entry.converted or time.time() - entry.created > CODE_TTL:
            return _json(404, {"message": "Not Found", "documentation_url": "https://docs.github.com/rest"})
        entry.converted = True
        app_id = self.double.next_id()
        name = entry.manifest.get("name") or f"app-{app_id}"
        slug = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")
        key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.TraditionalOpenSSL,
                                serialization.NoEncryption()).decode()
        d = self.double
        d.app_id, d.app_slug, d.private_key_pem, d.public_key = app_id, slug, pem, key.public_key()
        body = {"id": app_id, "slug": slug, "node_id": f"A_{app_id}", "name": name,
                "owner": {"login": entry.owner, "id": 1, "node_id": "U_1", "type": "Organization"},
                "description": entry.manifest.get("description", ""), "external_url": entry.manifest["url"],
                "html_url": f"{d.url}/apps/{slug}", "created_at": _now(), "updated_at": _now(),
                "permissions": {"metadata": "read", **entry.manifest.get("default_permissions", {})},
                "events": list(entry.manifest.get("default_events", [])),
                "client_id": f"Iv1.{secrets.token_hex(8)}", "client_secret": secrets.token_hex(20),
                "webhook_secret": secrets.token_hex(20), "pem": pem}
        self.converted.append({**body, "manifest": entry.manifest})
        return _json(201, body)


def _refusal(manifest: Any) -> str:
    """What GitHub's registration page would refuse in a manifest, or ''."""
    if not isinstance(manifest, dict):
        return "the manifest is not a JSON object"
    if not _is_url(manifest.get("url")):
        return "url (the App's homepage) is required"
    hook = manifest.get("hook_attributes") or {}
    if hook and not _is_url(hook.get("url")):
        return "hook_attributes.url must be a full URL"
    if not _is_url(manifest.get("redirect_url")):
        return "redirect_url must be a full URL (the double always redirects)"
    return ""


def _is_url(value: Any) -> bool:
    parts = urlsplit(value) if isinstance(value, str) else None
    return bool(parts and parts.scheme in ("http", "https") and parts.netloc)


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def _json(status: int, body: dict[str, Any]) -> tuple[Response, int]:
    return jsonify(body), status


def _page(status: int, text: str) -> Response:
    return Response(f"<!doctype html><p>{text}</p>", status=status, mimetype="text/html")
