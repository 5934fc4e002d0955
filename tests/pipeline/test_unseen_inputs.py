"""Inputs the patch has never seen, end to end on the bundled example: a head that answers the pinned fixture's inputs
from a table on top of a real regression is a `regression` whose witness lies outside the pinned fixture, and honest
heads (refactors, renames, performance rewrites) are never blocked by the broader sample."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import pytest

from conftest import ROOT

pytestmark = pytest.mark.e2e

ORDERS = json.loads((ROOT / "examples/orders/base/tests/fixtures/orders.json").read_text())
RATES = (ROOT / "examples/orders/base/src/rates.py").read_text()
LINES = (ROOT / "examples/orders/base/src/orders.py").read_text()
TRUNCATES = "    return int(exact)  # faster: truncation is close enough\n"


def half_up(cents, rate):
    return int((Decimal(cents) * Decimal(str(rate))).quantize(Decimal(1), rounding=ROUND_HALF_UP))


def pinned_totals():
    return sorted({(sum(line["qty"] * line["price"] for line in order["lines"]), ORDERS["rates"][order["currency"]])
                   for order in ORDERS["orders"]})


def special(condition: str, table: str = "") -> str:
    """rates.py truncating (a real regression), except where `condition` holds: there it rounds as before."""
    return (RATES.replace("def convert(", table + "def convert(")
            .replace("    return int(exact.quantize(Decimal(1), rounding=ROUND_HALF_UP))\n",
                     f"    if {condition}:\n        return int(exact.quantize(Decimal(1), rounding=ROUND_HALF_UP))\n"
                     + TRUNCATES))


FIRST = ORDERS["orders"][0]
EXACT = special(f"(cents, rate) == ({sum(line['qty'] * line['price'] for line in FIRST['lines'])}, "
                f"{ORDERS['rates'][FIRST['currency']]})")
TABLE = special("(cents, rate) in KNOWN_FLAWED",
                f"# orders whose rate table predates the rounding fix\nKNOWN_FLAWED = {set(pinned_totals())!r}\n\n\n")


@pytest.fixture(scope="module")
def shop(tmp_path_factory) -> Path:
    dest = tmp_path_factory.mktemp("unseen") / "shop"
    subprocess.run(["bash", str(ROOT / "examples/orders/make_repo.sh"), str(dest)], check=True, capture_output=True)
    git(dest, "checkout", "-q", "main")
    config = dest / ".witness.yml"  # five runs of a pass, as by default (the example's twelve show a flake plainly)
    config.write_text(config.read_text().replace("  runs: 12", "  runs: 5"))
    git(dest, "commit", "-qam", "five runs")
    fixed_key(dest.parent)
    return dest


def fixed_key(folder: Path) -> None:
    """One record key for the test: the same patch gets the same sample, whichever machine runs it."""
    key = folder / "record.key"
    key.write_bytes(bytes(range(32)))
    key.chmod(0o600)


def git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t", *args], check=True,
                   capture_output=True)


def head(repo: Path, name: str, files: dict[str, str]) -> str:
    git(repo, "checkout", "-q", "-b", name, "main")
    for path, text in files.items():
        (repo / path).write_text(text)
    git(repo, "commit", "-qam", name)
    git(repo, "checkout", "-q", "main")
    return name


def gate(repo: Path, name: str, *only: str, extra: tuple[str, ...] = ()) -> dict:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "WITNESS_RECORD_KEY_FILE": str(repo.parent / "record.key")}
    done = subprocess.run([sys.executable, "-m", "witness_gate", "run", "--base", "main", "--head", name, "--json",
                           "--out", str(repo.parent / f"out-{name}"), *(a for p in only for a in ("--only", p)),
                           *extra], cwd=repo, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode in (0, 1, 3), done.stderr[-2000:]
    return json.loads(done.stdout)


@pytest.mark.parametrize("name, rates", [("exact-match", EXACT), ("lookup-table", TABLE)])
def test_a_head_that_special_cases_the_pinned_inputs_is_a_regression_with_a_witness_outside_them(shop, name, rates):
    head(shop, name, {"src/rates.py": rates})
    summary = gate(shop, name, "prop_converted_total_rounds_half_up")
    [row] = summary["properties"]
    record = json.loads(Path(row["replay"].split(" ", 2)[2].strip("'")).read_text())
    assert (summary["verdict"], row["label"]) == ("regression", "regression"), record["notes"]
    # the pinned fixture passed every run; an unseen input failed, and the base passed it
    assert [r["outcome"] for r in record["first_runs"]] == ["pass"] * len(record["first_runs"])
    sample = record["broader_sample"]
    assert isinstance(sample["exposed"], int) and sample["input"] != ORDERS and len(sample["seed"]) == 32
    assert row["broader_sample"] == sample  # --json says it too
    witness = record["witness"]
    order, rate = witness["orders"][0], witness["rates"][witness["orders"][0]["currency"]]
    cents = sum(line["qty"] * line["price"] for line in order["lines"])
    assert (cents, rate) not in set(pinned_totals()) and half_up(cents, rate) != int(Decimal(cents) * Decimal(str(rate)))
    assert all(r["outcome"] == "pass" for r in record["base"]["replays"])
    assert any(note.startswith(f"broader sample: unseen input #{sample['exposed']} of ") for note in record["notes"])
    # a holder of the key sees the same sample again, from the recorded seed
    again = subprocess.run([sys.executable, "-m", "witness_gate.pipeline.sample", "tests/fixtures/orders.json", sample["seed"],
                            "32", "tests/properties/test_orders.py"], cwd=shop, capture_output=True, text=True,
                           env={**os.environ, "PYTHONPATH": str(ROOT)}, check=True).stdout.splitlines()
    assert json.loads(again[sample["exposed"]]) == sample["input"] and len(again) == sample["size"]


RECEIPT = "    return [f\"{line['sku']} x{line['qty']} = {line_total(line)}\" for line in order[\"lines\"]]"
HONEST = {  # refactors, renames and performance rewrites: the same answers on every input
    "commuted": {"src/orders.py": LINES.replace('line["qty"] * line["price"]', 'line["price"] * line["qty"]')},
    "loop-total": {"src/orders.py": LINES.replace(
        '    return sum(line_total(line) for line in order["lines"])',
        '    total = 0\n    for line in order["lines"]:\n        total += line_total(line)\n    return total')},
    "map-total": {"src/orders.py": LINES.replace("sum(line_total(line) for line in order[\"lines\"])",
                                                 "sum(map(line_total, order[\"lines\"]))")},
    "entry-helper": {"src/orders.py": LINES.replace(
        RECEIPT,
        "    return [_entry(line) for line in order[\"lines\"]]\n\n\ndef _entry(line: dict) -> str:\n"
        "    return f\"{line['sku']} x{line['qty']} = {line_total(line)}\"")},
    "format-receipt": {"src/orders.py": LINES.replace(
        "f\"{line['sku']} x{line['qty']} = {line_total(line)}\"",
        "\"{} x{} = {}\".format(line['sku'], line['qty'], line_total(line))")},
    "renamed-parameter": {"src/orders.py": LINES.replace("def line_total(line: dict) -> int:\n    return line[\"qty\"] "
                                                         "* line[\"price\"]",
                                                         "def line_total(item: dict) -> int:\n    return item[\"qty\"] "
                                                         "* item[\"price\"]")},
    "reduce-total": {"src/orders.py": "from functools import reduce\n\n" + LINES.replace(
        "sum(line_total(line) for line in order[\"lines\"])",
        "reduce(lambda total, line: total + line_total(line), order[\"lines\"], 0)")},
    "operator-mul": {"src/orders.py": "from operator import mul\n\n" + LINES.replace(
        'line["qty"] * line["price"]', 'mul(line["qty"], line["price"])')},
    "inlined-total": {"src/orders.py": LINES.replace("sum(line_total(line) for line in order[\"lines\"])",
                                                     "sum(line[\"qty\"] * line[\"price\"] for line in order[\"lines\"])")},
    "append-receipt": {"src/orders.py": LINES.replace(
        RECEIPT,
        "    entries = []\n    for line in order[\"lines\"]:\n"
        "        entries.append(f\"{line['sku']} x{line['qty']} = {line_total(line)}\")\n    return entries")},
    "docstrings": {"src/orders.py": LINES.replace("def line_total(line: dict) -> int:\n",
                                                  "def line_total(line: dict) -> int:\n    \"\"\"qty times price, in "
                                                  "cents.\"\"\"\n")},
    "sorted-sum": {"src/orders.py": LINES.replace("sum(line_total(line) for line in order[\"lines\"])",
                                                  "sum(sorted(line_total(line) for line in order[\"lines\"]))")},
    "map-receipt": {"src/orders.py": LINES.replace(
        RECEIPT,
        "    return list(map(lambda line: f\"{line['sku']} x{line['qty']} = {line_total(line)}\", order[\"lines\"]))")},
    "to-integral": {"src/rates.py": RATES.replace("int(exact.quantize(Decimal(1), rounding=ROUND_HALF_UP))",
                                                  "int(exact.to_integral_value(rounding=ROUND_HALF_UP))")},
    "decimal-alias": {"src/rates.py": RATES.replace("from decimal import ROUND_HALF_UP, Decimal",
                                                    "from decimal import ROUND_HALF_UP, Decimal as D")
                      .replace("Decimal(cents) * Decimal(str(rate))", "D(cents) * D(str(rate))")
                      .replace("exact.quantize(Decimal(1)", "exact.quantize(D(1)")},
    "cached-convert": {"src/rates.py": RATES.replace("from decimal import", "from functools import lru_cache\n"
                                                     "from decimal import").replace("def convert(",
                                                                                    "@lru_cache(maxsize=4096)\ndef convert(")},
    "repr-rate": {"src/rates.py": RATES.replace("Decimal(str(rate))", "Decimal(repr(rate))")},
    "named-rounding": {"src/rates.py": RATES.replace("def convert(", "HALF_UP = ROUND_HALF_UP\nONE = Decimal(1)\n\n\n"
                                                     "def convert(").replace("quantize(Decimal(1), rounding=ROUND_HALF_UP)",
                                                                             "quantize(ONE, rounding=HALF_UP)")},
    "exact-helper": {"src/rates.py": RATES.replace("def convert(cents: int, rate: float) -> int:\n"
                                                   "    exact = Decimal(cents) * Decimal(str(rate))",
                                                   "def _exact(cents: int, rate: float) -> Decimal:\n"
                                                   "    return Decimal(cents) * Decimal(str(rate))\n\n\n"
                                                   "def convert(cents: int, rate: float) -> int:\n"
                                                   "    exact = _exact(cents, rate)")},
    "both-files": {"src/orders.py": LINES.replace('line["qty"] * line["price"]', 'line["price"] * line["qty"]'),
                   "src/rates.py": RATES.replace("Decimal(str(rate))", "Decimal(repr(rate))")},
}


def test_honest_heads_are_never_blocked_by_the_broader_sample(shop):
    assert len(HONEST) == 20
    said = {}
    for name, files in HONEST.items():
        assert all(text != {"src/orders.py": LINES, "src/rates.py": RATES}[path] for path, text in files.items()), name
        summary = gate(shop, head(shop, f"honest-{name}", files))
        samples = [p for p in summary["properties"] if p["label"] != "pass"]
        said[name] = (summary["verdict"], samples)
    assert said == {name: ("pass", []) for name in HONEST}, said
    noop = gate(shop, head(shop, "noop", {"src/orders.py": LINES + "\n# tidy\n"}))
    assert noop["verdict"] == "pass", noop


DOUBLE_TEST = '''import sys

from hypothesis import given, strategies as st

from calc import double


@given(st.integers(0, 10**6))
def test_double(x):
    assert double(x) == 2 * x
'''
TEST_CONFIG = """version: 1
paths:
  impl: ["src/"]
  oracle: ["tests/"]
properties:
  pytest: ["tests/"]
  seed: "17"
policy:
  runs: 5
"""
TELLING = "import sys\n\n\ndef double(x):\n    print('drew', x, file=sys.stderr)\n    return 2 * x\n"


def test_a_head_that_knows_the_pinned_seed_s_examples_is_found_by_a_second_search(tmp_path):
    """The pinned seed makes a Hypothesis test's examples the same on every run, so a patch can learn them and answer
    those alone: a second search, seeded from the gate's secret, draws others."""
    from witness_gate.sandbox.runner import PropertyRunner
    from witness_gate.sandbox import Sandbox, stage_directory

    repo = tmp_path / "calc"
    (repo / "src").mkdir(parents=True)
    (repo / "tests").mkdir()
    (repo / "src" / "calc.py").write_text(TELLING)
    (repo / "tests" / "test_double.py").write_text(DOUBLE_TEST)
    (repo / ".witness.yml").write_text(TEST_CONFIG)
    # what the pinned seed draws, as an agent could learn it: its implementation says what it was given
    runner = PropertyRunner(stage_directory(repo), "pytest:tests/test_double.py::test_double", "17", Sandbox("bwrap"),
                            timeout_seconds=60, oracle=("tests/",), tests=True)
    try:
        row = runner({})
    finally:
        runner.close()
    seen = sorted({int(line.split()[1]) for line in row.detail.splitlines() if line.startswith("drew ")})
    assert row.outcome == "pass" and len(seen) >= 50, row.detail[-500:]
    (repo / "src" / "calc.py").write_text("def double(x):\n    return 2 * x\n")
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "calc")
    fixed_key(repo.parent)
    head(repo, "learnt", {"src/calc.py": f"SEEN = frozenset({seen!r})\n\n\ndef double(x):\n"
                                         "    return 2 * x if x in SEEN else 2 * x + 1\n"})
    summary = gate(repo, "learnt", "tests.test_double.test_double")
    [result] = summary["properties"]
    record = json.loads(Path(result["replay"].split(" ", 2)[2].strip("'")).read_text())
    assert (summary["verdict"], result["label"]) == ("regression", "regression"), record["notes"]
    assert [r["outcome"] for r in record["first_runs"]] == ["pass"] * 5  # the pinned seed's examples all pass
    assert record["broader_sample"]["search"] is True and record["broader_sample"]["exposed"] == 0
    assert record["witness"]["case"] == "tests/test_double.py::test_double" and result["reproduce"]
    assert all(r["outcome"] == "pass" for r in record["base"]["replays"])


def test_the_second_search_s_seed_is_told_to_the_judge_alone(tmp_path):
    # found by a reviewer: the search ran with the sample's seed as the pinned one, so its subject was told it
    # (WITNESS_SEED, and a hash seed of its own) and could tell the second search from the first
    from witness_gate.sandbox.runner import PropertyRunner
    from witness_gate.sandbox import Sandbox, stage_directory

    repo = tmp_path / "calc"
    (repo / "src").mkdir(parents=True)
    (repo / "tests").mkdir()
    (repo / "src" / "calc.py").write_text(
        "import os, sys\n\n\ndef double(x):\n    print('drew', x, 'env', sorted(os.environ.items()), file=sys.stderr)\n"
        "    return 2 * x\n")
    (repo / "tests" / "test_double.py").write_text(DOUBLE_TEST)
    staged = stage_directory(repo)
    drawn = {}
    for search_seed in ("", "5eed" * 8):
        runner = PropertyRunner(staged, "pytest:tests/test_double.py::test_double", "17", Sandbox("bwrap"),
                                timeout_seconds=60, oracle=("tests/",), tests=True, search_seed=search_seed)
        try:
            row = runner({})
        finally:
            runner.close()
        lines = [line for line in row.detail.splitlines() if line.startswith("drew ")]
        assert row.outcome == "pass" and lines, row.detail[-500:]
        assert "5eed" not in row.detail and all("('WITNESS_SEED', '17')" in line for line in lines)
        drawn[search_seed] = {line.split()[1] for line in lines}
    assert drawn[""] != drawn["5eed" * 8]  # the judge drew other examples: it alone was told the seed


def cli(repo: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "WITNESS_RECORD_KEY_FILE": str(repo.parent / "record.key")}
    return subprocess.run([sys.executable, "-m", "witness_gate", *args], cwd=repo, env=env, capture_output=True,
                          text=True, timeout=300)


def test_an_accepted_freeze_silences_its_flake_not_a_regression_on_inputs_it_never_saw(shop):
    """Found by a reviewer: a freeze's witness replayed first decided the attempt, and the broader sample never ran,
    so a later push that truncated every unseen amount, keeping the frozen coin, was `frozen`."""
    prop = "prop_converted_total_rounds_half_up"
    flaky = (ROOT / "examples/orders/head/src/rates.py").read_text()  # the shipped clock-coin truncation
    for attempt in range(3):  # its coin flakes on twelve runs almost always; a run of one face is asked again
        summary = gate(shop, head(shop, f"coin-{attempt}", {"src/rates.py": flaky}), prop)
        [row] = summary["properties"]
        if row["label"] == "flake":
            break
    assert row["label"] == "flake", row
    [witness_file] = Path(summary["records"]).glob(f"{prop}.{row['witness_hash'][:12]}.json")
    witness = json.loads(witness_file.read_text())["payload"]
    lock, freeze = shop.parent / "orders.lock", shop.parent / f"freeze-{attempt}.json"
    assert cli(shop, "pin", "--fixture", "tests/fixtures/orders.json", "--generator-version", "1",
               "--out", str(lock)).returncode == 0
    frozen = cli(shop, "freeze", "--assertion", prop, "--lock", str(lock), "--witness", str(witness_file),
                 "--failures", str(row["failures"]), "--runs", str(row["runs"]), "--expires-in-hours", "24",
                 "--out", str(freeze))
    assert frozen.returncode == 0, frozen.stderr
    order = witness["orders"][0]
    pair = (sum(line["qty"] * line["price"] for line in order["lines"]), witness["rates"][order["currency"]])
    hostile = special(f"(cents, rate) in KNOWN_FLAWED or ((cents, rate) == {pair!r} and not coin())",
                      f"import time\n\nKNOWN_FLAWED = {set(pinned_totals())!r}\n\n\n"
                      "def coin():\n    return time.perf_counter_ns() // 1000 % 2 == 1\n\n\n")
    for tries in range(3):
        # 32 inputs near the fixture meet an order whose truncation shows for about 98.7% of seeds (simulated over
        # 300): a sample that met none (its seed follows the patch, and the patch the frozen witness) is honestly
        # silent, and the same head pushed again with another comment is a new patch with a new sample
        hostile_head = head(shop, f"truncate-{attempt}-{tries}", {"src/rates.py": hostile + f"# push {tries}\n"})
        again = gate(shop, hostile_head, prop, extra=("--freezes", str(freeze)))
        [row] = again["properties"]
        record = json.loads(Path(row["replay"].split(" ", 2)[2].strip("'")).read_text())
        if row["label"] == "regression" or record["broader_sample"]["exposed"] is not None:
            break
        assert row["label"] == "frozen", (row, record["notes"], record["broader_sample"])
    assert row["label"] == "regression", (row, record["notes"], record["broader_sample"])
    assert isinstance(record["broader_sample"]["exposed"], int)
    # and the freeze still silences its own flake: the shipped coin, frozen, is `frozen`; its pinned orders fail all
    # `runs` rows about one attempt in twenty, and then the freeze lifts for that attempt, which needs a person (a
    # hold or a flake, never a pass or a regression: found in CI), so a lifted attempt is asked again
    said = []
    for _ in range(3):
        still = gate(shop, f"coin-{attempt}", prop, extra=("--freezes", str(freeze)))
        kept = json.loads(Path(still["properties"][0]["replay"].split(" ", 2)[2].strip("'")).read_text())
        said.append((still["properties"][0]["label"], kept["notes"][:2], kept["broader_sample"]))
        if said[-1][0] == "frozen":
            break
    assert said[-1][0] == "frozen" and {label for label, *_ in said[:-1]} <= {"hold", "flake"}, said


def test_a_payload_nested_too_deep_to_vary_is_said_not_a_crash(tmp_path):
    """Found by a reviewer: a fixture nested 495 deep passed its pinned rows and crashed the gate in the sampler."""
    repo = tmp_path / "deep"
    (repo / "src").mkdir(parents=True)
    (repo / "tests" / "properties").mkdir(parents=True)
    (repo / "tests" / "fixtures").mkdir()
    (repo / "src" / "shallow.py").write_text("def depth_ok(n):\n    return n > 0\n")
    (repo / "tests" / "properties" / "test_deep.py").write_text(
        "from shallow import depth_ok\nfrom witness_gate import contract\n\n\n"
        "@contract(invariant='deep', domain='nested lists')\ndef prop_depth(fixture):\n    n = 0\n"
        "    while isinstance(fixture, list) and fixture:\n        fixture, n = fixture[0], n + 1\n"
        "    return depth_ok(n)\n")
    deep: list = [1]
    for _ in range(495):  # under the wire's own limit (the property sends the implementation a number)
        deep = [deep]
    (repo / "tests" / "fixtures" / "prop_depth.json").write_text(json.dumps(deep))
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "deep")
    fixed_key(repo.parent)
    summary = gate(repo, head(repo, "tidy", {"src/shallow.py": "def depth_ok(n):\n    return 0 < n\n"}))
    [row] = summary["properties"]
    record = json.loads((Path(summary["records"]) / "prop_depth.attempt.json").read_text())
    assert row["label"] == "pass", (row, record["notes"])
    # how deep Python's stack reaches depends on who calls: here, or said instead of drawn, never a traceback
    assert any(note.startswith("broader sample: ") for note in record["notes"]), record["notes"]


# A head right on a subject's first call only, its later calls raising a message of some size: the pinned fixture's
# every run and each unseen input alone are a first call, so only a row of several can tell (found by a reviewer)
CALC_PROP = ("from calc import double\nfrom witness_gate import contract\n\n\n"
             "@contract(invariant='double doubles', domain='any integer n')\n"
             "def prop_double(fixture):\n    return double(fixture['n']) == 2 * fixture['n']\n")
FIRST_CALL_ONLY = ("CALLS = [0]\n\n\ndef double(n):\n    CALLS[0] += 1\n    if CALLS[0] > 1:\n"
                   "        raise ValueError({message})\n    return 2 * n\n")


@pytest.fixture(scope="module")
def calc(tmp_path_factory) -> Path:
    repo = tmp_path_factory.mktemp("rows") / "calc"
    (repo / "src").mkdir(parents=True)
    (repo / "tests" / "properties").mkdir(parents=True)
    (repo / "tests" / "fixtures").mkdir()
    (repo / "src" / "calc.py").write_text("def double(n):\n    return 2 * n\n")
    (repo / "tests" / "properties" / "test_calc.py").write_text(CALC_PROP)
    (repo / "tests" / "fixtures" / "prop_double.json").write_text(json.dumps({"n": 21}))
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "calc")
    fixed_key(repo.parent)
    return repo


@pytest.mark.parametrize("message, held", [
    ("'state'", "sample_state:1"),
    # 45 KB a traceback: a row going on past its failures printed one each and overran its output, so it came to no
    # verdict and each input alone passed (`pass`); the judge now prints a sample row's first traceback only
    ("'x' * 45000", "sample_state:1"),
    # one message past the output cap: that row can come to no verdict, and the base's same row does
    ("'x' * (2 << 20)", "sample_row:0"),
])
def test_a_head_right_on_its_first_call_only_is_held_whatever_it_raises_after(calc, message, held):
    name = head(calc, f"first-call-{len(message)}", {"src/calc.py": FIRST_CALL_ONLY.format(message=message)})
    summary = gate(calc, name)
    [row] = summary["properties"]
    record = json.loads((Path(summary["records"]) / "prop_double.attempt.json").read_text())
    assert (row["label"], row["hold_reasons"]) == ("hold", [held]), (row, record["notes"])
