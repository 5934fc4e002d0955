"""A repository's own pytest test as a property, run in the judge: pytest and Hypothesis are the gate's trusted copies
(WITNESS_JUDGE_SITE) or a trusted set-up's, the test module and its conftest.py are the oracle's files (the judge's view
has no other), and every module of the implementation the test imports is a proxy to the subject.

The outcome comes from pytest's own reports of this one test, never from what the test prints: a failure in setup, call
or teardown is a failure whose reason names where it was raised and whose detail is pytest's message (assertion
rewriting included, `assert 'ßß' == 'ssß'`); a test that passes is a pass; an expected failure (xfail) is a pass; a
test with a case pytest skipped fails with the reason `skipped:<k>/<n>:<digest of the skipped cases>`, so that the
base decides (a head can make the cases it broke skip: found by a reviewer): the same cases skipped there too, it is
`pre_existing`; a collection error is the implementation's failure when the implementation raised it, else the
oracle's problem (no verdict).
"""

from __future__ import annotations

import os
import tempfile

from witness_gate.sandbox.judge import examples as hypothesis_examples, pytest_start
from witness_gate.sandbox.judge.pytest_start import arguments, seeded_settings

PREFIX = "pytest:"  # WITNESS_PROPERTY of a test: pytest:<relpath>::<node>
MAX_DETAIL = 2000


class Reports:
    """A pytest plugin that keeps what happened to each test of the node it was asked to run (a parametrized function,
    a class: several)."""

    def __init__(self) -> None:
        self.failed: list[tuple[object, object]] = []  # (report, exception) of each failed phase or collection
        self.items: list[str] = []  # what pytest collected
        self.outcomes: dict[str, str] = {}  # nodeid -> passed, xfailed, skipped (a failure is in `failed`)
        self.skipped = ""
        self.interrupted: BaseException | None = None
        self.named: frozenset[str] | None = None
        self.examples = hypothesis_examples.Examples(None)
        self.functions: dict[str, object] = {}  # nodeid -> the function pytest calls
        self.cases: dict[str, str] = {}  # nodeid -> the case as the oracle names it (_case)
        self.unusable = ""  # why the witness to replay cannot be (no verdict)

    def pytest_exception_interact(self, node, call, report):  # after the report was logged: its exception
        exc = call.excinfo.value if call.excinfo is not None else None
        self.failed = [(r, exc if r is report else e) for r, e in self.failed]
        if not any(r is report for r, _ in self.failed):
            self.failed.append((report, exc))

    def pytest_keyboard_interrupt(self, excinfo):  # the implementation raised KeyboardInterrupt: the run stops
        self.interrupted = excinfo.value

    def pytest_collectreport(self, report):
        if report.failed and not any(r is report for r, _ in self.failed):
            self.failed.append((report, None))

    def pytest_collection_modifyitems(self, config, items):
        witness = self.examples.replay
        if witness is not None:  # one case, its recorded example set up to be run as @reproduce_failure runs it
            chosen = [item for item in items if item.nodeid == witness.get("case")]
            config.hook.pytest_deselected(items=[item for item in items if item not in chosen])
            items[:] = chosen
            self.unusable = (hypothesis_examples.replayable(witness, hypothesis_examples.function_of(chosen[0]))
                             if chosen else f"no test {witness.get('case')!r} was collected")
            if self.unusable:
                items[:] = []
        if self.named is not None:
            left_out = [item for item in items if item.nodeid.partition("::")[2].split("[")[0] in self.named]
            if left_out:
                config.hook.pytest_deselected(items=left_out)
                items[:] = [item for item in items if item not in left_out]
        self.items = [item.nodeid for item in items]
        self.cases = {item.nodeid: _case(item) for item in items}
        self.functions = {item.nodeid: hypothesis_examples.function_of(item) for item in items}

    def pytest_runtest_call(self, item):
        self.examples.current = item.nodeid

    def pytest_runtest_logreport(self, report):
        if report.failed:
            if not any(r is report for r, _ in self.failed):
                self.failed.append((report, None))
        elif report.skipped:
            if hasattr(report, "wasxfail"):
                self.outcomes[report.nodeid] = "xfailed"
            else:
                self.outcomes[report.nodeid] = "skipped"
                self.skipped = _skip_reason(report) or "skipped"
        elif report.when == "call" and report.passed:
            self.outcomes[report.nodeid] = "passed"


def run_test(selector: str, seed: str, blame, usable, witness: dict | None = None) -> tuple[str, str | None, str, dict]:
    """(outcome, reason, detail, more) of the test `selector` names (`pytest:<relpath>::<node>`), seeded with `seed`;
    with `witness` (a Hypothesis example a search found), that one example of that one case. A pass needs pytest's own
    "all is well" (exit 0) and a passing call of every test it collected: a run the implementation stopped
    (KeyboardInterrupt) after one passing case is no pass (found by a reviewer). `more` carries what the verdict line
    adds: the `witness` a failing search ended on, and `unsteady` when Hypothesis saw one example fail and pass."""
    reports = Reports()
    reports.examples = hypothesis_examples.Examples(witness)
    reports.examples.install()
    try:
        return _run(selector, seed, blame, usable, reports)
    finally:
        reports.examples.uninstall()


def _run(selector: str, seed: str, blame, usable, reports: Reports) -> tuple[str, str | None, str, dict]:
    nodeid = selector[len(PREFIX):]
    relpath, _, node = nodeid.partition("::")
    named = None
    if node.startswith("*:"):  # every test of the file but those named (each a property of its own)
        nodeid, named = relpath, frozenset(filter(None, node[2:].split(",")))
    try:
        import pytest
    except ImportError as exc:
        return "transport", "no_pytest", (f"pytest cannot be imported in the judge ({exc}); install the gate with its "
                                          "dependencies (pip install witness-gate) or add pytest to the base's set-up"), {}
    # the example database in a folder of this evaluation's own: no example one evaluation saw is tried first by the
    # next (a warm judge's children share its /tmp)
    os.environ["HYPOTHESIS_STORAGE_DIRECTORY"] = tempfile.mkdtemp(prefix="hypothesis-")
    seeded_settings()
    reports.named = named
    try:
        args = arguments(nodeid, seed)
        lenient = pytest_start.lenient(pytest, len(args))
        code = int(pytest.main(args, plugins=[reports, lenient]))
    except BaseException as exc:  # noqa: BLE001 - pytest's own failure, or a SystemExit of the code it ran
        return "transport", "pytest", f"pytest stopped: {type(exc).__name__}: {exc}"[:MAX_DETAIL], {}
    if lenient.refused:  # pytest's usage error, which it printed and left at "exit 4"
        return "transport", "collect", (f"pytest would not start for {nodeid}: {lenient.refused} (the oracle's pytest "
                                        "configuration, read with the judge's own pytest and plugins: an option of a "
                                        "plugin the judge does not have that could change how the tests are judged "
                                        "cannot be honoured here; keep it out of addopts, on the command line of the "
                                        "runs that have the plugin)")[:MAX_DETAIL], {}
    return judged(reports, code, nodeid, named, blame, usable)


def judged(reports: Reports, code: int, nodeid: str, named, blame, usable) -> tuple[str, str | None, str, dict]:
    """The verdict of what pytest reported of the tests `nodeid` names (run_test's), given pytest's exit `code`."""
    replay = reports.examples.replay
    if replay is not None:
        code = _replayed(reports, code)
    if reports.unusable:
        return "transport", "witness", (f"the recorded Hypothesis example cannot be replayed here: {reports.unusable}"
                                        )[:MAX_DETAIL], {}
    root = os.getcwd()
    if reports.failed:
        report, exc = reports.failed[0]
        detail = _message(report, exc)
        if getattr(report, "when", None) in (None, "collect"):  # the oracle's module, or the implementation's import
            reason = blame(_cause(exc), root, nodeid.partition("::")[0], usable) if exc is not None else None
            if reason is None:
                return "transport", "collect", f"cannot collect {nodeid}: {detail}"[:MAX_DETAIL], {}
            return "fail", reason, detail, {}
        # a FlakyFailure: Hypothesis saw one example fail and then pass; the failure it saw is the one to blame
        unsteady, failure = hypothesis_examples.unsteady(exc) if exc is not None else (False, None)
        reason = blame(failure, root, None, usable) if failure is not None else usable(f"failed:{report.when}")
        if failure is not None and reason.endswith("@?") and "__witness_where__" not in getattr(failure, "__dict__", {}):
            # neither the oracle's code nor the implementation raised it: pytest could not run the test here (a
            # plugin's fixture, an async test without its plugin): no verdict, and a base failing alike proves nothing
            return "transport", f"pytest:{type(failure).__name__[:60]}", (
                f"{nodeid} cannot run in the judge: {detail[:600]}; the judge has the gate's pytest and Hypothesis and "
                "the base's set-up, and reads no configuration outside the oracle's paths"), {}
        if replay is not None and reports.examples.said:  # the example, as the search's own failure shows it
            detail = (detail + "\n" + reports.examples.said.strip())[:MAX_DETAIL]
        more: dict = {"unsteady": True} if unsteady else {}
        found = None if replay is not None else reports.examples.witness(report.nodeid,
                                                                         reports.functions.get(report.nodeid), unsteady)
        if found is not None:
            more["witness"] = found
            others = reports.examples.others(report.nodeid, reports.functions.get(report.nodeid)) if unsteady else []
            if others:
                more["others"] = others
        if replay is None and found is None:  # a Hypothesis example names its one case itself
            reason = _with_cases(reason, reports, usable)
        return "fail", reason, detail, more
    if reports.interrupted is not None:
        return "fail", blame(reports.interrupted, root, None, usable), "the run was stopped by KeyboardInterrupt", {}
    if not reports.items:
        if named is not None and code in (0, 5):  # no test there that is not a property of its own
            return "pass", None, "", {}
        return "transport", "collect", f"pytest found no test {nodeid} (exit {code})", {}
    ran = [reports.outcomes.get(item) for item in reports.items]
    skips = _skips(reports)
    if skips and code in (0, 5) and all(outcome in ("passed", "xfailed", "skipped") for outcome in ran):
        # a skip is no evidence, and the implementation may have caused it (an import it broke, under importorskip:
        # found by a reviewer): the skipped cases name the failure, so the base decides; where it skips the very same
        # cases the head passed all it ran (verdict.py::_blame)
        return "fail", usable(skips), (f"{skips}: cases of {nodeid} were skipped ({reports.skipped[:300]}) and the "
                                       "others passed; a skip is no evidence: where the base skips the same cases, "
                                       "this is a pass")[:MAX_DETAIL], {}
    if code == 0 and all(outcome in ("passed", "xfailed") for outcome in ran):
        return "pass", None, "", {"searched": True} if reports.examples.searched and replay is None else {}
    return "transport", "pytest", (f"pytest ended with exit {code}, {ran.count(None)} of {len(ran)} tests of {nodeid} "
                                   "without a result"), {}


def _skips(reports: Reports) -> str:
    """`skipped:<k>/<n>:<digest of the skipped cases>`, or '' when pytest skipped none."""
    skipped = [reports.cases.get(item, item) for item in reports.items if reports.outcomes.get(item) == "skipped"]
    return _cases("skipped", skipped, len(reports.items))


def _case(item) -> str:
    """A case as the oracle names it: its test's node id and the position of each parameter. pytest's own id of a
    parameter that is an implementation object is that object's `__name__`, which the implementation chooses: a head
    could give the case it broke the id of one the base skips (found by a reviewer)."""
    callspec = getattr(item, "callspec", None)
    if callspec is None or not item.name.endswith("]"):
        return item.nodeid
    test = item.nodeid[:len(item.nodeid) - len(item.name)] + item.originalname
    return f"{test}[{'-'.join(f'{name}{index}' for name, index in sorted(callspec.indices.items()))}]"


def _cases(what: str, nodeids, total: int) -> str:
    import hashlib

    if not nodeids:
        return ""
    digest = hashlib.sha256("\n".join(sorted(set(nodeids))).encode("utf-8")).hexdigest()[:12]
    return f"{what}:{len(set(nodeids))}/{total}:{digest}"


def _with_cases(reason: str, reports: Reports, usable) -> str:
    """A failure's reason, followed by which of several cases failed and which were skipped: a base failing one case
    would otherwise make a head failing more of them `pre_existing` (found by a reviewer), and a head that skips no
    more than the base did must be told from one that skips what the base ran."""
    failed = _cases("failed", [reports.cases.get(r.nodeid, r.nodeid) for r, _ in reports.failed
                               if getattr(r, "when", None) != "collect"],
                    len(reports.items)) if len(reports.items) > 1 else ""
    suffix = "".join(f"|{part}" for part in (failed, _skips(reports)) if part)
    return usable(f"{reason[:140]}{suffix}") if suffix and reason else reason


def _replayed(reports: Reports, code: int) -> int:
    """A replayed example that ran to its end passed (Hypothesis then says DidNotReproduce, which is no failure here);
    a DidNotReproduce before its end (the test no longer draws what the example holds) leaves it unusable. Returns
    pytest's exit code as it would be without the passes."""
    for report, exc in list(reports.failed):
        if getattr(report, "when", None) == "call" and hypothesis_examples.did_not_reproduce(exc):
            if not reports.examples.completed:
                reports.unusable = reports.unusable or str(exc)[:300]
                continue
            reports.failed = [(r, e) for r, e in reports.failed if r is not report]
            reports.outcomes[report.nodeid] = "passed"
    return 0 if code == 1 and not reports.failed and not reports.unusable else code


def _cause(exc: BaseException) -> BaseException:
    """What pytest's CollectError was raised from: the import that failed."""
    for _ in range(20):
        inner = exc.__cause__ or exc.__context__
        if inner is None:
            break
        exc = inner
    return exc


def _message(report, exc=None) -> str:
    """What pytest says of a failure in a line or a few: the crash's message (an assertion's, rewritten), then the
    notes on the exception (Hypothesis's falsifying example and its paste-able `@reproduce_failure(...)`); the whole
    short traceback is on the judge's stderr."""
    crash = getattr(getattr(report, "longrepr", None), "reprcrash", None)
    message = getattr(crash, "message", "") if crash is not None else ""
    shown = message or str(getattr(report, "longrepr", "") or "")
    for note in getattr(exc, "__notes__", None) or ():
        if isinstance(note, str) and note.strip() and note.strip() not in shown:  # pytest and Hypothesis both add some
            shown += "\n" + note.strip()
    return shown[:MAX_DETAIL]


def _skip_reason(report) -> str:
    longrepr = getattr(report, "longrepr", None)
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        return str(longrepr[2])
    return str(longrepr or "")


def is_test(selector: str) -> bool:
    return selector.startswith(PREFIX)

