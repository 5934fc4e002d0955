"""Whom a failure is blamed on, and what a test's run comes to: the implementation's raise is a verdict, the oracle's
own import failing or a package nobody installed is none."""

from __future__ import annotations

import os
import sys


def missing_package(exc: BaseException, ours: set[str], root: str) -> str:
    """The package a ModuleNotFoundError in `exc`'s chain missed, when it is none of the repository's modules nor the
    standard library's: a package the evaluation's environment lacks (the set-up installs none), so nothing was judged
    ('' otherwise: a module of the repository missing is the code's own failure)."""
    from witness_gate.sandbox.judge.imports import _in_view

    seen = 0
    while exc is not None and seen < 10:
        name = getattr(exc, "name", None) if isinstance(exc, ModuleNotFoundError) else None
        if isinstance(name, str) and name:
            top = name.partition(".")[0]
            if top not in ours and top not in sys.stdlib_module_names and not _in_view(root, top):
                return top
        exc, seen = exc.__cause__ or exc.__context__, seen + 1
    return ""


def missing_why(name) -> str:
    return (f"the code imports {name}, a package neither the repository nor its set-up provides, on both sides of the "
            "gate alike: nothing was judged. Install the project's dependencies in .witness.yml's setup "
            "(setup.requirements or setup.command)")


def shadowed_why(names: set[str]) -> str:
    listed = ", ".join(sorted(names))
    return (f"the implementation has {listed}, and the judge runs a copy of its own under that name (the gate's "
            "pytest and what it imports): the judge cannot ask the implementation for it; rename the "
            "implementation's module")


def fault_kind(fault) -> str:
    """The transport kind of a broken boundary: a late answer is the evaluation's own timeout."""
    return "timeout" if fault.kind == "timeout" else f"wire:{fault.kind}"


def blame(exc: BaseException, root: str, own: str | None, usable) -> str | None:
    """`raise:<Type>@<relpath>:<line>`: where the implementation raised (its process said where), else the innermost
    frame of the repository here; None for an import that failed in the property's own module or outside."""
    import traceback

    name = type(exc).__name__[:80]
    said = getattr(exc, "__dict__", {})
    if "__witness_where__" in said:  # raised by the implementation, whose process said where
        return usable(f"raise:{name}@{said['__witness_where__'] or '?'}")
    if own is not None and isinstance(exc, ImportError) and from_subject(exc):
        return usable(f"raise:{name}@{exc.path or '?'}")
    if own is not None:  # the property's module, or an oracle file it imports, is the oracle's: no verdict
        return None
    prefix = os.path.realpath(root) + os.sep
    found = "?"
    for frame in traceback.extract_tb(exc.__traceback__):
        full = os.path.realpath(frame.filename) if not frame.filename.startswith("<") else ""
        if full.startswith(prefix):
            found = f"{full[len(prefix):]}:{frame.lineno}"
    return usable(f"raise:{name}@{found}")


def from_subject(exc: ImportError) -> bool:
    """`from m import name` of a name the implementation's module does not have."""
    module = sys.modules.get(exc.name or "")
    return type(module).__name__ == "ProxyModule"


def test_verdict(peer, ours: set[str], root: str, run) -> tuple:
    """(outcome, reason, detail, imports, said) of a repository's test that `run(blame)` ran (judge/tests.py's
    run_test) against the subject behind `peer`: a broken boundary gives no verdict whatever
    the test made of it, and a failure from a package nobody installed is none either."""
    missed: list[str] = []

    def blamed(exc, *args):
        missed.extend(name for name in (missing_package(exc, ours, root),) if name)
        return blame(exc, *args)

    outcome, reason, detail, said = run(blamed)
    if peer.fault is not None:
        return "transport", fault_kind(peer.fault), peer.fault.detail, peer.imported, {}
    if missed and outcome == "fail":
        return "transport", "missing_package", missing_why(missed[0]), peer.imported, {}
    return outcome, reason, detail, peer.imported, said
