"""Tricks a patch that wants a green check plays (tests/support/tricks.py), each riding on a real regression that must still
block, end to end through `witness-gate run` (local.run under bubblewrap); the StopIteration test was found by a
reviewer attacking the boundary itself. Nothing here recognises a trick."""

from __future__ import annotations

import pytest

from endtoend import gate
from tricks import EXTRA, FIXTURE, HOST_FILES, PROPS, REGRESSION, TOTAL, TRICKS


def _repo(git_repo, head_files):
    git_repo.commit({".witness.yml": "version: 1\npolicy:\n  runs: 3\n  min_reruns: 3\n", "src/shop.py": TOTAL,
                     "tests/properties/test_shop.py": PROPS,
                     "tests/fixtures/prop_total_non_negative.json": FIXTURE}, "base")
    git_repo.git("checkout", "-q", "-b", "patch")
    git_repo.commit(head_files, "the patch")
    return git_repo


@pytest.mark.parametrize("trick", sorted([*TRICKS, "winapi"]))
def test_a_trick_that_forged_a_pass_in_one_process_blocks_across_the_boundary(git_repo, tmp_path, trick):
    files = {"src/shop.py": TRICKS.get(trick, REGRESSION), **EXTRA.get(trick, {})}
    [result] = gate(_repo(git_repo, files), tmp_path / "out").results
    assert result.verdict.label == "regression", (result.verdict, result.notes)
    assert result.record_path.is_file()
    assert result.record["reason"] in ("negative-total", "mutated_payload") or (
        trick == "enum_dunders" and result.record["reason"].startswith(("raise:TypeError@", "raise:NoContents@"))), result.record["reason"]
    assert {row["isolation"] for row in result.record["first_runs"]} == {"split-cold"}  # a pass could only come cold


def test_a_head_whose_files_would_hang_or_crash_a_scan_is_gated_and_recorded(git_repo, tmp_path):
    files = {"src/shop.py": REGRESSION, **HOST_FILES}
    outcome = gate(_repo(git_repo, files), tmp_path / "out")
    [result] = outcome.results
    assert result.verdict.label == "regression" and result.record_path.is_file()


SHADOW_PROPS = '''
import yaml

from shop import total
from witness_gate import contract


@contract(invariant="a total is what the oracle's YAML reading of the lines gives", domain="orders")
def prop_total_non_negative(fixture):
    expected = yaml.safe_load("[" + ", ".join(str(max(0, l["qty"]) * l["price"]) for l in fixture["orders"][0]["lines"]) + "]")
    return total(fixture["orders"][0]) == sum(expected) or "wrong-total"
'''


def test_a_module_the_patch_adds_under_an_installed_package_s_name_never_answers_for_it(git_repo, tmp_path):
    import subprocess

    from witness_gate.sandbox import Sandbox

    if subprocess.run([Sandbox("bwrap").python, "-c", "import yaml"], check=False).returncode != 0:
        pytest.skip("the sandbox's interpreter has no PyYAML installed")
    git_repo.commit({".witness.yml": "version: 1\npolicy:\n  runs: 3\n", "src/shop.py": TOTAL,
                     "tests/properties/test_shop.py": SHADOW_PROPS,
                     "tests/fixtures/prop_total_non_negative.json": FIXTURE}, "base")
    git_repo.git("checkout", "-q", "-b", "patch")
    # the regression, and a yaml of the patch's whose safe_load would agree with it
    git_repo.commit({"src/shop.py": REGRESSION, "src/yaml.py": "def safe_load(text):\n    return [-2]\n"}, "patch")
    [result] = gate(git_repo, tmp_path / "out").results
    assert result.verdict.label == "regression", result.verdict


OPTIONAL_REFERENCE = '''
from shop import total
from witness_gate import contract

try:  # a faster reference when one is installed
    import simplejson as reference
except ImportError:
    import json as reference


@contract(invariant="a total survives JSON", domain="orders")
def prop_total_non_negative(fixture):
    return all(reference.loads(reference.dumps(total(order))) >= 0 for order in fixture["orders"]) or "negative-total"
'''


def test_a_module_the_patch_adds_never_answers_an_import_the_oracle_makes(git_repo, tmp_path):
    # the base's oracle imports an optional reference it does not have; the patch adds one that agrees with its
    # regression (found by a reviewing helper: it passed). A name the patch added is never the implementation's for
    # the oracle: it meets what it met on the base
    git_repo.commit({".witness.yml": "version: 1\npolicy:\n  runs: 3\n", "src/shop.py": TOTAL,
                     "tests/properties/test_shop.py": OPTIONAL_REFERENCE,
                     "tests/fixtures/prop_total_non_negative.json": FIXTURE}, "base")
    git_repo.git("checkout", "-q", "-b", "patch")
    git_repo.commit({"src/shop.py": REGRESSION, "src/simplejson.py": "def dumps(v):\n    return '0'\n\n\n"
                     "def loads(text):\n    return 0\n"}, "patch")
    [result] = gate(git_repo, tmp_path / "out").results
    assert result.verdict.label == "regression", result.verdict


@pytest.mark.parametrize("changed, base, new", [
    (["src/orders/__init__.py"], {"src/orders.py"}, ()),  # a module made a package: not new (found by a helper)
    (["orders.py"], {"src/orders.py"}, ()),  # moved out of src/
    (["src/simplejson"], set(), ("simplejson",)),  # a link: a name like any other (a helper's way around it)
    (["src/simplejson/__init__.py", "src/shop.py"], {"src/shop.py"}, ("simplejson",)),
    (["src/ns/data.txt"], {"src/ns"}, ()),  # a namespace folder the base had
])
def test_a_name_is_new_when_the_base_had_no_module_of_it_in_any_layout(changed, base, new):
    from witness_gate.sandbox.names import new_top_modules

    assert new_top_modules(changed, lambda path: path in base) == new


MAP_PROPS = '''
from shop import total
from witness_gate import contract


@contract(invariant="no order has a negative total", domain="orders")
def prop_total_non_negative(fixture):
    for value in map(total, fixture["orders"]):
        if value < 0:
            return "negative-total"
    return True
'''
STOPS = REGRESSION.replace("def total", "def _real") + "def total(order):\n    if _real(order) < 0:\n" \
    "        raise StopIteration\n    return _real(order)\n"


def test_a_stop_iteration_raised_by_a_call_cannot_end_the_property_s_loop(git_repo, tmp_path):
    git_repo.commit({".witness.yml": "version: 1\npolicy:\n  runs: 3\n", "src/shop.py": TOTAL,
                     "tests/properties/test_shop.py": MAP_PROPS,
                     "tests/fixtures/prop_total_non_negative.json": FIXTURE}, "base")
    git_repo.git("checkout", "-q", "-b", "patch")
    git_repo.commit({"src/shop.py": STOPS}, "patch")
    [result] = gate(git_repo, tmp_path / "out").results
    assert result.verdict.label == "regression", result.verdict
    assert result.record["reason"] == "raise:RuntimeError@src/shop.py:5", result.record["reason"]  # the raise


def test_the_bundled_example_s_regression_hidden_by_a_payload_put_back_blocks(tmp_path):
    # found by a reviewer: order_total doctors the one negative line of the pinned order (the property's next look
    # sees a harmless one) and line_total puts it back, so the payload was as pinned when the property ended: pass
    import json
    import subprocess
    from pathlib import Path

    from conftest import ROOT, run_cli

    dest = tmp_path / "orders"
    subprocess.run(["bash", str(ROOT / "examples/orders/make_repo.sh"), str(dest)], check=True, capture_output=True)
    head = (Path(__file__).parent / "heads" / "orders_put_back.py").read_text()
    (dest / "src" / "orders.py").write_text(head)
    subprocess.run(["git", "-C", str(dest), "checkout", "-q", "main", "--", "src/rates.py"], check=True)
    subprocess.run(["git", "-C", str(dest), "commit", "-qam", "attack head"], check=True)
    done = run_cli("run", "--repo", str(dest), "--base", "main", "--head", "agent-patch", "--out",
                   str(tmp_path / "out"), "--json", cwd=tmp_path)
    rows = {row["assertion_id"]: row for row in json.loads(done.stdout)["properties"]}
    assert done.returncode == 1, done.stdout + done.stderr
    blocked = rows["prop_order_total_non_negative"]
    assert (blocked["verdict"], blocked["reason"]) == ("regression", "mutated_payload"), blocked



@pytest.mark.parametrize("link", [".artifacts", ".artifacts/witness-gate/.gitignore"])
def test_a_head_s_links_never_carry_the_gate_s_records_out_of_the_working_tree(git_repo, tmp_path, link):
    # found by a reviewer: `witness-gate run` in a checkout of the head wrote its records (as root) wherever a committed
    # .artifacts link pointed, and created any file a dangling .gitignore link named
    import os

    from conftest import run_cli

    outside = tmp_path / "outside"
    outside.mkdir()
    target = outside if link == ".artifacts" else outside / "created-by-the-gate"
    repo = _repo(git_repo, {"src/shop.py": REGRESSION})
    (repo.path / link).parent.mkdir(parents=True, exist_ok=True)
    os.symlink(target, repo.path / link)
    repo.git("add", "-A")
    repo.git("commit", "-q", "-m", "and a link")
    done = run_cli("run", "--base", "main", "--head", "patch", cwd=repo.path)  # the documented way: defaults
    assert list(outside.iterdir()) == [], done.stdout + done.stderr
    if link == ".artifacts":
        assert done.returncode == 2 and ".artifacts: a link; witness-gate writes its records only into real folders" \
            in done.stderr, done.stdout + done.stderr
    else:  # the marker is not written through the link; the records go where they belong
        assert done.returncode == 1 and "verdict: regression" in done.stdout, done.stdout + done.stderr
        assert list((repo.path / ".artifacts" / "witness-gate").glob("*/prop_total_non_negative.attempt.json"))
