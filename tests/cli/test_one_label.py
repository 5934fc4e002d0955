"""One result, one label: the table, `--json`, the record and the exit code say the same thing, and the report never
contradicts itself (issue "Gate the tests a repository already has", its smaller points)."""

import io
import json
import shlex
import subprocess

import pytest

from rich.console import Console

from conftest import GitRepo, run_cli
from test_run import base_repo
from witness_gate.model import outcomes
from witness_gate.cli import report
from witness_gate.model.evidence import Binding, Evidence
from witness_gate.pipeline.discover import PropertyTarget
from witness_gate.model.evaluation import Evaluation
from witness_gate.pipeline.session import PropertyResult
from witness_gate.rules.verdict import Verdict


def _result(assertion_id: str, verdict: Verdict, evidence: Evidence | None = None, reason: str | None = None):
    target = PropertyTarget(assertion_id, f"p.py::{assertion_id}@abc", "tests/properties/p.py", 1, None)
    binding = Binding("p" * 64, target.property_id, assertion_id, None, "f" * 64, "1")
    return PropertyResult(target, binding, evidence, verdict, {"reason": reason, "label": verdict.label})


def _printed(results, overall: str, code: int, monkeypatch) -> str:
    stream = io.StringIO()
    monkeypatch.setattr(report, "console_for", lambda s: Console(file=s, width=200, color_system=None))
    report.print_report(results, "header", overall, code, "out", stream=stream)
    return stream.getvalue()


def _rows(outcome: str, count: int) -> list[Evaluation]:
    return [Evaluation(outcome, "r" if outcome == "fail" else None, "", 0.01, "split-cold") for _ in range(count)]


def test_a_frozen_witness_replayed_is_printed_not_a_crash(monkeypatch):
    # `run --freezes FILE` without --json: the frozen witness is replayed as kept, never shrunk (it crashed on .steps)
    evidence = Evidence(pinned_hash="h", target_reason="r", witness={"xs": [13]}, witness_hash="w" * 64,
                        replays=_rows("fail", 3) + _rows("pass", 2))
    out = _printed([_result("prop_x", Verdict("frozen", failures=3, runs=5), evidence, "r")], "frozen", 0, monkeypatch)
    assert "witness prop_x (r; the accepted freeze's witness, replayed as it was kept):" in out, out
    assert '{"xs": [13]}' in out and "verdict: frozen (exit 0)" in out


def test_a_hold_beside_a_regression_says_which_label_set_the_exit(monkeypatch):
    results = [_result("prop_a", Verdict("hold", hold_reasons=["expiry_empty"], failures=2, runs=5)),
               _result("prop_b", Verdict("regression", failures=5, runs=5))]
    out = _printed(results, "hold", 1, monkeypatch)
    assert "verdict: hold (exit 1: prop_b is regression)" in out, out  # hold alone is exit 3
    assert "verdict: hold (exit 3)" in _printed(results[:1], "hold", 3, monkeypatch)


def test_a_property_that_failed_once_and_never_again_does_not_read_0_of_n_beside_its_witness(monkeypatch):
    evidence = Evidence(pinned_hash="h", first=_rows("fail", 1), target_reason="r", witness={"xs": [1]},
                        witness_hash="w" * 64, replays=_rows("pass", 5))
    out = _printed([_result("prop_x", Verdict("not_reproduced", failures=0, runs=5), evidence, "r")],
                   "not_reproduced", 3, monkeypatch)
    assert "0/5 replays (failed once)" in out, out
    assert "0/5 " not in out.replace("0/5 replays", "")


def test_json_carries_the_one_label_and_what_each_table_said(monkeypatch):
    held = Verdict("hold", hold_reasons=["expiry_empty"], failures=2, runs=5,
                   tables={"gate": "freeze_candidate", "labels": "flake", "budget": "freeze_eligible"})
    [row] = report.results_json([_result("prop_coin", held, None, "coin-tails")])
    assert row["label"] == row["verdict"] == "hold"  # it said "flake" here while the table and the record said hold
    assert row["tables"]["labels"] == "flake" and row["hold_reasons"] == ["expiry_empty"]
    assert row["reason"] == "coin-tails"


def test_json_has_the_run_s_verdict_exit_code_and_counts_beside_each_property_s_row():
    results = [_result("prop_a", Verdict("regression", failures=5, runs=5), None, "negative"),
               _result("prop_b", Verdict("hold", hold_reasons=["too_few_replays"])),
               _result("prop_c", Verdict("pass", runs=5)), _result("prop_d", Verdict("pass", runs=5))]
    summary = report.run_json(results, "regression", 1, "out/abc")
    assert (summary["verdict"], summary["exit_code"], summary["reason"], summary["records"]) == (
        "regression", 1, None, "out/abc")
    assert summary["counts"] == {"hold": 1, "pass": 2, "regression": 1}
    assert [row["assertion_id"] for row in summary["properties"]] == ["prop_a", "prop_b", "prop_c", "prop_d"]
    assert summary["properties"][0]["reason"] == "negative"


def test_the_replay_command_printed_by_run_works_as_printed_in_the_checkout(git_repo: GitRepo):
    repo = base_repo(git_repo)
    repo.commit({"src/calc.py": "def double(x):\n    return 2 * x if x != 13 else 27\n"})
    done = run_cli("run", "--base", "main", "--head", "patch", "--sandbox", "bwrap", cwd=repo.path)  # default --out
    assert done.returncode == 1, done.stderr
    [command] = [line.strip()[len("replay: "):] for line in done.stdout.splitlines()
                 if line.strip().startswith("replay: ")]
    # the records sit in the checkout's .artifacts/, which its git ignores: the tree is still the record's head
    assert subprocess.run(["git", "status", "--porcelain"], cwd=repo.path, capture_output=True,
                          text=True).stdout == ""
    args = shlex.split(command)
    assert args[:2] == ["witness-gate", "replay"], command
    pasted = run_cli(*args[1:], "--runs", "2", cwd=repo.path)
    assert pasted.returncode == 1, pasted.stdout + pasted.stderr
    assert "prop_double: 2 of 2 failed (reason double-wrong)" in pasted.stdout, pasted.stdout
    record = json.loads(next((repo.path / ".artifacts" / "witness-gate").glob("*/prop_double.attempt.json"))
                        .read_text())
    assert record["label"] == "regression"


@pytest.mark.parametrize("label", outcomes.ORDER)
def test_the_verdict_line_prints_for_every_label(label):
    # an overall pre_existing crashed the table output (rich markup "[]": found by a reviewer)
    out = io.StringIO()
    report.print_report([], "header", label, outcomes.exit_of(label), "out", stream=out)
    assert f"verdict: {label} (" in out.getvalue()
