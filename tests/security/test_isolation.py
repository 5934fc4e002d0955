"""What cannot be split says so: a runner-protocol command runs oracle and implementation in one process
(`isolation: shared` on every row and in the notes), and `policy.require_isolation: true` holds it."""

from __future__ import annotations

import pytest

from endtoend import gate

CONFIG = '''version: 1
properties:
  command: [sh, tests/properties/run.sh]
  names: [total_ok]
  fixtures: {"*": tests/fixtures/orders.json}
  contracts:
    total_ok: {invariant: "the total is right", domain: "orders"}
policy:
  runs: 3
'''


@pytest.mark.parametrize("required", [False, True])
def test_a_command_s_rows_say_shared_and_requiring_isolation_holds_it(git_repo, tmp_path, required):
    config = CONFIG + ("  require_isolation: true\n" if required else "")
    git_repo.commit({".witness.yml": config, "tests/properties/run.sh": "sh src/total.sh\n",
                     "src/total.sh": "exit 0\n", "tests/fixtures/orders.json": {"orders": []}}, "base")
    git_repo.git("checkout", "-q", "-b", "patch")
    git_repo.commit({"src/total.sh": "# still passes\nexit 0\n"}, "patch")
    [result] = gate(git_repo, tmp_path / "out").results
    if required:
        assert (result.verdict.label, result.verdict.hold_reasons) == ("hold", ["isolation_shared"])
    else:
        assert result.verdict.label == "pass", result.verdict
        assert {row["isolation"] for row in result.record["first_runs"]} == {"shared"}
        assert any("isolation: shared" in note for note in result.notes), result.notes
