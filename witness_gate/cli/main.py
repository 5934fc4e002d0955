"""`python -m witness_gate`: pin, check, classify, freeze (article 001) and run (the whole gate)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from witness_gate import sandbox as sandboxes
from witness_gate.cli import init, local, replaying
from witness_gate.cli.report import print_report, reporter_for, review_lines, run_json
from witness_gate.cli.reviewing import cmd_classify, cmd_freeze, cmd_freezes
from witness_gate.config.lock import LockError, pin, read_lock, write_lock
from witness_gate.config.schema import CONFIG_NAME, ConfigError
from witness_gate.model.canonical import CanonicalError
from witness_gate.model.evidence import Policy
from witness_gate.model.outcomes import EXIT_BLOCK, EXIT_OK, EXIT_USAGE
from witness_gate.records import recordkey
from witness_gate.records.files import CACHE_ENV
from witness_gate.records.readback import ATTEMPT_SUFFIX, RecordError, read_freezes
from witness_gate.records.sinks import CHANGE_RECORD, UnsafeOutput, ignored_by_git, own_folder
from witness_gate.rules.verdict import exit_code, overall_label
from witness_gate.setup.egress import DEFAULT_INDEX_HOSTS, HOSTS_ENV
from witness_gate.sources import gitrepo

INPUT_ERRORS = (local.InputError, ConfigError, LockError, RecordError, recordkey.RecordKeyError, CanonicalError,
                sandboxes.SandboxUnavailable, gitrepo.GitError, replaying.ReplayError, UnsafeOutput)

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
    for add in (_add_init, _add_pin, _add_check, _add_classify, _add_freeze, _add_run, _add_replay, _add_freezes):
        add(sub)
    return parser


def _add_runner_flags(p: argparse.ArgumentParser) -> None:
    p.add_argument("--runs", type=_positive_int, help="replays of each witness (default: .witness.yml policy.runs)")
    p.add_argument("--seed", help="override the pinned seed")
    p.add_argument("--sandbox", choices=sandboxes.MODES, default="auto",
                   help="auto (default): bubblewrap when installed, else a plain subprocess with a warning")
    p.add_argument("--json", action="store_true", help="print the results as JSON instead of a table")
    p.add_argument("--freezes", metavar="FILE|DIR",
                   help="freeze records written by `freeze --out` (sealed); passing them accepts them: a flake "
                        "that matches one, on its own retained witness, is frozen")


def _add_init(sub) -> None:
    p = sub.add_parser("init", help="write a .witness.yml from the repository's layout and say why (changes nothing "
                                    "else)")
    p.add_argument("--repo", default=".", help="the repository (default: the current directory)")
    p.add_argument("--print", action="store_true", dest="print_only", help="print the config instead of writing it")


def _add_pin(sub) -> None:
    p = sub.add_parser("pin", help="hash a fixture into a lock (path, digest, generator version, seed)")
    p.add_argument("--fixture", required=True, help="the fixture file (JSON, or the header form)")
    p.add_argument("--generator-version", required=True, type=_nonneg_int, help="recorded in the lock")
    p.add_argument("--out", required=True, help="where to write the lock")
    p.add_argument("--seed", help="seed when the fixture has no header (default: .witness.yml, then '0')")


def _add_check(sub) -> None:
    p = sub.add_parser("check", help="run every property on the locked fixture; shrink, retain and replay failures",
                       epilog=SETUP_EPILOG)
    p.add_argument("--lock", required=True, help="a lock written by `pin`")
    p.add_argument("--properties", required=True, help="directory of prop_* functions")
    p.add_argument("--out", required=True, help="directory for witnesses and attempt records")
    _add_runner_flags(p)


def _add_classify(sub) -> None:
    p = sub.add_parser("classify", help="label each recorded attempt against the changed paths (reads records only)")
    p.add_argument("--lock", required=True)
    p.add_argument("--witnesses", required=True, help="the --out directory of `check`")
    p.add_argument("--diff-paths", required=True, help="file with one changed repository path per line")
    p.add_argument("--json", action="store_true", help="print a JSON list instead of lines")


def _add_freeze(sub) -> None:
    p = sub.add_parser("freeze", help="write a freeze record for a flake; refuses anything else")
    p.add_argument("--assertion", required=True)
    p.add_argument("--lock", required=True)
    p.add_argument("--witness", required=True, help="the retained witness file")
    p.add_argument("--failures", required=True, type=_nonneg_int)
    p.add_argument("--runs", required=True, type=_positive_int)
    p.add_argument("--expires-in-hours", required=True, type=_hours)
    p.add_argument("--out", help="where to write the record (default: print it)")


def _add_run(sub) -> None:
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
    p.add_argument("--only", action="append", default=[], metavar="PATTERN",
                   help="gate only the properties whose assertion id matches PATTERN (shell-style, e.g. "
                        "'tests.test_utils.*'; repeatable): a look at a few properties, not a verdict on the change")
    _add_runner_flags(p)


def _add_replay(sub) -> None:
    p = sub.add_parser(
        "replay", help="replay a recorded witness here, in the sandbox, and say whether it agrees with the record",
        description="Replay the witness of RECORD — a retained witness file, an attempt record, or the App's "
                    "record page (https://…/records/<id>) — against --repo, which must hold the record's head "
                    "(nothing is checked out for you). Same seed, same sandbox; prints `k of N failed (reason R), "
                    "seed S, witness W` and whether that agrees with the record. Exit 1 if every run failed, "
                    "3 if the runs disagree, 0 if none failed.")
    p.add_argument("record", metavar="RECORD", help="witness file, attempt record, or record URL")
    p.add_argument("--repo", default=".", help="the directory at the record's head (default: .)")
    p.add_argument("--runs", type=_positive_int, help="replays (default: the record's policy.runs)")
    # a record is handed over by someone else, about code someone else wrote: no quiet fall-back to no isolation
    p.add_argument("--sandbox", choices=sandboxes.MODES, default="bwrap",
                   help="bwrap (default): refuse when bubblewrap cannot run; auto: fall back to a plain subprocess "
                        "with a warning; none: a plain subprocess, for code you trust")


def _add_freezes(sub) -> None:
    p = sub.add_parser("freezes", help="list the freeze ledger of the App's record store (DATABASE_URL)")
    p.add_argument("--database-url", help="SQLAlchemy URL (default: $DATABASE_URL, else sqlite:///witness.db)")
    p.add_argument("--json", action="store_true", help="print a JSON list, audit trail included")


SETUP_EPILOG = (f"environment: {HOSTS_ENV} (hosts a setup: step may reach; default "
                f"{','.join(DEFAULT_INDEX_HOSTS)}), {CACHE_ENV} (where per-head environments are kept), "
                "WITNESS_SANDBOX_UID and WITNESS_SANDBOX_PYTHON (when run as root)")


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    handler = {"init": cmd_init, "pin": cmd_pin, "check": cmd_check, "classify": cmd_classify,
               "freeze": cmd_freeze, "run": cmd_run, "replay": cmd_replay, "freezes": cmd_freezes}[args.command]
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


def cmd_init(args: argparse.Namespace) -> int:
    repo = Path(args.repo).resolve()
    if not repo.is_dir():
        raise local.InputError(f"{repo}: no such folder; pass --repo the repository to adopt")
    text, why = init.propose(init.read_layout(repo))
    target = repo / CONFIG_NAME
    if args.print_only:
        print(text, end="")
    elif target.exists() or target.is_symlink():
        raise local.InputError(f"{target}: the repository already has a {CONFIG_NAME}; edit it, or pass --print to see "
                               "what init would write")
    else:
        target.write_text(text, encoding="utf-8")
        print(f"wrote {target}:")
        print(text, end="")
    print("why:")
    for line in why:
        print(f"  {line}")
    if not args.print_only:
        print(f"next: commit {CONFIG_NAME} to the base branch, then `witness-gate run --base <that branch>` on a change")
    return EXIT_OK


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
    out_dir = own_folder(Path(args.out), repo)
    for stale in out_dir.glob(f"*{ATTEMPT_SUFFIX}"):
        stale.unlink()  # records of properties that no longer exist must not be classified
    outcome = local.check(
        repo, lock, args.properties, config=config, policy=Policy.from_config(config, args.runs),
        sandbox=sandboxes.choose(args.sandbox, _warn), out_dir=out_dir, reporter=reporter_for(sys.stderr),
        seed=args.seed, freezes=read_freezes(args.freezes) if args.freezes else (),
    )
    return _finish(outcome, args.json, out_dir)


def cmd_run(args: argparse.Namespace) -> int:
    repo = Path(args.repo).resolve()
    if not (repo / ".git").exists():
        raise local.InputError(f"{repo}: not a git repository; `run` compares two commits (use `check` otherwise)")
    recordkey.establish(repo)  # the records it writes are sealed with the record key, kept outside the repo
    head = gitrepo.rev_parse(repo, args.head)
    out_root = own_folder(Path(args.out), repo)  # by default inside the working tree: never through its links
    ignored_by_git(out_root)
    out_dir = own_folder(out_root / head[:12], repo)
    outcome = local.run(
        repo, args.base, args.head, sandbox=lambda: sandboxes.choose(args.sandbox, _warn), out_dir=out_dir,
        reporter=reporter_for(sys.stderr), runs=args.runs, seed=args.seed,
        freezes=read_freezes(args.freezes) if args.freezes else (), only=tuple(args.only),
    )
    if outcome.refused or outcome.skipped:
        label = "mixed_edit" if outcome.refused else "skipped"
        reason = outcome.refused or outcome.skipped
        if args.json:  # the same shape as every other outcome: nothing ran, so no property's row
            print(json.dumps(run_json([], label, EXIT_BLOCK if outcome.refused else EXIT_OK, out_dir / CHANGE_RECORD,
                                      reason), indent=2))
        else:
            print(outcome.header)
            for line in review_lines(outcome.config_review):
                print(line)
            print(f"verdict: {label}: {reason}")
            print(f"record: {out_dir / CHANGE_RECORD}")
        return EXIT_BLOCK if outcome.refused else EXIT_OK
    return _finish(outcome, args.json, out_dir)


def cmd_replay(args: argparse.Namespace) -> int:
    repo = Path(args.repo).resolve()
    items = replaying.load(args.record)
    try:
        sandbox = sandboxes.choose(args.sandbox, _warn)
    except sandboxes.SandboxUnavailable as exc:
        raise sandboxes.SandboxUnavailable(f"{exc}; replay runs a record's code only in the sandbox (pass "
                                           "--sandbox none to run it unisolated, for code you trust)") from None
    return replaying.replay(items, repo, config=local.load_config_file(repo), sandbox=sandbox, runs=args.runs,
                            say=_warn)


def _finish(outcome: local.Outcome, as_json: bool, out_dir: Path) -> int:
    labels_ = [r.verdict.label for r in outcome.results]
    code = exit_code(labels_)
    if as_json:
        print(json.dumps(run_json(outcome.results, overall_label(labels_), code, out_dir), indent=2))
    else:
        header = "\n".join([outcome.header, *review_lines(outcome.config_review)])
        print_report(outcome.results, header, overall_label(labels_), code, out_dir)
    return code






