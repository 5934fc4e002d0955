"""One test, two record sinks: what the CLI's files and the App's store keep of an attempt is the same record."""

import json

import pytest

from witness_gate.records import recordkey
from witness_gate.records.sinks import FileSink, StoreSink
from witness_gate.records.store import Store

RECORD = {"record_id": "a" * 32, "assertion_id": "prop_total", "label": "regression", "reason": "negative-total",
          "patch_digest": "p" * 64, "property_id": "tests/properties/p.py::prop_total@abcdefabcdef",
          "contract": {"name": "prop_total", "invariant": "never negative", "input_domain": "orders"},
          "fixture_digest": "f" * 64, "seed": "17", "witness": {"orders": [{"qty": -1}]}}


def witness():
    return {"assertion_id": "prop_total", "payload": {"orders": [{"qty": -1}]}, "fixture_digest": "f" * 64,
            "property_id": RECORD["property_id"], "contract": RECORD["contract"], "seed": "17",
            "reason": "negative-total", "shrink": None}


@pytest.fixture(params=["files", "store"])
def sink_and_read(request, tmp_path):
    if request.param == "files":
        out = tmp_path / "records"
        sink = FileSink(out)
        return sink, lambda: [json.loads(p.read_text()) for p in sorted(out.glob("*.attempt.json"))]
    store = Store(f"sqlite:///{tmp_path / 'w.db'}")
    store.create_schema()
    run = store.add_run(repo="acme/calc", installation_id=1, pr_number=7, head_sha="h" * 40, base_sha="b" * 40,
                        status="in_progress", details={})
    return StoreSink(store, run.id), lambda: [a.record for a in store.attempts(run.id)]


def test_both_sinks_keep_the_same_record(sink_and_read):
    sink, read_back = sink_and_read
    sink.keep(dict(RECORD), witness())
    [kept] = read_back()
    assert {k: v for k, v in kept.items() if k not in ("mac", "witness_file")} == RECORD


def test_the_file_sink_retains_a_sealed_witness_beside_its_record(tmp_path):
    recordkey.establish(tmp_path / "repo")  # as `check` and `run` do before they write
    out = tmp_path / "records"
    kept = FileSink(out).keep(dict(RECORD), witness())
    assert kept.witness_path.name.startswith("prop_total.") and kept.record_path.name == "prop_total.attempt.json"
    assert "mac" in json.loads(kept.witness_path.read_text()) and "mac" in json.loads(kept.record_path.read_text())
    assert kept.witness_path.name == json.loads(kept.record_path.read_text())["witness_file"]


def test_the_store_sink_remembers_a_failure_seen_on_the_same_patch_of_the_same_pull_request(tmp_path):
    # third review: re-gating a head whose first evaluation alone failed must not turn it into a pass (the file
    # sink's memory: tests/cli/test_run.py::test_a_failure_once_seen_on_a_patch_is_never_forgotten)
    store = Store(f"sqlite:///{tmp_path / 'w.db'}")
    store.create_schema()
    common = dict(repo="acme/calc", installation_id=1, head_sha="h" * 40, base_sha="b" * 40, status="completed",
                  details={})
    first = store.add_run(patch_digest="p" * 64, pr_number=7, **common)
    store.add_attempt(first.id, {"assertion_id": "prop_double", "label": "not_reproduced", "reason": "double-wrong"})
    store.add_attempt(first.id, {"assertion_id": "prop_other", "label": "pass"})
    other_patch = store.add_run(patch_digest="q" * 64, pr_number=7, **common)
    store.add_attempt(other_patch.id, {"assertion_id": "prop_third", "label": "regression", "reason": "x"})
    other_pull = store.add_run(patch_digest="p" * 64, pr_number=8, **common)
    store.add_attempt(other_pull.id, {"assertion_id": "prop_fourth", "label": "regression", "reason": "y"})
    again = store.add_run(patch_digest="p" * 64, pr_number=7, **common)
    found = StoreSink(store, again.id).failed_before("p" * 64)
    assert list(found) == ["prop_double"] and found["prop_double"] == f"run {first.id[:12]}"
    assert StoreSink(store, again.id).failed_before("") == {}  # no patch digest: nothing is the same patch
