"""Settings of the App, read once from the environment by whoever starts (app factory, worker)."""

from __future__ import annotations

import json
import os
import secrets
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from witness_gate.records.store import DEFAULT_DATABASE_URL


@dataclass(frozen=True)
class Step:
    """What to do after a failed GitHub request: `retry` or `wait` `seconds` here, `defer` the whole job
    `seconds` later (a wait too long for a worker to sleep through), or `fail` now."""

    kind: str
    seconds: float = 0.0


@dataclass(frozen=True)
class RetryPolicy:
    """How long to wait before another try of a GitHub request, or None when another try cannot help."""

    attempts: int = 4  # tries against errors (5xx, no answer)
    backoff: float = 1.0  # seconds; doubles each attempt
    max_wait: float = 10.0  # the longest rate-limit wait slept in the worker; longer ones defer the job
    timeout: float = 15.0  # per request
    waits: int = 4  # rate-limit waits slept in one call: a budget of their own, not the errors'
    max_defer: float = 1800.0  # a rate limit that resets later than this fails now, with the reason
    secondary_wait: float = 60.0  # GitHub: wait at least a minute after a secondary rate limit

    def rate_limit(self, status: int, headers: dict[str, Any], secondary: bool = False) -> float | None:
        """Seconds a rate limit asks for, or None when the answer is no rate limit. `secondary`: the
        message says so (GitHub sends secondary limits as 403 or 429, often with neither header)."""
        lowered = {str(k).lower(): v for k, v in headers.items()}
        after, reset = lowered.get("retry-after"), lowered.get("x-ratelimit-reset")
        limited = status == 429 or (status == 403 and (secondary or after is not None
                                                         or lowered.get("x-ratelimit-remaining") == "0"))
        if not limited:
            return None
        if after is not None:
            wait = float(after)
        elif reset is not None and not secondary:
            wait = max(0.0, float(reset) - time.time())
        else:
            wait = self.secondary_wait  # GitHub's advice for a limit without a header
        return max(wait, self.secondary_wait) if secondary else wait

    def wait(self, status: int, headers: dict[str, Any], attempt: int, secondary: bool = False) -> float | None:
        """Seconds to sleep before try `attempt` + 1 here, or None when sleeping here cannot help."""
        rate = self.rate_limit(status, headers, secondary)
        if rate is not None:
            return rate if rate <= self.max_wait else None
        if status == 0 or status >= 500:
            return self.backoff * 2 ** (attempt - 1)
        return None  # 4xx: asking again changes nothing

    def step(self, status: int, headers: dict[str, Any], *, errors: int, waits: int, secondary: bool = False) -> Step:
        """The next step after `errors` error retries and `waits` rate-limit waits already spent."""
        rate = self.rate_limit(status, headers, secondary)
        if rate is not None:
            if rate > self.max_defer:
                return Step("fail")
            if rate > self.max_wait or waits >= self.waits:
                return Step("defer", max(rate, 1.0))
            return Step("wait", rate)
        wait = self.wait(status, headers, errors + 1)
        if wait is None or errors + 1 >= self.attempts:
            return Step("fail")
        return Step("retry", wait)


class SettingsError(RuntimeError):
    """The environment cannot start the App; the message lists what to set."""


@dataclass(frozen=True)
class Settings:
    app_id: str
    private_key: str
    webhook_secret: bytes
    api_url: str = "https://api.github.com"
    redis_url: str = "redis://localhost:6379/0"
    database_url: str = DEFAULT_DATABASE_URL
    public_url: str = "http://localhost:8000"
    sandbox: str = "bwrap"
    queue: str = "witness"
    admin_token: str = ""
    app_slug: str = ""  # to recognise the bot's own comments as "<slug>[bot]"
    retry: RetryPolicy = RetryPolicy()
    github_url: str = "https://github.com"  # the web host: github.com, or the GHES host, for the manifest flow
    register_to: str = ""  # set only while the App has no credentials and the operator asked to register it
    cache: Path = Path(tempfile.gettempdir())  # WITNESS_CACHE: checkouts, git objects, set-up environments

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> "Settings":
        env = os.environ if env is None else env
        app_file = env.get("GITHUB_APP_FILE", "")
        env = {**_app_file(app_file, registering=bool(env.get("WITNESS_REGISTRATION"))), **env}
        if env.get("WITNESS_REGISTRATION") and not any(env.get(name) for name in CREDENTIALS):
            if not app_file:
                raise SettingsError("cannot start witness-gate; set these environment variables:\n  "
                                    "GITHUB_APP_FILE: where registration writes the App's credentials")
            placeholders = {"GITHUB_APP_ID": "-", "GITHUB_PRIVATE_KEY": "PRIVATE KEY", "GITHUB_WEBHOOK_SECRET": "-"}
            # no one knows this secret, so no webhook verifies until the App is registered and restarted
            return replace(cls.from_env({**env, **placeholders}), app_id="", private_key="",
                           webhook_secret=secrets.token_bytes(32), register_to=app_file)
        key, problems = _private_key(env)
        for name, what in (("GITHUB_APP_ID", "the App's id"),
                           ("GITHUB_WEBHOOK_SECRET", "the webhook secret set on the App")):
            if not env.get(name):
                problems.append(f"{name}: {what}")
        retry = _retry(env, problems)
        sandbox = env.get("WITNESS_SANDBOX", "bwrap")
        if sandbox not in ("bwrap", "none"):
            problems.append(f"WITNESS_SANDBOX={sandbox}: must be bwrap (default) or none")
        if problems:
            raise SettingsError("cannot start witness-gate; set these environment variables:\n  "
                                + "\n  ".join(problems))
        return cls(
            app_id=env["GITHUB_APP_ID"],
            private_key=key,
            webhook_secret=env["GITHUB_WEBHOOK_SECRET"].encode("utf-8"),
            api_url=env.get("GITHUB_API_URL", "https://api.github.com").rstrip("/"),
            redis_url=env.get("REDIS_URL", "redis://localhost:6379/0"),
            database_url=env.get("DATABASE_URL", DEFAULT_DATABASE_URL),
            public_url=env.get("WITNESS_PUBLIC_URL", "http://localhost:8000").rstrip("/"),
            sandbox=sandbox,
            queue=env.get("WITNESS_QUEUE", "witness"),
            admin_token=env.get("WITNESS_ADMIN_TOKEN", ""),
            app_slug=env.get("GITHUB_APP_SLUG", ""),
            retry=retry,
            github_url=env.get("GITHUB_URL", "https://github.com").rstrip("/"),
            cache=Path(env.get("WITNESS_CACHE") or tempfile.gettempdir()),
        )


APP_FILE_KEYS = ("GITHUB_APP_ID", "GITHUB_WEBHOOK_SECRET", "GITHUB_PRIVATE_KEY", "GITHUB_APP_SLUG")
CREDENTIALS = ("GITHUB_APP_ID", "GITHUB_WEBHOOK_SECRET", "GITHUB_PRIVATE_KEY", "GITHUB_PRIVATE_KEY_PATH")


def _app_file(path: str, *, registering: bool) -> dict[str, str]:
    """The credentials the manifest flow wrote (JSON, mode 0600); the environment wins over them."""
    if not path:
        return {}
    try:
        values = json.loads(Path(path).read_text())
    except FileNotFoundError:
        if registering:
            return {}  # not registered yet: the set-up page will write it
        raise SettingsError(f"cannot start witness-gate: GITHUB_APP_FILE={path} does not exist; register the App "
                            "first (WITNESS_REGISTRATION=on, then open /setup), or unset GITHUB_APP_FILE") from None
    except (OSError, ValueError) as exc:
        raise SettingsError(f"cannot start witness-gate: GITHUB_APP_FILE={path}: cannot read it as JSON ({exc})") from None
    if not isinstance(values, dict):
        raise SettingsError(f"cannot start witness-gate: GITHUB_APP_FILE={path}: expected a JSON object")
    return {name: str(values[name]) for name in APP_FILE_KEYS if values.get(name)}


def _private_key(env: Mapping[str, str]) -> tuple[str, list[str]]:
    """The App's private key (PEM), from GITHUB_PRIVATE_KEY or the file GITHUB_PRIVATE_KEY_PATH names."""
    problems = []
    key = env.get("GITHUB_PRIVATE_KEY", "")
    key_path = env.get("GITHUB_PRIVATE_KEY_PATH", "")
    if not key and key_path:
        try:
            key = Path(key_path).read_text()
        except OSError as exc:
            problems.append(f"GITHUB_PRIVATE_KEY_PATH={key_path}: cannot read ({exc.strerror})")
    if not key and not key_path:
        problems.append("GITHUB_PRIVATE_KEY or GITHUB_PRIVATE_KEY_PATH: the App's private key (PEM)")
    if key and "PRIVATE KEY" not in key:
        problems.append("the private key is not PEM text (expected '-----BEGIN ... PRIVATE KEY-----')")
    return key, problems


def _retry(env: Mapping[str, str], problems: list[str]) -> RetryPolicy:
    try:
        return RetryPolicy(attempts=int(env.get("WITNESS_GITHUB_ATTEMPTS", 4)),
                           backoff=float(env.get("WITNESS_GITHUB_BACKOFF", 1.0)),
                           max_wait=float(env.get("WITNESS_GITHUB_MAX_WAIT", 10.0)),
                           timeout=float(env.get("WITNESS_GITHUB_TIMEOUT", 15.0)),
                           waits=int(env.get("WITNESS_GITHUB_WAITS", 4)),
                           max_defer=float(env.get("WITNESS_GITHUB_MAX_DEFER", 1800.0)))
    except ValueError:
        problems.append("WITNESS_GITHUB_ATTEMPTS, _BACKOFF, _MAX_WAIT, _TIMEOUT, _WAITS, _MAX_DEFER: numbers "
                        "(attempts and waits whole ones)")
        return RetryPolicy()
