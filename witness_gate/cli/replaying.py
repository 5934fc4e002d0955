"""`replay RECORD`: a reviewer re-runs a recorded witness on their own machine, in the same sandbox.

RECORD is a retained witness file, an attempt record, or the App's record page (`https://…/records/<id>`).
Nothing is checked out: the directory must hold the record's head, and what the gate ran is rebuilt from
it (with the base's oracle laid over it when the gate did that). The replay decides nothing for the gate;
it prints what it saw and whether that agrees with the record.
"""

from __future__ import annotations

import re
import shutil
import tempfile
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from witness_gate.config.schema import Config
from witness_gate.model.canonical import CanonicalError, load_json_file, loads_strict, witness_hash
from witness_gate.model.evaluation import Evaluation
from witness_gate.model.evidence import Policy
from witness_gate.model.outcomes import EXIT_BLOCK, EXIT_OK, EXIT_PERSON
from witness_gate.pipeline import pytests
from witness_gate.pipeline.session import oracle_paths
from witness_gate.sandbox import Sandbox, make_readable, stage_directory
from witness_gate.sandbox.judge.tests import PREFIX as PYTEST_PREFIX
from witness_gate.sandbox.runner import PropertyRunner
from witness_gate.setup.environment import set_up
from witness_gate.sources import gitrepo

MAX_RECORD_BYTES = 16 * 1024**2
MAX_RUNS = 1000  # a record names its own replays; a reviewer's machine is not the record's to spend
MAX_ATTEMPTS = 500  # a run gates at most this many properties (witness_gate.sandbox.listing.MAX_PROPERTIES)
HEX = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
# <relpath>::<function>, or a pytest test's <relpath>::<node> (`TestX::test_y`)
SELECTOR = re.compile(r"[\w./-]{1,300}::([A-Za-z_][\w-]{0,199}(::[A-Za-z_][\w-]{0,199})?|\*)")  # *: a file's others
NAME = re.compile(r"[A-Za-z_][\w.-]{0,399}")  # a prop_* function, a test's dotted id, or a command's property
SEED = re.compile(r"[ -~]{1,200}")  # printable ASCII: it becomes an environment variable


class ReplayError(ValueError):
    """A record that cannot be replayed here; the message says why and what to do."""


@dataclass(frozen=True)
class Replayable:
    """One recorded witness: what to run, and what the record saw."""

    assertion_id: str
    selector: str  # <relpath>::<function>, or the name the runner protocol is given
    payload: Any
    witness_hash: str
    seed: str
    runs: int
    reason: str = ""
    seen: tuple[int, int] | None = None  # (failures, runs) of the recorded witness series
    source: dict[str, Any] = field(default_factory=dict)  # head_sha, head_tree, base_sha, tree, oracle_paths
    timeout_seconds: float = 60


@dataclass(frozen=True)
class Summary:
    failed: int
    runs: int
    reasons: tuple[str, ...]

    @property
    def exit_code(self) -> int:
        """1 every run failed, 0 none did, 3 they disagree among themselves."""
        if self.failed == self.runs and self.runs:
            return EXIT_BLOCK
        return EXIT_OK if self.failed == 0 and not self.reasons else EXIT_PERSON

    def line(self, item: Replayable) -> str:
        why = f" (reason {', '.join(self.reasons)})" if self.reasons else ""
        return (f"{item.assertion_id}: {self.failed} of {self.runs} failed{why}, seed {item.seed}, "
                f"witness {item.witness_hash[:12]}")

    def agreement(self, item: Replayable) -> str:
        """Whether this replay tells the record's story: the same reason, and failing every time or not."""
        if item.seen is None:
            return "the record keeps no series to compare with"
        failures, runs = item.seen
        same_kind = (self.failed == self.runs) == (failures == runs) and (self.failed == 0) == (failures == 0)
        reasons_agree = not self.reasons or not item.reason or set(self.reasons) <= {item.reason}
        said = f"the record saw {failures} of {runs} failed" + (f" (reason {item.reason})" if item.reason else "")
        return ("agrees with the record: " if same_kind and reasons_agree else "DISAGREES with the record: ") + said


def summarize(rows: list[Evaluation]) -> Summary:
    failed = [row for row in rows if row.outcome == "fail"]
    reasons = tuple(dict.fromkeys(row.reason or "" for row in failed))
    faults = tuple(dict.fromkeys(f"transport:{row.reason}" for row in rows if row.outcome == "transport"))
    return Summary(len(failed), len(rows), reasons + faults)


# -- reading what to replay ----------------------------------------------------------------------
def load(record: str, fetch: Callable[[str], Any] | None = None) -> list[Replayable]:
    """The witnesses RECORD names: a witness file, an attempt record, a run record, or its URL."""
    if record.startswith(("https://", "http://")):
        value = (fetch or _fetch)(record)
        where = record
    else:
        try:
            value = load_json_file(record)
        except (CanonicalError, OSError) as exc:
            raise ReplayError(f"{record}: cannot read it ({exc})") from None
        where = record
        sibling = _attempt_beside(Path(record), value)
        if sibling is not None:
            value = sibling
    items = _replayables(value, where, fetch)
    if not items:
        raise ReplayError(f"{where}: no witness to replay here (only a failing property keeps one)")
    return items


def _attempt_beside(path: Path, value: Any) -> dict[str, Any] | None:
    """A witness file's attempt record, written beside it: it knows the runs, the series and the head."""
    if not (isinstance(value, dict) and "payload" in value and "assertion_id" in value):
        return None
    beside = path.parent / f"{value['assertion_id']}.attempt.json"
    try:
        record = load_json_file(beside)
    except (CanonicalError, OSError):
        return None
    return record if isinstance(record, dict) and record.get("witness_hash") == value.get("witness_hash") else None


def _replayables(value: Any, where: str, fetch: Callable[[str], Any] | None) -> list[Replayable]:
    if isinstance(value, dict) and isinstance(value.get("attempts"), list):  # the App's run record
        attempts = value["attempts"]
        if len(attempts) > MAX_ATTEMPTS:  # each would be fetched: the record's server does not set the count
            raise ReplayError(f"{where}: {len(attempts)} attempts, more than a run has ({MAX_ATTEMPTS})")
        if where.startswith(("https://", "http://")):  # it lists its attempts; each has a record of its own
            records = where.rsplit("/", 1)[0]
            attempts = [(fetch or _fetch)(f"{records}/{a['record_id']}") for a in attempts
                        if isinstance(a, dict) and a.get("label") != "pass" and str(a.get("record_id", "")).isalnum()]
        if any(isinstance(a, dict) and "attempts" in a for a in attempts):  # else one record fetches itself forever
            raise ReplayError(f"{where}: an attempt of the run is itself a run record; not a witness-gate record")
        return [item for attempt in attempts for item in _replayables(attempt, where, fetch)]
    if not isinstance(value, dict):
        raise ReplayError(f"{where}: not a witness file, an attempt record or a run record")
    if "payload" in value and "witness" not in value:
        return [_from_witness_file(value, where)]
    if value.get("witness") is None or not value.get("witness_hash"):
        return []
    return [_from_attempt(value, where)]


def _source(record: dict[str, Any], where: str) -> dict[str, Any]:
    """Where the record says its code came from, refused unless every commit and tree is a hash and every
    oracle path a plain string: they reach git as arguments, and a record may come from anywhere."""
    source = record.get("source") or {}
    if not isinstance(source, dict):
        raise ReplayError(f"{where}: its source is not a mapping")
    for name in ("head_sha", "head_tree", "base_sha", "tree"):
        if source.get(name) and not (isinstance(source[name], str) and HEX.fullmatch(source[name])):
            raise ReplayError(f"{where}: source.{name} is not a git hash")
    paths = source.get("oracle_paths") or []
    if not isinstance(paths, list) or not all(isinstance(p, str) and p and not p.startswith("-") for p in paths):
        raise ReplayError(f"{where}: source.oracle_paths is not a list of path patterns")
    return dict(source)


def _runs(value: Any, where: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= MAX_RUNS:
        raise ReplayError(f"{where}: policy.runs {value!r} is not a count from 1 to {MAX_RUNS}; pass --runs N")
    return value


def _from_attempt(record: dict[str, Any], where: str) -> Replayable:
    _check_hash(record["witness"], record["witness_hash"], where)
    replays = record.get("replays") or []
    policy = record.get("policy") or {}
    return Replayable(
        assertion_id=str(record.get("assertion_id") or "?"), selector=_selector(record, where),
        payload=record["witness"], witness_hash=record["witness_hash"], seed=_seed(record, where),
        runs=_runs(policy.get("runs") or len(replays) or 5, where), reason=str(record.get("reason") or ""),
        seen=(sum(r.get("outcome") == "fail" for r in replays), len(replays)) if replays else None,
        source=_source(record, where), timeout_seconds=_timeout(policy.get("timeout_seconds"), where))


def _timeout(value: Any, where: str) -> float:
    if value is None:
        return 60.0
    if not isinstance(value, (int, float)) or isinstance(value, bool) or not 0 < value <= 3600:
        raise ReplayError(f"{where}: policy.timeout_seconds {value!r} is not a number of seconds up to 3600")
    return float(value)


def _from_witness_file(value: dict[str, Any], where: str) -> Replayable:
    _check_hash(value["payload"], value.get("witness_hash", ""), where)
    return Replayable(assertion_id=str(value.get("assertion_id") or "?"), selector=_selector(value, where),
                      payload=value["payload"], witness_hash=value["witness_hash"], seed=_seed(value, where),
                      runs=Policy().runs, reason=str(value.get("reason") or ""))


def _selector(record: dict[str, Any], where: str) -> str:
    property_id = str(record.get("property_id") or "")
    selector = property_id.rsplit("@", 1)[0]
    if not selector:
        raise ReplayError(f"{where}: the record names no property (property_id is empty)")
    relpath = selector.partition("::")[0]
    if (not SELECTOR.fullmatch(selector) or relpath.startswith("/")
            or ".." in relpath.split("/") or not NAME.fullmatch(str(record.get("assertion_id") or ""))):
        raise ReplayError(f"{where}: property_id {property_id[:200]!r} is not <path in the repository>::<function>")
    return selector


def _seed(record: dict[str, Any], where: str) -> str:
    seed = record.get("seed")
    if not isinstance(seed, str) or not SEED.fullmatch(seed):
        raise ReplayError(f"{where}: the record's seed {str(seed)[:50]!r} is not printable text (the gate pins one)")
    return seed


def _check_hash(payload: Any, recorded: str, where: str) -> None:
    actual = witness_hash(payload)
    if actual != recorded:
        raise ReplayError(f"{where}: the witness hashes to {actual[:12]}, not the recorded {str(recorded)[:12]}; "
                          "it was edited after the gate wrote it")


def _fetch(url: str) -> Any:
    request = urllib.request.Request(url, headers={"Accept": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:  # noqa: S310 - http(s) only, checked above
            raw = response.read(MAX_RECORD_BYTES + 1)
    except (urllib.error.URLError, OSError) as exc:
        raise ReplayError(f"{url}: cannot fetch the record ({exc})") from None
    if len(raw) > MAX_RECORD_BYTES:
        raise ReplayError(f"{url}: the record is larger than {MAX_RECORD_BYTES // 1024**2} MiB")
    try:  # the strict reader of local records: a document nested too deep is refused, not a traceback
        return loads_strict(raw, source=url)
    except CanonicalError as exc:
        raise ReplayError(f"{url}: not a JSON record (is it the record page of a witness-gate App?): {exc}") from None


# -- rebuilding what the gate ran ----------------------------------------------------------------
def rebuild(item: Replayable, repo: Path) -> Path:
    """A staged copy of what the gate ran, from `repo`, which must hold the record's head; else ReplayError
    naming the commit to check out. The caller removes the copy."""
    source = item.source
    expected = source.get("head_tree") or source.get("tree") or ""
    if expected:
        here = gitrepo.content_tree(repo)
        if here != expected:
            head = source.get("head_sha") or ""
            what = f"check out {head} (tree {expected[:12]})" if head else f"restore the tree {expected[:12]}"
            raise ReplayError(f"{repo} holds the tree {here[:12]}, not the record's head: {what} and replay again "
                              "(untracked files count too: remove them or list them in .gitignore)")
    oracle = tuple(source.get("oracle_paths") or ())
    if oracle and source.get("head_sha") and source.get("base_sha"):
        # the gate judged the head by the base's oracle: lay it over the head the same way
        try:
            gated = gitrepo.overlay(repo, source["head_sha"], source["base_sha"], oracle)
        except gitrepo.GitError as exc:
            raise ReplayError(f"{repo}: the gate laid the oracle of base {source['base_sha'][:12]} over this head; "
                              f"fetch that commit and replay again ({exc})") from None
        checkout = Path(tempfile.mkdtemp(prefix="witness-replay-"))
        try:
            gitrepo.export(repo, gated, checkout)
        except gitrepo.GitError:
            shutil.rmtree(checkout, ignore_errors=True)
            raise
        make_readable(checkout)
        return checkout
    return stage_directory(repo)


# -- replaying -----------------------------------------------------------------------------------
def replay(items: list[Replayable], repo: Path, *, config: Config, sandbox: Sandbox, runs: int | None,
           say: Callable[[str], None]) -> int:
    """Replay each witness `runs` times (default: the record's) and print what it saw; the exit code is
    1 when some witness failed every time, else 3 when one's runs disagree, else 0."""
    codes = []
    for item in items:
        rows = _replay_one(item, repo, config=config, sandbox=sandbox, runs=runs or item.runs, say=say)
        summary = summarize(rows)
        print(summary.line(item))
        print(f"  {summary.agreement(item)}")
        codes.append(summary.exit_code)
    return EXIT_BLOCK if EXIT_BLOCK in codes else EXIT_PERSON if EXIT_PERSON in codes else EXIT_OK


def _replay_one(item: Replayable, repo: Path, *, config: Config, sandbox: Sandbox, runs: int,
                say: Callable[[str], None]) -> list[Evaluation]:
    checkout = rebuild(item, repo)
    # the record names its own key: in the shared cache it could plant an environment for a patch `run` gates later
    cache = Path(tempfile.mkdtemp(prefix="witness-envs-"))
    try:
        key = item.source.get("tree") or item.source.get("head_tree") or f"replay-{item.witness_hash}"
        setup = set_up(config, checkout=checkout, patch_digest=key, sandbox=sandbox, cache=cache, say=say)
        if setup.holds:
            raise ReplayError(setup.note)
        selector = item.assertion_id if config.command else item.selector  # the runner protocol is told the name
        relpath, _, node = selector.partition("::")
        if pytests.gated(config.pytest, relpath):  # one of the repository's own tests
            if node == "*":  # the file's tests reading does not name: those it names are left out, as the gate did
                node = pytests.others(pytests.read_tests(checkout, relpath)[1])
            selector = f"{PYTEST_PREFIX}{relpath}::{node}"
        runner = PropertyRunner(checkout, selector, item.seed, sandbox, timeout_seconds=item.timeout_seconds,
                                command=config.command, parallel=1, oracle=oracle_paths(config),
                                environment=setup.environment.path if setup.environment else None)
        rows = []
        for i in range(runs):
            rows.append(runner(item.payload))
            say(f"replay {item.assertion_id}: {i + 1}/{runs}")
        return rows
    finally:
        shutil.rmtree(checkout, ignore_errors=True)
        shutil.rmtree(cache, ignore_errors=True)
