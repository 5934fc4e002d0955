"""Bad input of every shape, generated: never a crash, never a 5xx, never an enqueue without a valid signature."""

import json
import os
import uuid

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from redis import Redis

from appcore.settings import Settings
from bot.signature import sign
from witness_gate.model.canonical import CanonicalError, canonical_bytes, loads_strict
from witness_gate.config.schema import ConfigError, parse_config
from witness_gate.sandbox.judge.verdicts import verdict_of
from witness_gate.sandbox.readout import _protocol_verdict
from strategies import json_values

REDIS_URL = os.environ.get("WITNESS_TEST_REDIS_URL", "redis://127.0.0.1:6379/9")
SECRET = b"fuzz-secret"


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    from bot.app import create_app

    settings_ = Settings("1", "-----BEGIN RSA PRIVATE KEY-----\n", SECRET, redis_url=REDIS_URL,
                         database_url=f"sqlite:///{tmp_path_factory.mktemp('fuzz') / 'w.db'}",
                         queue=f"fuzz-{uuid.uuid4().hex[:8]}")
    app = create_app(settings_)
    redis = Redis.from_url(REDIS_URL)
    yield app.test_client(), redis, settings_.queue
    for key in redis.scan_iter(f"rq:*{settings_.queue}*"):
        redis.delete(key)
    for key in redis.scan_iter("witness:delivery:fuzz-*"):
        redis.delete(key)


headers_st = st.dictionaries(
    st.sampled_from(["X-GitHub-Event", "X-GitHub-Delivery", "X-Hub-Signature-256", "Content-Type"]),
    st.text(alphabet=st.characters(min_codepoint=32, max_codepoint=126), max_size=80), max_size=4)
bodies = st.one_of(st.binary(max_size=300), json_values.map(lambda v: json.dumps(v).encode()),
                   st.just(b'{"action": "opened"}'))


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(headers=headers_st, body=bodies, sign_it=st.booleans(),
       event=st.sampled_from(["pull_request", "issue_comment", "check_run", "check_suite", "ping", "push", ""]))
def test_webhook_never_5xx_and_never_enqueues_unsigned(client, headers, body, sign_it, event):
    test_client, redis, queue = client
    before = redis.llen(f"rq:queue:{queue}")
    headers = dict(headers)
    if sign_it:
        headers["X-Hub-Signature-256"] = sign(SECRET, body)
        headers["X-GitHub-Event"] = event
        headers["X-GitHub-Delivery"] = f"fuzz-{uuid.uuid4()}"
    response = test_client.post("/webhook", data=body, headers=headers)
    assert response.status_code < 500, response.get_data(as_text=True)
    assert response.is_json
    valid = headers.get("X-Hub-Signature-256") == sign(SECRET, body)
    if not valid:
        assert response.status_code == 401
        assert redis.llen(f"rq:queue:{queue}") == before


yaml_text = st.one_of(
    st.text(max_size=200),
    st.lists(st.tuples(st.sampled_from(["version", "paths", "properties", "policy", "freeze", "conclusions",
                                        "  impl", "  runs", "  seed", "  fixtures", "  max_hours", "bogus"]),
                       st.sampled_from([": 1", ": -3", ": x", ": [a, b]", ": {a: 1}", ":", ": null", ": 'é'",
                                        ": [[[", ": *a", ": &a 1", ": 1e999", ": .inf"])),
             max_size=8).map(lambda rows: "\n".join(k + v for k, v in rows)),
)


@settings(max_examples=300, deadline=None)
@given(yaml_text)
def test_witness_yml_is_parsed_or_refused_with_a_located_error(text):
    try:
        parse_config(text)
    except ConfigError as exc:
        assert exc.problems and all(p.startswith(".witness.yml") for p in exc.problems)


deep = st.integers(1, 3000).map(lambda n: "[" * n + "]" * n)
odd = st.one_of(deep, st.text(max_size=50).map(json.dumps),
                st.integers(min_value=-(10**400), max_value=10**400).map(str),
                st.sampled_from(['{"a": NaN}', '"\\ud800"', '{"a":1,"a":2}', "1e999", "-", "\ufeff{}", "{}garbage"]))


@settings(max_examples=300, deadline=None)
@given(odd)
def test_fixtures_load_or_are_refused_by_name(text):
    try:
        value = loads_strict(text, source="f.json")
    except CanonicalError as exc:
        assert str(exc).startswith("f.json")
    else:
        try:
            canonical_bytes(value)
        except CanonicalError as exc:
            assert "canonical" in str(exc) or "NaN" in str(exc) or "nesting" in str(exc)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=2000), st.integers(-300, 300))
def test_runner_output_is_data_never_trusted(stdout, code):
    result = _protocol_verdict(code, stdout, "", 0.0)
    assert result.outcome in ("pass", "fail", "transport")
    if result.outcome == "fail":
        assert result.reason and len(result.reason) <= 200 and "\n" not in result.reason
    if code not in (0, 1):
        assert result.outcome == "transport"


@given(st.one_of(json_values, st.binary(), st.tuples(st.integers())))
def test_any_return_value_has_one_meaning(value):
    outcome, reason = verdict_of(value)
    assert outcome in ("pass", "fail", "no_verdict")
    if outcome == "fail":
        assert reason and "\n" not in reason and len(reason) <= 200
