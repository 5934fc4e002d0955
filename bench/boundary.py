"""What the boundary between judge and subject costs, measured side by side in one run.

    python bench/boundary.py [--quick] [--baseline REF]

1. A cold evaluation across the boundary against the same property in one sandboxed process (the shape every
   evaluation had before the boundary: a harness importing the property and the implementation together),
   alternating, medians: as a series has it (a subject booted for it alone while the last one ran, a judge forked
   from the warm judge parent), and from nothing (both sides started for it, as with WITNESS_WARM=off).
2. A call with small data across the boundary (the judge's Peer to a subject Server in another process) against a bare
   ping-pong of the same bytes over the same kind of socket, medians per call.
3. Unless --quick: the bundled example's whole `witness-gate run` against the same run of the gate at REF (default:
   the last commit before the boundary, whose warm start forked every evaluation), checked out beside this one.

Prints one RESULT line per figure; ratios only mean something within one run.
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from witness_gate.sandbox.runner import PropertyRunner  # noqa: E402
from witness_gate.sandbox import Sandbox, stage_directory  # noqa: E402
from witness_gate.sandbox.judge.peer import Peer  # noqa: E402
from witness_gate.sandbox.subject.server import Server  # noqa: E402
from witness_gate.sandbox.wire.frames import Channel, dumps  # noqa: E402

BASELINE = "af8d4db"  # the last commit before the boundary
IMPL = "def total(order):\n    return sum(line['qty'] * line['price'] for line in order['lines'])\n"
PROPS = ("from shop import total\n\n\ndef prop_total(fixture):\n"
         "    return all(total(order) >= 0 for order in fixture['orders'])\n")
PAYLOAD = {"orders": [{"lines": [{"qty": i % 5, "price": 100 + i}]} for i in range(10)]}
# the old shape: one process, the property and the implementation imported together (runner protocol, exit code)
SHARED = ("import sys, json, os; sys.path[:0] = ['/repo/src', '/repo/tests/properties'];"
          "import importlib; m = importlib.import_module('test_shop');"
          "p = json.load(open(os.environ['WITNESS_FIXTURE']));"
          "ok = m.prop_total(p); print('' if ok else 'false'); sys.exit(0 if ok else 1)")


def median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


def cold_evaluations(repeats: int) -> tuple[float, float, float]:
    source = Path(tempfile.mkdtemp(prefix="bench-boundary-"))
    (source / "src").mkdir()
    (source / "tests" / "properties").mkdir(parents=True)
    (source / "src" / "shop.py").write_text(IMPL)
    (source / "tests" / "properties" / "test_shop.py").write_text(PROPS)
    repo = stage_directory(source)
    sandbox = Sandbox("bwrap")
    split = PropertyRunner(repo, "tests/properties/test_shop.py::prop_total", "1", sandbox, timeout_seconds=30)
    fresh = PropertyRunner(repo, "tests/properties/test_shop.py::prop_total", "1", sandbox, timeout_seconds=30,
                           warm=False)
    shared = PropertyRunner(repo, "prop_total", "1", sandbox, timeout_seconds=30,
                            command=(sandbox.python, "-P", "-s", "-B", "-c", SHARED))
    runners = (("split", split), ("fresh", fresh), ("shared", shared))
    for _, runner in runners:
        row = runner(PAYLOAD)
        assert row.outcome == "pass" and row.isolation in ("split-cold", "shared"), row
    times: dict[str, list[float]] = {name: [] for name, _ in runners}
    for _ in range(repeats):  # alternating, so all see the same machine
        for name, runner in runners:
            started = time.perf_counter()
            runner(PAYLOAD)
            times[name].append(time.perf_counter() - started)
    for _, runner in runners:
        runner.close()
    return median_ms(times["split"]), median_ms(times["fresh"]), median_ms(times["shared"])


def _child(serve) -> tuple[int, socket.socket]:
    mine, theirs = socket.socketpair()
    pid = os.fork()
    if pid == 0:
        mine.close()
        try:
            serve(theirs.fileno())
        finally:
            os._exit(0)
    theirs.close()
    return pid, mine


def small_calls(calls: int) -> tuple[float, float]:
    """(a call's median across the boundary, the bare ping-pong's of the same bytes), in microseconds."""
    module = type(sys)("bench_echo")
    module.echo = lambda value: value
    sys.modules["bench_echo"] = module
    argument = {"sku": "tea", "qty": 3, "price": 250}

    pid, sock = _child(lambda fd: Server(Channel(fd), str(ROOT)).serve())
    peer = Peer(Channel(sock.fileno()))
    echo = peer.ask("getattr", peer.import_module("bench_echo")[0]._w_number, name="echo")
    boundary = []
    for _ in range(calls):
        started = time.perf_counter()
        assert echo(argument) == argument
        boundary.append(time.perf_counter() - started)
    sock.close()
    os.waitpid(pid, 0)

    request = dumps({"op": "call", "h": 2, "a": [peer.encode(argument)], "k": [], "id": 1})

    def mirror(fd: int) -> None:
        channel = Channel(fd)
        while True:
            try:
                channel.send(channel.receive())
            except Exception:  # noqa: BLE001 - the other end hung up
                return

    pid, sock = _child(mirror)
    channel = Channel(sock.fileno())
    message = __import__("json").loads(request)
    bare = []
    for _ in range(calls):
        started = time.perf_counter()
        channel.send(message)
        channel.receive()
        bare.append(time.perf_counter() - started)
    sock.close()
    os.waitpid(pid, 0)
    return median_ms(boundary) * 1000, median_ms(bare) * 1000


def example_runs(baseline: str, rounds: int) -> tuple[float, float]:
    """(this gate's example run, the baseline's), seconds, medians of `rounds` alternating runs."""
    work = Path(tempfile.mkdtemp(prefix="bench-example-"))
    subprocess.run(["bash", str(ROOT / "examples/orders/make_repo.sh"), str(work / "orders")], check=True,
                   capture_output=True)
    old = work / "baseline"
    subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "-f", "--detach", str(old), baseline], check=True,
                   capture_output=True)
    try:
        times: dict[str, list[float]] = {"now": [], "baseline": []}
        for n in range(rounds):
            for name, tree in (("now", ROOT), ("baseline", old)):
                env = {**os.environ, "PYTHONPATH": str(tree)}
                started = time.perf_counter()
                done = subprocess.run([sys.executable, "-P", "-m", "witness_gate", "run", "--repo", str(work / "orders"),
                                       "--base", "main", "--head", "agent-patch", "--out", str(work / f"{name}{n}")],
                                      env=env, capture_output=True, text=True)
                times[name].append(time.perf_counter() - started)
                assert done.returncode == 1, done.stdout + done.stderr  # the example's regression blocks
        return statistics.median(times["now"]), statistics.median(times["baseline"])
    finally:
        subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(old)], capture_output=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="fewer repetitions, and no example runs")
    parser.add_argument("--baseline", default=BASELINE, help="the gate to compare the example's run with")
    parser.add_argument("--rounds", type=int, default=3, help="example runs of each gate")
    args = parser.parse_args()
    split, fresh, shared = cold_evaluations(5 if args.quick else 40)
    print(f"RESULT cold evaluation: split = {split:.1f} ms, one process = {shared:.1f} ms, "
          f"ratio = {split / shared:.2f}x (target <= 1.2x)")
    print(f"RESULT cold evaluation from nothing (both sides started for it): {fresh:.1f} ms, "
          f"ratio = {fresh / shared:.2f}x")
    boundary, bare = small_calls(200 if args.quick else 5000)
    print(f"RESULT small call: across the boundary = {boundary:.1f} us, bare ping-pong = {bare:.1f} us, "
          f"ratio = {boundary / bare:.2f}x (target <= 2x)")
    if not args.quick:
        now, before = example_runs(args.baseline, args.rounds)
        print(f"RESULT example run: now = {now:.2f} s, {args.baseline} = {before:.2f} s, ratio = {now / before:.2f}x "
              "(target <= 1.5x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
