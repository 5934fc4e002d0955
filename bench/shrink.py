"""The structural shrinker against Hypothesis's shrinker, ddmin and article 000's one-at-a-time loop.

    python bench/shrink.py [--quick]

Every shrinker starts from the same failing fixture with the same predicate. Reported per case:
witness size in canonical bytes, distinct predicate evaluations, and whether the witness is
1-minimal (no single dict key or list element can be deleted and still fail the same way).

Hypothesis is started from the fixture: its engine is handed the choice sequence that draws the
fixture as its first interesting example (what replaying a seeded example database does), then
shrinks it with its own shrinker. Two encodings of JSON as choices
are tried — kinds ordered null-first (Hypothesis's natural order) and int-first (so that the
values Hypothesis finds simplest are also the shortest JSON) — and the better one per case is
the baseline, which serves Hypothesis best. That drives Hypothesis's internals: on a version
other than the one it was checked against (bench/shrink_engine.py) the script stops and says so.

A second table runs thirteen classic shrinking problems (bench/shrink_problems.py) side by side
with real Hypothesis's @given test under pinned seeds (bench/shrink_classic.py).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from shrink_engine import KINDS, Counted, hypothesis_untested, run_hypothesis  # noqa: E402,F401 - tests use KINDS
import shrink_classic  # noqa: E402

from witness_gate.model.canonical import canonical_bytes  # noqa: E402
from witness_gate.shrink import shrink_until_local_stop  # noqa: E402
from witness_gate.shrink import shrink, single_deletions  # noqa: E402

Predicate = Callable[[Any], "str | None"]


# -- the corpus ------------------------------------------------------------------------------------
def corpus(quick: bool) -> list[tuple[str, str, Any, Predicate]]:
    rng = random.Random(2026)
    scale = 1 if quick else 3
    cases = []

    wide = 40 if quick else 200  # the width: a 200-key fixture whose failure needs 2 keys
    flat = {f"k{i}": rng.randint(0, 100) for i in range(wide)}
    flat["k37"], flat["flag"] = 77, True

    def flat_pred(v):
        ok = isinstance(v, dict) and isinstance(v.get("k37"), int) and v.get("flag") is True
        return "hot-flag" if ok and v["k37"] > 50 else None

    cases.append(("flat", "k37 > 50 and flag", flat, flat_pred))

    # the same width with each value a list of numbers: summing each key's list on its own cost a probe a key
    flat_lists = {f"k{i}": [rng.randint(1, 80) for _ in range(3)] for i in range(wide)}
    flat_lists["k37"], flat_lists["flag"] = [15, 40, 64], True

    def flat_lists_pred(v):
        numbers = v.get("k37") if isinstance(v, dict) else None
        ok = isinstance(numbers, list) and all(type(x) is int for x in numbers) and v.get("flag") is True
        return "hot-flag" if ok and sum(numbers) > 50 else None

    cases.append(("flat-lists", "sum(k37) > 50 and flag", flat_lists, flat_lists_pred))

    root = Path(__file__).resolve().parent.parent
    orders = json.loads((root / "examples/orders/base/tests/fixtures/orders.json").read_text())
    # a slice with the culprit (order 27): the whole 16 KB fixture is past Hypothesis's size limit
    orders = {"orders": orders["orders"][27 - scale:28 + scale], "rates": orders["rates"]}

    def orders_pred(v):
        try:
            for order in v["orders"]:
                for line in order["lines"]:
                    total = line["qty"] * line["price"] - (5 if line["qty"] >= 10 else 0)
                    if total < 0:
                        return "negative-total"
        except (KeyError, TypeError):
            return "raise:shape"
        return None

    cases.append(("nested", "the example's bulk-discount regression", orders, orders_pred))

    numbers = [rng.randint(0, 400) for _ in range(100 * scale)]

    def list_pred(v):
        return "sum-too-big" if isinstance(v, list) and all(isinstance(x, int) for x in v) and sum(v) > 1000 else None

    cases.append(("list-heavy", "sum of a list of ints > 1000", numbers, list_pred))

    words = {f"field{i}": " ".join(rng.choice(["alpha", "beta", "gamma", "delta"]) for _ in range(8))
             for i in range(30 * scale)}
    words["field17"] = "lorem ipsum a hidden bug here dolor"

    def str_pred(v):
        return "has-bug" if isinstance(v, dict) and any(isinstance(x, str) and "bug" in x for x in v.values()) else None

    cases.append(("string-heavy", "some value contains 'bug'", words, str_pred))

    matrix = {"rows": [[rng.randint(0, 9) for _ in range(8)] for _ in range(14 * scale)], "meta": {"v": 1}}
    matrix["rows"][11][3] = -4

    def matrix_pred(v):
        try:
            return "negative-cell" if any(cell < 0 for row in v["rows"] for cell in row) else None
        except (KeyError, TypeError):
            return "raise:shape"

    cases.append(("list-heavy-nested", "a negative cell in a matrix", matrix, matrix_pred))
    return cases


# -- shrinkers ----------------------------------------------------------------------------------------
def run_ours(fixture: Any, predicate: Predicate, target: str) -> tuple[Any, int]:
    counted = Counted(predicate)
    result = shrink(fixture, counted, target_reason=target, max_steps=10_000, max_evals=100_000)
    return result.witness, len(counted.seen)


def run_article(fixture: Any, predicate: Predicate, target: str) -> tuple[Any, int]:
    """Article 000's loop with a shrink step that deletes one key or element at a time."""
    counted = Counted(predicate)

    def fails(value):
        return counted(value) == target

    def shrink_once(value):
        for candidate in single_deletions(value):
            if fails(candidate):
                return candidate
        return None

    witness = shrink_until_local_stop(fixture, fails, shrink_once, max_steps=32)
    return witness, len(counted.seen)


def run_ddmin(fixture: Any, predicate: Predicate, target: str) -> tuple[Any, int]:
    """Hierarchical delta debugging: ddmin over each container's children, top down."""
    counted = Counted(predicate)
    cache: dict[bytes, bool] = {}

    def fails(value):
        key = canonical_bytes(value)
        if key not in cache:
            cache[key] = counted(value) == target
        return cache[key]

    def ddmin_children(build, children):
        n = 2
        while len(children) >= 2:
            chunk = max(1, len(children) // n)
            subsets = [children[i:i + chunk] for i in range(0, len(children), chunk)]
            reduced = False
            for i in range(len(subsets)):
                complement = [c for j, s in enumerate(subsets) if j != i for c in s]
                if fails(build(complement)):
                    children, n, reduced = complement, max(n - 1, 2), True
                    break
            if not reduced:
                if n >= len(children):
                    break
                n = min(len(children), n * 2)
        if len(children) == 1 and fails(build([])):
            children = []
        return children

    def reduce(value, rebuild):
        if isinstance(value, dict):
            keys = ddmin_children(lambda ks: rebuild({k: value[k] for k in ks}), sorted(value))
            value = {k: value[k] for k in keys}
            for k in keys:
                value[k] = reduce(value[k], lambda inner, k=k, v=value: rebuild({**v, k: inner}))
        elif isinstance(value, list):
            idx = ddmin_children(lambda ix: rebuild([value[i] for i in ix]), list(range(len(value))))
            value = [value[i] for i in idx]
            for i in range(len(value)):
                value[i] = reduce(value[i], lambda inner, i=i, v=value: rebuild(v[:i] + [inner] + v[i + 1:]))
        return value

    witness = reduce(fixture, lambda v: v)
    return witness, len(counted.seen)


# -- measuring ------------------------------------------------------------------------------------------
def one_minimal(witness: Any, predicate: Predicate, target: str) -> bool:
    return all(predicate(smaller) != target for smaller in single_deletions(witness))


def wide_corpus(quick: bool) -> list[str]:
    """The first table: wide fixtures, every shrinker from the same fixture."""
    rows = []
    worst_size_ratio, worst_eval_ratio = 0.0, 0.0
    to_ddmin: list[str] = []  # the wide cases' evaluations against ddmin's on the same fixture
    for name, what, fixture, predicate in corpus(quick):
        target = predicate(fixture)
        assert target, f"{name}: the fixture must fail"
        results = {}
        for label, runner in (("ours", run_ours), ("article-000", run_article), ("ddmin", run_ddmin)):
            started = time.perf_counter()
            witness, evals = runner(fixture, predicate, target)
            results[label] = (witness, evals, time.perf_counter() - started)
        best = None
        for encoding, order in KINDS.items():
            started = time.perf_counter()
            witness, evals = run_hypothesis(fixture, predicate, target, order)
            entry = (witness, evals, time.perf_counter() - started)
            results[f"hypothesis/{encoding}"] = entry
            if witness is not None and (best is None or (len(canonical_bytes(witness)), evals) <
                                        (len(canonical_bytes(best[1][0])), best[1][1])):
                best = (f"hypothesis/{encoding}", entry)
        worst_size_ratio = max(worst_size_ratio, len(canonical_bytes(results["ours"][0])) / len(canonical_bytes(best[1][0])))
        worst_eval_ratio = max(worst_eval_ratio, results["ours"][1] / best[1][1])
        if name.startswith("flat"):
            to_ddmin.append(f"{name} {results['ours'][1]}/{results['ddmin'][1]} = "
                            f"{results['ours'][1] / results['ddmin'][1]:.2f}x")
        for label, (witness, evals, seconds) in results.items():
            size = len(canonical_bytes(witness)) if witness is not None else None
            minimal = one_minimal(witness, predicate, target) if witness is not None else False
            rows.append((name, label + (" (baseline)" if label == best[0] else ""), size, evals, minimal, seconds,
                         json.dumps(witness, sort_keys=True)[:60]))
        print(f"# {name}: {what}; fixture {len(canonical_bytes(fixture))} bytes", file=sys.stderr)

    lines = [f"{'case':<18} {'shrinker':<30} {'bytes':>6} {'evals':>7} {'1-min':>5} {'sec':>7}  witness"]
    for name, label, size, evals, minimal, seconds, witness in rows:
        lines.append(f"{name:<18} {label:<30} {size if size is not None else '-':>6} {evals:>7} "
                     f"{'yes' if minimal else 'no':>5} {seconds:>7.3f}  {witness}")
    lines.append(f"RESULT shrink: worst witness size = {worst_size_ratio:.2f}x hypothesis (target <= 1.00)")
    lines.append(f"RESULT shrink: worst evaluations = {worst_eval_ratio:.2f}x hypothesis (target <= 0.20)")
    lines.append(f"RESULT shrink: wide fixtures against ddmin: {', '.join(to_ddmin)} (target <= 1.00 at 200 keys; "
                 "ddmin leaves the values as they are, ours shrinks them too, which --quick's 40 keys shows)")
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="smaller fixtures and two seeds (about a minute)")
    args = parser.parse_args()
    if hypothesis_untested():
        print(hypothesis_untested(), file=sys.stderr)
        return 2
    # the classic problems first: their starting examples are Hypothesis's draws, which what Hypothesis ran before in
    # this process moves (after the wide corpus, bound5 started elsewhere on one seed of five)
    classic = list(shrink_classic.report(seeds=2 if args.quick else 5))
    for line in wide_corpus(args.quick):
        print(line, flush=True)
    print()
    for line in classic:
        print(line, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
