"""What the broader sample costs a passing property, measured side by side in one run.

    python bench/broader_sample.py [--quick] [--rounds N] [--size N]

The bundled example (examples/orders: three properties over a 40-order fixture) with policy.runs 5 (the default) and
a head that changes only a comment, so every property passes: `witness_gate.cli.local.run` of that head, in this process,
with policy.broader_sample 0 and N (default 32) on two otherwise identical repositories, alternating, medians of
wall-clock seconds; once gating one property (`--only`), once all three. The ratio is the sample's whole cost for a
property that passes: its inputs drawn, their cold rows, and whatever the base is asked.

Prints one RESULT line per figure; ratios only mean something within one run.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from witness_gate.cli import local  # noqa: E402
from witness_gate.sandbox import Sandbox  # noqa: E402

ONE = "prop_order_total_non_negative"


class Quiet:
    def start(self, target, index, total): pass
    def progress(self, phase, done, total): pass
    def say(self, text): pass
    def finish(self, result): pass


def repository(folder: Path, size: int) -> Path:
    """examples/orders/base with five runs and the given sample, on main; head `noop` adds a comment."""
    repo = folder / f"sample-{size}"
    shutil.copytree(ROOT / "examples/orders/base", repo)
    config = repo / ".witness.yml"
    config.write_text(config.read_text().replace("  runs: 12 ", "  runs: 5 ")
                      .replace("policy:\n", f"policy:\n  broader_sample: {size}\n"))
    git = ["git", "-C", str(repo), "-c", "user.name=bench", "-c", "user.email=bench@example.invalid"]
    subprocess.run([*git, "init", "-q", "-b", "main"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "base"], check=True)
    subprocess.run([*git, "checkout", "-qb", "noop"], check=True)
    with open(repo / "src" / "orders.py", "a") as handle:
        handle.write("\n# tidy\n")
    subprocess.run([*git, "commit", "-qam", "noop"], check=True)
    return repo


def gate(repo: Path, out: Path, only: tuple[str, ...]) -> float:
    started = time.perf_counter()
    outcome = local.run(repo, "main", "noop", sandbox=Sandbox("bwrap"), out_dir=out, reporter=Quiet(), only=only)
    seconds = time.perf_counter() - started
    labels = {result.verdict.label for result in outcome.results}
    assert labels == {"pass"}, labels
    return seconds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="two rounds: the bench still works")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--size", type=int, default=32, help="policy.broader_sample with the sample on")
    parser.add_argument("--property", default=ONE, help="the one property of the first figure")
    args = parser.parse_args()
    rounds = 2 if args.quick else args.rounds
    folder = Path(tempfile.mkdtemp(prefix="bench-sample-"))
    try:
        off, on = repository(folder, 0), repository(folder, args.size)
        for name, only in ((f"one property ({args.property})", (args.property,)), ("three properties", ())):
            times: dict[str, list[float]] = {"off": [], "on": []}
            gate(off, folder / "warm-off", only)  # the first run of each pays for what later runs find made
            gate(on, folder / "warm-on", only)
            for n in range(rounds):  # alternating, so both see the same machine
                times["off"].append(gate(off, folder / f"off-{name}-{n}", only))
                times["on"].append(gate(on, folder / f"on-{name}-{n}", only))
            off_s, on_s = statistics.median(times["off"]), statistics.median(times["on"])
            print(f"RESULT passing {name}, broader sample {args.size} vs off: on = {on_s:.3f} s, off = {off_s:.3f} s "
                  f"({on_s / off_s:.2f}x off; medians of {rounds})")
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
