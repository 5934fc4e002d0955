"""The App against the CLI on the same head: webhook -> completed check run, and `witness-gate run`.

    python bench/app_vs_run.py [--rounds N]

The bundled example (examples/orders) is built into a git repository; the App (gunicorn, two rq
workers, a private Redis, SQLite, the GitHub double over real HTTP, bubblewrap) gates its head from
a signed `pull_request.opened`, and the CLI gates the same base and head. Each round times both;
RESULT is the median App time over the median CLI time (issue target: <= 1.3x). The labels of both
are printed, and must agree.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]


def private_redis() -> tuple[str, str]:
    """A redis-server of our own on a free port (the tests' way), so nothing else is flushed."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    folder = tempfile.mkdtemp(prefix="witness-bench-redis-")
    subprocess.run(["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
                    "--dir", folder, "--daemonize", "yes", "--pidfile", f"{folder}/redis.pid"], check=True)
    for _ in range(100):
        if Path(folder, "redis.pid").exists():
            break
        time.sleep(0.05)
    return f"redis://127.0.0.1:{port}/9", folder


def cli_run(repo: Path, out: Path) -> tuple[float, dict[str, str]]:
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-P", "-m", "witness_gate", "run", "--repo", str(repo), "--base", "main",
                           "--head", "agent-patch", "--out", str(out), "--json"], capture_output=True, text=True,
                          cwd=repo.parent)
    seconds = time.perf_counter() - started
    return seconds, {row["assertion_id"]: row["verdict"] for row in json.loads(done.stdout)["properties"]}


def app_run(stack, double, name: str, number: int) -> tuple[float, str]:
    from ghdouble.webhooks import pull_request_event

    double.open_pull(name, "agent-patch", "main", number)
    payload = pull_request_event(double, name, number)
    started = time.perf_counter()
    assert stack.send("pull_request", payload).status_code == 202
    run = stack.wait_for_check(double.sha(name, "agent-patch"), count=number, timeout=600)
    return time.perf_counter() - started, run["output"]["title"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    redis_url, redis_dir = private_redis()
    os.environ["WITNESS_TEST_REDIS_URL"] = redis_url
    from appstack import AppStack  # reads the Redis URL when imported
    from ghdouble.double import GitHubDouble

    work = Path(tempfile.mkdtemp(prefix="witness-bench-app-"))
    double = GitHubDouble().start()
    stack = None
    try:
        repo = work / "orders"
        subprocess.run(["bash", str(ROOT / "examples/orders/make_repo.sh"), str(repo)], check=True, capture_output=True)
        name = "acme/orders"
        double.add_repo(name, repo, installation_id=77)
        (work / "app").mkdir()
        stack = AppStack(work / "app", double).start()
        app_times, cli_times = [], []
        for round_ in range(1, args.rounds + 1):
            seconds, title = app_run(stack, double, name, round_)
            app_times.append(seconds)
            cli_seconds, labels = cli_run(repo, work / f"out{round_}")
            cli_times.append(cli_seconds)
            print(f"round {round_}: app {seconds:.1f} s ({title}); run {cli_seconds:.1f} s ({labels})", flush=True)
        ratio = statistics.median(app_times) / statistics.median(cli_times)
        print(f"RESULT app_vs_run: webhook -> completed check run is {ratio:.2f}x `run` on the same head "
              f"(median app {statistics.median(app_times):.1f} s, run {statistics.median(cli_times):.1f} s)")
    finally:
        if stack is not None:
            stack.stop()
        double.stop()
        os.kill(int(Path(redis_dir, "redis.pid").read_text()), signal.SIGTERM)
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
