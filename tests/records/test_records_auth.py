"""Records `check` writes carry an HMAC with a key kept outside the checkout; readers refuse any other record.

The attack itself (half the replays of a regression flipped to pass) and its control are in
tests/security/test_hostile.py, section "records a patch or a person edited by hand"; the helpers are here.
"""

import hashlib
import json
import os
import shutil
import stat
from pathlib import Path

import pytest

from conftest import GitRepo, run_cli
from witness_gate.records import recordkey
from witness_gate.records.recordkey import RecordKey, RecordKeyError

CALC_BASE = "def total(items):\n    return sum(i['qty'] for i in items)\n"
CALC_HEAD = "def total(items):\n    # 'big rows are counted elsewhere': a deterministic regression\n" \
            "    return sum(i['qty'] for i in items if i['qty'] < 10)\n"
PROPERTIES = '''
from calc import total
from witness_gate import contract

@contract(invariant="total counts every item", domain="item lists")
def prop_total_counts_all(fixture):
    return True if total(fixture["items"]) == sum(i["qty"] for i in fixture["items"]) else "lost-qty"
'''
CONFIG = '''
version: 1
policy:
  runs: 4
  min_reruns: 3
freeze:
  expires_in_hours: 24
  max_hours: 72
'''
FIXTURE = {"items": [{"qty": q, "name": f"n{q}"} for q in (1, 2, 12, 3)]}
ASSERTION = "prop_total_counts_all"
LOCK = ".artifacts/fixture.lock"


def regression_repo(path: Path) -> GitRepo:
    """A small repository whose head has one deterministic regression, pinned and checked once."""
    repo = GitRepo(path)
    repo.commit({"src/calc.py": CALC_BASE, "tests/properties/test_calc.py": PROPERTIES,
                 "tests/fixtures/items.json": FIXTURE, ".witness.yml": CONFIG}, "base")
    repo.commit({"src/calc.py": CALC_HEAD}, "head")
    (repo.path / "changed.txt").write_text("src/calc.py\n")
    pin = run_cli("pin", "--fixture", "tests/fixtures/items.json", "--generator-version", "1", "--out", LOCK,
                  cwd=repo.path)
    assert pin.returncode == 0, pin.stderr
    check = run_cli("check", "--lock", LOCK, "--properties", "tests/properties", "--out", ".artifacts/witnesses",
                    cwd=repo.path)
    assert check.returncode == 1, check.stdout + check.stderr  # the regression blocks
    return repo


def copy_records(repo: GitRepo, dest: Path) -> Path:
    shutil.copytree(repo.path / ".artifacts/witnesses", dest)
    return dest


def attempt_path(records: Path) -> Path:
    return records / f"{ASSERTION}.attempt.json"


def forge_flake(records: Path) -> dict:
    """The attack: half the witness replays flipped to pass, and every stored total made to agree."""
    path = attempt_path(records)
    rec = json.loads(path.read_text())
    assert rec["label"] == "regression" and all(r["outcome"] == "fail" for r in rec["replays"])
    reason = rec["reason"]
    for i, row in enumerate(rec["replays"]):
        if i % 2 == 0:
            row.update(outcome="pass", reason=None, signature=None)
        else:
            row["signature"] = f"flake:{reason}"
    failures, runs = sum(r["outcome"] == "fail" for r in rec["replays"]), len(rec["replays"])
    rec.update(label="flake", failures=failures, runs=runs, hold_reasons=[],
               tables={"gate": "freeze_candidate", "labels": "flake", "budget": "freeze_eligible",
                       "freeze_allowed": "true"},
               freeze={"state": "proposed", "assertion_id": ASSERTION, "fixture_digest": rec["fixture_digest"],
                       "witness_hash": rec["witness_hash"], "failures": failures, "runs": runs,
                       "expires_in_hours": 24, "signature": f"flake:{reason}"})
    path.write_text(json.dumps(rec, indent=2, sort_keys=True))
    return rec


def classify_args(records: Path) -> list[str]:
    return ["classify", "--lock", LOCK, "--witnesses", str(records), "--diff-paths", "changed.txt"]


def freeze_args(records: Path, rec: dict, out: Path) -> list[str]:
    return ["freeze", "--assertion", ASSERTION, "--lock", LOCK, "--witness", str(records / rec["witness_file"]),
            "--failures", str(rec["failures"]), "--runs", str(rec["runs"]), "--expires-in-hours", "24",
            "--out", str(out)]


def write_key(path: Path, secret: bytes, mode: int = 0o600) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(secret)
    os.chmod(path, mode)
    return path


@pytest.fixture(scope="module")
def checked(tmp_path_factory):
    return regression_repo(tmp_path_factory.mktemp("records") / "repo")


def test_check_seals_the_attempt_record_and_the_witness_file(checked, record_key):
    records = checked.path / ".artifacts/witnesses"
    key_id = hashlib.sha256(record_key.read_bytes()).hexdigest()[:12]
    rec = json.loads(attempt_path(records).read_text())
    witness = json.loads((records / rec["witness_file"]).read_text())
    for value in (rec, witness):
        assert value["mac"]["alg"] == "hmac-sha256" and value["mac"]["key_id"] == key_id
        assert len(value["mac"]["value"]) == 64
    assert set(witness) - {"mac"} >= {"assertion_id", "fixture_digest", "witness_hash", "payload", "seed"}
    done = run_cli(*classify_args(records), cwd=checked.path)
    assert done.returncode == 1 and f"{ASSERTION}: regression 4/4 -> regression" in done.stdout, done.stderr


def test_an_edited_witness_file_is_refused_even_with_its_hash_recomputed(checked, tmp_path):
    records = copy_records(checked, tmp_path / "w")
    rec = json.loads(attempt_path(records).read_text())
    path = records / rec["witness_file"]
    witness = json.loads(path.read_text())
    witness["payload"] = {"items": [{"qty": 1}]}  # a witness that passes
    witness["witness_hash"] = hashlib.sha256(json.dumps(witness["payload"], sort_keys=True,
                                                        separators=(",", ":")).encode()).hexdigest()
    path.write_text(json.dumps(witness))
    for args in (classify_args(records), freeze_args(records, rec, tmp_path / "freeze.json")):
        done = run_cli(*args, cwd=checked.path)
        assert done.returncode == 2, done.stdout
        assert f"error: {path}: its mac does not match: edited after the gate wrote it" in done.stderr
        assert "Traceback" not in done.stderr
    assert not (tmp_path / "freeze.json").exists()


def test_a_record_without_a_mac_is_refused(checked, tmp_path):
    records = copy_records(checked, tmp_path / "w")
    rec = json.loads(attempt_path(records).read_text())
    del rec["mac"]
    attempt_path(records).write_text(json.dumps(rec))
    done = run_cli(*classify_args(records), cwd=checked.path)
    assert done.returncode == 2
    assert (f"{attempt_path(records)}: has no mac: written by an older witness-gate or edited; run check again"
            in done.stderr)


def test_a_record_written_with_another_key_is_refused_with_its_key_id(checked, tmp_path, monkeypatch, record_key):
    records = copy_records(checked, tmp_path / "w")
    theirs = hashlib.sha256(record_key.read_bytes()).hexdigest()[:12]
    other = write_key(tmp_path / "keys" / "other.key", os.urandom(32))
    monkeypatch.setenv("WITNESS_RECORD_KEY_FILE", str(other))
    done = run_cli(*classify_args(records), cwd=checked.path)
    assert done.returncode == 2
    assert f"{attempt_path(records)}: written with another record key (key id {theirs}" in done.stderr
    assert "set WITNESS_RECORD_KEY_FILE to the key that wrote it" in done.stderr
    monkeypatch.setenv("WITNESS_RECORD_KEY_FILE", str(tmp_path / "keys" / "missing.key"))
    done = run_cli(*classify_args(records), cwd=checked.path)  # a reader never makes a key of its own
    assert done.returncode == 2 and f"written with record key id {theirs}" in done.stderr
    assert "no record key at" in done.stderr and not (tmp_path / "keys" / "missing.key").exists()


def test_freeze_recomputes_the_verdict_from_the_rows_not_the_stored_totals(checked, tmp_path, record_key):
    # a record sealed with the right key whose totals, label and freeze say flake but whose rows say regression
    records = copy_records(checked, tmp_path / "w")
    rec = json.loads(attempt_path(records).read_text())
    rec.update(label="flake", failures=2, hold_reasons=[], freeze={"state": "proposed"})
    key = recordkey.load(guard=None, create=False)
    attempt_path(records).write_text(json.dumps(recordkey.seal(rec, key)))
    done = run_cli(*freeze_args(records, rec, tmp_path / "freeze.json"), cwd=checked.path)
    assert done.returncode == 2
    assert f"{ASSERTION}.attempt.json recorded 4/4, not 2/4" in done.stderr
    assert "is labelled regression" in done.stderr
    assert not (tmp_path / "freeze.json").exists()


def test_a_key_file_others_can_read_is_refused(checked, tmp_path, monkeypatch):
    key = write_key(tmp_path / "keys" / "record.key", os.urandom(32), 0o644)
    monkeypatch.setenv("WITNESS_RECORD_KEY_FILE", str(key))
    done = run_cli("check", "--lock", LOCK, "--properties", "tests/properties", "--out", str(tmp_path / "w"),
                   cwd=checked.path)
    assert done.returncode == 2
    assert f"error: the record key {key} is open to group or others (mode 0644)" in done.stderr
    assert f"chmod 600 {key}" in done.stderr
    assert not (tmp_path / "w").exists()  # refused before anything ran
    done = run_cli(*classify_args(checked.path / ".artifacts/witnesses"), cwd=checked.path)
    assert done.returncode == 2 and "is open to group or others" in done.stderr


def test_the_key_is_created_0600_on_first_use(checked, tmp_path, monkeypatch):
    key = tmp_path / "fresh" / "witness-gate" / "record.key"
    monkeypatch.setenv("WITNESS_RECORD_KEY_FILE", str(key))
    done = run_cli("check", "--lock", LOCK, "--properties", "tests/properties", "--out", str(tmp_path / "w"),
                   cwd=checked.path)
    assert done.returncode == 1, done.stderr
    assert stat.S_IMODE(key.stat().st_mode) == 0o600 and key.stat().st_uid == os.geteuid()
    assert stat.S_IMODE(key.parent.stat().st_mode) == 0o700
    assert len(key.read_bytes()) == 32
    rec = json.loads(attempt_path(tmp_path / "w").read_text())
    assert rec["mac"]["key_id"] == hashlib.sha256(key.read_bytes()).hexdigest()[:12]
    secret = key.read_bytes()
    assert recordkey.load(guard=None, create=True).secret == secret  # the second use reads it, never replaces it


def test_the_default_key_lives_in_the_users_config_directory(tmp_path, monkeypatch):
    monkeypatch.delenv("WITNESS_RECORD_KEY_FILE")
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    key = recordkey.load(guard=None, create=True)
    assert key.path == tmp_path / "home" / ".config" / "witness-gate" / "record.key"
    assert stat.S_IMODE(key.path.stat().st_mode) == 0o600
    assert stat.S_IMODE(key.path.parent.stat().st_mode) == 0o700
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    assert recordkey.key_path() == tmp_path / "xdg" / "witness-gate" / "record.key"


def test_a_key_inside_the_repository_being_gated_is_refused(checked, tmp_path, monkeypatch):
    key = checked.path / ".secrets" / "record.key"
    monkeypatch.setenv("WITNESS_RECORD_KEY_FILE", str(key))
    done = run_cli("check", "--lock", LOCK, "--properties", "tests/properties", "--out", str(tmp_path / "w"),
                   cwd=checked.path)
    assert done.returncode == 2
    assert f"the record key {key} is inside {checked.path}, the repository being gated" in done.stderr
    assert "could read it and forge records" in done.stderr
    assert not key.exists()
    done = run_cli("run", "--repo", str(checked.path), "--base", "main", "--head", "HEAD~0", "--out",
                   str(tmp_path / "out"), cwd=tmp_path)
    assert done.returncode == 2 and "the repository being gated" in done.stderr


@pytest.mark.parametrize("make, message", [
    (lambda p: (write_key(p.parent / "real.key", os.urandom(32)), p.symlink_to(p.parent / "real.key")),
     "is a symlink"),
    (lambda p: write_key(p, os.urandom(32), 0o640), "is open to group or others (mode 0640)"),
    (lambda p: write_key(p, b"short"), "holds 5 bytes, fewer than 32"),
    (lambda p: p.mkdir(parents=True), "is not a regular file"),
    (lambda p: (write_key(p, os.urandom(32)), os.chown(p, 12345, 12345)), "belongs to uid 12345, not to you"),
])
def test_unusable_key_files_are_refused_with_what_to_do(tmp_path, monkeypatch, make, message):
    if "uid" in message and os.geteuid() != 0:
        pytest.skip("only root can give a file away")
    path = tmp_path / "keys" / "record.key"
    path.parent.mkdir(mode=0o700)
    make(path)
    monkeypatch.setenv("WITNESS_RECORD_KEY_FILE", str(path))
    with pytest.raises(RecordKeyError, match="record key") as caught:
        recordkey.load(guard=None, create=True)
    assert message in str(caught.value)


def test_a_key_directory_others_can_write_to_is_refused(tmp_path, monkeypatch):
    shared = tmp_path / "shared"
    shared.mkdir()
    os.chmod(shared, 0o777)
    monkeypatch.setenv("WITNESS_RECORD_KEY_FILE", str(shared / "record.key"))
    with pytest.raises(RecordKeyError, match="writable by others"):
        recordkey.load(guard=None, create=True)


def test_the_mac_covers_every_field_but_itself():
    key = RecordKey(Path("k"), b"k" * 32)
    sealed = recordkey.seal({"b": [1, 2.5], "a": {"z": None}}, key)
    verifier = recordkey.Verifier(key=key)
    verifier.check(json.loads(json.dumps(sealed, indent=2)), "r.json")  # a round trip through JSON still checks
    for edit in ({"b": [1, 2.5, 3]}, {"c": 1}, {"a": {"z": 0}}):
        with pytest.raises(RecordKeyError, match="r.json: its mac does not match"):
            verifier.check({**sealed, **edit}, "r.json")
    assert recordkey.seal(sealed, key) == sealed  # sealing again replaces the old mac
