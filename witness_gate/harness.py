"""The Python harness: evaluates one property on one payload inside the sandbox (runner protocol).

Environment in: WITNESS_PROPERTY (`<relpath>::<function>`), WITNESS_FIXTURE (canonical JSON of
the payload), WITNESS_SEED, WITNESS_RESULT (where the verdict is written; removed from the
environment before the property's module is imported), and WITNESS_ENV (the set-up's output, put on
sys.path here rather than on PYTHONPATH, so nothing in it runs before this harness). Exit 0 pass; exit 1 fail with the reason
as the last stdout line; exit 3 no verdict (the module did not import, the return value was not
a verdict). The working directory is the repository root.
"""

from __future__ import annotations

import importlib.util
import json
import os
import random
import site
import sys
import traceback

EXIT_PASS, EXIT_FAIL, EXIT_NO_VERDICT = 0, 1, 3
MAX_REASON = 200


def reason_for_exception(exc: BaseException, root: str) -> str:
    """`raise:<Type>@<relpath>:<line>` of the innermost frame inside the repository."""
    root = os.path.realpath(root) + os.sep
    where = "?"
    for frame in traceback.extract_tb(exc.__traceback__):
        path = os.path.realpath(frame.filename)
        if path.startswith(root):
            where = f"{path[len(root):]}:{frame.lineno}"
    return f"raise:{type(exc).__name__}@{where}"


def verdict_of(returned: object) -> tuple[str, str | None]:
    """('pass', None), ('fail', reason) or ('no_verdict', what was wrong) for a return value."""
    if returned is True or returned is None:
        return "pass", None
    if returned is False:
        return "fail", "false"
    if isinstance(returned, str) and returned.strip():
        reason = returned.strip()
        if "\n" in reason or len(reason) > MAX_REASON:
            return "fail", "exit:1"  # the protocol's own fallback for an unusable reason line
        return "fail", reason
    return "no_verdict", (
        f"the property returned {type(returned).__name__} {returned!r:.60}; return True or None "
        "to pass, False or a short reason string to fail"
    )


def _load(relpath: str, function: str):
    spec = importlib.util.spec_from_file_location(
        "witness_property_" + relpath.replace("/", "_").removesuffix(".py"), relpath
    )
    if spec is None or spec.loader is None:
        raise ImportError(f"{relpath} is not a Python module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    prop = getattr(module, function, None)
    if not callable(prop):
        raise AttributeError(f"{relpath} has no function {function}")
    return prop


def _write(path: str | None, verdict: dict) -> None:
    if path:
        with open(path, "w", encoding="utf-8") as handle:
            json.dump(verdict, handle)


def main() -> int:
    selector = os.environ.get("WITNESS_PROPERTY", "")
    fixture = os.environ.get("WITNESS_FIXTURE", "")
    seed = os.environ.get("WITNESS_SEED", "")
    result_path = os.environ.pop("WITNESS_RESULT", None)
    relpath, _, function = selector.partition("::")
    if not (relpath and function and fixture and seed):
        print("witness harness: WITNESS_PROPERTY, WITNESS_FIXTURE and WITNESS_SEED are required",
              file=sys.stderr)
        return 2
    root = os.getcwd()
    for extra in (root, os.path.join(root, "src")):
        if os.path.isdir(extra) and extra not in sys.path:
            sys.path.insert(0, extra)
    environment = os.environ.get("WITNESS_ENV", "")
    if environment and os.path.isdir(environment):
        site.addsitedir(environment)  # what the set-up installed, .pth files included; only now, not at startup
    with open(fixture, encoding="utf-8") as handle:
        payload = json.load(handle)
    random.seed(seed)
    try:
        prop = _load(relpath, function)
    except BaseException as exc:  # noqa: BLE001 - any failure to import is no verdict
        detail = "".join(traceback.format_exception_only(type(exc), exc)).strip()
        _write(result_path, {"outcome": "no_verdict", "kind": "import", "detail": detail})
        print(f"witness harness: cannot import {relpath}: {detail}", file=sys.stderr)
        return EXIT_NO_VERDICT
    try:
        returned = prop(payload)
    except BaseException as exc:  # noqa: BLE001 - SystemExit too: a property may not pick its exit
        outcome, reason = "fail", reason_for_exception(exc, root)
        traceback.print_exc(file=sys.stderr)
    else:
        outcome, reason = verdict_of(returned)
    sys.stdout.flush()
    if outcome == "no_verdict":
        _write(result_path, {"outcome": outcome, "kind": "bad_return", "detail": reason})
        print(f"witness harness: {reason}", file=sys.stderr)
        return EXIT_NO_VERDICT
    _write(result_path, {"outcome": outcome, "reason": reason})
    if outcome == "fail":
        print(f"\n{reason}")
        return EXIT_FAIL
    return EXIT_PASS


if __name__ == "__main__":
    sys.stdout.flush()
    code = main()
    sys.stdout.flush()
    sys.stderr.flush()
    # skip interpreter teardown: atexit hooks and daemon threads of the property cannot change the verdict
    os._exit(code)
