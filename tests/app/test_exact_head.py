"""The head GitHub would merge, exactly: its own tree whatever .gitattributes say, judged by the oracle of the
base it would merge into (issue 14, items 4 and 6), in the App and in `run` alike."""

import json

from conftest import GitRepo, run_cli
from test_app import BUGGY, CALC_PROPS, GOOD, gate, make_pull

# the oracle as the branch forked from it: blind to 13 and above, so BUGGY passes it
WEAK = CALC_PROPS.replace('for x in fixture["xs"])', 'for x in fixture["xs"] if x < 10)')


def strengthen_main(repo: GitRepo) -> None:
    """After the branch forked, main's oracle learned to see the bug."""
    repo.git("checkout", "-q", "main")
    repo.commit({"tests/properties/test_calc.py": CALC_PROPS}, "main: prop_double checks every x")
    repo.git("checkout", "-q", "patch")


def test_an_old_branch_is_judged_by_the_bases_current_oracle(stack, double, tmp_path):
    name, repo = make_pull(double, tmp_path, {"src/calc.py": BUGGY}, base_files={"tests/properties/test_calc.py": WEAK})
    strengthen_main(repo)
    run, _ = gate(stack, double, name)
    assert run["conclusion"] == "failure" and run["output"]["title"].startswith("regression"), run["output"]
    assert "prop_double" in run["output"]["summary"]


def test_export_ignore_and_export_subst_do_not_hold_the_head(stack, double, tmp_path):
    attributes = "tests/ export-ignore\nsrc/version.py export-subst\n"
    name, _ = make_pull(double, tmp_path, {"src/calc.py": GOOD + "\n# tidy\n"},
                        base_files={".gitattributes": attributes, "src/version.py": "V = '$Format:%H$'\n"})
    run, _ = gate(stack, double, name)
    assert run["conclusion"] == "success", run["output"]
    assert "patch_mismatch" not in json.dumps(run["output"])


def test_run_judges_an_old_branch_by_the_bases_current_oracle(tmp_path):
    repo = GitRepo(tmp_path / "calc")
    repo.commit({"src/calc.py": GOOD, "tests/properties/test_calc.py": WEAK, ".witness.yml": "version: 1\n",
                 "tests/fixtures/prop_double.json": {"xs": list(range(-20, 20))},
                 "tests/fixtures/prop_total.json": {"xs": [1, 2]}}, "base")
    repo.git("checkout", "-q", "-b", "patch")
    repo.commit({"src/calc.py": BUGGY}, "patch")
    strengthen_main(repo)
    for base in ((), ("--base", "main")):  # main's tip by default, as the App has it
        done = run_cli("run", "--repo", str(repo.path), *base, "--head", "patch", "--out", str(tmp_path / "out"),
                       "--json", cwd=tmp_path)
        assert done.returncode == 1, done.stdout + done.stderr  # not mixed_edit: main's own edit is not the patch's
        assert {r["assertion_id"]: r["verdict"] for r in json.loads(done.stdout)["properties"]}["prop_double"] == "regression"


def test_a_rate_limit_too_long_to_sleep_through_defers_the_gate_which_resumes_its_run(stack, double, tmp_path):
    name, _ = make_pull(double, tmp_path, {"src/calc.py": GOOD + "\n# tidy\n"})
    # longer than a worker sleeps (WITNESS_GITHUB_MAX_WAIT, 10 s): RQ's scheduler runs the job again later
    double.fail_next("GET", "/pulls/7/files", 429, headers={"Retry-After": "11"})
    run, head = gate(stack, double, name)
    assert run["conclusion"] == "success", run["output"]
    assert [c.status for c in double.calls_to("GET", "/pulls/7/files")] == [429, 200]
    assert len(double.runs_for(head)) == 1  # the deferred job finished the check run it had started


def test_the_tamper_scan_reads_the_patchs_own_lines_not_what_main_did_since(stack, double, tmp_path):
    old = GOOD + "# os._exit(0) was the old way out\n"
    name, repo = make_pull(double, tmp_path, {"README.md": "calc, tidied\n"}, base_files={"src/calc.py": old})
    repo.git("checkout", "-q", "main")
    repo.commit({"src/calc.py": GOOD}, "main drops the old comment")  # main, not the patch, touched that line
    repo.git("checkout", "-q", "patch")
    repo.commit({"src/calc.py": old + "\n# tidy\n"}, "patch")
    run, _ = gate(stack, double, name)
    assert run["conclusion"] == "success" and "tamper" not in json.dumps(run["output"]), run["output"]
