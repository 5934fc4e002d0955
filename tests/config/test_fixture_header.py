"""An article-000 fixture header names the property and the patch it was captured for (issue 15.6)."""

import io
from datetime import datetime, timezone

import pytest

from test_freeze_replay import LOCK, POLICY, TARGET, _Nowhere
from witness_gate.config.schema import Config
from witness_gate.config.lock import Fixture
from witness_gate.cli.report import PlainReporter
from witness_gate.model.evaluation import Evaluation
from witness_gate.sandbox import Sandbox
from witness_gate.pipeline.session import GateRun, Pinned
from witness_gate.rules.verdict import Split

PATCH = "p" * 64


def gate(header):
    calls = []

    def evaluate(payload):
        calls.append(payload)
        return Evaluation("pass")

    run = GateRun(checkout=None, patch_digest=PATCH, split=Split(True, False), policy=POLICY,
                  config=Config(expires_in_hours=24), sandbox=Sandbox("none"), out_dir=None,
                  reporter=PlainReporter(io.StringIO()), now=datetime(2026, 12, 1, tzinfo=timezone.utc),
                  make_runner=lambda **_: evaluate, sink=_Nowhere())
    return run.gate_one(TARGET, Pinned(LOCK, Fixture({"a": 1}, "17", header))), calls


@pytest.mark.parametrize("header, holds", [
    ({}, []),
    ({"seed": "17", "property_id": TARGET.property_id, "patch_digest": PATCH}, []),
    ({"seed": "17", "property_id": "tests/properties/p.py::prop_other@000000000000"}, ["fixture_header:property_id"]),
    ({"seed": "17", "patch_digest": "q" * 64}, ["fixture_header:patch_digest"]),
    ({"seed": "17", "property_id": "x", "patch_digest": "q" * 64},
     ["fixture_header:property_id", "fixture_header:patch_digest"]),
])
def test_a_header_that_names_another_property_or_patch_holds_and_is_recorded(header, holds):
    result, calls = gate(header)
    assert result.verdict.hold_reasons == holds
    assert result.verdict.label == ("hold" if holds else "pass")
    assert result.record["fixture_header"] == (header or None)
    assert bool(calls) is not bool(holds)  # nothing runs on evidence that would be read as another's
