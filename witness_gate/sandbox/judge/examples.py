"""Hypothesis's own examples in a repository's test, in the judge (SPEC §10): the falsifying example a seeded search
ended on, kept as the choice sequence that reproduces it (the witness, beside Hypothesis's `repr` of it), and a replay
of exactly that sequence in a fresh subject, as Hypothesis's `@reproduce_failure` would run it.

Hypothesis here is the gate's trusted copy (or a trusted set-up's); its outcome of a replayed example is read from
its own final execution returning, never from an exception's name. Where its internals are not what this reads, no
witness is kept and replays re-run the seeded search, as before."""

from __future__ import annotations

import base64
import binascii

MAX_CHOICES = 1 << 16  # base64 characters of one witness: a larger example is replayed by its seeded search instead
MAX_SEEN = 64  # distinct failing examples of one search kept in the judge, the first seen
MAX_OTHERS = 3  # of them, the other examples an unsteady search's record offers beside its last (smallest first)


class Examples:
    """What Hypothesis did in one run of a test: the choices of each final falsifying example, per test item, and, when
    replaying a witness, whether its example ran to its end (it passed)."""

    def __init__(self, replay: dict | None) -> None:
        self.replay = replay
        self.found: dict[str, list[tuple]] = {}  # nodeid -> each final falsifying example's choices
        self.failed_last: dict[str, tuple] = {}  # nodeid -> the choices of the last example that failed in the search
        self.failed_seen: dict[str, dict[tuple, None]] = {}  # nodeid -> the distinct examples that failed, in order
        self.current = ""  # the test item running
        self.completed = False  # the replayed example returned: it passed
        self.said = ""  # what Hypothesis reported of the replayed example (its repr: "Falsifying example: ...")
        self.searched = False  # Hypothesis ran an example: the test draws its inputs (a second seed draws others)
        self._undo = None

    def install(self) -> None:
        try:
            from hypothesis.core import StateForActualGivenExecution
            from hypothesis.errors import StopTest, UnsatisfiedAssumption
        except ImportError:
            return
        original = StateForActualGivenExecution.__dict__.get("execute_once")
        if original is None:
            return
        examples = self

        def execute_once(state, data, *args, **kwargs):
            examples.searched = True
            final = kwargs.get("is_final", False)
            if final and kwargs.get("expected_failure") is not None:  # the search's last run of an example it shrank
                examples.found.setdefault(examples.current, []).append(tuple(getattr(data, "prefix", None) or ()))
            if not (final and examples.replay is not None):
                try:
                    return original(state, data, *args, **kwargs)
                except (StopTest, UnsatisfiedAssumption):
                    raise
                except BaseException:
                    if not final and examples.replay is None:  # in case the search then ends on no example
                        choices = tuple(getattr(data, "choices", None) or ())
                        examples.failed_last[examples.current] = choices
                        seen = examples.failed_seen.setdefault(examples.current, {})
                        if len(seen) < MAX_SEEN:
                            seen[choices] = None
                    raise
            from hypothesis.reporting import with_reporter

            said: list = []
            try:
                with with_reporter(said.append):
                    result = original(state, data, *args, **kwargs)
            finally:
                examples.said = "\n".join(str(line) for line in said)
            examples.completed = True  # @reproduce_failure's one run returned: the example passed
            return result

        StateForActualGivenExecution.execute_once = execute_once
        self._undo = lambda: setattr(StateForActualGivenExecution, "execute_once", original)

    def uninstall(self) -> None:
        if self._undo is not None:
            self._undo()
            self._undo = None

    def witness(self, nodeid: str, function, unsteady: bool = False) -> dict | None:
        """The witness of the failure of `nodeid`: its one final falsifying example, when Hypothesis ran exactly one
        there and `function` is a test `@reproduce_failure` can replay. A search Hypothesis ended as unsteady before
        any final example (its FlakyFailure "Inconsistent results from replaying a test case") has the last example
        it saw fail: without it the search was the witness, failing on every replay, and a set-order bug was a
        `regression` one gate run in thirty (bidict's nodes linked in set order)."""
        found = self._chosen(nodeid, unsteady)
        if len(found) != 1 or not getattr(function, "is_hypothesis_test", False):
            return None
        return _recording(nodeid, found[0])

    def _chosen(self, nodeid: str, unsteady: bool) -> list[tuple]:
        found = self.found.get(nodeid, [])
        if not found and unsteady and self.failed_last.get(nodeid):
            found = [self.failed_last[nodeid]]
        return found

    def others(self, nodeid: str, function) -> list[dict]:
        """Beside the witness of a search Hypothesis ended as unsteady (`witness`), up to MAX_OTHERS other examples it
        saw fail, smallest first: the witness may need a set order few fresh subjects give (bidict's nodes in a set: it
        passed 40 replays alone one gate run in thirty, while the search failed every time), and another example that
        fails on some layouts and passes on others shows the flake."""
        chosen = self._chosen(nodeid, True)
        if len(chosen) != 1 or not getattr(function, "is_hypothesis_test", False):
            return []
        others = sorted((choices for choices in self.failed_seen.get(nodeid, {}) if choices and choices != chosen[0]),
                        key=len)
        recorded = (_recording(nodeid, choices) for choices in others)
        return [found for found in recorded if found is not None][:MAX_OTHERS]


def _recording(nodeid: str, choices: tuple) -> dict | None:
    try:
        import hypothesis
        from hypothesis.core import encode_failure

        blob = base64.b64encode(encode_failure(choices)).decode("ascii")
    except Exception:  # noqa: BLE001 - choices this Hypothesis cannot encode: no witness, the search is replayed
        return None
    return {"hypothesis": hypothesis.__version__, "choices": blob, "case": nodeid} if len(blob) <= MAX_CHOICES else None


def recorded(payload) -> bool:
    """Whether `payload` has the shape of a witness `Examples.witness` made."""
    return type(payload) is dict and set(payload) == {"hypothesis", "choices", "case"} and all(
        type(value) is str and len(value) <= MAX_CHOICES for value in payload.values())


def replayable(witness: dict, function) -> str:
    """Why `witness` cannot be replayed on `function` ("" when it can): set up Hypothesis's `@reproduce_failure` on it."""
    try:
        import hypothesis
    except ImportError:
        return "Hypothesis cannot be imported in the judge"
    if witness.get("hypothesis") != hypothesis.__version__:
        return (f"the example was recorded by Hypothesis {witness.get('hypothesis')!r} and the judge has "
                f"{hypothesis.__version__!r}: replay it with the gate that recorded it")
    if not getattr(function, "is_hypothesis_test", False):
        return "the test is no longer a Hypothesis test (@given)"
    try:
        blob = base64.b64decode(str(witness.get("choices", "")), validate=True)
    except (binascii.Error, ValueError):
        return "the example's choices are not base64"
    function._hypothesis_internal_use_reproduce_failure = (hypothesis.__version__, blob)
    return ""


def function_of(item):
    """The function pytest calls for `item` (a method's own function)."""
    found = getattr(item, "obj", None)
    return getattr(found, "__func__", found)


def did_not_reproduce(exc) -> bool:
    """Whether `exc` is Hypothesis's own DidNotReproduce (the judge's class: nothing from the subject is made one)."""
    try:
        from hypothesis.errors import DidNotReproduce
    except ImportError:
        return False
    return type(exc) is DidNotReproduce


def unsteady(exc) -> tuple[bool, object]:
    """(whether Hypothesis saw this test give different results for one example, the failure to blame): for its
    FlakyFailure, the failure it first saw."""
    try:
        from hypothesis.errors import Flaky
    except ImportError:
        return False, exc
    if not isinstance(exc, Flaky):
        return False, exc
    inner = getattr(exc, "exceptions", None)
    return True, (inner[0] if isinstance(inner, tuple) and inner and isinstance(inner[0], BaseException) else exc)


def reproduce_failure(witness: dict) -> str:
    """The paste-able decorator that replays `witness` in the project's own test run."""
    try:
        blob = base64.b64decode(str(witness.get("choices", "")), validate=True)
    except (binascii.Error, ValueError):
        return ""
    return f"@reproduce_failure({str(witness.get('hypothesis'))!r}, {blob!r})"
