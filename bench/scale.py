"""How the gate's cost grows: changed files, fixture size, replays, and workers on one Redis.

    python bench/scale.py [--quick] [--plot docs/scale.png]

Each curve prints its points and the growth from the first point to the last against the growth
of the input: a ratio at or under 1 is linear or better.
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from redis import Redis  # noqa: E402
from rq import Queue  # noqa: E402
from rq.serializers import JSONSerializer  # noqa: E402

from witness_gate.model.evidence import Policy  # noqa: E402

from witness_gate.pipeline.attempt import run_attempt
from witness_gate.config.schema import Config  # noqa: E402
from witness_gate.rules.path_split import split_paths  # noqa: E402
from witness_gate.sandbox.runner import PropertyRunner  # noqa: E402
from witness_gate.sandbox import Sandbox, bwrap_works, stage_directory  # noqa: E402
from witness_gate.shrink import shrink  # noqa: E402
from worker import checks  # noqa: E402

REDIS_URL = os.environ.get("WITNESS_BENCH_REDIS_URL", "redis://127.0.0.1:6379/10")


def timed(fn, repeat: int = 1) -> float:
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - started)
    return best


def changed_files_curve(sizes):
    config = Config(generated=("gen/**/*.py",))
    points = []
    for n in sizes:
        paths = [f"src/pkg{i % 37}/module_{i}.py" for i in range(n - 1)] + ["tests/properties/test_x.py"]

        def split_and_report():
            impl, oracle = split_paths(paths, config.impl, config.oracle_patterns)
            oracle_files = [p for p in paths if split_paths([p], (), config.oracle_patterns)[1]]
            checks.render_refusal("mixed_edit", "mixed", "\n".join(f"- `{p}`" for p in oracle_files),
                                  files=oracle_files[:50])

        points.append((n, timed(split_and_report, 3) * 1000, "ms"))
    return "changed files -> split and report", points


def fixture_curve(sizes):
    points = []
    for n in sizes:
        rng = random.Random(n)
        fixture = {f"key{i}": rng.randint(0, 1000) for i in range(n)}
        culprit = f"key{rng.randrange(n)}"
        fixture[culprit] = 5000

        def run(v, culprit=culprit):
            return "too-big" if isinstance(v, dict) and isinstance(v.get(culprit), int) and v[culprit] > 4000 else None

        started = time.perf_counter()
        result = shrink(fixture, run, target_reason="too-big", max_steps=1000, max_evals=100_000)
        seconds = time.perf_counter() - started
        assert result.witness == {culprit: 4001}, result.witness
        points.append((n, result.evaluations, f"evaluations ({seconds * 1000:.0f} ms)"))
    return "fixture keys -> shrink evaluations", points


PROPERTY = "def prop_sum(p):\n    return sum(p['xs']) >= 0\n"


def small_checkout() -> Path:
    source = Path(tempfile.mkdtemp(prefix="bench-scale-"))
    (source / "props.py").write_text(PROPERTY)
    return stage_directory(source)


def replay_curve(sizes, checkout: Path):
    sandbox = Sandbox("bwrap" if not bwrap_works() else "none")
    points = []
    for runs in sizes:
        runner = PropertyRunner(checkout, "props.py::prop_sum", "1", sandbox, timeout_seconds=20)
        seconds = timed(lambda runs=runs: run_attempt({"xs": list(range(30))}, runner, Policy(runs=runs)))
        points.append((runs, seconds, "s per attempt"))
    return f"replays -> attempt time ({sandbox.mode})", points


def worker_curve(counts, checkout: Path, jobs: int, runs: int):
    redis = Redis.from_url(REDIS_URL)
    points = []
    for workers in counts:
        queue_name = f"bench-scale-{uuid.uuid4().hex[:8]}"
        queue = Queue(queue_name, connection=redis, serializer=JSONSerializer)
        for _ in range(jobs):
            queue.enqueue("bench.scale_jobs.one_attempt", kwargs={"checkout": str(checkout), "runs": runs})
        started = time.perf_counter()
        procs = [subprocess.Popen([sys.executable, "-m", "rq.cli", "worker", queue_name, "--burst", "--url",
                                   REDIS_URL, "--serializer", "json", "--name", f"{queue_name}-{i}"],
                                  cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) for i in range(workers)]
        for proc in procs:
            proc.wait(timeout=600)
        seconds = time.perf_counter() - started
        failed = queue.failed_job_registry.count
        assert failed == 0, f"{failed} jobs failed"
        points.append((workers, jobs / seconds * 60, "attempts per minute"))
        queue.delete(delete_jobs=True)
    redis.flushdb()  # the benchmarks' own database (10): results and worker keys go too
    return f"workers on one Redis -> throughput ({jobs} attempts of {runs} replays)", points


def growth(points, throughput: bool = False) -> str:
    (x0, y0, _), (x1, y1, _) = points[0], points[-1]
    if throughput:
        return f"throughput x{y1 / y0:.2f} for x{x1 / x0:.0f} workers"
    ratio = (y1 / y0) / (x1 / x0)
    kind = "linear or better" if ratio <= 1.05 else "worse than linear"
    return f"cost x{y1 / y0:.1f} for input x{x1 / x0:.0f}: {ratio:.2f} of linear ({kind})"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="small curves (about a minute)")
    parser.add_argument("--plot", help="write the curves as a PNG (needs matplotlib)")
    args = parser.parse_args()
    q = args.quick
    checkout = small_checkout()
    curves = [
        changed_files_curve([10, 100, 1000, 3000]),
        fixture_curve([10, 100, 1000] if q else [10, 100, 1000, 10000]),
        replay_curve([3, 10, 20] if q else [3, 10, 25, 50], checkout),
        worker_curve([1, 2] if q else [1, 2, 3, 4], checkout, jobs=6 if q else 16, runs=5),
    ]
    for title, points in curves:
        print(f"\n{title}")
        for x, y, unit in points:
            print(f"  {x:>6}  {y:>10.2f}  {unit}")
        print(f"  growth: {growth(points, throughput='workers' in title)}")
    names = ["changed_files", "fixture_keys", "replays", "workers"]
    for name, (title, points) in zip(names, curves):
        print(f"RESULT scale: {name} = {growth(points, throughput=name == 'workers')}")
    if args.plot:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, axes = plt.subplots(2, 2, figsize=(10, 7))
        for ax, (title, points) in zip(axes.flat, curves):
            xs, ys = [p[0] for p in points], [p[1] for p in points]
            ax.plot(xs, ys, marker="o")
            ax.set_title(title, fontsize=9)
            ax.set_xlabel(title.split(" -> ")[0].split(" (")[0])
            ax.set_ylabel(points[0][2].split(" (")[0])
            if "workers" not in title:
                ax.set_xscale("log")
                ax.set_yscale("log")
            ax.grid(True, alpha=0.3)
        fig.tight_layout()
        fig.savefig(args.plot, dpi=110)
        print(f"plot: {args.plot}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
