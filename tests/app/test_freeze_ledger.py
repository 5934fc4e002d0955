"""The freeze ledger end to end: propose -> accept -> frozen -> expire -> red again, revoke, and refusals."""

import threading
import time
from datetime import datetime, timedelta, timezone

from rq import Queue
from rq.serializers import JSONSerializer

from appstack import check_run_event, comment_event, pull_request_event
from test_app import CALC_PROPS, COIN, GOOD, gate, make_pull
from witness_gate.records.ledger import Ledger

FLAKY_CONFIG = """version: 1
properties:
  fixtures: {"*": tests/fixtures/xs.json, prop_coin: tests/fixtures/empty.json}
policy:
  runs: 20
freeze:
  expires_in_hours: null
  max_hours: 48
"""


def flaky_pull(double, tmp_path):
    # an empty fixture shrinks to itself, so every run of the coin has the same witness
    return make_pull(double, tmp_path, {"src/calc.py": GOOD + "\n# tidy\n"}, config=FLAKY_CONFIG,
                     props=CALC_PROPS + COIN, base_files={"tests/fixtures/empty.json": {}},
                     permissions={"maintainer": "write", "owner": "admin", "visitor": "read"})


def say(stack, double, name, body, author="maintainer", comment_id=None):
    response = stack.send("issue_comment", comment_event(double, name, 7, body, author,
                                                         comment_id=comment_id or int(time.time() * 1000) % 10**9))
    assert response.status_code == 202, response.text


def wait_reply(stack, double, count):
    stack.wait_until(lambda: len(double.comments) >= count, what=f"{count} replies")
    return double.comments[count - 1]["body"]


def latest(double, head):
    return max(double.runs_for(head), key=lambda r: r["id"])


def test_propose_accept_frozen_expire_and_red_again(stack, double, tmp_path):
    name, _ = flaky_pull(double, tmp_path)
    run, head = gate(stack, double, name)
    # no default expiry in this config: a hold whose only reason is the empty expiry, with a proposal
    assert run["conclusion"] == "action_required" and run["output"]["title"] == "hold: prop_coin"
    assert "expiry_empty" in run["output"]["summary"] and "accept_freeze" in [a["identifier"] for a in run["actions"]]
    ledger = Ledger(stack.store)
    [proposed] = [f for f in ledger.freezes() if f.repo == name]
    assert proposed.state == "proposed" and proposed.assertion_id == "prop_coin"

    say(stack, double, name, "/witness freeze accept 24h", comment_id=7001)
    # the head is gated again beside the freeze, whose checks (the pinned payload shows only its flake, the broader
    # sample) ran only then: a new check run says frozen (a relabel in place skipped them: found by a reviewer)
    frozen = stack.wait_for_check(head, count=2)
    assert frozen["conclusion"] == "neutral" and frozen["output"]["title"] == "frozen: prop_coin", frozen["output"]
    assert "frozen until" in frozen["output"]["summary"] and "by @maintainer" in frozen["output"]["summary"]
    assert {"comment_id": 7001, "content": "eyes"} in double.reactions

    say(stack, double, name, "/witness replay", comment_id=7002)  # a later attempt matches the freeze
    again = stack.wait_for_check(head, count=3)
    assert again["conclusion"] == "neutral" and again["output"]["title"] == "frozen: prop_coin"

    # the clock runs out with no push: within the reconciler's period the same check run leaves neutral
    expire_now(stack, proposed.id)
    reconcile(stack)
    stack.wait_until(lambda: latest(double, head)["conclusion"] == "action_required", what="the freeze to end")
    assert latest(double, head)["id"] == again["id"], "re-rendered in place, not a new check run"
    assert "frozen" not in latest(double, head)["output"]["title"]
    say(stack, double, name, "/witness replay", comment_id=7003)
    red = stack.wait_for_check(head, count=4)
    assert red["conclusion"] == "action_required", red["output"]
    assert [e.action for e in ledger.events(proposed.id)] == ["propose", "accept", "expire"]
    assert ledger.get(proposed.id).state == "expired"


def expire_now(stack, freeze_id):
    """Move an accepted freeze's expiry into the past: what the clock would do, without waiting for it."""
    from witness_gate.records.store import FreezeRow

    with stack.store.session.begin() as s:
        s.get(FreezeRow, freeze_id).expires_at = datetime.now(timezone.utc) - timedelta(seconds=1)


def reconcile(stack):
    job = Queue(stack.queue, connection=stack.redis, serializer=JSONSerializer).enqueue("worker.jobs.reconcile")
    stack.wait_until(lambda: job.get_status(refresh=True) in ("finished", "failed"), what="the reconciler")
    assert job.get_status() == "finished", job.exc_info


def test_revoke_ends_an_accepted_freeze_now(stack, double, tmp_path):
    name, _ = flaky_pull(double, tmp_path)
    _, head = gate(stack, double, name)
    say(stack, double, name, "/witness freeze accept 24h", author="owner")
    stack.wait_until(lambda: latest(double, head)["conclusion"] == "neutral", what="frozen")
    say(stack, double, name, "/witness freeze revoke", author="maintainer")
    stack.wait_until(lambda: latest(double, head)["conclusion"] == "action_required", what="red again")
    ledger = Ledger(stack.store)
    [freeze] = [f for f in ledger.freezes() if f.repo == name]
    assert freeze.state == "revoked" and freeze.ended_by == "maintainer"
    events = ledger.events(freeze.id)
    assert [(e.action, e.actor) for e in events] == [("propose", "witness-gate"), ("accept", "owner"),
                                                    ("revoke", "maintainer")]
    # the record a reviewer lands on (the check run's details_url, a gate run's) says where each freeze stands, as
    # JSON, as the download and as its page (issue "What broke when it was tried...", point 4)
    import requests

    details = latest(double, head)["details_url"]
    for url in (details, details + "?download=1"):
        run_record = requests.get(url, timeout=5).json()
        assert run_record["kind"] == "gate_run"
        [standing] = [a["freeze_standing"] for a in run_record["attempts"] if a["freeze_standing"]]
        assert (standing["state"], standing["accepted_by"], standing["ended_by"]) == ("revoked", "owner", "maintainer")
    page = requests.get(details, headers={"Accept": "text/html"}, timeout=5).text
    assert "revoked by @owner until" in page and "ended by @maintainer at" in page, page


def test_accepting_and_revoking_moves_every_open_head_the_freeze_names(stack, double, tmp_path):
    # two pull requests of one repository meet the same flake on the same witness
    name, repo = flaky_pull(double, tmp_path)
    repo.git("checkout", "-q", "main")
    repo.git("checkout", "-q", "-b", "other")
    repo.commit({"src/calc.py": GOOD + "\n# another tidy\n"}, "other")
    double.open_pull(name, "other", "main", 8)
    _, head = gate(stack, double, name)
    assert stack.send("pull_request", pull_request_event(double, name, 8, "opened")).status_code == 202
    other = double.sha(name, "other")
    assert stack.wait_for_check(other)["conclusion"] == "action_required"
    say(stack, double, name, "/witness freeze accept 24h", author="owner")  # accepted on pull request 7
    # both heads gated again beside the freeze (each a new check run), one after the other
    stack.wait_until(lambda: latest(double, other)["conclusion"] == "neutral", what="pull request 8 frozen too")
    stack.wait_until(lambda: latest(double, head)["conclusion"] == "neutral", what="pull request 7 frozen")
    assert latest(double, other)["output"]["title"] == "frozen: prop_coin"
    assert len(double.runs_for(other)) == 2 and len(double.runs_for(head)) == 2, "gated again, not relabelled"
    say(stack, double, name, "/witness freeze revoke", author="maintainer")
    stack.wait_until(lambda: latest(double, other)["conclusion"] == "action_required", what="8 red again")
    assert latest(double, head)["conclusion"] == "action_required"


def test_the_accept_button_uses_the_proposed_expiry_or_asks_for_one(stack, double, tmp_path):
    name, _ = flaky_pull(double, tmp_path)
    run, head = gate(stack, double, name)
    assert stack.send("check_run", check_run_event(double, name, 7, run, "requested_action", "maintainer",
                                                   "accept_freeze")).status_code == 202
    reply = wait_reply(stack, double, 1)
    assert "Accept freeze button was refused: say for how long: `/witness freeze accept <hours>h`" in reply
    assert stack.send("check_run", check_run_event(double, name, 7, run, "requested_action", "visitor",
                                                   "accept_freeze")).status_code == 202
    assert "needs write permission" in wait_reply(stack, double, 2)


REFUSALS = [
    ("/witness freeze accept 24h", "visitor", "needs write permission on this repository; yours is `read`"),
    ("/witness freeze accept 100h", "maintainer", "100h is longer than this repository allows (freeze.max_hours: 48)"),
    ("/witness freeze accept 0h", "maintainer", "an expiry of 0h is not in the future"),
    ("/witness freeze accept", "maintainer", "say for how long"),
    ("/witness freeze revoke", "maintainer", "there is no accepted, unexpired freeze on this pull request"),
]


def test_refusals_say_why_and_change_nothing(stack, double, tmp_path):
    name, _ = flaky_pull(double, tmp_path)  # one gated pull request meets every refusal in turn
    _, head = gate(stack, double, name)
    for count, (body, author, refusal) in enumerate(REFUSALS, start=1):
        say(stack, double, name, body, author=author, comment_id=6000 + count)
        assert refusal in wait_reply(stack, double, count), body
        assert [f.state for f in Ledger(stack.store).freezes() if f.repo == name] == ["proposed"]
        assert latest(double, head)["conclusion"] == "action_required"


def test_a_regression_is_never_frozen(stack, double, tmp_path):
    name, _ = make_pull(double, tmp_path, {"src/calc.py": GOOD.replace("x + x", "x + x + (x == 13)")})
    run, _ = gate(stack, double, name)
    assert run["conclusion"] == "failure"
    say(stack, double, name, "/witness freeze accept 24h")
    assert "there is no proposed freeze on the current head" in wait_reply(stack, double, 1)


def test_two_people_accepting_at_once_one_wins(stack, double, tmp_path):
    name, _ = flaky_pull(double, tmp_path)
    _, head = gate(stack, double, name)
    threads = [threading.Thread(target=say, args=(stack, double, name, "/witness freeze accept 24h", who, 800 + i))
               for i, who in enumerate(("maintainer", "owner"))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    stack.wait_until(lambda: len(double.reactions) + len(double.comments) >= 2, what="both answers")
    ledger = Ledger(stack.store)
    [freeze] = [f for f in ledger.freezes() if f.repo == name]
    accepts = [e for e in ledger.events(freeze.id) if e.action == "accept"]
    assert len(accepts) == 1 and freeze.accepted_by == accepts[0].actor
    assert len(double.reactions) == 1 and len(double.comments) == 1
    assert "already accepted" in double.comments[0]["body"] or "a moment ago" in double.comments[0]["body"]


WIDE_COIN = '''
from calc import toss

@contract(invariant="three or more numbers are never unlucky", domain="lists of integers")
def prop_wide_coin(fixture):
    xs = fixture.get("xs") if isinstance(fixture, dict) else None
    if isinstance(xs, list) and len(xs) >= 3 and toss():
        return "coin-tails"
    return True
'''
# the implementation tosses the coin; os.urandom, so no seed can pin it
TOSS = "\nimport os\n\ndef toss():\n    return os.urandom(1)[0] < 128\n"
ALWAYS_TAILS = "\ndef toss():\n    return True\n"
ANOTHER_FLAKE = "\nimport os\n\ndef toss():\n    if os.urandom(1)[0] < 128:\n        raise ValueError('bent coin')\n    return False\n"
WIDE_CONFIG = """version: 1
properties:
  fixtures: {"*": tests/fixtures/xs.json}
policy:
  runs: 20
  max_steps: 64
freeze:
  expires_in_hours: 24
  max_hours: 48
"""


def test_a_real_flake_over_a_wide_fixture_stays_frozen_on_every_later_attempt(stack, double, tmp_path):
    # issue "Freezes that hold for a real flake": each attempt re-shrank the flaky predicate to another
    # witness, so an accepted freeze never matched again; now later attempts replay the frozen witness
    name, repo = make_pull(double, tmp_path, {"src/calc.py": GOOD + TOSS + "\n# tidy\n"}, config=WIDE_CONFIG,
                           props=CALC_PROPS + WIDE_COIN, permissions={"maintainer": "write"},
                           base_files={"src/calc.py": GOOD + TOSS})
    run, head = gate(stack, double, name)
    assert run["output"]["title"] == "flake: prop_wide_coin", run["output"]
    say(stack, double, name, "/witness freeze accept 2h", comment_id=9001)
    stack.wait_until(lambda: latest(double, head)["conclusion"] == "neutral", what="the check run to say frozen")
    for count, comment_id in enumerate((9002, 9003, 9004), start=2):
        say(stack, double, name, "/witness replay", comment_id=comment_id)
        again = stack.wait_for_check(head, count=count)
        assert (again["conclusion"], again["output"]["title"]) == ("neutral", "frozen: prop_wide_coin"), again["output"]
    # the record says where the freeze stands, as JSON and as a page
    import requests

    run_record = requests.get(again["details_url"], timeout=5).json()
    [coin] = [a for a in run_record["attempts"] if a["assertion_id"] == "prop_wide_coin"]
    attempt = requests.get(f"{stack.url}/records/{coin['record_id']}", timeout=5).json()
    standing = attempt["freeze_standing"]
    assert (standing["state"], standing["accepted_by"]) == ("accepted", "maintainer")
    assert [e["action"] for e in standing["events"]] == ["propose", "accept"]
    page = requests.get(f"{stack.url}/records/{coin['record_id']}", headers={"Accept": "text/html"}, timeout=5).text
    assert "accepted by @maintainer until" in page
    # a push that fails the frozen witness every time is a regression: a freeze never hides a stable failure
    repo.commit({"src/calc.py": GOOD + ALWAYS_TAILS}, "always tails")
    regressed = push(stack, double, name)
    assert (regressed["conclusion"], regressed["output"]["title"]) == ("failure", "regression: prop_wide_coin")
    # a flake with another reason is not the frozen one: the whole pipeline runs and proposes a new freeze
    repo.commit({"src/calc.py": GOOD + ANOTHER_FLAKE}, "another flake")
    other = push(stack, double, name)
    assert (other["conclusion"], other["output"]["title"]) == ("action_required", "flake: prop_wide_coin"), other
    assert "accept_freeze" in [a["identifier"] for a in other["actions"]]
    assert "flake:raise:ValueError@src/calc.py" in other["output"]["text"]


def push(stack, double, name):
    """Tell the App about the branch's new head, as GitHub's synchronize does, and wait for its check run."""
    assert stack.send("pull_request", pull_request_event(double, name, 7, "synchronize")).status_code == 202
    return stack.wait_for_check(double.sha(name, "patch"))
