"""Where attempt records go: files beside their witnesses for the CLI, the record store for the App.

A gate run hands each finished attempt to one `RecordSink`; nothing is written to a temporary
directory only to be read back. Both sinks keep the same record (the witness is inside it); the
file sink also retains the article's witness file and seals both with the record key.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from witness_gate.records import recordkey
from witness_gate.records.files import write_json_atomic
from witness_gate.records.readback import ATTEMPT_SUFFIX, RecordError, load_attempts
from witness_gate.records.recordkey import RecordKey
from witness_gate.records.retained import retain


@dataclass(frozen=True)
class Kept:
    """Where a sink put an attempt: files for the file sink, nothing for the store (its id is the record's)."""

    record_path: Path | None = None
    witness_path: Path | None = None


class RecordSink(Protocol):
    def keep(self, record: dict[str, Any], witness: dict[str, Any] | None) -> Kept:
        """Keep one attempt record; `witness` is the article 001 retained witness when the property failed."""
        ...

    def failed_before(self, patch_digest: str) -> dict[str, str]:
        """The properties that failed in an earlier attempt of this same patch that this sink kept, each with where it
        is recorded: a failure once seen on a patch is never forgotten (a head failing only its first evaluation)."""
        ...


@dataclass
class FileSink:
    """`<out_dir>/<assertion>.attempt.json` and `<assertion>.<hash12>.json`, sealed when a record key is set."""

    out_dir: Path
    key: RecordKey | None = None  # None: the key `check`/`run` established (recordkey.establish), else unsealed

    def keep(self, record: dict[str, Any], witness: dict[str, Any] | None) -> Kept:
        key = self.key or recordkey.established()
        witness_path = None
        if witness is not None:
            retained = retain(witness["assertion_id"], witness["payload"], witness["fixture_digest"],
                              self.out_dir, **{k: v for k, v in witness.items()
                                               if k not in ("assertion_id", "payload", "fixture_digest")})
            witness_path = self.out_dir / f"{witness['assertion_id']}.{retained['witness_hash'][:12]}.json"
            record["witness_file"] = witness_path.name
            if key is not None:
                write_json_atomic(witness_path, recordkey.seal(retained, key))
        record_path = write_json_atomic(self.out_dir / f"{record['assertion_id']}{ATTEMPT_SUFFIX}",
                                        recordkey.seal(record, key) if key is not None else record)
        return Kept(record_path, witness_path)

    def failed_before(self, patch_digest: str) -> dict[str, str]:
        """From the records this folder holds (sealed ones only: one the key does not seal is not ours)."""
        try:
            stored = load_attempts(self.out_dir)
        except RecordError:
            return {}  # none yet, or not ours: nothing to remember
        return {s.binding.assertion_id: f"record {s.path.name} of {s.record.get('created_at', '?')}"
                for s in stored if patch_digest and s.binding.patch_digest == patch_digest and s.evidence is not None
                and s.evidence.failed_once}


CHANGE_RECORD = "change.json"


class UnsafeOutput(ValueError):
    """An output folder the gate will not write through."""


def own_folder(out: Path, tree: Path) -> Path:
    """`out`, made of real folders: a part of it inside `tree` (the working tree, whose files the code under test
    chose) that is a link, or no folder, is refused, never followed; missing parts are made. Outside `tree` the
    folders are the user's own."""
    out, tree = Path(os.path.abspath(out)), Path(os.path.abspath(tree))
    try:
        inside = out.relative_to(tree)
    except ValueError:
        out.mkdir(parents=True, exist_ok=True)
        return out
    here = tree
    for part in inside.parts:
        here = here / part
        if here.is_symlink() or (here.exists() and not here.is_dir()):
            raise UnsafeOutput(
                f"{here}: {'a link' if here.is_symlink() else 'not a folder'}; witness-gate writes its records only "
                "into real folders of the working tree (the code under test may have put this there): remove it, "
                "or pass --out a folder elsewhere")
        if not here.exists():
            os.mkdir(here)
    return out


def ignored_by_git(out_root: Path) -> None:
    """Records kept inside the checkout they gate (the default `.artifacts/witness-gate`) are ignored by its git: an
    untracked record would change the checkout's tree, and `replay` on that checkout would refuse it as not the
    record's head. The marker is made new, never written through a link that is already there."""
    try:
        fd = os.open(out_root / ".gitignore", os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
    except FileExistsError:
        return
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write("# witness-gate records: never part of the code under test\n*\n")


def keep_change(out_dir: Path, record: dict[str, Any]) -> Path:
    """A change refused or skipped before any property ran still leaves its record: `<out_dir>/change.json`."""
    key = recordkey.established()
    return write_json_atomic(out_dir / CHANGE_RECORD, recordkey.seal(record, key) if key is not None else record)


@dataclass
class StoreSink:
    """The App's record store, under the gate run `run_id`: the store is the record, so nothing is sealed."""

    store: Any  # witness_gate.records.store.Store
    run_id: str

    def keep(self, record: dict[str, Any], witness: dict[str, Any] | None) -> Kept:
        self.store.add_attempt(self.run_id, record)
        return Kept()

    def failed_before(self, patch_digest: str) -> dict[str, str]:
        """From the store: the earlier gate runs of this run's pull request on the same patch."""
        run = self.store.get_run(self.run_id)
        found: dict[str, str] = {}
        if run is None or not patch_digest:
            return found
        for earlier in self.store.runs_for_pull(run.repo, run.pr_number):
            if earlier.id == run.id or earlier.patch_digest != patch_digest:
                continue
            for attempt in self.store.attempts(earlier.id):
                if attempt.record.get("reason") is not None:
                    found.setdefault(attempt.assertion_id, f"run {earlier.id[:12]}")
        return found
