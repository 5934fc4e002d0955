"""The commands that only read records (trusted): classify, freeze, and the App's freeze ledger.

They never run code of the repository; they refuse any record whose seal does not hold
(witness_gate.records.readback) and decide again from its rows.
"""

from __future__ import annotations

import argparse
import getpass
import json
from datetime import datetime, timezone
from pathlib import Path

from witness_gate.cli import local
from witness_gate.config.lock import load_pinned, read_lock
from witness_gate.model.outcomes import EXIT_OK
from witness_gate.records import recordkey
from witness_gate.records.files import write_json_atomic
from witness_gate.records.readback import ATTEMPT_SUFFIX, load_attempt, load_attempts, read_witness
from witness_gate.rules.failure_kind import classify
from witness_gate.rules.path_split import split_change
from witness_gate.rules.verdict import Split, decide_property, exit_code, proposed_expiry


def cmd_classify(args: argparse.Namespace) -> int:
    config = local.load_config_file(Path.cwd())
    lock = read_lock(args.lock)
    load_pinned(lock, Path.cwd())  # a fixture that moved since the lock is an error, not a label
    try:
        changed = [ln.strip() for ln in Path(args.diff_paths).read_text(encoding="utf-8").splitlines() if ln.strip()]
    except OSError as exc:
        raise local.InputError(f"{args.diff_paths}: cannot read the changed paths ({exc.strerror})") from None
    split = Split(*split_change(changed, config.impl, config.oracle_patterns, config.ignore))
    rows = []
    now = datetime.now(timezone.utc)
    for stored in load_attempts(args.witnesses):
        verdict = decide_property(
            stored.binding, stored.evidence, split, stored.policy,
            expires_in_hours=config.expires_in_hours, now=now,
            digest_matches=stored.binding.fixture_digest == lock.fixture_digest,
        )
        failures, runs = verdict.failures, verdict.runs
        kind = classify(failures, runs, split.impl_changed, split.oracle_changed) \
            if stored.evidence is not None and stored.evidence.failed_once else verdict.label
        rows.append({  # the shape of `run --json`: one label, and what each table said beside it
            "assertion_id": stored.binding.assertion_id, "label": verdict.label,
            "reason": stored.record.get("reason"), "hold_reasons": list(verdict.hold_reasons),
            "tables": {**verdict.tables, "labels": kind} if verdict.tables else {"labels": kind},
            "failures": failures, "runs": runs, "witness_hash": stored.record.get("witness_hash"),
            "fixture_digest": stored.binding.fixture_digest, "verdict": verdict.label,
        })
    code = exit_code([row["verdict"] for row in rows])
    if args.json:
        print(json.dumps(rows, indent=2))
    else:
        for row in rows:  # the article's label table, then the one label it came to
            why = f" ({', '.join(row['hold_reasons'])})" if row["hold_reasons"] else ""
            print(f"{row['assertion_id']}: {row['tables']['labels']} {row['failures']}/{row['runs']} "
                  f"-> {row['verdict']}{why}")
    return code


def cmd_freeze(args: argparse.Namespace) -> int:
    config = local.load_config_file(Path.cwd())
    lock = read_lock(args.lock)
    load_pinned(lock, Path.cwd())
    witness = read_witness(args.witness)
    problems = _witness_problems(args, witness, lock)
    record_path = Path(args.witness).parent / f"{args.assertion}{ATTEMPT_SUFFIX}"
    if not record_path.is_file():
        problems.append(f"no attempt record {record_path.name} beside the witness; only what `check` recorded "
                        "as a flake may be frozen")
    else:
        stored, verdict = _decide_again(record_path, args.expires_in_hours, lock)
        problems += _record_problems(record_path.name, args, stored, verdict, witness)
    if args.expires_in_hours > config.max_hours:
        problems.append(f"--expires-in-hours {args.expires_in_hours:g} is beyond freeze.max_hours ({config.max_hours:g})")
    if problems:
        raise local.InputError("freeze refused: " + "; ".join(problems))
    record = recordkey.seal(_freeze_record(args, witness, lock, stored, verdict),
                            recordkey.establish(Path.cwd()))  # `run --freezes` refuses it unsealed
    if args.out:
        write_json_atomic(args.out, record)
        print(f"freeze record for {args.assertion} until {record['expires_at']} -> {args.out}")
    else:
        print(json.dumps(record, indent=2, sort_keys=True))
    return EXIT_OK


def _witness_problems(args: argparse.Namespace, witness: dict, lock) -> list[str]:
    problems = []
    if witness["assertion_id"] != args.assertion:
        problems.append(f"the witness belongs to {witness['assertion_id']}, not {args.assertion}")
    if witness["fixture_digest"] != lock.fixture_digest:
        problems.append("the witness was taken on another fixture than the lock pins")
    kind = classify(args.failures, args.runs, True, False)
    if kind != "flake":
        problems.append(f"{args.failures} failures in {args.runs} runs is {kind}, not a flake; only a flake may be frozen")
    return problems


def _decide_again(record_path: Path, expires_in_hours: float, lock):
    """The verdict comes again from the record's evidence rows, never from its stored totals or label."""
    stored = load_attempt(record_path)
    recorded = stored.record.get("split") or {}  # the split `check` or `run` gated with
    split = Split(recorded.get("impl_changed") is True, recorded.get("oracle_changed") is True)
    verdict = decide_property(
        stored.binding, stored.evidence, split, stored.policy,
        expires_in_hours=expires_in_hours, now=datetime.now(timezone.utc),
        digest_matches=stored.binding.fixture_digest == lock.fixture_digest,
    )
    return stored, verdict


def _record_problems(name: str, args: argparse.Namespace, stored, verdict, witness: dict) -> list[str]:
    problems = []
    if stored.binding.assertion_id != args.assertion:
        problems.append(f"{name} records {stored.binding.assertion_id}, not {args.assertion}")
    if (verdict.failures, verdict.runs) != (args.failures, args.runs):
        problems.append(f"{name} recorded {verdict.failures}/{verdict.runs}, not {args.failures}/{args.runs}")
    if stored.evidence is None or stored.evidence.witness_hash != witness["witness_hash"]:
        problems.append(f"{name} recorded another witness")
    if not verdict.proposes_freeze:  # exactly when the gate proposes a freeze
        problems.append(f"{name} is labelled {verdict.label} "
                        f"({', '.join(verdict.hold_reasons) or 'no hold reason'}), not a flake")
    return problems


def _freeze_record(args: argparse.Namespace, witness: dict, lock, stored, verdict) -> dict:
    now = datetime.now(timezone.utc)
    return {
        "state": "proposed",
        "assertion_id": args.assertion,
        "property_id": witness.get("property_id"),
        "contract_digest": stored.record.get("contract_digest") or "",
        "patch_digest": stored.record.get("patch_digest") or "",  # a witness another example gave: its patch's only
        "fixture_digest": lock.fixture_digest,
        "witness_hash": witness["witness_hash"],
        "payload": witness["payload"],  # the retained witness the next attempt replays first
        "signature": next((sig for sig in verdict.signatures if sig), ""),
        "seed": witness.get("seed", lock.seed),
        "failures": args.failures,
        "runs": args.runs,
        "expires_in_hours": args.expires_in_hours,
        "expires_at": proposed_expiry(now, args.expires_in_hours),
        "created_at": now.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "accepted_by": _user(),  # whoever runs `freeze` is the person who accepts it
    }


def _user() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):  # no login name in this environment
        return ""


def cmd_freezes(args: argparse.Namespace) -> int:
    import os

    from sqlalchemy.exc import SQLAlchemyError

    from witness_gate.records.ledger import Ledger, aware, iso
    from witness_gate.records.store import DEFAULT_DATABASE_URL, Store

    url = args.database_url or os.environ.get("DATABASE_URL") or DEFAULT_DATABASE_URL
    try:
        store = Store(url)
        store.create_schema()
        ledger = Ledger(store)
        ledger.expire_due()
        freezes = ledger.freezes(limit=1000)
        events = {f.id: ledger.events(f.id) for f in freezes}
    except SQLAlchemyError as exc:
        raise local.InputError(f"{url.split('@')[-1]}: cannot read the ledger ({type(exc).__name__}: "
                               f"{str(exc).splitlines()[0][:200]}); check DATABASE_URL") from None
    now = datetime.now(timezone.utc)
    if args.json:
        print(json.dumps([{
            "id": f.id, "repo": f.repo, "pr_number": f.pr_number, "assertion_id": f.assertion_id,
            "state": f.state, "fixture_digest": f.fixture_digest, "witness_hash": f.witness_hash,
            "failures": f.failures, "runs": f.runs, "accepted_by": f.accepted_by,
            "expires_at": iso(f.expires_at) or None, "proposed_at": iso(f.proposed_at),
            "events": [{"action": e.action, "actor": e.actor, "at": iso(e.at), "reason": e.reason}
                       for e in events[f.id]],
        } for f in freezes], indent=2))
        return EXIT_OK
    if not freezes:
        print(f"no freezes in {url.split('@')[-1]}")
        return EXIT_OK
    for f in freezes:
        left = ""
        if f.state == "accepted" and f.expires_at:
            hours = (aware(f.expires_at) - now).total_seconds() / 3600
            left = f" until {iso(f.expires_at)} ({hours:.1f}h left)"
        who = f" by @{f.accepted_by}" if f.accepted_by else ""
        print(f"{f.state:<9} {f.assertion_id} {f.repo}#{f.pr_number} witness {f.witness_hash[:12]} "
              f"{f.failures}/{f.runs}{who}{left}")
    return EXIT_OK
