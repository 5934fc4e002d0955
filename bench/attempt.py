"""What the gate costs around the property: an attempt against its own evaluations, measured in one run.

    python bench/attempt.py [--quick] [--plot docs/warm.png]

The attempt is the example's regression (40 orders, shrunk to one line) run through the whole
pipeline: first run, shrink, replays, signatures, the three tables. Its wall time is compared with
the sum of the wall times of the evaluations it made (the gate's own overhead is the rest), and
with the same payloads evaluated in-process, in a plain subprocess and under bubblewrap, started cold and warm.

Side by side in the same run (bench/attempt_costs.py): the overhead per evaluation beyond the
property's own time, cold and warm; a property whose dependency (a module on the set-up's
environment path) takes 300 ms to import, over a shrink and its replays, against one import plus the
sum of the property's own times; and 12 replays run in parallel against the same replays one after
another.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import shutil
import statistics
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from witness_gate.attempt import Binding, Policy, run_attempt  # noqa: E402
from witness_gate.budget import Contract  # noqa: E402
from witness_gate.runner import PropertyRunner  # noqa: E402
from witness_gate.sandbox import Sandbox, bwrap_works, stage_directory  # noqa: E402
from witness_gate.verdict import Split, decide_property  # noqa: E402

from bench import attempt_costs  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
SELECTOR = "tests/properties/test_orders.py::prop_order_total_non_negative"


def example_checkout() -> Path:
    """The example's head: base files with head's src/ on top."""
    source = Path(tempfile.mkdtemp(prefix="bench-orders-"))
    shutil.copytree(ROOT / "examples/orders/base", source, dirs_exist_ok=True)
    shutil.copytree(ROOT / "examples/orders/head", source, dirs_exist_ok=True)
    return stage_directory(source)


class Recording:
    """Wraps an evaluator: keeps every payload and how long each evaluation took."""

    def __init__(self, evaluate) -> None:
        self.evaluate = evaluate
        self.payloads = []
        self.seconds = []

    def __call__(self, payload):
        started = time.perf_counter()
        result = self.evaluate(payload)
        self.seconds.append(time.perf_counter() - started)
        self.payloads.append(payload)
        return result


def in_process(checkout: Path):
    sys.path[:0] = [str(checkout), str(checkout / "src")]
    spec = importlib.util.spec_from_file_location("bench_orders_props", checkout / SELECTOR.split("::")[0])
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, SELECTOR.split("::")[1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="one attempt per runner (well under a minute)")
    parser.add_argument("--plot", help="write cost against evaluations, cold and warm, as a PNG (needs matplotlib)")
    args = parser.parse_args()
    repeats = 1 if args.quick else 5
    checkout = example_checkout()
    payload = json.loads((checkout / "tests/fixtures/orders.json").read_text())
    policy = Policy(runs=12, min_reruns=3, max_steps=64, timeout_seconds=20)
    # (name, sandbox, warm start): a plain subprocess and bubblewrap started cold, then bubblewrap's default
    modes = [("none", "none", False)] + ([] if bwrap_works() else [("bwrap", "bwrap", False),
                                                                   ("bwrap_warm", "bwrap", True)])
    prop = in_process(checkout)

    print(f"{'runner':<10} {'attempt s':>10} {'evals':>6} {'eval sum s':>11} {'overhead':>9} {'per eval ms':>12}")
    figures = {}
    for mode, sandbox, warm in modes:
        walls, sums, counts, per_eval = [], [], [], []
        for _ in range(repeats):
            recording = Recording(PropertyRunner(checkout, SELECTOR, "17", Sandbox(sandbox), timeout_seconds=20,
                                                 warm=warm, replays=policy.runs))
            started = time.perf_counter()
            evidence = run_attempt(payload, recording, policy)
            binding = Binding("p" * 64, SELECTOR, "prop_order_total_non_negative", Contract("n", "i", "d"),
                              "f" * 64, "17")
            verdict = decide_property(binding, evidence, Split(True, False), policy, expires_in_hours=24,
                                      now=datetime.now(timezone.utc))
            walls.append(time.perf_counter() - started)
            recording.evaluate.close()
            sums.append(sum(recording.seconds))
            counts.append(len(recording.seconds))
            per_eval.append(statistics.median(recording.seconds))
            assert verdict.label == "regression", verdict
        wall, total = statistics.median(walls), statistics.median(sums)
        figures[mode] = (wall, total, statistics.median(per_eval))
        print(f"{mode:<10} {wall:>10.3f} {counts[0]:>6} {total:>11.3f} {(wall - total) / total:>8.1%} "
              f"{statistics.median(per_eval) * 1000:>12.2f}")

    started = time.perf_counter()
    for p in recording.payloads:
        try:
            prop(p)
        except Exception:  # noqa: BLE001 - shrink candidates raise; the harness would record that too
            pass
    raw = time.perf_counter() - started
    print(f"{'in-process':<10} {'':>10} {len(recording.payloads):>6} {raw:>11.4f} {'':>9} "
          f"{raw / len(recording.payloads) * 1000:>12.4f}")

    for mode, (wall, total, each) in figures.items():
        print(f"RESULT attempt: gate_overhead_{mode} = {(wall - total) / total:.1%} "
              f"({wall / total:.3f}x the evaluations' own time; target < 10% beyond them)")
        print(f"RESULT attempt: eval_ms_{mode} = {each * 1000:.2f} "
              f"({each / (raw / len(recording.payloads)):.0f}x in-process)")
    if "bwrap" in figures and "none" in figures:
        print(f"RESULT attempt: bwrap_vs_subprocess = {(figures['bwrap'][2] - figures['none'][2]) * 1000:.2f} ms "
              f"({figures['bwrap'][2] / figures['none'][2]:.2f}x subprocess)")
    if "bwrap" in figures:
        costs = attempt_costs.report(checkout, payload, raw / len(recording.payloads), repeats)
        if args.plot:
            attempt_costs.plot(costs, args.plot)
    shutil.rmtree(checkout, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
