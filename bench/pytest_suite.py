"""The gate on a repository's own pytest suite against plain `pytest` on the same tests, side by side in one run.

    python bench/pytest_suite.py [--quick] [--rounds N]

Builds a small repository (a module and a test file of plain tests and Hypothesis tests), commits a head whose only
change is a comment in the implementation (so every test is gated and passes), then alternates: plain `pytest` on the
head's tests (one process, the implementation imported beside them) and `witness-gate run` of the head against the base
(every test a property: its first runs each in a judge and a subject of their own). Medians of wall-clock seconds.

Prints one RESULT line per figure; ratios only mean something within one run.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

IMPL = '''
def double(x):
    return 2 * x


def fold(s):
    return s.casefold()
'''
PLAIN = "def test_plain_{n}():\n    assert double({n}) == {n} + {n}\n\n\n"
GIVEN = ("@given(st.integers(min_value=-10**6, max_value=10**6))\ndef test_given_{n}(x):\n"
         "    assert double(x) - x == x\n\n\n")


def build(dest: Path, plain: int, given: int) -> None:
    tests = "from hypothesis import given, strategies as st\n\nfrom calc import double\n\n\n"
    tests += "".join(PLAIN.format(n=n) for n in range(plain)) + "".join(GIVEN.format(n=n) for n in range(given))
    files = {"src/calc.py": IMPL, "tests/test_calc.py": tests,
             ".witness.yml": 'version: 1\npaths:\n  impl: ["src/"]\n  oracle: ["tests/"]\nproperties:\n'
                             '  pytest: ["tests/"]\n'}
    for path, text in files.items():
        (dest / path).parent.mkdir(parents=True, exist_ok=True)
        (dest / path).write_text(text)

    def git(*args: str) -> None:
        subprocess.run(["git", "-C", str(dest), *args], check=True, capture_output=True)

    git("init", "-q", "-b", "main")
    git("-c", "user.email=b@e", "-c", "user.name=bench", "add", "-A")
    git("-c", "user.email=b@e", "-c", "user.name=bench", "commit", "-qm", "base")
    git("checkout", "-q", "-b", "head")
    (dest / "src" / "calc.py").write_text(IMPL + "# a comment\n")
    git("-c", "user.email=b@e", "-c", "user.name=bench", "commit", "-qam", "head")


def timed(argv: list[str], cwd: Path, env: dict) -> float:
    started = time.perf_counter()
    done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - started
    if done.returncode not in (0,):
        sys.exit(f"{argv[:3]} exited {done.returncode}:\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a small suite, two rounds")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    plain, given, rounds = (3, 1, 2) if args.quick else (20, 5, args.rounds)
    with tempfile.TemporaryDirectory(prefix="bench-pytest-") as tmp:
        repo = Path(tmp) / "repo"
        repo.mkdir()
        build(repo, plain, given)
        env = {**os.environ, "PYTHONPATH": f"{repo / 'src'}{os.pathsep}{ROOT}"}
        pytest_argv = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"]
        gate_argv = [sys.executable, "-m", "witness_gate", "run", "--repo", str(repo), "--base", "main", "--head",
                     "head", "--out", str(Path(tmp) / "out")]
        times: dict[str, list[float]] = {"pytest": [], "gate": []}
        for _ in range(rounds):
            times["pytest"].append(timed(pytest_argv, repo, env))
            times["gate"].append(timed(gate_argv, Path(tmp), env))
    medians = {k: statistics.median(v) for k, v in times.items()}
    print(f"RESULT plain pytest, {plain} plain and {given} Hypothesis tests: median = {medians['pytest']:.2f} s")
    print(f"RESULT witness-gate run on the same tests: median = {medians['gate']:.2f} s")
    print(f"RESULT the gate against plain pytest: ratio = {medians['gate'] / medians['pytest']:.2f}x")


if __name__ == "__main__":
    main()
