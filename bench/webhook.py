"""Acknowledgement latency and throughput of POST /webhook, against a bare Flask endpoint, same load.

    python bench/webhook.py [--quick]

Both run under gunicorn with the same worker count on loopback; the receiver verifies the
signature, dedupes the delivery in Redis and enqueues a job (no worker drains it: the queue is a
throwaway and is deleted afterwards). One load generator: C threads sending signed
`pull_request.opened` deliveries with distinct ids, first as fast as they go (throughput; on two
shared cores the latency there is mostly queueing), then paced at a fixed rate (the latency a
delivery sees when the receiver keeps up, which is what GitHub's 10-second limit is about).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import requests
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from redis import Redis

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bot.signature import sign  # noqa: E402

SECRET = b"bench-secret"
REDIS_URL = os.environ.get("WITNESS_BENCH_REDIS_URL", "redis://127.0.0.1:6379/10")


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(app: str, env: dict, workers: int) -> tuple[subprocess.Popen, str]:
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "gunicorn", "--bind", f"127.0.0.1:{port}", "--workers",
                             str(workers), "--log-level", "warning", app], cwd=ROOT, env=env)
    url = f"http://127.0.0.1:{port}"
    for _ in range(150):
        try:
            requests.get(url, timeout=0.5)
            return proc, url
        except requests.RequestException:
            time.sleep(0.1)
    raise RuntimeError(f"{app} did not start")


def payload(i: int) -> bytes:
    return json.dumps({
        "action": "opened", "number": i,
        "pull_request": {"number": i, "head": {"sha": f"{i:040x}"}, "base": {"sha": "b" * 40}},
        "repository": {"id": 99, "full_name": "bench/repo"}, "installation": {"id": 1},
    }).encode()


def load(url: str, n: int, concurrency: int, rate: float | None = None) -> tuple[list[float], float, int]:
    """Send n deliveries from `concurrency` threads: as fast as they go, or paced at `rate` per second.

    Paced latency is measured from the scheduled send time, so a late start counts against us.
    """
    bodies = [payload(i) for i in range(n)]
    session_per_thread = {}
    origin = time.perf_counter() + 0.2

    def send(i: int) -> tuple[float, int]:
        import threading

        session = session_per_thread.setdefault(threading.get_ident(), requests.Session())
        headers = {"X-GitHub-Event": "pull_request", "X-GitHub-Delivery": str(uuid.uuid4()),
                   "X-Hub-Signature-256": sign(SECRET, bodies[i]), "Content-Type": "application/json"}
        started = time.perf_counter()
        if rate:
            started = origin + i / rate
            time.sleep(max(0.0, started - time.perf_counter()))
        response = session.post(f"{url}/webhook", data=bodies[i], headers=headers, timeout=30)
        return time.perf_counter() - started, response.status_code

    started = time.perf_counter()
    with ThreadPoolExecutor(concurrency) as pool:
        results = list(pool.map(send, range(n)))
    elapsed = time.perf_counter() - started
    return [r[0] for r in results], elapsed, sum(1 for r in results if r[1] == 202)


def pct(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="500 deliveries instead of 5,000")
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--rate", type=float, default=200, help="deliveries per second in the paced phase")
    args = parser.parse_args()
    n = 500 if args.quick else 5000
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048).private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.TraditionalOpenSSL, serialization.NoEncryption())
    tmp = Path(tempfile.mkdtemp(prefix="bench-webhook-"))
    queue = f"bench-{uuid.uuid4().hex[:8]}"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "GITHUB_APP_ID": "1", "GITHUB_PRIVATE_KEY": key.decode(),
           "GITHUB_WEBHOOK_SECRET": SECRET.decode(), "REDIS_URL": REDIS_URL,
           "DATABASE_URL": f"sqlite:///{tmp / 'bench.db'}", "WITNESS_QUEUE": queue}
    redis = Redis.from_url(REDIS_URL)
    redis.flushdb()
    results, paced_results = {}, {}
    for name, app in (("bare", "bench.bare_app:app"), ("witness-gate", "bot.app:create_app()")):
        proc, url = start(app, env, args.workers)
        try:
            load(url, 50, args.concurrency)  # warm up
            latencies, elapsed, accepted = load(url, n, args.concurrency)
            paced, _, paced_ok = load(url, n // 2, args.concurrency, rate=args.rate)
        finally:
            proc.terminate()
            proc.wait(timeout=20)
        results[name] = (latencies, elapsed, accepted)
        paced_results[name] = (paced, paced_ok)
    enqueued = redis.llen(f"rq:queue:{queue}")
    redis.flushdb()
    print(f"{'endpoint':<14} {'load':<18} {'accepted':>9} {'p50 ms':>8} {'p99 ms':>8} {'req/s':>8}   "
          f"({args.concurrency} threads, {args.workers} gunicorn workers)")
    for name, (lat, elapsed, accepted) in results.items():
        print(f"{name:<14} {'saturating, ' + str(n):<18} {accepted:>9} {pct(lat, .5) * 1000:>8.2f} "
              f"{pct(lat, .99) * 1000:>8.2f} {n / elapsed:>8.0f}")
        paced, ok = paced_results[name]
        print(f"{name:<14} {f'{args.rate:g}/s, {n // 2}':<18} {ok:>9} {pct(paced, .5) * 1000:>8.2f} "
              f"{pct(paced, .99) * 1000:>8.2f} {args.rate:>8.0f}")
    bare, ours = results["bare"], results["witness-gate"]
    bare_paced, ours_paced = paced_results["bare"][0], paced_results["witness-gate"][0]
    print(f"enqueued once each: {enqueued} jobs for {n + n // 2 + 50} signed deliveries (warm-up included)")
    print(f"RESULT webhook: p99_ms = {pct(ours_paced, .99) * 1000:.2f} at {args.rate:g}/s "
          f"({pct(ours_paced, .99) / pct(bare_paced, .99):.2f}x bare endpoint; target <= 1.5x)")
    print(f"RESULT webhook: p50_ms = {pct(ours_paced, .5) * 1000:.2f} at {args.rate:g}/s "
          f"({pct(ours_paced, .5) / pct(bare_paced, .5):.2f}x bare endpoint)")
    print(f"RESULT webhook: saturated_p99_ms = {pct(ours[0], .99) * 1000:.2f} "
          f"({pct(ours[0], .99) / pct(bare[0], .99):.2f}x bare endpoint; queueing on 2 cores)")
    print(f"RESULT webhook: throughput = {n / ours[1]:.0f} req/s ({(n / ours[1]) / (n / bare[1]):.2f}x bare endpoint)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
