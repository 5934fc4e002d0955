"""Article 001's command sequence, end to end, on a repository the tests build (not the shipped example)."""

import json

import pytest

from conftest import GitRepo, run_cli

SHOP_BASE = '''
def normalize(items):
    return [dict(item, sku=item["sku"].strip()) for item in items]
'''
SHOP_HEAD = '''
def normalize(items):
    # "bulk rows are handled elsewhere": a regression that drops them
    return [dict(item, sku=item["sku"].strip()) for item in items if item["qty"] < 50]
'''
PROPERTIES = '''
import os
from shop import normalize
from witness_gate import contract

@contract(invariant="normalize keeps every item", domain="item lists")
def prop_count_preserved(fixture):
    return True if len(normalize(fixture["items"])) == len(fixture["items"]) else "dropped-items"

@contract(invariant="the coin lands heads", domain="any payload")
def prop_coin(fixture):
    return True if os.urandom(1)[0] < 128 else "coin-tails"

@contract(invariant="skus are strings", domain="item lists")
def prop_skus_are_strings(fixture):
    return all(isinstance(i["sku"], str) for i in fixture["items"])
'''
CONFIG = '''
version: 1
properties:
  seed: "5"
policy:
  runs: 20
freeze:
  max_hours: 72
'''
FIXTURE = {"items": [{"sku": f" s{i} ", "qty": (i * 7) % 45 + 1, "tags": ["a", "b"]} for i in range(60)]
                    + [{"sku": "bulk", "qty": 75, "tags": []}] + [{"sku": "z", "qty": 2, "tags": []}] * 10,
           "source": "nightly export"}


@pytest.fixture(scope="module")
def shop(tmp_path_factory):
    repo = GitRepo(tmp_path_factory.mktemp("shop") / "repo")
    repo.commit({"src/shop.py": SHOP_BASE, "tests/properties/test_shop.py": PROPERTIES,
                 "tests/fixtures/items.json": FIXTURE, ".witness.yml": CONFIG}, "base")
    repo.commit({"src/shop.py": SHOP_HEAD}, "head")
    return repo


@pytest.fixture(scope="module")
def checked(shop):
    """pin, then check: the records every later step reads."""
    cwd = shop.path
    pin = run_cli("pin", "--fixture", "tests/fixtures/items.json", "--generator-version", "3",
                  "--out", ".artifacts/fixture.lock", cwd=cwd)
    assert pin.returncode == 0, pin.stderr
    check = run_cli("check", "--lock", ".artifacts/fixture.lock", "--properties", "tests/properties",
                    "--out", ".artifacts/witnesses", cwd=cwd)
    return pin, check


def test_pin_writes_the_lock(shop, checked):
    lock = json.loads((shop.path / ".artifacts/fixture.lock").read_text())
    import hashlib
    assert lock == {"path": "tests/fixtures/items.json", "generator_version": 3, "seed": "5",
                    "fixture_digest": hashlib.sha256((shop.path / "tests/fixtures/items.json").read_bytes()).hexdigest()}


def test_check_shrinks_retains_and_replays(shop, checked):
    _, check = checked
    assert check.returncode == 1, check.stdout + check.stderr  # a regression blocks
    out = shop.path / ".artifacts/witnesses"
    record = json.loads((out / "prop_count_preserved.attempt.json").read_text())
    assert record["label"] == "regression"
    assert record["witness"] == {"items": [{"qty": 50}]}  # sku is never read for a dropped row
    assert [r["signature"] for r in record["replays"]] == ["invariant:dropped-items"] * 20
    witness_file = out / record["witness_file"]
    retained = json.loads(witness_file.read_text())
    assert retained["payload"] == record["witness"] and retained["reason"] == "dropped-items"
    assert retained["shrink"]["stopped"] is True and retained["seed"] == "5"
    assert set(retained) >= {"assertion_id", "property_id", "contract", "fixture_digest", "witness_hash",
                             "seed", "reason", "payload", "shrink"}
    assert "regression" in check.stdout and "dropped-items" in check.stdout
    assert "[1/3] prop_coin" in check.stderr  # progress, plain lines when not on a terminal


@pytest.mark.parametrize("changed, expected, code", [
    # no freeze.expires_in_hours in this config: the flake holds until a person supplies an expiry
    (["src/shop.py"], {"prop_count_preserved": ("regression", "regression"), "prop_coin": ("hold", "hold"),
                       "prop_skus_are_strings": ("pass", "pass")}, 1),
    (["src/shop.py", "tests/properties/test_shop.py"],
     {"prop_count_preserved": ("mixed_edit", "mixed_edit"), "prop_coin": ("mixed_edit", "mixed_edit"),
      "prop_skus_are_strings": ("mixed_edit", "mixed_edit")}, 1),
    (["tests/fixtures/items.json"], {"prop_count_preserved": ("oracle_defect", "oracle_defect"),
                                     "prop_coin": ("oracle_defect", "oracle_defect"),
                                     "prop_skus_are_strings": ("oracle_defect", "oracle_defect")}, 3),
    ([".witness.yml", "src/shop.py"], {"prop_count_preserved": ("mixed_edit", "mixed_edit"),
                                      "prop_coin": ("mixed_edit", "mixed_edit"),
                                      "prop_skus_are_strings": ("mixed_edit", "mixed_edit")}, 1),
])
def test_classify_labels_each_assertion(shop, checked, changed, expected, code):
    (shop.path / "changed.txt").write_text("\n".join(changed) + "\n")
    done = run_cli("classify", "--lock", ".artifacts/fixture.lock", "--witnesses", ".artifacts/witnesses",
                   "--diff-paths", "changed.txt", "--json", cwd=shop.path)
    assert done.returncode == code, done.stderr
    rows = {row["assertion_id"]: row for row in json.loads(done.stdout)}
    assert {k: (v["label"], v["verdict"]) for k, v in rows.items()} == expected
    assert set(rows["prop_coin"]) == {"assertion_id", "label", "reason", "hold_reasons", "tables", "failures", "runs",
                                      "witness_hash", "fixture_digest", "verdict"}
    if changed == ["src/shop.py"]:  # one label everywhere; what each table said stays beside it
        assert rows["prop_coin"]["tables"]["labels"] == "flake", rows["prop_coin"]
        assert rows["prop_coin"]["reason"] == "coin-tails", rows["prop_coin"]
        assert rows["prop_coin"]["hold_reasons"] == ["expiry_empty"], rows["prop_coin"]
    assert rows["prop_count_preserved"]["failures"] == rows["prop_count_preserved"]["runs"] == 20
    assert 0 < rows["prop_coin"]["failures"] < 20


def test_classify_prints_a_line_per_assertion(shop, checked):
    (shop.path / "changed.txt").write_text("src/shop.py\n")
    done = run_cli("classify", "--lock", ".artifacts/fixture.lock", "--witnesses", ".artifacts/witnesses",
                   "--diff-paths", "changed.txt", cwd=shop.path)
    lines = done.stdout.splitlines()
    assert "prop_count_preserved: regression 20/20 -> regression" in lines
    assert any(line.startswith("prop_coin: flake ") and line.endswith("/20 -> hold (expiry_empty)") for line in lines)


def coin(shop):
    return json.loads((shop.path / ".artifacts/witnesses/prop_coin.attempt.json").read_text())


def test_freeze_writes_a_record_for_the_flake(shop, checked):
    rec = coin(shop)
    done = run_cli("freeze", "--assertion", "prop_coin", "--lock", ".artifacts/fixture.lock",
                   "--witness", f".artifacts/witnesses/{rec['witness_file']}", "--failures", str(rec["failures"]),
                   "--runs", "20", "--expires-in-hours", "24", "--out", ".artifacts/freeze.json", cwd=shop.path)
    assert done.returncode == 0, done.stderr
    freeze = json.loads((shop.path / ".artifacts/freeze.json").read_text())
    assert freeze["assertion_id"] == "prop_coin" and freeze["witness_hash"] == rec["witness_hash"]
    assert freeze["fixture_digest"] == rec["fixture_digest"] and freeze["expires_at"].endswith("Z")
    assert (freeze["failures"], freeze["runs"], freeze["state"]) == (rec["failures"], 20, "proposed")


@pytest.mark.parametrize("change, message", [
    ({"assertion": "prop_count_preserved"}, "the witness belongs to prop_coin, not prop_count_preserved"),
    ({"failures": "20"}, "20 failures in 20 runs is regression, not a flake; only a flake may be frozen"),
    ({"failures": "0"}, "0 failures in 20 runs is not_reproduced, not a flake"),
    ({"failures": "LIE"}, "argument --failures: expected a whole number"),
    ({"hours": "100"}, "--expires-in-hours 100 is beyond freeze.max_hours (72)"),
    ({"hours": "0"}, "argument --expires-in-hours: expected hours > 0"),
    ({"hours": "-5"}, "argument --expires-in-hours: expected hours > 0"),
    ({"runs": "19"}, "recorded"),
])
def test_freeze_refuses_anything_but_the_recorded_flake(shop, checked, change, message):
    rec = coin(shop)
    failures = change.get("failures", str(rec["failures"] if change.get("runs") is None else 1))
    done = run_cli("freeze", "--assertion", change.get("assertion", "prop_coin"), "--lock", ".artifacts/fixture.lock",
                   "--witness", f".artifacts/witnesses/{rec['witness_file']}", "--failures", failures,
                   "--runs", change.get("runs", "20"), "--expires-in-hours", change.get("hours", "24"), cwd=shop.path)
    assert done.returncode == 2
    assert message in done.stderr
    assert "Traceback" not in done.stderr


def test_a_witness_edited_by_hand_is_refused(shop, checked, tmp_path):
    rec = coin(shop)
    original = shop.path / ".artifacts/witnesses" / rec["witness_file"]
    edited = json.loads(original.read_text())
    edited["payload"] = {"edited": True}
    forged = tmp_path / "forged.json"
    forged.write_text(json.dumps(edited))
    done = run_cli("freeze", "--assertion", "prop_coin", "--lock", ".artifacts/fixture.lock", "--witness",
                   str(forged), "--failures", str(rec["failures"]), "--runs", "20", "--expires-in-hours", "24",
                   cwd=shop.path)
    assert done.returncode == 2 and "the file was edited after it was retained" in done.stderr


def test_a_lock_that_no_longer_matches_its_fixture_is_an_error(shop, checked, tmp_path):
    lock = json.loads((shop.path / ".artifacts/fixture.lock").read_text())
    lock["fixture_digest"] = "0" * 64
    (tmp_path / "stale.lock").write_text(json.dumps(lock))
    done = run_cli("check", "--lock", str(tmp_path / "stale.lock"), "--properties", "tests/properties",
                   "--out", str(tmp_path / "w"), cwd=shop.path)
    assert done.returncode == 2
    assert "tests/fixtures/items.json: the fixture no longer matches its lock" in done.stderr


@pytest.mark.parametrize("args, message", [
    (["pin", "--fixture", "nope.json", "--generator-version", "1", "--out", "x.lock"], "nope.json: cannot read the fixture"),
    (["check", "--lock", "nope.lock", "--properties", "tests/properties", "--out", "w"], "nope.lock: cannot read"),
    (["classify", "--lock", ".artifacts/fixture.lock", "--witnesses", "nowhere", "--diff-paths", "changed.txt"],
     "nowhere: no such directory; point --witnesses at the --out of `check`"),
    (["check", "--lock", ".artifacts/fixture.lock", "--properties", "src", "--out", "w"],
     "src: no prop_* functions found"),
    (["run", "--repo", "/"], "/: not a git repository"),
    (["frobnicate"], "invalid choice: 'frobnicate'"),
])
def test_input_errors_exit_2_with_a_message(shop, checked, args, message):
    (shop.path / "changed.txt").write_text("src/shop.py\n")
    done = run_cli(*args, cwd=shop.path)
    assert done.returncode == 2
    assert message in done.stderr
    assert "Traceback" not in done.stderr


def test_a_fixture_that_is_not_json_is_refused_by_name(tmp_path):
    (tmp_path / "f.json").write_text("{orders: [1, 2}")
    done = run_cli("pin", "--fixture", "f.json", "--generator-version", "1", "--out", "x.lock", cwd=tmp_path)
    assert done.returncode == 2
    assert "f.json:1:2: not JSON (Expecting property name enclosed in double quotes)" in done.stderr


def test_freeze_refuses_a_recorded_attempt_that_is_not_a_flake(shop, checked, tmp_path):
    # the regression's own witness and counts: every field is present, the label is wrong
    rec = json.loads((shop.path / ".artifacts/witnesses/prop_count_preserved.attempt.json").read_text())
    done = run_cli("freeze", "--assertion", "prop_count_preserved", "--lock", ".artifacts/fixture.lock",
                   "--witness", f".artifacts/witnesses/{rec['witness_file']}", "--failures", "3", "--runs", "20",
                   "--expires-in-hours", "24", cwd=shop.path)
    assert done.returncode == 2
    assert "recorded 20/20, not 3/20" in done.stderr
    assert "is labelled regression" in done.stderr


def test_freeze_refuses_a_witness_without_its_attempt_record(shop, checked, tmp_path):
    rec = coin(shop)
    loose = tmp_path / rec["witness_file"]
    loose.write_text((shop.path / ".artifacts/witnesses" / rec["witness_file"]).read_text())
    done = run_cli("freeze", "--assertion", "prop_coin", "--lock", ".artifacts/fixture.lock", "--witness", str(loose),
                   "--failures", str(rec["failures"]), "--runs", "20", "--expires-in-hours", "24", cwd=shop.path)
    assert done.returncode == 2
    assert "no attempt record prop_coin.attempt.json beside the witness" in done.stderr


def test_article_001_sequence_in_a_directory_that_is_not_a_git_repository(tmp_path):
    # the patch digest is the content tree of what ran, so nothing holds for missing:patch_digest
    work = tmp_path / "plain"
    for relpath, content in {"src/shop.py": SHOP_HEAD, "tests/properties/test_shop.py": PROPERTIES,
                             "tests/fixtures/items.json": json.dumps(FIXTURE), ".witness.yml": CONFIG}.items():
        (work / relpath).parent.mkdir(parents=True, exist_ok=True)
        (work / relpath).write_text(content)
    assert run_cli("pin", "--fixture", "tests/fixtures/items.json", "--generator-version", "3",
                   "--out", "lock.json", cwd=work).returncode == 0
    check = run_cli("check", "--lock", "lock.json", "--properties", "tests/properties", "--out", "w", cwd=work)
    assert check.returncode == 1, check.stdout + check.stderr
    (work / "changed.txt").write_text("src/shop.py\n")
    done = run_cli("classify", "--lock", "lock.json", "--witnesses", "w", "--diff-paths", "changed.txt", "--json",
                   cwd=work)
    rows = {row["assertion_id"]: (row["label"], row["verdict"]) for row in json.loads(done.stdout)}
    assert rows["prop_count_preserved"] == ("regression", "regression")
    assert rows["prop_skus_are_strings"] == ("pass", "pass") and rows["prop_coin"][0] == rows["prop_coin"][1]
    record = json.loads((work / "w" / "prop_coin.attempt.json").read_text())
    assert record["patch_digest"] and "missing:patch_digest" not in record["hold_reasons"]
    freeze = run_cli("freeze", "--assertion", "prop_coin", "--lock", "lock.json", "--witness",
                     f"w/{record['witness_file']}", "--failures", str(record["failures"]), "--runs", "20",
                     "--expires-in-hours", "24", "--out", "freeze.json", cwd=work)
    assert freeze.returncode == 0, freeze.stderr
    assert not (work / ".git").exists()
