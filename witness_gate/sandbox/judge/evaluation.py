"""One evaluation in the judge: the property (or a repository's test) loaded from the oracle's files and run on the
payload, with the implementation behind the boundary; what it came to, as the verdict's fields. Imported after the
judge's start put the gate on the path (judge/main.py)."""

from __future__ import annotations

import os
import sys


def import_test_runner() -> None:
    """pytest with its own plugins, and Hypothesis with its plugin, imported once for every child: the gate's trusted
    copies (a test's start is then pytest's, not its imports')."""
    import importlib

    try:
        import pytest  # noqa: F401
        from _pytest.config import default_plugins

        for name in (*(f"_pytest.{plugin}" for plugin in default_plugins), "hypothesis", "hypothesis.strategies",
                     "hypothesis.stateful", "_hypothesis_pytestplugin"):
            importlib.import_module(name)
        from hypothesis import strategies

        # the Unicode tables behind text() and characters(), a second's work each evaluation would repeat (its
        # storage folder is its own): made once here, for every child
        strategies.text().validate()
    except Exception:  # noqa: BLE001 - each evaluation meets the same failure itself
        pass


def precompile(relpath: str) -> None:
    """A property's module compiled (never run) once, for every later child: it is the oracle's file, read-only here.
    Its comparing assert statements are rewritten to say what they compared when they fail (judge/asserts.py)."""
    from witness_gate.sandbox.wire import importpath

    path = os.path.join(os.getcwd(), relpath)
    if not relpath or path in importpath.COMPILED:
        return
    try:
        with open(path, "rb") as handle:
            source = handle.read()
        importpath.COMPILED[path] = (source, _compile(source, path))
    except Exception:  # noqa: BLE001 - unreadable, not Python, too deep: each evaluation meets the same problem itself
        pass


def _compile(source: bytes, path: str):
    if b"assert" in source:
        import ast

        from witness_gate.sandbox.judge.asserts import rewrite

        try:
            return compile(rewrite(ast.parse(source, path)), path, "exec", dont_inherit=True)
        except (SyntaxError, ValueError):
            raise
        except Exception:  # noqa: BLE001 - too deep to rewrite (RecursionError): it runs as written
            pass
    return compile(source, path, "exec", dont_inherit=True)


class _Verdict(BaseException):
    """How `judge` ends: raised only by its own code, after the property has returned or raised."""


def judge(wire: int, fixture: str, selector: str) -> tuple[str, str | None, str, list, dict]:
    """(outcome, reason, detail, imports, more) of one evaluation of `selector` on the payload in `fixture`."""
    try:
        _evaluate(wire, fixture, selector)
    except _Verdict as verdict:
        return verdict.args
    return "transport", "harness", "the judge came to no verdict", [], {}


def _evaluate(wire: int, fixture: str, selector: str) -> None:
    import time

    from witness_gate.sandbox.judge import abcs, examples, tests
    from witness_gate.sandbox.judge.blame import missing_package, shadowed_why, test_verdict
    from witness_gate.sandbox.judge.imports import SubjectModules, judge_held
    from witness_gate.sandbox.judge.inplace import containers
    from witness_gate.sandbox.judge.peer import Peer
    from witness_gate.sandbox.judge.verdicts import usable_reason
    from witness_gate.sandbox.wire.frames import Channel, loads
    from witness_gate.sandbox.wire.importpath import seed_random

    env = os.environ
    relpath, _, function = selector.partition("::")
    root = os.getcwd()

    def finish(outcome: str, reason: str | None, detail: str = "", imports=(), said=None) -> None:
        raise _Verdict(outcome, reason, detail, list(imports), said or {})

    if not (relpath and function and fixture and wire >= 0):
        finish("transport", "harness", "WITNESS_PROPERTY, a fixture and the socket to the subject are required")
    # the gate's own modules first (pytest, its assert rewriting), before any name can become the implementation's
    if tests.is_test(selector):
        import_test_runner()
    else:
        precompile(relpath)  # a cold judge's own (a warm one's parent did it)
    channel = Channel(wire)
    channel.deadline = time.monotonic() + float(env.get("WITNESS_TIMEOUT", "60"))
    peer = Peer(channel)
    abcs.install()  # the standard library's abstract classes ask the subject about its objects
    finder = SubjectModules(peer, env.get("WITNESS_SUBJECT_MODULES", "").split(","), root,
                            env.get("WITNESS_NEW_MODULES", "").split(","))
    sys.meta_path.insert(0, finder)
    shadowed = judge_held(finder)
    if shadowed:  # the judge could never ask the implementation for these: no verdict, before anything runs
        finish("transport", "shadowed", shadowed_why(shadowed))
    ours = set(env.get("WITNESS_SUBJECT_MODULES", "").split(","))

    def missing(exc) -> str:
        return missing_package(exc, ours, root)
    with open(fixture, "rb") as handle:
        pinned = handle.read()
    payload = loads(pinned)
    peer.in_place.payload_ids = frozenset(containers(payload))
    seed_random(env.get("WITNESS_SEED", ""))
    if tests.is_test(selector):  # a repository's own pytest test: pytest runs it here
        if payload and not examples.recorded(payload):
            finish("transport", "witness", "a test's payload is empty, or a Hypothesis example the gate recorded")
        # a broader sample's search draws from its own seed, which only this process is told
        finish(*test_verdict(peer, ours, root, lambda blame: tests.run_test(
            selector, env.get("WITNESS_SEARCH_SEED") or env.get("WITNESS_SEED", ""), blame, usable_reason,
            payload or None)))
    prop = _load_property(relpath, function, root, peer, missing, finish)
    _run_property(prop, payload, os.environ.get("WITNESS_SAMPLE") == "1", peer, root, missing, finish)


def _load_property(relpath: str, function: str, root: str, peer, missing, finish):
    """The property function from the oracle's module; an import the implementation broke is a failure, the oracle's
    own is no verdict."""
    from witness_gate.sandbox.judge.blame import blame, fault_kind, missing_why
    from witness_gate.sandbox.judge.verdicts import usable_reason
    from witness_gate.sandbox.wire.importpath import load_file

    try:
        module = load_file("witness_property_" + relpath.replace("/", "_").removesuffix(".py"), os.path.join(root, relpath))
        prop = getattr(module, function, None)
        if not callable(prop):
            raise AttributeError(f"{relpath} has no function {function}")
        return prop
    except BaseException as exc:  # noqa: BLE001 - the implementation's failure is a verdict, the oracle's is none
        if peer.fault is not None:
            finish("transport", fault_kind(peer.fault), peer.fault.detail, peer.imported)
        blamed = blame(exc, root, relpath, usable_reason)
        _print_exception(exc)
        missed = missing(exc) if blamed else ""  # the implementation's import of a package nobody installed
        if missed:
            finish("transport", "missing_package", missing_why(missed), peer.imported)
        if blamed:
            finish("fail", blamed, "", peer.imported)
        finish("transport", "import", f"cannot import {relpath}: {_one_line(exc)}", peer.imported)


def _run_property(prop, payload, sample: bool, peer, root: str, missing, finish) -> None:
    """The property on the payload, or for a broader sample (WITNESS_SAMPLE) on each of a list of inputs in turn,
    against this one subject: an input it fails is named (`failed`) and the row goes on, an input with no verdict
    ends it (`sample`: how many inputs the row got through before the one it ended on, all of them when it ran to
    the end)."""
    from witness_gate.sandbox.judge import asserts
    from witness_gate.sandbox.judge.blame import blame, fault_kind, missing_why
    from witness_gate.sandbox.judge.inplace import containers
    from witness_gate.sandbox.judge.verdicts import usable_reason, verdict_of
    from witness_gate.sandbox.wire.importpath import seed_random

    if sample and type(payload) is not list:
        finish("transport", "harness", "a broader sample is a list of inputs")
    failed: list[int] = []
    first_failure = None
    for index, one in enumerate(payload if sample else [payload]):
        said = {"sample": index, "failed": failed} if sample else None
        peer.in_place.payload_ids, peer.in_place.payload_changed = frozenset(containers(one)), False
        if sample:
            seed_random(os.environ.get("WITNESS_SEED", ""))  # each input as its own evaluation would see it
        observed, missed = "", ""  # what a failing property raised (an assert's comparison), for people
        try:
            outcome, reason = verdict_of(prop(one))
        except BaseException as exc:  # noqa: BLE001 - SystemExit too: a property may not pick its exit
            outcome, reason = "fail", blame(exc, root, None, usable_reason) or usable_reason(
                f"raise:{type(exc).__name__[:80]}@?")
            missed = missing(exc)
            if missed:
                outcome, reason = "transport", "missing_package"
            observed = _one_line(exc)
            compared = asserts.explained(exc)  # a rewritten assert's two values and operator, as text
            if compared is not None:
                exc.args = (compared,)
                observed = f"AssertionError: {compared}"
            if first_failure is None:  # a sample row's later tracebacks would only crowd its capped output
                _print_exception(exc)
        if peer.fault is not None:  # whatever the property made of it, a broken boundary gives no verdict
            finish("transport", fault_kind(peer.fault), peer.fault.detail, peer.imported, said)
        if peer.in_place.payload_changed:  # whatever it holds at the end: a later call could have put it back
            outcome, reason, observed = "fail", "mutated_payload", \
                "the implementation changed the pinned payload it was handed"
        if outcome == "transport":
            finish("transport", reason, missing_why(missed), peer.imported, said)
        if outcome == "no_verdict":
            finish("transport", "bad_return", reason, peer.imported, said)
        if outcome != "pass" and not sample:
            finish(outcome, reason, observed, peer.imported, said)
        if outcome != "pass":  # a sample row goes on: the host asks each failed input again, alone
            failed.append(index)
            first_failure = first_failure or (outcome, reason, observed)
    if sample and first_failure is not None:
        finish(*first_failure, peer.imported, {"sample": len(payload), "failed": failed})
    finish("pass", None, "", peer.imported, {"sample": len(payload), "failed": []} if sample else None)


def _print_exception(exc: BaseException) -> None:
    import traceback

    try:
        traceback.print_exception(type(exc), exc, exc.__traceback__, file=sys.stderr)
    except BaseException:  # noqa: BLE001 - for people only
        pass


def _one_line(exc: BaseException) -> str:
    import traceback

    return "".join(traceback.format_exception_only(type(exc), exc)).strip()[-2000:]
