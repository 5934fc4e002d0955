"""Load: N signed deliveries at rate R (or in one burst) to gunicorn, with a real RQ worker draining behind it.

    python bench/load.py [--deliveries 1000] [--rate 0] [--duplicates 0.1]

Reports accepted, answered-as-duplicate, whether every distinct delivery was enqueued exactly once,
and the acknowledgement latency (p50, p99). The worker talks to a GitHub that is not there (a
closed local port), so each job fails fast after it is taken: the point is the receiver and the
queue under a draining consumer, not the gate. A rate of 0 sends everything in one burst.
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
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import requests
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from redis import Redis

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.webhook import SECRET, free_port, payload, pct, start  # noqa: E402
from bot.signature import sign  # noqa: E402

REDIS_URL = os.environ.get("WITNESS_BENCH_REDIS_URL", "redis://127.0.0.1:6379/10")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--deliveries", type=int, default=1000)
    parser.add_argument("--rate", type=float, default=0, help="deliveries per second; 0 = one burst")
    parser.add_argument("--duplicates", type=float, default=0.1, help="share of deliveries sent twice")
    parser.add_argument("--concurrency", type=int, default=16)
    args = parser.parse_args()

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048).private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.TraditionalOpenSSL, serialization.NoEncryption())
    tmp = Path(tempfile.mkdtemp(prefix="load-"))
    queue = f"load-{uuid.uuid4().hex[:8]}"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "GITHUB_APP_ID": "1", "GITHUB_PRIVATE_KEY": key.decode(),
           "GITHUB_WEBHOOK_SECRET": SECRET.decode(), "REDIS_URL": REDIS_URL, "WITNESS_QUEUE": queue,
           "DATABASE_URL": f"sqlite:///{tmp / 'load.db'}", "GITHUB_API_URL": f"http://127.0.0.1:{free_port()}",
           "WITNESS_GITHUB_ATTEMPTS": "1"}
    redis = Redis.from_url(REDIS_URL)
    redis.flushdb()
    web, url = start("bot.app:create_app()", env, workers=2)
    worker = subprocess.Popen([sys.executable, "-m", "rq.cli", "worker", queue, "--url", REDIS_URL, "--serializer",
                               "json", "--logging_level", "ERROR"], cwd=ROOT, env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    rng = random.Random(1)
    distinct = [str(uuid.uuid4()) for _ in range(args.deliveries)]
    sends = distinct + rng.sample(distinct, int(args.deliveries * args.duplicates))  # GitHub's redeliveries
    rng.shuffle(sends)
    bodies = {d: payload(i) for i, d in enumerate(distinct)}
    origin = time.perf_counter() + 0.2

    def send(item):
        i, delivery = item
        body = bodies[delivery]
        scheduled = origin + (i / args.rate if args.rate else 0)
        time.sleep(max(0.0, scheduled - time.perf_counter()))
        started = time.perf_counter() if not args.rate else scheduled
        response = requests.post(f"{url}/webhook", data=body, timeout=30, headers={
            "X-GitHub-Event": "pull_request", "X-GitHub-Delivery": delivery,
            "X-Hub-Signature-256": sign(SECRET, body), "Content-Type": "application/json"})
        return time.perf_counter() - started, response.status_code

    try:
        began = time.perf_counter()
        with ThreadPoolExecutor(args.concurrency) as pool:
            results = list(pool.map(send, enumerate(sends)))
        elapsed = time.perf_counter() - began
        time.sleep(1)
        job_keys = [k for k in redis.scan_iter("rq:job:gate-*") if not k.endswith(b":dependents")]
        jobs_per_delivery = {}
        for k in job_keys:
            job = redis.hgetall(k)
            description = job.get(b"description", b"").decode()
            delivery = description.split(" ", 1)[-1]
            jobs_per_delivery[delivery] = jobs_per_delivery.get(delivery, 0) + 1
    finally:
        web.terminate()
        worker.terminate()
        web.wait(timeout=20)
        worker.wait(timeout=20)
        redis.flushdb()
    codes = [code for _, code in results]
    latencies = [lat for lat, _ in results]
    lost = [d for d in distinct if jobs_per_delivery.get(d, 0) == 0]
    twice = [d for d, n in jobs_per_delivery.items() if n > 1]
    mode = "one burst" if not args.rate else f"{args.rate:g}/s"
    print(f"sent {len(sends)} deliveries ({len(distinct)} distinct, {len(sends) - len(distinct)} repeated), {mode}, "
          f"{args.concurrency} threads, in {elapsed:.2f}s")
    print(f"accepted (202): {codes.count(202)}  duplicate (200): {codes.count(200)}  "
          f"other: {len(codes) - codes.count(202) - codes.count(200)}")
    print(f"enqueued: {len(jobs_per_delivery)} distinct deliveries have a job; lost: {len(lost)}; "
          f"enqueued twice: {len(twice)}")
    print(f"acknowledgement p50 {pct(latencies, .5) * 1000:.1f} ms, p99 {pct(latencies, .99) * 1000:.1f} ms, "
          f"max {max(latencies) * 1000:.1f} ms")
    print(f"RESULT load: lost = {len(lost)} of {len(distinct)} (enqueued twice: {len(twice)})")
    print(f"RESULT load: p99_ms = {pct(latencies, .99) * 1000:.1f} ({mode})")
    return 0 if not lost and not twice else 1


if __name__ == "__main__":
    sys.exit(main())
