"""Registering the App through GitHub's manifest flow, against the double over real HTTP, then starting with it."""

from __future__ import annotations

import html
import json
import logging
import os
import re
import stat
import uuid
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import requests
import yaml

from appcore.settings import Settings, SettingsError
from bot.registration import RegistrationError, manifest_for, registration_url
from bot.signature import sign

ROOT = Path(__file__).resolve().parents[2]
REDIS_URL = os.environ.get("WITNESS_TEST_REDIS_URL", "redis://127.0.0.1:6379/9")
PUBLIC = "https://witness.example.test"


def app_env(double, tmp_path: Path, **extra: str) -> dict[str, str]:
    return {"GITHUB_API_URL": double.url, "GITHUB_URL": double.url, "REDIS_URL": REDIS_URL,
            "DATABASE_URL": f"sqlite:///{tmp_path / 'w.db'}", "WITNESS_PUBLIC_URL": PUBLIC,
            "WITNESS_QUEUE": f"registration-{uuid.uuid4().hex[:8]}", **extra}


def client_for(settings: Settings):
    from bot.app import create_app

    return create_app(settings).test_client()


def registering(double, tmp_path: Path):
    path = tmp_path / "secrets" / "witness-app.json"
    path.parent.mkdir()
    env = app_env(double, tmp_path, WITNESS_REGISTRATION="on", GITHUB_APP_FILE=str(path))
    return client_for(Settings.from_env(env)), path


def confirm_on_github(client, double, org: str = "") -> str:
    """What the operator's browser does: open /setup, submit its form to GitHub, come back with the code."""
    page = client.get("/setup" + (f"?org={org}" if org else ""))
    assert page.status_code == 200, page.get_data(as_text=True)
    text = page.get_data(as_text=True)
    action = html.unescape(re.search(r'<form id="register" method="post" action="([^"]+)"', text).group(1))
    manifest = html.unescape(re.search(r'name="manifest" value="([^"]*)"', text).group(1))
    assert action.startswith(double.url + (f"/organizations/{org}" if org else "") + "/settings/apps/new?state=")
    for attempt in range(3):  # as a browser would, again when the connection was reset (seen once under CI's load)
        try:
            reply = requests.post(action, data={"manifest": manifest}, allow_redirects=False, timeout=10)
            break
        except requests.ConnectionError:
            if attempt == 2:
                raise
    assert reply.status_code == 302, reply.text
    back = urlsplit(reply.headers["Location"])
    assert f"{back.scheme}://{back.netloc}{back.path}" == f"{PUBLIC}/setup/callback"
    return f"{back.path}?{back.query}"


def test_a_newcomer_registers_the_app_and_it_starts_with_what_was_written(double, tmp_path, caplog):
    client, path = registering(double, tmp_path)
    unsigned = b'{"zen": "Keep it logically awesome."}'
    refused = client.post("/webhook", data=unsigned, headers={"X-GitHub-Event": "ping", "X-GitHub-Delivery": "d0",
                                                              "X-Hub-Signature-256": sign(b"", unsigned)})
    assert refused.status_code == 401  # before registration no secret verifies a webhook, the empty one neither

    caplog.set_level(logging.DEBUG)
    done = client.get(confirm_on_github(client, double))
    page = done.get_data(as_text=True)
    assert done.status_code == 200, page
    [conversion] = double.manifests.converted
    install = f"{double.url}/apps/{conversion['slug']}/installations/new"
    assert f'href="{install}"' in page  # the next step: install it
    sent = conversion["manifest"]
    app_yml = yaml.safe_load((ROOT / "app.yml").read_text())
    assert sent["default_permissions"] == app_yml["default_permissions"]
    assert sent["default_events"] == app_yml["default_events"]
    assert sent["hook_attributes"]["url"] == f"{PUBLIC}/webhook" and sent["redirect_url"] == f"{PUBLIC}/setup/callback"

    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    written = json.loads(path.read_text())
    assert written["GITHUB_APP_ID"] == str(conversion["id"])
    assert written["GITHUB_WEBHOOK_SECRET"] == conversion["webhook_secret"]
    for secret in (conversion["webhook_secret"], conversion["pem"], conversion["client_secret"]):
        assert secret not in caplog.text and secret not in page
    assert conversion["client_secret"] not in path.read_text()  # not needed, not kept

    # the App, restarted on the file: the receiver verifies with the written secret ...
    settings = Settings.from_env(app_env(double, tmp_path, GITHUB_APP_FILE=str(path)))
    assert (settings.app_id, settings.app_slug, settings.register_to) == (str(conversion["id"]), conversion["slug"], "")
    body = json.dumps({"action": "opened", "number": 3,
                       "pull_request": {"number": 3, "head": {"sha": "a" * 40}, "base": {"sha": "b" * 40}},
                       "repository": {"full_name": "acme/shop", "id": 9}, "installation": {"id": 77}}).encode()
    restarted = client_for(settings)
    accepted = restarted.post("/webhook", data=body, headers={
        "X-GitHub-Event": "pull_request", "X-GitHub-Delivery": f"reg-{uuid.uuid4()}",
        "X-Hub-Signature-256": sign(written["GITHUB_WEBHOOK_SECRET"].encode(), body)})
    assert accepted.status_code == 202, accepted.get_json()
    assert restarted.get("/setup").status_code == 404  # and the set-up page is gone for good
    # ... and the workers authenticate to GitHub with the written key
    from redis import Redis
    from worker.github_api import installation_token

    double.installations[77] = {"acme/shop"}
    assert installation_token(settings, Redis.from_url(REDIS_URL), 77, fresh=True).startswith("ghs_")


def test_the_set_up_page_is_there_only_when_asked_and_never_once_the_app_is_configured(double, tmp_path):
    key = tmp_path / "app.pem"
    key.write_text(double.private_key_pem)
    configured = app_env(double, tmp_path, GITHUB_APP_ID=str(double.app_id), GITHUB_PRIVATE_KEY_PATH=str(key),
                         GITHUB_WEBHOOK_SECRET="s3cret")
    for env in (configured, {**configured, "WITNESS_REGISTRATION": "on", "GITHUB_APP_FILE": str(tmp_path / "app.json")}):
        client = client_for(Settings.from_env(env))
        for route in ("/setup", "/setup/callback?code=abc&state=def"):
            assert client.get(route).status_code == 404
    assert not (tmp_path / "app.json").exists()
    with pytest.raises(SettingsError, match="GITHUB_APP_FILE: where registration writes"):
        Settings.from_env(app_env(double, tmp_path, WITNESS_REGISTRATION="on"))


def test_a_state_this_server_never_gave_out_registers_nothing(double, tmp_path):
    client, path = registering(double, tmp_path)
    back = confirm_on_github(client, double)
    forged = re.sub(r"state=[^&]+", "state=forged", back)
    refused = client.get(forged)
    assert refused.status_code == 400 and "start again at /setup" in refused.get_json()["message"]
    assert not path.exists() and double.calls_to("POST", "/app-manifests/") == []
    assert client.get(back).status_code == 200 and path.exists()  # the genuine answer still works, once
    again = client.get(back)
    assert again.status_code == 409 and "restart witness-gate" in again.get_json()["message"]


def test_a_second_registration_never_replaces_the_credentials_file(double, tmp_path):
    client, path = registering(double, tmp_path)
    first, second = confirm_on_github(client, double), confirm_on_github(client, double)
    assert client.get(first).status_code == 200
    kept = path.read_text()
    assert client.get(second).status_code == 409
    assert path.read_text() == kept and len(double.manifests.converted) == 1


def test_registration_for_an_organization_goes_to_its_settings(double, tmp_path):
    client, path = registering(double, tmp_path)
    bad = client.get("/setup?org=../evil")
    assert bad.status_code == 400 and "not a GitHub account name" in bad.get_json()["message"]
    done = client.get(confirm_on_github(client, double, org="acme"))
    assert done.status_code == 200 and '<code id="owner">acme</code>' in done.get_data(as_text=True)
    assert double.manifests.converted[0]["owner"]["login"] == "acme"


def test_the_manifest_is_app_yml_pointed_at_this_server():
    manifest = manifest_for((ROOT / "app.yml").read_text(), "https://gate.example.org")
    app_yml = yaml.safe_load((ROOT / "app.yml").read_text())
    assert {k: v for k, v in manifest.items() if k not in ("url", "hook_attributes", "redirect_url")} == {
        k: v for k, v in app_yml.items() if k not in ("url", "hook_attributes", "redirect_url")}
    assert manifest["hook_attributes"] == {"url": "https://gate.example.org/webhook", "active": True}
    assert registration_url("https://ghe.example.org", "", "s") == "https://ghe.example.org/settings/apps/new?state=s"
    with pytest.raises(RegistrationError):
        manifest_for("just: text\n", "https://gate.example.org")


@pytest.mark.parametrize("content, message", [
    (None, "does not exist; register the App first"),
    ("{not json", "cannot read it as JSON"),
    ('["a"]', "expected a JSON object"),
])
def test_a_credentials_file_that_cannot_serve_stops_start_up_with_what_to_do(double, tmp_path, content, message):
    path = tmp_path / "app.json"
    if content is not None:
        path.write_text(content)
    with pytest.raises(SettingsError, match=re.escape(message)) as caught:
        Settings.from_env(app_env(double, tmp_path, GITHUB_APP_FILE=str(path)))
    assert f"GITHUB_APP_FILE={path}" in str(caught.value)
