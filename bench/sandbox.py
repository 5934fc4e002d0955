"""Cost of one evaluation: in-process call, plain subprocess, and bubblewrap, measured side by side.

Also: bubblewrap with a set-up environment bound at /env (phase two of a head with a `setup:`),
and what reusing a head's built environment costs a property job (a lock and a marker read).

    python bench/sandbox.py [--quick]

Prints one RESULT line per figure, as ratios against the in-process call and the plain
subprocess measured in the same run (absolute times on a shared machine are noise).
"""

from __future__ import annotations

import argparse
import importlib.util
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from witness_gate.setup.environment import SetupStep, prepare  # noqa: E402
from witness_gate.sandbox.runner import PropertyRunner  # noqa: E402
from witness_gate.sandbox import Sandbox, bwrap_works, stage_directory  # noqa: E402

PROPERTY = '''
def prop_total(fixture):
    return sum(line["qty"] * line["price"] for line in fixture["lines"]) >= 0
'''
PAYLOAD = {"lines": [{"qty": i % 5, "price": 100 + i} for i in range(50)]}


def timed(call, repeats: int) -> list[float]:
    samples = []
    for _ in range(repeats):
        started = time.perf_counter()
        call()
        samples.append(time.perf_counter() - started)
    return samples


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="fewer repetitions (well under a minute)")
    args = parser.parse_args()
    repeats = 30 if args.quick else 300

    source = Path(tempfile.mkdtemp(prefix="bench-repo-"))
    (source / "props.py").write_text(PROPERTY)
    repo = stage_directory(source)
    spec = importlib.util.spec_from_file_location("bench_props", repo / "props.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)

    plain = PropertyRunner(repo, "props.py::prop_total", "1", Sandbox("none"))
    results = {
        "in-process": timed(lambda: module.prop_total(PAYLOAD), repeats),
        "subprocess": timed(lambda: plain(PAYLOAD), repeats),
    }
    problem = bwrap_works()
    if not problem:
        boxed = PropertyRunner(repo, "props.py::prop_total", "1", Sandbox("bwrap"))
        assert boxed(PAYLOAD).outcome == "pass"
        results["bwrap"] = timed(lambda: boxed(PAYLOAD), repeats)
        cache = Path(tempfile.mkdtemp(prefix="bench-envs-"))
        cache.chmod(0o755)
        step = SetupStep(None, ("sh", "-c", 'echo "HELPER = 1" > "$WITNESS_ENV/helper.py"'), 60)
        built = timed(lambda: prepare(step, checkout=repo, patch_digest="bench", sandbox=Sandbox("bwrap"),
                                      cache=cache), 1)
        reused = timed(lambda: prepare(step, checkout=repo, patch_digest="bench", sandbox=Sandbox("bwrap"),
                                       cache=cache), repeats)
        env = prepare(step, checkout=repo, patch_digest="bench", sandbox=Sandbox("bwrap"), cache=cache)
        with_env = PropertyRunner(repo, "props.py::prop_total", "1", Sandbox("bwrap"), environment=env.path)
        assert with_env(PAYLOAD).outcome == "pass"
        results["bwrap+env"] = timed(lambda: with_env(PAYLOAD), repeats)
        shutil.rmtree(cache)

    median = {name: statistics.median(samples) for name, samples in results.items()}
    print(f"{'runner':<12} {'median ms':>10} {'p90 ms':>10}   ({repeats} evaluations each)")
    for name, samples in results.items():
        p90 = sorted(samples)[int(len(samples) * 0.9) - 1]
        print(f"{name:<12} {median[name] * 1000:>10.2f} {p90 * 1000:>10.2f}")
    base = median["in-process"]
    print(f"RESULT sandbox: subprocess_ms = {median['subprocess'] * 1000:.2f} "
          f"({median['subprocess'] / base:.0f}x in-process)")
    if "bwrap" in median:
        extra = (median["bwrap"] - median["subprocess"]) * 1000
        print(f"RESULT sandbox: bwrap_ms = {median['bwrap'] * 1000:.2f} "
              f"({median['bwrap'] / median['subprocess']:.2f}x subprocess)")
        print(f"RESULT sandbox: bwrap_overhead_ms = {extra:.2f} (target < 10 ms beyond a plain subprocess)")
        print(f"RESULT sandbox: bwrap_env_ms = {median['bwrap+env'] * 1000:.2f} "
              f"({median['bwrap+env'] / median['bwrap']:.2f}x bwrap without an environment)")
        print(f"RESULT sandbox: setup_build_ms = {built[0] * 1000:.1f}; setup_reuse_ms = "
              f"{statistics.median(reused) * 1000:.3f} ({statistics.median(reused) / built[0]:.4f}x a build; "
              "a trivial set-up: a real one is its install time)")
    else:
        print(f"RESULT sandbox: bwrap_ms = unavailable ({problem})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
