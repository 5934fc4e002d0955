"""What an evaluation costs beyond its property, cold and warm, for bench/attempt.py (one run, side by side).

- overhead per evaluation: the example's witness evaluated again and again, each evaluation's wall time
  minus the same payload's own time in-process;
- a property whose dependency takes 300 ms of CPU to import (a module on the set-up's environment path,
  bound at /env as the set-up's output is), through a shrink and 12 replays, against one import plus the
  sum of the property's own times in-process;
- 12 replays of one witness run in parallel against the same replays one after another: the example's
  witness (milliseconds; the median of 15 rounds of each, taken in turn) and a property that spends 0.1 s of
  CPU (3 rounds).

Each figure is a ratio against a baseline measured in the same run; `series` keeps the cumulative cost
after each evaluation of the import-heavy attempt, for the plot in docs/PERFORMANCE.md.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from witness_gate.attempt import Policy, replay_frozen, run_attempt
from witness_gate.runner import PropertyRunner
from witness_gate.sandbox import Sandbox, make_readable, stage_directory

EXAMPLE = "tests/properties/test_orders.py::prop_order_total_non_negative"
HEAVY = "props.py::prop_under_limit"
IMPORT_SECONDS = 0.3
SLOW_DEPENDENCY = f'''"""Stands in for a real dependency: {IMPORT_SECONDS} s of CPU at import."""
import time

_started = time.process_time()
while time.process_time() - _started < {IMPORT_SECONDS}:
    pass


def limit():
    return 100
'''
HEAVY_PROPERTY = '''
import slowdep

from shop import total


def prop_under_limit(fixture):
    return total(fixture["items"]) <= slowdep.limit() or "over-limit"
'''
SHOP = "def total(items):\n    return sum(items)\n"
HEAVY_PAYLOADS = {True: {"items": [40, 40, 40]}, False: {"items": [7 + i % 5 for i in range(12)]}}  # by --quick
# the warm start, once the runner has one
STARTS = ("cold", "warm") if "warm" in {f.name for f in dataclasses.fields(PropertyRunner)} else ("cold",)


class Timed:
    """Wraps an evaluator: the wall time and the cumulative cost after each evaluation."""

    def __init__(self, evaluate) -> None:
        self.evaluate = evaluate
        self.parallel = getattr(evaluate, "parallel", 1)
        self.payloads, self.seconds, self.cumulative = [], [], []
        self.started = time.perf_counter()

    def __call__(self, payload):
        began = time.perf_counter()
        result = self.evaluate(payload)
        self.seconds.append(time.perf_counter() - began)
        self.payloads.append(payload)
        self.cumulative.append(time.perf_counter() - self.started)
        return result


def runner(checkout: Path, selector: str, start: str, parallel: int = 1, **extra) -> PropertyRunner:
    """A bubblewrap runner with the warm start on or off and `parallel` replays at once."""
    known = {f.name for f in dataclasses.fields(PropertyRunner)}
    options = {"warm": start == "warm", "parallel": parallel}
    return PropertyRunner(checkout, selector, "17", Sandbox("bwrap"), timeout_seconds=20,
                          **{k: v for k, v in options.items() if k in known}, **extra)


def closed(evaluate) -> None:
    close = getattr(evaluate, "close", None)
    if close is not None:
        close()


def in_process_seconds(prop, payloads) -> float:
    started = time.perf_counter()
    for p in payloads:
        try:
            prop(p)
        except Exception:  # noqa: BLE001 - shrink candidates raise; the harness would record that too
            pass
    return time.perf_counter() - started


def overhead(checkout: Path, witness, own_each: float, count: int) -> dict[str, float]:
    """Median wall time of one evaluation beyond the property's own, per start."""
    figures = {}
    for start in STARTS:
        evaluate = runner(checkout, EXAMPLE, start)
        samples = []
        for _ in range(count):
            began = time.perf_counter()
            evaluate(witness)
            samples.append(time.perf_counter() - began)
        closed(evaluate)
        figures[start] = statistics.median(samples[1:] or samples) - own_each
    return figures


def heavy_checkout() -> tuple[Path, Path]:
    """A checkout whose property imports `slowdep`, and an environment folder that holds it."""
    source = Path(tempfile.mkdtemp(prefix="bench-heavy-"))
    (source / "props.py").write_text(HEAVY_PROPERTY)
    (source / "shop.py").write_text(SHOP)
    env = Path(tempfile.mkdtemp(prefix="bench-heavy-env-"))
    (env / "slowdep.py").write_text(SLOW_DEPENDENCY)
    make_readable(env)
    return stage_directory(source), env


def heavy(policy: Policy, payload) -> tuple[dict, list[list[float]]]:
    """The import-heavy property through a shrink and its replays: (wall, evaluations, baseline) per start."""
    checkout, env = heavy_checkout()
    sys.path[:0] = [str(env), str(checkout)]
    began = time.perf_counter()
    spec = importlib.util.spec_from_file_location("bench_heavy_props", checkout / "props.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    one_import = time.perf_counter() - began
    figures, series = {}, {}
    for start in STARTS:
        timed = Timed(runner(checkout, HEAVY, start, parallel=os.cpu_count() or 1, environment=env,
                             replays=policy.runs))
        began = time.perf_counter()
        evidence = run_attempt(payload, timed, policy)
        wall = time.perf_counter() - began
        closed(timed.evaluate)
        assert evidence.replays and all(r.outcome == "fail" for r in evidence.replays), evidence.replays
        own = in_process_seconds(module.prop_under_limit, timed.payloads)
        figures[start] = (wall, len(timed.payloads), one_import + own)
        series[start] = timed.cumulative
    series["one import + own time"] = [one_import + own * (i + 1) / len(timed.payloads)
                                       for i in range(len(timed.payloads))]
    shutil.rmtree(checkout, ignore_errors=True)
    shutil.rmtree(env, ignore_errors=True)
    return figures, series


BUSY = """import time


def prop_busy(fixture):
    began = time.process_time()
    while time.process_time() - began < fixture["seconds"]:
        pass
    return "slow"
"""


def busy_checkout() -> Path:
    """A property that spends its payload's seconds of CPU: replays long enough to share out."""
    source = Path(tempfile.mkdtemp(prefix="bench-busy-"))
    (source / "props.py").write_text(BUSY)
    return stage_directory(source)


def replays(checkout: Path, selector: str, witness, runs: int, rounds: int) -> dict[str, tuple[float, float]]:
    """(one after another, in parallel) seconds for `runs` replays of the witness, per start: the medians of
    `rounds` of each, taken in turn on the same two runners (a series of quick replays takes tens of
    milliseconds, which one sample of each measures no better than the machine's noise)."""
    cores = os.cpu_count() or 1
    policy = Policy(runs=runs, timeout_seconds=20)
    figures = {}
    for start in STARTS:
        evaluators = []
        for parallel in (1, cores):
            evaluate = runner(checkout, selector, start, parallel=parallel)
            evaluate(witness)  # the series as a shrink leaves it: its warm parent, and the spares it started
            series = getattr(evaluate, "_series", None)
            if series is not None and parallel > 1:
                series.spare(parallel - 1)  # what the example's own shrink does, long enough to pay for them
            for spare in getattr(series, "_spares", []):
                spare.join()
            evaluators.append(evaluate)
        walls: list[list[float]] = [[], []]
        for _ in range(rounds):
            for wall, evaluate in zip(walls, evaluators):
                began = time.perf_counter()
                replay_frozen(witness, witness, "-", evaluate, policy)
                wall.append(time.perf_counter() - began)
        for evaluate in evaluators:
            closed(evaluate)
        figures[start] = (statistics.median(walls[0]), statistics.median(walls[1]))
    return figures


def report(checkout: Path, payload, own_each: float, repeats: int) -> dict:
    """Print the three side-by-side figures and their RESULT lines; returns them for a plot."""
    witness = {"orders": [{"lines": [{"price": 0, "qty": 10}]}]}
    each = overhead(checkout, witness, own_each, 12 if repeats == 1 else 60)
    print(f"\n{'start':<6} {'overhead per evaluation ms':>27}")
    for start, seconds in each.items():
        print(f"{start:<6} {seconds * 1000:>27.2f}")
    policy = Policy(runs=12, min_reruns=3, max_steps=64, timeout_seconds=20)
    heavy_figures, series = heavy(policy, HEAVY_PAYLOADS[repeats == 1])
    print(f"\n{'start':<6} {'attempt s':>10} {'evals':>6} {'import + own s':>15} {'ratio':>7}   (300 ms import)")
    for start, (wall, count, baseline) in heavy_figures.items():
        print(f"{start:<6} {wall:>10.3f} {count:>6} {baseline:>15.3f} {wall / baseline:>7.2f}")
    busy = busy_checkout()
    parallel = {f"{start} {what}": figures for what, found in (
        ("example", replays(checkout, EXAMPLE, witness, 12, 1 if repeats == 1 else 15)),
        ("0.1 s", replays(busy, "props.py::prop_busy", {"seconds": 0.1}, 12, 1 if repeats == 1 else 3)))
        for start, figures in found.items()}
    shutil.rmtree(busy, ignore_errors=True)
    cores = os.cpu_count() or 1
    print(f"\n{'start and property':<19} {'12 replays 1 at a time s':>25} {f'{cores} at a time s':>16} {'ratio':>7}"
          "   (medians of rounds taken in turn)")
    for start, (serial, wide) in parallel.items():
        print(f"{start:<19} {serial:>25.3f} {wide:>16.3f} {wide / serial:>7.2f}")
    print("\nevaluations -> cumulative seconds (300 ms import)")
    for start, cumulative in series.items():
        if start not in STARTS:
            continue
        marks = ", ".join(f"{i}: {cumulative[i - 1]:.2f}" for i in (1, 5, 10, 20, 40, len(cumulative))
                          if i <= len(cumulative))
        print(f"  {start}: {marks}")
    for start, seconds in each.items():
        print(f"RESULT attempt: overhead_ms_{start} = {seconds * 1000:.2f} "
              f"({(seconds + own_each) / own_each:.0f}x the property's own time; target <= 3 ms)")
    for start, (wall, count, baseline) in heavy_figures.items():
        print(f"RESULT attempt: import_heavy_{start} = {wall:.2f} s for {count} evaluations "
              f"({wall / baseline:.2f}x one import plus the property's own time; target <= 1.5x)")
    for start, (serial, wide) in parallel.items():
        name = start.replace(" ", "_").replace(".", "")
        print(f"RESULT attempt: parallel_replays_{name} = {wide:.2f} s on {cores} cores "
              f"({wide / serial:.2f}x one after another; target <= 0.6x)")
    return {"series": series}


def plot(costs: dict, path: str) -> None:
    """Cumulative seconds against evaluations of the import-heavy attempt, one line per start."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4))
    for name, cumulative in costs["series"].items():
        ax.plot(range(1, len(cumulative) + 1), cumulative, label=name,
                linestyle="--" if name not in STARTS else "-")
    ax.set_xlabel("evaluations (first run, shrink, 12 replays)")
    ax.set_yscale("log")
    ax.set_ylabel("seconds so far (log scale)")
    ax.set_title(f"a property whose dependency takes {IMPORT_SECONDS * 1000:.0f} ms to import")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    print(f"plot: {path}")
