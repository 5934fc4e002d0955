"""Repositories with no Python: runner-protocol properties named in .witness.yml or listed by the command itself."""

import textwrap

import pytest

from witness_gate.config.schema import parse_config
from witness_gate.pipeline.discover import DiscoveryError, properties_of, property_named
from witness_gate.sandbox.listing import ListingError, list_names, names_from
from witness_gate.sandbox.processes import Finished
from witness_gate.sandbox import Sandbox, stage_directory

LISTER = textwrap.dedent('''\
    #!/bin/sh
    # lists its properties with WITNESS_LIST=1; the mode is picked by a file the test writes
    mode=$(cat mode)
    case "$mode" in
      good) printf 'total_ok\\n\\n  receipt-lines  \\n' ;;
      env) env | cut -d= -f1 | grep -v '^_$' | grep -v '^PWD$' | grep -v '^SHLVL$' ;;
      hang) sleep 60 ;;
      flood) yes long_property_name ;;
      fail) echo "cannot find node_modules" >&2; exit 3 ;;
    esac
    ''')
COMMAND = ("sh", "tests/properties/list.sh")


def repo_with(tmp_path, mode):
    root = tmp_path / f"repo-{mode}"
    (root / "tests" / "properties").mkdir(parents=True)
    (root / "tests" / "properties" / "list.sh").write_text(LISTER)
    (root / "mode").write_text(mode)
    return stage_directory(root)  # as the gate does: the sandbox uid reads a staged copy


def config(names="", policy=""):
    contracts = "  contracts:\n    total_ok: {invariant: 'totals are >= 0', domain: 'invoices'}\n"
    return parse_config(f"properties:\n  command: [sh, tests/properties/list.sh]\n{names}{contracts}{policy}")


@pytest.mark.parametrize("mode", ["bwrap", "none"])
def test_the_command_lists_its_properties_in_the_sandbox(tmp_path, mode):
    repo = repo_with(tmp_path, "good")
    targets = properties_of(repo, config(), Sandbox(mode))
    assert [t.assertion_id for t in targets] == ["total_ok", "receipt-lines"]
    total, receipt = targets
    assert total.selector == "total_ok"  # the command is told the bare name, not <path>::<name>
    assert total.property_id.startswith("tests/properties/list.sh::total_ok@")
    assert total.contract.invariant == "totals are >= 0"
    assert receipt.contract is None
    assert "add properties.contracts.receipt-lines: {invariant:" in receipt.contract_problem


def test_the_listing_sees_no_host_variable_and_no_token(tmp_path, monkeypatch):
    monkeypatch.setenv("GITHUB_TOKEN", "ghs_not_for_pull_request_code")
    names = list_names(repo_with(tmp_path, "env"), COMMAND, Sandbox("bwrap"))
    assert "GITHUB_TOKEN" not in names
    assert set(names) <= {"PATH", "LANG", "WITNESS_LIST", "HOME", "TMPDIR"}, names


def test_names_in_the_config_run_no_listing(tmp_path):
    repo = repo_with(tmp_path, "fail")  # a listing would fail: the names come from .witness.yml alone
    targets = properties_of(repo, config("  names: [total_ok, other]\n"), Sandbox("none"))
    assert [t.assertion_id for t in targets] == ["total_ok", "other"]
    # the App's property job rebuilds one target by name, without a second listing
    assert property_named(repo, config(), "other").selector == "other"


def test_editing_the_script_changes_the_property_id(tmp_path):
    repo = repo_with(tmp_path, "good")
    [before] = properties_of(repo, config("  names: [total_ok]\n"), None)
    (repo / "tests" / "properties" / "list.sh").write_text(LISTER + "# stricter now\n")
    [after] = properties_of(repo, config("  names: [total_ok]\n"), None)
    assert before.property_id != after.property_id


def test_a_command_that_names_no_file_is_identified_by_itself(tmp_path):
    repo = repo_with(tmp_path, "good")
    one = parse_config("properties:\n  command: [sh, -c, 'exit 0']\n  names: [total_ok]\n")
    two = parse_config("properties:\n  command: [sh, -c, 'exit 1']\n  names: [total_ok]\n")
    [a], [b] = properties_of(repo, one, None), properties_of(repo, two, None)
    assert a.property_id.startswith(".witness.yml::total_ok@") and a.property_id != b.property_id


def test_no_sandbox_no_listing(tmp_path):
    with pytest.raises(DiscoveryError, match=r"would list its properties in the sandbox, and there is none here"):
        properties_of(repo_with(tmp_path, "good"), config(), None)


@pytest.mark.parametrize("mode, message", [
    ("hang", r"run with WITNESS_LIST=1 did not finish within 1.5 s"),  # policy.timeout_seconds, under 20 s
    ("flood", r"run with WITNESS_LIST=1 printed more than 65536 bytes"),
    ("fail", r"run with WITNESS_LIST=1 failed \(exit 3\): cannot find node_modules; print one property name"),
])
def test_a_listing_that_fails_is_an_error_naming_the_command(tmp_path, mode, message):
    with pytest.raises(DiscoveryError, match=r"properties.command \['sh', 'tests/properties/list.sh'\] " + message):
        properties_of(repo_with(tmp_path, mode), config(policy="policy:\n  timeout_seconds: 1.5\n"), Sandbox("bwrap"))


def finished(stdout=b"", code=0, fault=None, stderr=b""):
    return Finished(stdout, stderr, fault, code, 0.1)


@pytest.mark.parametrize("done, message", [
    (finished(b"ok\nhas space\n"), "line 2, 'has space', is not a property name (a letter, then letters, digits"),
    (finished(b"ok\n../x\n"), "line 2, '../x', is not a property name"),
    (finished(b"a\nb\na\n"), "line 3 names a a second time; each property once"),
    (finished(b"\n \n"), "printed no property names; print one property name a line and exit 0, or list the "
     "names in properties.names in .witness.yml"),
    (finished(b"\xff\xfe\n"), "printed bytes that are not UTF-8 text"),
    (finished(b"ok\n", code=-9), r"failed (killed by signal 9)"),
    (finished(b"", fault="sandbox", code=1, stderr=b"bwrap: no permission"), "failed (sandbox): bwrap: no permission"),
    (finished(b"".join(b"p%d\n" % i for i in range(501))), "printed 501 names, more than 500"),
])
def test_bad_listings(done, message):
    with pytest.raises(ListingError) as caught:
        names_from(done, ("node", "run.js"))
    assert str(caught.value).startswith("properties.command ['node', 'run.js'] run with WITNESS_LIST=1")
    assert message in str(caught.value)
