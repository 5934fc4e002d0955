"""The pure parts of the App: signatures, comment commands, routing, settings, check run rendering."""

import json
import re

import pytest

from appcore.commands import parse
from bot.events import route
from appcore.jobspec import BadPayload, safe_id
from appcore.settings import Settings, SettingsError
from bot.signature import sign, verify
from worker import checks


def test_github_signature_test_vector():
    # from GitHub's documentation of X-Hub-Signature-256
    expected = "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17"
    assert sign(b"It's a Secret to Everybody", b"Hello, World!") == expected
    assert verify(b"It's a Secret to Everybody", b"Hello, World!", expected)
    assert not verify(b"It's a Secret to Everybody", b"Hello, World!!", expected)
    assert not verify(b"another secret", b"Hello, World!", expected)
    assert not verify(b"s", b"x", None) and not verify(b"s", b"x", "") and not verify(b"s", b"x", "sha1=abc")
    assert not verify(b"s", b"x", "sha256=\u00e9")


@pytest.mark.parametrize("body, commands", [
    ("/witness replay", [("replay", None)]),
    ("  /witness replay  ", [("replay", None)]),
    ("Flaky?\r\n/witness replay\r\nthanks", [("replay", None)]),
    ("/witness  freeze  accept 24h", [("freeze_accept", 24.0)]),
    ("/witness freeze accept 1.5h", [("freeze_accept", 1.5)]),
    ("/witness freeze accept", [("freeze_accept", None)]),
    ("/witness freeze revoke", [("freeze_revoke", None)]),
    ("/witness help", [("help", None)]),
    ("/witness replay\n/witness help", [("replay", None), ("help", None)]),
    ("/witness frobnicate", [("unknown", None)]),
    ("/witness freeze accept forever", [("unknown", None)]),
    ("/witness", [("unknown", None)]),
    # negatives: not at the start of a line, quoted, in code, indented, or another word
    ("please /witness replay", []),
    ("> /witness replay", []),
    (">/witness replay", []),
    ("```\n/witness replay\n```", []),
    ("~~~\n/witness replay\n~~~", []),
    ("    /witness replay", []),
    ("/witnessreplay", []),
    ("/retest", []),
    ("", []),
    # HTML comments: GitHub shows none of them, so nothing in them runs (issue 14)
    ("<!-- /witness replay -->", []),
    ("<!--\n/witness replay\n-->", []),
    ("<!-- a template note\n/witness freeze accept 24h\n/witness replay -->", []),
    ("<!--\n/witness replay\n--> /witness help", []),
    ("<!-- hidden -->\n/witness replay", [("replay", None)]),
    ("<!--\nnote\n-->\n/witness replay", [("replay", None)]),
    ("/witness replay <!-- why: flaky -->", [("replay", None)]),
    ("```\n<!--\n```\n/witness replay", [("replay", None)]),
    ("a comment starts with `<!--`\n/witness replay", [("replay", None)]),
])
def test_commands(body, commands):
    assert [(c.name, c.hours) for c in parse(body)] == commands


@pytest.mark.parametrize("body, parsed", [
    ("/witness replay 12", [("replay", 12)]),
    ("/witness  replay   50 ", [("replay", 50)]),
    ("/witness replay 0", [("replay", 0)]),  # parsed, then refused with a reason: never a silent default
    ("/witness replay", [("replay", None)]),
    # negatives: not a count
    ("/witness replay 12x", [("unknown", None)]),
    ("/witness replay -3", [("unknown", None)]),
    ("/witness replay 1.5", [("unknown", None)]),
    ("/witness replay 12 34", [("unknown", None)]),
    ("/witness replay 1234567890123", [("unknown", None)]),
    ("please /witness replay 12", []),
])
def test_replay_takes_a_count(body, parsed):
    assert [(c.name, c.runs) for c in parse(body)] == parsed


def pr_payload(action="opened"):
    from ghdouble.webhooks import app_payload

    try:
        return app_payload(f"pull_request.{action}")
    except KeyError:  # an action with no example of its own: the opened one, with that action
        return app_payload("pull_request.opened", action=action)


@pytest.mark.parametrize("event, payload, funcs", [
    ("pull_request", pr_payload("opened"), ["worker.jobs.gate_pull_request"]),
    ("pull_request", pr_payload("synchronize"), ["worker.jobs.gate_pull_request"]),
    ("pull_request", pr_payload("reopened"), ["worker.jobs.gate_pull_request"]),
    ("pull_request", pr_payload("ready_for_review"), ["worker.jobs.gate_pull_request"]),
    ("pull_request", pr_payload("closed"), ["worker.jobs.cancel_pull_request"]),
    ("pull_request", pr_payload("labeled"), []),
    ("pull_request", pr_payload("edited"), []),
    ("ping", {}, []),
    ("installation", {"action": "created"}, []),
    ("push", {}, []),
])
def test_routing(event, payload, funcs):
    routed = route(event, payload, "0f1e2d3c-aaaa")
    assert [j.func for j in routed.jobs] == funcs
    for job in routed.jobs:
        assert set(job.job_id) <= set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-")
        json.dumps(job.kwargs)  # plain data only
    if not funcs:
        assert routed.note


def _broken(change):
    payload = pr_payload("opened")
    change(payload)
    return payload


@pytest.mark.parametrize("payload", [
    {"action": "opened"},
    _broken(lambda p: p["pull_request"].update(number="x")),
    _broken(lambda p: p.update(pull_request=[], repository={}, installation=None)),
    _broken(lambda p: p.pop("installation")),
])
def test_malformed_payloads_are_a_bad_request(payload):
    with pytest.raises(BadPayload, match="pull_request payload is missing or has a malformed field"):
        route("pull_request", payload, "d")


def test_safe_ids():
    assert safe_id("gate", "o/r", 3, "x y.z") == "gate-o-r-3-x-y-z"


def test_settings_name_everything_missing(tmp_path):
    with pytest.raises(SettingsError) as caught:
        Settings.from_env({})
    message = str(caught.value)
    for name in ("GITHUB_PRIVATE_KEY or GITHUB_PRIVATE_KEY_PATH", "GITHUB_APP_ID", "GITHUB_WEBHOOK_SECRET"):
        assert name in message
    with pytest.raises(SettingsError, match="cannot read"):
        Settings.from_env({"GITHUB_APP_ID": "1", "GITHUB_WEBHOOK_SECRET": "s",
                           "GITHUB_PRIVATE_KEY_PATH": str(tmp_path / "missing.pem")})
    with pytest.raises(SettingsError, match="WITNESS_SANDBOX=docker"):
        Settings.from_env({"GITHUB_APP_ID": "1", "GITHUB_WEBHOOK_SECRET": "s", "WITNESS_SANDBOX": "docker",
                           "GITHUB_PRIVATE_KEY": "-----BEGIN RSA PRIVATE KEY-----\n"})
    ok = Settings.from_env({"GITHUB_APP_ID": "1", "GITHUB_WEBHOOK_SECRET": "s",
                            "GITHUB_PRIVATE_KEY": "-----BEGIN RSA PRIVATE KEY-----\n",
                            "GITHUB_API_URL": "https://ghe.example/api/v3/"})
    assert ok.api_url == "https://ghe.example/api/v3" and ok.redis_url == "redis://localhost:6379/0"
    assert ok.database_url == "sqlite:///witness.db" and ok.sandbox == "bwrap"


def attempt(name, label, **extra):
    return {"assertion_id": name, "label": label, "failures": 0, "runs": 5, "relpath": "tests/p.py", "line": 4,
            "fixture_digest": "f" * 64, "seed": "1", **extra}


@pytest.mark.parametrize("labels, conclusion, title", [
    (["pass", "pass"], "success", "pass: a"),
    (["pass", "frozen"], "neutral", "frozen: b"),
    (["pass", "regression"], "failure", "regression: b"),
    (["flake", "regression"], "failure", "regression: b"),
    (["pass", "flake"], "action_required", "flake: b"),
    (["not_reproduced", "pass"], "action_required", "not_reproduced: a"),
    (["hold", "regression"], "action_required", "hold: a"),
])
def test_conclusions(labels, conclusion, title):
    out = checks.render_results([attempt("a", labels[0]), attempt("b", labels[1])], patch_digest="p" * 64,
                                details_url="http://x/records/1")
    assert (out.conclusion, out.title) == (conclusion, title)
    assert out.summary.startswith(checks.MARKER) and "`" + "p" * 64 + "`" in out.summary


def test_conclusion_overrides_from_config():
    out = checks.render_results([attempt("a", "flake")], patch_digest="p", details_url="u",
                                overrides={"flake": "failure"})
    assert out.conclusion == "failure"


def test_big_outputs_are_cut_to_githubs_limit_with_a_pointer():
    witness = {"blob": "é" * 70000}
    out = checks.render_results([attempt("a", "regression", witness=witness, reason="r", failures=5)],
                                patch_digest="p", details_url="http://host/records/abc")
    assert len(out.text.encode()) <= 65535
    assert out.text.endswith("The full record: http://host/records/abc")


def test_annotations_go_fifty_to_a_request():
    attempts = [attempt(f"p{i}", "regression", reason="r") for i in range(120)]
    out = checks.render_results(attempts, patch_digest="p", details_url="u")
    bodies = out.bodies("u", "ext")
    assert [len(b["output"]["annotations"]) for b in bodies] == [50, 50, 20]
    assert bodies[0]["conclusion"] == "failure" and "conclusion" not in bodies[1]
    assert all(len(a["label"]) <= 20 and len(a["description"]) <= 40 and len(a["identifier"]) <= 20
               for a in bodies[0]["actions"])


def test_accept_freeze_only_with_a_proposed_freeze():
    plain = checks.render_results([attempt("a", "flake")], patch_digest="p", details_url="u")
    assert [a["identifier"] for a in plain.actions] == ["replay"]
    proposed = checks.render_results([attempt("a", "flake", freeze={"state": "proposed"})], patch_digest="p",
                                     details_url="u")
    assert [a["identifier"] for a in proposed.actions] == ["replay", "accept_freeze"]


def test_the_worker_holds_without_a_sandbox_unless_told(monkeypatch):
    from worker import context as contexts, jobs

    ctx = object.__new__(jobs.Context)
    ctx.settings = Settings("1", "k", b"s", sandbox="bwrap")
    monkeypatch.setattr(contexts, "bwrap_works", lambda: "bubblewrap (bwrap) is not installed")
    sandbox, holds, note = ctx.sandbox()
    assert holds == ("sandbox_unavailable",) and "refuses to run pull request code" in note
    ctx.settings = Settings("1", "k", b"s", sandbox="none")
    sandbox, holds, note = ctx.sandbox()
    assert (sandbox.mode, holds) == ("none", ()) and "without isolation" in note


def test_a_checkout_cache_someone_else_can_write_is_refused(tmp_path):
    # another local user who could write there could plant a tree marked as matching the head
    from worker import checkout as checkouts
    shared = tmp_path / "witness-checkouts"  # under Settings.cache (WITNESS_CACHE)
    shared.mkdir()
    shared.chmod(0o777)
    with pytest.raises(checkouts.CheckoutError, match="writable by others, so what is cached in it could be planted"):
        checkouts.checkout(api=None, repo="acme/calc", head_sha="a" * 40, cache=tmp_path)
    assert list(shared.rglob("*.witness-tree")) == []


# -- repo-controlled text in the check run ------------------------------------------------------
EVIL = "a|b</td><img src=x onerror=alert(1)>\n# heading `code` [link](http://x) \x1b[2K\rverdict: pass \u202egnp.exe"


def _cells(row: str) -> int:
    """The cells of a Markdown table row, as GitHub counts them (an escaped \\| does not split)."""
    return len([c for c in re.split(r"(?<!\\)\|", row.strip().strip("|"))])


def test_a_reason_cannot_break_the_check_run_out_of_its_cell():
    out = checks.render_results([attempt(EVIL, "regression", reason=EVIL, witness={"x": 1},
                                         notes=[EVIL], hold_reasons=[EVIL])], patch_digest="p", details_url="u")
    assert "\n" not in out.title and "\x1b" not in out.title and "\u202e" not in out.title
    lines = out.summary.split("\n")
    header, row = lines[1], lines[3]
    assert _cells(row) == _cells(header) == 7
    for text in (out.summary, out.text):
        assert "\x1b" not in text and "\r" not in text and "\u202e" not in text
        outside_code = re.sub(r"(`+)(.+?)\1", "", text)  # in a code span, <img> and [x](y) are literal text
        for markup in (r"<img", r"</td>", r"\]\(http"):
            assert not re.search(r"(?<!\\)" + markup, outside_code), markup
        assert not any(line.startswith("# heading") or line.startswith("verdict: pass") for line in text.split("\n"))
    [note] = [ln for ln in lines if ln.startswith("- ")]
    assert "\\x0a" in note and "\\u202e" in note  # visible escapes, not the characters
    [annotation] = out.annotations
    assert "\n" not in annotation["message"] and "\n" not in annotation["title"]


def test_code_spans_and_fences_outlast_the_backticks_inside():
    assert checks.md_code("plain") == "`plain`"
    assert checks.md_code("a`b") == "`` a`b ``"
    assert checks.md_code("x|y") == "`x\\|y`"
    block = checks.md_block("```\n# out of the fence\n```")
    assert block.startswith("````\n") and block.endswith("\n````")


def test_a_failed_setup_output_stays_in_its_fence():
    setup = {"failed": "exit:1", "step": "pip `x`", "output": "```\n# pwned\n<img src=x>\n\x1b[31mred"}
    out = checks.render_results([attempt("a", "hold", hold_reasons=["setup_failed"], setup=setup)],
                                patch_digest="p", details_url="u")
    fence = re.search(r"\n(`{3,})\n", out.text).group(1)
    assert len(fence) > 3 and "\x1b" not in out.text and "`` pip `x` ``" in out.text


def test_refusals_and_faults_show_repo_text_on_one_line():
    out = checks.render_refusal("hold", "refused:\nverdict: pass", "summary", files=["ok.py", "bad\n.py"])
    assert "\n" not in out.title and [a["path"] for a in out.annotations] == ["ok.py"]
    fault = checks.render_fault("CheckoutError: tarball member 'x\n# y|<b>'", "u")
    assert "\n# y" not in fault.summary and "<b>" not in fault.summary


def test_a_reason_links_nothing_and_mentions_nobody():
    # third review: a reason like this rendered as a live link and a team mention in the summary
    from worker.checks import md_text

    shown = md_text("see https://evil.example/login @org/team www.evil.example")
    assert "https://" not in shown and "@org" not in shown and "www.evil" not in shown
    assert "evil.example/login" in shown


@pytest.mark.parametrize("level, allowed", [("admin", True), ("maintain", True), ("write", True), ("triage", False),
                                            ("read", False), ("none", False)])
def test_a_permission_answer_carries_its_reason(level, allowed):
    from worker.people import Permission

    class Client:
        def permission(self, username):
            return level

    answer = Permission.of(Client(), "octocat")
    assert (answer.allowed, answer.level) == (allowed, level)
    assert answer.reason == (f"@octocat has {level} permission" if allowed
                             else f"needs write permission on this repository; yours is `{level}`")


# -- events routed from GitHub's own example payloads (issue 14) ------------------------------------
def _ours(name, **run):
    from ghdouble.webhooks import app_payload

    payload = app_payload(name, sender="maintainer")
    key = "check_run" if name.startswith("check_run") else "check_suite"
    payload[key].update(run)
    if key == "check_run":
        payload[key]["name"] = "witness-gate"
    return payload


def test_a_rerun_with_no_pull_request_listed_still_reaches_the_worker_with_the_runs_record():
    # GitHub's own example of a Re-run lists no pull request, as for every head in a fork
    payload = _ours("check_run.rerequested", external_id="rec123")
    assert payload["check_run"]["pull_requests"] == []
    [job] = route("check_run", payload, "0f1e2d3c-aaaa").jobs
    assert job.func == "worker.jobs.handle_action"  # Re-run is checked for write permission like the buttons
    assert job.kwargs["identifier"] == "rerun" and job.kwargs["external_id"] == "rec123"
    assert job.kwargs["target"]["pr_number"] == 0 and job.kwargs["actor"] == "maintainer"
    assert job.kwargs["target"]["head_sha"] == payload["check_run"]["head_sha"]
    assert job.kwargs["check_run_id"] == payload["check_run"]["id"]


def test_a_button_routes_with_its_own_runs_id_and_record():
    payload = _ours("check_run.requested_action", external_id="rec9")
    payload["requested_action"]["identifier"] = "accept_freeze"
    [job] = route("check_run", payload, "d-1").jobs
    assert (job.func, job.kwargs["identifier"], job.kwargs["external_id"]) == (
        "worker.jobs.handle_action", "accept_freeze", "rec9")
    assert job.kwargs["target"]["pr_number"] == payload["check_run"]["pull_requests"][0]["number"]
    other = _ours("check_run.requested_action")
    other["check_run"]["name"] = "lint"
    assert route("check_run", other, "d-2").jobs == []


def test_a_check_suite_rerun_asks_for_permission_too():
    payload = _ours("check_suite.rerequested")
    [job] = route("check_suite", payload, "d-3").jobs
    assert (job.func, job.kwargs["identifier"], job.kwargs["check_run_id"]) == ("worker.jobs.handle_action", "rerun", 0)
    assert job.kwargs["target"]["head_sha"] == payload["check_suite"]["head_sha"]


def test_a_merge_queue_entry_is_gated_on_its_merge_commit():
    from ghdouble.webhooks import app_payload

    payload = app_payload("merge_group.checks_requested")
    group = payload["merge_group"]
    [job] = route("merge_group", payload, "d-4").jobs
    t = job.kwargs["target"]
    assert job.func == "worker.jobs.gate_pull_request"
    assert (t["head_sha"], t["base_sha"], t["merge_group"]) == (group["head_sha"], group["base_sha"], group["head_ref"])
    assert t["pr_number"] == 0  # the merge commit is no pull request's head
    assert job.kwargs["reason"] == "merge_group.checks_requested of #104"  # from gh-readonly-queue/main/pr-104-<sha>
    from appcore.jobspec import head_key

    assert head_key(t) != head_key({**t, "merge_group": ""})  # never supersedes the pull request's own head
    destroyed = app_payload("merge_group.checks_requested", action="destroyed")
    assert route("merge_group", destroyed, "d-5").jobs == []


def test_a_comment_acts_on_at_most_three_commands():
    from ghdouble.webhooks import app_payload

    payload = app_payload("issue_comment.created", sender="maintainer")
    payload["issue"]["pull_request"] = {"url": "https://api.github.com/repos/o/r/pulls/1"}
    payload["comment"]["body"] = "\n".join(["/witness replay"] * 200 + ["/witness help"])
    [job] = route("issue_comment", payload, "d-6").jobs
    assert [c["name"] for c in job.kwargs["commands"]] == ["replay"] * 3 and job.kwargs["ignored"] == 198


def test_the_review_is_shown_beside_the_check_run_with_an_annotation_per_problem():
    from witness_gate.config.schema import Config
    from witness_gate.rules.plan import review_head_config
    from worker.checks import CheckOutput, with_head_config

    review = review_head_config(Config(), b"version: 1\n\npolicy:\n  runs: many\n", [".witness.yml"])
    output = with_head_config(CheckOutput("success", "pass", "summary", "text"), review.as_dict())
    assert output.conclusion == "success"  # the base's version decided; the new one changes nothing yet
    [note] = output.annotations
    assert (note["path"], note["start_line"], note["annotation_level"]) == (".witness.yml", 4, "warning")
    assert output.text.startswith("### the new `.witness.yml`") and output.text.endswith("text")
    moved = review_head_config(Config(), b"version: 1\npaths:\n  impl: ['lib/']\n  ignore: ['src/']\n", [".witness.yml", "src/a.py"])
    assert "| `src/a.py` | impl | ignored |" in with_head_config(CheckOutput("success", "t", "s"), moved.as_dict()).text
