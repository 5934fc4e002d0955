"""The gate on a repository's own pytest suite against plain `pytest` on the same tests, side by side in one run.

    python bench/pytest_suite.py [--quick] [--rounds N]
    python bench/pytest_suite.py --project natsort [--rounds N]

Builds a small repository (a module and a test file of plain tests and Hypothesis tests), commits a head whose only
change is a comment in the implementation (so every test is gated and passes), then alternates: plain `pytest` on the
head's tests (one process, the implementation imported beside them) and `witness-gate run` of the head against the base
(every test a property: its first runs each in a judge and a subject of their own). Medians of wall-clock seconds.

With --project, the repository is a published project of examples/projects/ as make_repo.sh lays it out (the project
as published, the .witness.yml `witness-gate init` wrote), its head a comment added to one implementation file, and
both sides run its whole suite (one round unless --rounds says more: the gate takes minutes there).

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


def project(dest: Path, name: str) -> str:
    """A published project laid out by make_repo.sh, with a head that only adds a comment to an implementation file;
    returns the folder its implementation is in."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "WITNESS_GATE": f"{sys.executable} -m witness_gate"}
    subprocess.run(["bash", str(ROOT / "examples/projects/make_repo.sh"), name, str(dest)], check=True, env=env,
                   capture_output=True)
    package = next(path for path in sorted(dest.iterdir()) if (path / "__init__.py").is_file())
    module = next(path for path in sorted(package.glob("*.py")) if path.name != "__init__.py")
    subprocess.run(["git", "-C", str(dest), "checkout", "-q", "-b", "head"], check=True)
    module.write_text(module.read_text() + "\n# a comment\n")
    subprocess.run(["git", "-C", str(dest), "commit", "-qam", "a comment"], check=True)
    return str(dest)


def timed(argv: list[str], cwd: Path, env: dict, ok: tuple[int, ...] = (0,)) -> float:
    started = time.perf_counter()
    done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - started
    if done.returncode not in ok:
        sys.exit(f"{argv[:3]} exited {done.returncode}:\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a small suite, two rounds")
    parser.add_argument("--rounds", type=int, default=None)
    parser.add_argument("--project", help="a project of examples/projects/ (natsort): its whole suite")
    args = parser.parse_args()
    plain, given, rounds = (3, 1, 2) if args.quick else (20, 5, args.rounds or (1 if args.project else 5))
    with tempfile.TemporaryDirectory(prefix="bench-pytest-") as tmp:
        repo = Path(tmp) / "repo"
        if args.project:
            src = project(repo, args.project)
            suite = f"{args.project}'s whole suite"
        else:
            repo.mkdir()
            build(repo, plain, given)
            src, suite = str(repo / "src"), f"{plain} plain and {given} Hypothesis tests"
        env = {**os.environ, "PYTHONPATH": f"{src}{os.pathsep}{ROOT}"}
        pytest_argv = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"]
        gate_argv = [sys.executable, "-m", "witness_gate", "run", "--repo", str(repo), "--base", "main", "--head",
                     "head", "--out", str(Path(tmp) / "out")]
        times: dict[str, list[float]] = {"pytest": [], "gate": []}
        for _ in range(rounds):  # a project's own suite may fail some tests here: what counts is its time
            times["pytest"].append(timed(pytest_argv, repo, env, (0, 1) if args.project else (0,)))
            times["gate"].append(timed(gate_argv, Path(tmp), env, (0, 1, 3) if args.project else (0,)))
    medians = {k: statistics.median(v) for k, v in times.items()}
    print(f"RESULT plain pytest, {suite}: median = {medians['pytest']:.2f} s")
    print(f"RESULT witness-gate run on the same tests: median = {medians['gate']:.2f} s")
    print(f"RESULT the gate against plain pytest: ratio = {medians['gate'] / medians['pytest']:.2f}x")


if __name__ == "__main__":
    main()
