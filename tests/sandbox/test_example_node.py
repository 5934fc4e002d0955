"""The bundled Node example: a repository with no Python gates through the runner protocol's command."""

import json
import shutil
import subprocess

import pytest

from conftest import ROOT, run_cli


@pytest.mark.e2e
def test_the_node_example_shows_pass_regression_and_flake(tmp_path):
    assert shutil.which("node"), "the Node example needs node: apt-get install nodejs (scripts/setup.sh --dev does)"
    dest = tmp_path / "invoices"
    subprocess.run(["bash", str(ROOT / "examples/invoices/make_repo.sh"), str(dest)], check=True, capture_output=True)
    assert not list(dest.rglob("*.py"))  # nothing for the Python harness: the command lists and runs everything
    done = run_cli("run", "--repo", str(dest), "--base", "main", "--head", "agent-patch",
                   "--out", str(tmp_path / "out"), "--json", cwd=tmp_path)
    verdicts = {row["assertion_id"]: row["verdict"] for row in json.loads(done.stdout)["properties"]}
    assert verdicts == {"converted_total_rounds_half_up": "flake",
                        "invoice_total_non_negative": "regression",
                        "receipt_lists_every_line": "pass"}, done.stderr
    assert done.returncode == 1
    [record] = (tmp_path / "out").glob("*/invoice_total_non_negative.attempt.json")
    regression = json.loads(record.read_text())
    assert regression["witness"] == {"invoices": [{"lines": [{"price": 0, "qty": 10}]}]}
    assert regression["property_id"].startswith("tests/properties/run.js::invoice_total_non_negative@")
    [flake] = (tmp_path / "out").glob("*/converted_total_rounds_half_up.attempt.json")
    assert json.loads(flake.read_text())["freeze"]["state"] == "proposed"
    # the printed replay command tells the command the bare name too, as the gate did
    replayed = run_cli("replay", str(record), "--runs", "2", cwd=dest)
    assert "invoice_total_non_negative: 2 of 2 failed (reason negative-total)" in replayed.stdout, replayed.stderr


CALC = "'use strict';\nexports.double = (x) => (x === 13 ? 27 : 2 * x);\n"
RUNNER = """'use strict';
// WITNESS_LIST=1 lists the properties; else WITNESS_PROPERTY runs on the JSON at WITNESS_FIXTURE
const fs = require('fs');
const { double } = require('../../src/calc');
const PROPERTIES = {
  double_is_twice: (f) => f.xs.every((x) => double(x) === x + x) || 'double-wrong',
  xs_is_a_list: (f) => Array.isArray(f.xs) || 'no-list',
};
if (process.env.WITNESS_LIST === '1') {
  console.log(Object.keys(PROPERTIES).join('\\n'));
} else {
  const verdict = PROPERTIES[process.env.WITNESS_PROPERTY](JSON.parse(fs.readFileSync(process.env.WITNESS_FIXTURE)));
  if (verdict !== true) console.log(verdict);
  process.exitCode = verdict === true ? 0 : 1;
}
"""
NODE_CONFIG = """version: 1
properties:
  command: [node, tests/properties/run.js]
  fixtures: {"*": tests/fixtures/xs.json}
  contracts:
    double_is_twice: {invariant: "double(x) is x + x", domain: "integers"}
    xs_is_a_list: {invariant: "the fixture holds a list", domain: "any fixture"}
policy:
  runs: 3
  timeout_seconds: 10
"""


@pytest.mark.e2e
def test_the_app_gates_a_repository_with_no_python(stack, double, tmp_path):
    from appstack import pull_request_event
    from conftest import GitRepo

    name = "acme/calc-node"
    repo = GitRepo(tmp_path / "calc-node")
    repo.commit({".witness.yml": NODE_CONFIG, "src/calc.js": "'use strict';\nexports.double = (x) => 2 * x;\n",
                 "tests/properties/run.js": RUNNER, "tests/fixtures/xs.json": {"xs": list(range(-20, 20))}}, "base")
    repo.git("checkout", "-q", "-b", "patch")
    repo.commit({"src/calc.js": CALC}, "patch")
    double.add_repo(name, repo.path, installation_id=77)
    double.open_pull(name, "patch", "main", 7)
    assert stack.send("pull_request", pull_request_event(double, name, 7, "opened")).status_code == 202
    run = stack.wait_for_check(double.sha(name, "patch"))
    assert run["conclusion"] == "failure", run["output"]
    assert run["output"]["title"] == "regression: double_is_twice"
    assert "| `xs_is_a_list` | pass | 0/3 |" in run["output"]["summary"]
    assert '{"xs": [13]}' in run["output"]["text"]
    [note] = [a for a in run["annotations"] if a["annotation_level"] == "failure"]
    assert note["path"] == "tests/properties/run.js"  # the command's script, where the property lives
