"""`python -m witness_gate`: pin, check, classify, freeze (article 001) and run (the whole gate)."""

from __future__ import annotations

import argparse
import json
import sys
from datetime import datetime, timezone
from pathlib import Path

from witness_gate import gitrepo, local, recordkey, sandbox as sandboxes
from witness_gate.attempt import Policy
from witness_gate.canonical import CanonicalError
from witness_gate.config import ConfigError
from witness_gate.egress import DEFAULT_INDEX_HOSTS, HOSTS_ENV
from witness_gate.files import CACHE_ENV, write_json_atomic
from witness_gate.labels import classify, split_change
from witness_gate.lock import LockError, load_pinned, pin, read_lock, write_lock
from witness_gate.records import ATTEMPT_SUFFIX, RecordError, load_attempt, load_attempts, read_witness
from witness_gate.report import print_report, reporter_for, results_json
from witness_gate.verdict import Split, decide_property, exit_code, overall_label, proposed_expiry

EXIT_OK, EXIT_BLOCK, EXIT_USAGE = 0, 1, 2  # 3, "needs a person", comes from verdict.exit_code
INPUT_ERRORS = (local.InputError, ConfigError, LockError, RecordError, recordkey.RecordKeyError, CanonicalError,
                sandboxes.SandboxUnavailable, gitrepo.GitError)

EPILOG = """exit codes: 0 nothing blocks; 1 regression or mixed_edit; 3 needs a person
(flake, oracle_defect, not_reproduced, hold); 2 usage or input error.

article 001's sequence:
  python -m witness_gate pin --fixture tests/fixtures/orders.json --generator-version 3 --out .artifacts/fixture.lock
  python -m witness_gate check --lock .artifacts/fixture.lock --properties tests/properties --out .artifacts/witnesses
  python -m witness_gate classify --lock .artifacts/fixture.lock --witnesses .artifacts/witnesses --diff-paths changed.txt
  python -m witness_gate freeze --assertion prop_x --lock .artifacts/fixture.lock --witness .artifacts/witnesses/prop_x.<hash>.json --failures 2 --runs 5 --expires-in-hours 24
or the whole gate on a git repository:
  python -m witness_gate run --repo . --base main --head HEAD"""


def _whole(minimum: int):
    """An argparse type: a whole number >= minimum."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"expected a number >= {minimum}, got {value}")
        return value

    return parse


_positive_int, _nonneg_int = _whole(1), _whole(0)


def _hours(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of hours, got {text!r}") from None
    if not value > 0 or value != value or value == float("inf"):
        raise argparse.ArgumentTypeError(f"expected hours > 0, got {text}")
    return value


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m witness_gate",
        description="Shrink a failing property to a witness, replay it with the same seed, and "
                    "classify it: regression, flake, oracle defect or mixed edit.",
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("pin", help="hash a fixture into a lock (path, digest, generator version, seed)")
    p.add_argument("--fixture", required=True, help="the fixture file (JSON, or the header form)")
    p.add_argument("--generator-version", required=True, type=_nonneg_int, help="recorded in the lock")
    p.add_argument("--out", required=True, help="where to write the lock")
    p.add_argument("--seed", help="seed when the fixture has no header (default: .witness.yml, then '0')")

    def add_runner_flags(p: argparse.ArgumentParser) -> None:
        p.add_argument("--runs", type=_positive_int, help="replays of each witness (default: .witness.yml policy.runs)")
        p.add_argument("--seed", help="override the pinned seed")
        p.add_argument("--sandbox", choices=sandboxes.MODES, default="auto",
                       help="auto (default): bubblewrap when installed, else a plain subprocess with a warning")
        p.add_argument("--json", action="store_true", help="print the results as JSON instead of a table")

    p = sub.add_parser("check", help="run every property on the locked fixture; shrink, retain and replay failures",
                       epilog=SETUP_EPILOG)
    p.add_argument("--lock", required=True, help="a lock written by `pin`")
    p.add_argument("--properties", required=True, help="directory of prop_* functions")
    p.add_argument("--out", required=True, help="directory for witnesses and attempt records")
    add_runner_flags(p)

    p = sub.add_parser("classify", help="label each recorded attempt against the changed paths (reads records only)")
    p.add_argument("--lock", required=True)
    p.add_argument("--witnesses", required=True, help="the --out directory of `check`")
    p.add_argument("--diff-paths", required=True, help="file with one changed repository path per line")
    p.add_argument("--json", action="store_true", help="print a JSON list instead of lines")

    p = sub.add_parser("freeze", help="write a freeze record for a flake; refuses anything else")
    p.add_argument("--assertion", required=True)
    p.add_argument("--lock", required=True)
    p.add_argument("--witness", required=True, help="the retained witness file")
    p.add_argument("--failures", required=True, type=_nonneg_int)
    p.add_argument("--runs", required=True, type=_positive_int)
    p.add_argument("--expires-in-hours", required=True, type=_hours)
    p.add_argument("--out", help="where to write the record (default: print it)")

    p = sub.add_parser("run", help="the whole gate on a local git repository, base against head",
                       description="The whole gate between two commits: .witness.yml and the fixtures come from "
                                   "BASE, the code from HEAD. If .witness.yml has a setup: section, it runs once per "
                                   "head first, in the sandbox, reaching only the package index "
                                   f"(${HOSTS_ENV}); the environment is kept under ${CACHE_ENV}/witness-envs.",
                       epilog=SETUP_EPILOG)
    p.add_argument("--repo", default=".", help="the repository (default: .)")
    p.add_argument("--base", help="base commit (default: merge base with main/master, else HEAD~1)")
    p.add_argument("--head", default="HEAD", help="head commit (default: HEAD)")
    p.add_argument("--out", default=".artifacts/witness-gate",
                   help="records go to OUT/<head sha> (default: .artifacts/witness-gate)")
    add_runner_flags(p)
    p = sub.add_parser("freezes", help="list the freeze ledger of the App's record store (DATABASE_URL)")
    p.add_argument("--database-url", help="SQLAlchemy URL (default: $DATABASE_URL, else sqlite:///witness.db)")
    p.add_argument("--json", action="store_true", help="print a JSON list, audit trail included")
    return parser


SETUP_EPILOG = (f"environment: {HOSTS_ENV} (hosts a setup: step may reach; default "
                f"{','.join(DEFAULT_INDEX_HOSTS)}), {CACHE_ENV} (where per-head environments are kept), "
                "WITNESS_SANDBOX_UID and WITNESS_SANDBOX_PYTHON (when run as root)")


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    handler = {"pin": cmd_pin, "check": cmd_check, "classify": cmd_classify,
               "freeze": cmd_freeze, "run": cmd_run, "freezes": cmd_freezes}[args.command]
    try:
        return handler(args)
    except INPUT_ERRORS as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("interrupted; records already written are complete", file=sys.stderr)
        return 130


def _warn(message: str) -> None:
    print(message, file=sys.stderr)


def cmd_pin(args: argparse.Namespace) -> int:
    config = local.load_config_file(Path.cwd())
    lock = pin(args.fixture, args.generator_version, args.seed or config.seed)
    write_lock(lock, args.out)
    print(f"pinned {lock.path}: sha256 {lock.fixture_digest}, generator {lock.generator_version}, "
          f"seed {lock.seed} -> {args.out}")
    return EXIT_OK


def cmd_check(args: argparse.Namespace) -> int:
    repo = Path.cwd()
    config = local.load_config_file(repo)
    lock = read_lock(args.lock)
    recordkey.establish(repo)  # the records it writes are sealed with the record key, kept outside the repo
    out_dir = Path(args.out)
    for stale in out_dir.glob(f"*{ATTEMPT_SUFFIX}"):
        stale.unlink()  # records of properties that no longer exist must not be classified
    outcome = local.check(
        repo, lock, args.properties, config=config, policy=Policy.from_config(config, args.runs),
        sandbox=sandboxes.choose(args.sandbox, _warn), out_dir=out_dir, reporter=reporter_for(sys.stderr),
        seed=args.seed,
    )
    return _finish(outcome, args.json, out_dir)


def cmd_run(args: argparse.Namespace) -> int:
    repo = Path(args.repo).resolve()
    if not (repo / ".git").exists():
        raise local.InputError(f"{repo}: not a git repository; `run` compares two commits (use `check` otherwise)")
    recordkey.establish(repo)  # the records it writes are sealed with the record key, kept outside the repo
    head = gitrepo.rev_parse(repo, args.head)
    out_dir = Path(args.out) / head[:12]
    outcome = local.run(
        repo, args.base, args.head, sandbox=lambda: sandboxes.choose(args.sandbox, _warn), out_dir=out_dir,
        reporter=reporter_for(sys.stderr), runs=args.runs, seed=args.seed,
    )
    if outcome.refused or outcome.skipped:
        label = "mixed_edit" if outcome.refused else "skipped"
        if args.json:
            print(json.dumps({"label": label, "reason": outcome.refused or outcome.skipped}))
        else:
            print(outcome.header)
            print(f"verdict: {label}: {outcome.refused or outcome.skipped}")
        return EXIT_BLOCK if outcome.refused else EXIT_OK
    return _finish(outcome, args.json, out_dir)


def _finish(outcome: local.Outcome, as_json: bool, out_dir: Path) -> int:
    labels_ = [r.verdict.label for r in outcome.results]
    code = exit_code(labels_)
    if as_json:
        print(json.dumps(results_json(outcome.results), indent=2))
    else:
        print_report(outcome.results, outcome.header, overall_label(labels_), code, out_dir)
    return code


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
        rows.append({
            "assertion_id": stored.binding.assertion_id, "label": kind, "failures": failures,
            "runs": runs, "witness_hash": stored.record.get("witness_hash"),
            "fixture_digest": stored.binding.fixture_digest, "verdict": verdict.label,
            "hold_reasons": verdict.hold_reasons,
        })
    code = exit_code([row["verdict"] for row in rows])
    if args.json:
        print(json.dumps([{k: v for k, v in row.items() if k != "hold_reasons"} for row in rows], indent=2))
    else:
        for row in rows:
            why = f" ({', '.join(row['hold_reasons'])})" if row["hold_reasons"] else ""
            print(f"{row['assertion_id']}: {row['label']} {row['failures']}/{row['runs']} "
                  f"-> {row['verdict']}{why}")
    return code


def cmd_freeze(args: argparse.Namespace) -> int:
    config = local.load_config_file(Path.cwd())
    lock = read_lock(args.lock)
    load_pinned(lock, Path.cwd())
    witness = read_witness(args.witness)
    problems = []
    if witness["assertion_id"] != args.assertion:
        problems.append(f"the witness belongs to {witness['assertion_id']}, not {args.assertion}")
    if witness["fixture_digest"] != lock.fixture_digest:
        problems.append("the witness was taken on another fixture than the lock pins")
    kind = classify(args.failures, args.runs, True, False)
    if kind != "flake":
        problems.append(f"{args.failures} failures in {args.runs} runs is {kind}, not a flake; only a flake may be frozen")
    record_path = Path(args.witness).parent / f"{args.assertion}{ATTEMPT_SUFFIX}"
    if not record_path.is_file():
        problems.append(f"no attempt record {record_path.name} beside the witness; only what `check` recorded "
                        "as a flake may be frozen")
    else:
        # the verdict comes again from the record's evidence rows, never from its stored totals or label
        stored = load_attempt(record_path)
        recorded = stored.record.get("split") or {}  # the split `check` or `run` gated with
        split = Split(recorded.get("impl_changed") is True, recorded.get("oracle_changed") is True)
        verdict = decide_property(
            stored.binding, stored.evidence, split, stored.policy,
            expires_in_hours=args.expires_in_hours, now=datetime.now(timezone.utc),
            digest_matches=stored.binding.fixture_digest == lock.fixture_digest,
        )
        if stored.binding.assertion_id != args.assertion:
            problems.append(f"{record_path.name} records {stored.binding.assertion_id}, not {args.assertion}")
        if (verdict.failures, verdict.runs) != (args.failures, args.runs):
            problems.append(f"{record_path.name} recorded {verdict.failures}/{verdict.runs}, "
                            f"not {args.failures}/{args.runs}")
        if stored.evidence is None or stored.evidence.witness_hash != witness["witness_hash"]:
            problems.append(f"{record_path.name} recorded another witness")
        if not verdict.proposes_freeze:  # exactly when the gate proposes a freeze
            problems.append(f"{record_path.name} is labelled {verdict.label} "
                            f"({', '.join(verdict.hold_reasons) or 'no hold reason'}), not a flake")
    if args.expires_in_hours > config.max_hours:
        problems.append(f"--expires-in-hours {args.expires_in_hours:g} is beyond freeze.max_hours ({config.max_hours:g})")
    if problems:
        raise local.InputError("freeze refused: " + "; ".join(problems))
    now = datetime.now(timezone.utc)
    record = {
        "state": "proposed",
        "assertion_id": args.assertion,
        "property_id": witness.get("property_id"),
        "fixture_digest": lock.fixture_digest,
        "witness_hash": witness["witness_hash"],
        "seed": witness.get("seed", lock.seed),
        "failures": args.failures,
        "runs": args.runs,
        "expires_in_hours": args.expires_in_hours,
        "expires_at": proposed_expiry(now, args.expires_in_hours),
        "created_at": now.strftime("%Y-%m-%dT%H:%M:%SZ"),
    }
    if args.out:
        write_json_atomic(args.out, record)
        print(f"freeze record for {args.assertion} until {record['expires_at']} -> {args.out}")
    else:
        print(json.dumps(record, indent=2, sort_keys=True))
    return EXIT_OK


def cmd_freezes(args: argparse.Namespace) -> int:
    import os

    from sqlalchemy.exc import SQLAlchemyError

    from witness_gate.ledger import Ledger, aware, iso
    from witness_gate.store import DEFAULT_DATABASE_URL, Store

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
