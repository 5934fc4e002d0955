"""The Python harness: evaluates one property on one payload inside the sandbox (runner protocol).

The runner starts it as `python -P -s -B <gate>/witness_gate/harness.py`: neither the working
directory nor a user site is on sys.path, so nothing from the checkout runs before it, and the only
PYTHON* variables are PYTHONHASHSEED (the pinned hash order) and PYTHONBREAKPOINT=0 (no debugger). It imports
the standard library only.

Environment in: WITNESS_PROPERTY (`<relpath>::<function>`), WITNESS_FIXTURE (canonical JSON of the
payload), WITNESS_SEED and WITNESS_ENV (the set-up's output). The verdict key arrives as the first
line of stdin, which is read and replaced by /dev/null before any repository code is imported; the
verdict goes to stdout as one line `witness-verdict <outcome> <kind> <hex> <hmac>` signed with the
key, so no file, environment block or argv in the sandbox names the channel, and the key itself
never leaves the harness. Exit 0 pass; exit 1 fail with the reason as the last stdout line; exit 3
no verdict (the module did not import, the return value was not a verdict). The working directory
is the repository root.
"""

from __future__ import annotations

import importlib.util
import json
import os
import random
import sys
import traceback

EXIT_PASS, EXIT_FAIL, EXIT_NO_VERDICT = 0, 1, 3
MAX_REASON = 200
VERDICT_MARK = "witness-verdict"
GATE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # holds this package's staged copy
WITNESS_SETTINGS = ("WITNESS_PROPERTY", "WITNESS_FIXTURE", "WITNESS_SEED", "WITNESS_ENV")


def _beside(name: str):
    """A module of this folder by its path, for the sandbox, where the gate's copy is not on sys.path yet."""
    spec = importlib.util.spec_from_file_location(f"_witness_{name}", os.path.join(GATE, "witness_gate", f"{name}.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


if __name__ == "__main__":
    _imports = _beside("harness_imports")
else:
    from witness_gate import harness_imports as _imports
arrange_path, path_plan, use_path, _load, precompile = (_imports.arrange_path, _imports.path_plan, _imports.use_path,
                                                        _imports._load, _imports.precompile)
gate_package = _imports.gate_package


def clean_reason(text: str) -> str:
    """One printable line: control, format and separator characters escaped as \\xNN or \\uNNNN."""
    out = []
    for ch in text:
        if ch.isprintable():
            out.append(ch)
        elif ord(ch) < 0x100:
            out.append(f"\\x{ord(ch):02x}")
        else:
            out.append(f"\\u{ord(ch):04x}" if ord(ch) < 0x10000 else f"\\U{ord(ch):08x}")
    return "".join(out)


def usable_reason(text: str, clean=clean_reason) -> str:
    """A reason as every evaluation records it: one clean line of at most MAX_REASON characters, else the
    protocol's own fallback `exit:1` (a reason too long or spread over lines is not a reason)."""
    reason = clean(text)
    return reason if reason and "\n" not in text and len(reason) <= MAX_REASON else "exit:1"


def _inside(path: str, root: str, skip: str = "") -> str | None:
    """`path` relative to `root` (a real path ending in a separator) when it is a file of the repository."""
    if path.startswith("<"):  # <frozen importlib._bootstrap> and the like: never the repository's
        return None
    full = os.path.realpath(os.path.join(root, path))
    return full[len(root):] if full.startswith(root) and full != skip else None


def reason_for_exception(exc: BaseException, root: str, usable=usable_reason) -> str:
    """`raise:<Type>@<relpath>:<line>` of the innermost frame inside the repository."""
    root = os.path.realpath(root) + os.sep
    where = "?"
    for frame in traceback.extract_tb(exc.__traceback__):
        if relpath := _inside(frame.filename, root):
            where = f"{relpath}:{frame.lineno}"
    return usable(f"raise:{type(exc).__name__[:80]}@{where}")


def import_blame(exc: BaseException, root: str, relpath: str, usable=usable_reason) -> str | None:
    """`raise:<Type>@<where>` when the implementation failed while the property module imported it (its
    own frame, the file that does not parse, the module that lost a name); None when the property module
    itself, or something outside the repository, is what failed: that is no verdict."""
    root = os.path.realpath(root) + os.sep
    own = os.path.realpath(os.path.join(root, relpath))
    where = None
    for frame in traceback.extract_tb(exc.__traceback__):
        if inside := _inside(frame.filename, root, own):
            where = f"{inside}:{frame.lineno}"
    if where is None and isinstance(exc, SyntaxError) and exc.filename and _inside(exc.filename, root, own):
        where = f"{_inside(exc.filename, root, own)}:{exc.lineno}"
    if where is None and isinstance(exc, ImportError) and exc.path and _inside(exc.path, root, own):
        where = _inside(exc.path, root, own)  # `from module import name` of a name the module no longer has
    return usable(f"raise:{type(exc).__name__[:80]}@{where}") if where else None


def verdict_of(returned: object, usable=usable_reason, clean=clean_reason) -> tuple[str, str | None]:
    """('pass', None), ('fail', reason) or ('no_verdict', what was wrong) for a return value."""
    if returned is True or returned is None:
        return "pass", None
    if returned is False:
        return "fail", "false"
    if isinstance(returned, str) and returned.strip():
        return "fail", usable(returned.strip())
    return "no_verdict", (
        f"the property returned {type(returned).__name__} {clean(repr(returned))[:60]}; return True or "
        "None to pass, False or a short reason string to fail"
    )


def read_key(read=os.read, open_=os.open, dup2=os.dup2, close=os.close, len=len, rdonly=os.O_RDONLY) -> str:
    """The verdict key from stdin's first line; stdin then becomes /dev/null, so nothing after us reads it.

    Every name it calls is bound here (`len` too): under the warm start a dependency has run before it."""
    data = b""
    while b"\n" not in data and len(data) < 256:
        chunk = read(0, 256 - len(data))
        if not chunk:
            break
        data += chunk
    devnull = open_("/dev/null", rdonly)
    dup2(devnull, 0)
    close(devnull)
    return data.split(b"\n", 1)[0].decode("ascii", errors="replace").strip()


def _hmac_sha256():
    try:
        from _hashlib import hmac_digest  # the C function itself: nothing in a Python module to rebind

        return lambda key, data: hmac_digest(key, data, "sha256")
    except ImportError:  # an interpreter without OpenSSL
        import hmac

        return lambda key, data, digest=hmac.digest: digest(key, data, "sha256")


def channel(key: str, write=os.write, dup=os.dup, fstat=os.fstat, sign=_hmac_sha256()):
    """The verdict's way out: stdout as it was before the property ran, one line signed with the key.

    The line is `witness-verdict <outcome> <kind> <hex of the text> <hmac>`: the key itself never
    leaves this process, so a copy of a failing line cannot be turned into a passing one. Everything
    used here is bound now, before any repository code runs, and a descriptor that is no longer the
    one duplicated here (the property swapped a pipe in) gets no verdict at all.
    """
    fd = dup(1)  # the property may rebind sys.stdout or fd 1; this copy still reaches the gate
    first = fstat(fd)
    identity = (first.st_dev, first.st_ino)
    secret = key.encode("ascii")

    def send(outcome: str, kind: str, text: str) -> None:
        body = f"{outcome} {kind} {text.encode('utf-8', 'replace').hex()}"
        line = f"\n{VERDICT_MARK} {body} {sign(secret, body.encode('ascii')).hex()}\n".encode("ascii")
        try:
            now = fstat(fd)
            if (now.st_dev, now.st_ino) != identity:
                return
            while line:
                line = line[write(fd, line):]
        except OSError:
            pass  # closed by the property: no verdict, a transport fault

    def say(text: str) -> None:
        try:
            write(fd, text.encode("utf-8", "replace"))
        except OSError:
            pass

    return send, say


def _evaluate(prop, payload, root: str, judge, blame) -> tuple[str, str | None]:
    """(outcome, reason) of one call of the property; every name it uses was bound before the import."""
    try:
        returned = prop(payload)
    except BaseException as exc:  # noqa: BLE001 - SystemExit too: a property may not pick its exit
        reason = "raise:?@?"
        try:
            reason = blame(exc, root)
            traceback.print_exc(file=sys.stderr)
        except BaseException:  # noqa: BLE001 - an exception whose name raises is still a failure
            pass
        return "fail", reason
    try:
        return judge(returned)
    except BaseException:  # noqa: BLE001 - a str subclass whose methods raise is no verdict
        return "no_verdict", "the property returned a value that cannot be read"


class _Decoder(json.JSONDecoder):
    """The fixture's decoder, with its methods copied here: patching json.JSONDecoder later changes nothing."""

    decode, raw_decode = json.JSONDecoder.decode, json.JSONDecoder.raw_decode


def _read_fixture(path: str, open_=os.open, read=os.read, close=os.close, decode=_Decoder().decode):
    fd = open_(path, os.O_RDONLY)  # no buffered text file: each evaluation reads its fixture once, in one piece
    try:
        chunks = []
        while chunk := read(fd, 1 << 20):
            chunks.append(chunk)
    finally:
        close(fd)
    return decode(b"".join(chunks).decode("utf-8"))


# every helper main() calls before the property is imported is bound here, when this file is loaded: under
# the warm start dependencies are imported after that and before main() runs, and cannot rebind them
def main(judge=verdict_of, blame=reason_for_exception, blame_import=import_blame, end=os._exit,
         evaluate=_evaluate, settings=None, read=read_key, open_channel=channel, arrange=arrange_path,
         fixture_of=_read_fixture, load=_load, seed_with=random.seed, environ=os.environ, gate=gate_package) -> None:
    """Evaluate, send the verdict, and end the process with the matching exit code (never returns).

    `settings`: the WITNESS_* variables as read before any dependency ran (the warm parent's); else now."""
    key = read()
    given = settings if settings is not None else environ
    selector = given.get("WITNESS_PROPERTY", "")
    fixture = given.get("WITNESS_FIXTURE", "")
    seed = given.get("WITNESS_SEED", "")
    relpath, _, function = selector.partition("::")
    if not (key and relpath and function and fixture and seed):
        print("witness harness: a verdict key on stdin, WITNESS_PROPERTY, WITNESS_FIXTURE and WITNESS_SEED are "
              "required", file=sys.stderr)
        end(2)
    send, say = open_channel(key)
    del key
    root = os.getcwd()
    for line in arrange(root, given.get("WITNESS_ENV", "")):
        print(f"witness harness: not run from the set-up's .pth files: {line}", file=sys.stderr)
    payload = fixture_of(fixture)
    seed_with(seed)
    sys.stderr.flush()
    # from here on repository code runs: only what is bound above decides and reports
    try:
        gate()  # the gate's package before the property's module, whose code may then reorder sys.path
        prop = load(relpath, function)
    except BaseException as exc:  # noqa: BLE001 - a failure to import is no verdict, unless the code under test raised
        reason = None
        try:
            reason = blame_import(exc, root, relpath)
            traceback.print_exc(file=sys.stderr)
        except BaseException:  # noqa: BLE001 - an exception whose name raises is still no verdict
            pass
        if reason:
            send("fail", "-", reason)
            say(f"{reason}\n")
            end(EXIT_FAIL)
        detail = "".join(traceback.format_exception_only(type(exc), exc)).strip()
        send("no_verdict", "import", detail[-2000:])
        say(f"witness harness: cannot import {relpath}: {detail}\n")
        end(EXIT_NO_VERDICT)
    outcome, reason = evaluate(prop, payload, root, judge, blame)
    try:
        sys.stdout.flush()
    except BaseException:  # noqa: BLE001 - the property may have broken sys.stdout; the channel does not need it
        pass
    if outcome == "no_verdict":
        send("no_verdict", "bad_return", reason)
        end(EXIT_NO_VERDICT)
    if outcome == "fail":
        send("fail", "-", reason)
        say(f"{reason}\n")  # the protocol's reason line, for people
        end(EXIT_FAIL)
    send("pass", "-", "")
    end(EXIT_PASS)  # skips teardown: atexit hooks and daemon threads of the property cannot change the verdict


def warm_main() -> dict:
    """`--warm`: one interpreter per series forks each evaluation (witness_gate/warm_parent.py, loaded by path);
    returns main's arguments in each of them."""
    cold = frozenset(sys.modules)  # what a cold harness has imported when its property's module runs
    module = _beside("warm_parent")  # not in sys.modules: an evaluation finds nothing of it there
    # read before any dependency runs, and handed over as tuples: nothing an import reaches can change them
    settings = tuple((name, os.environ.get(name, "")) for name in WITNESS_SETTINGS)
    path, skipped, _hook = path_plan(os.getcwd(), dict(settings)["WITNESS_ENV"])  # each evaluation's, read once
    return module.serve(settings, (tuple(path), tuple(skipped)), _imports, _beside("warm_sweep"),
                        _beside("warm_checks"), read_key, cold)


if __name__ == "__main__":
    if sys.argv[1:] != ["--warm"]:
        main()
    else:
        try:  # returns in each evaluation's process, which calls main here, at the stack depth of a cold start
            main(**warm_main())
        finally:
            os._exit(70)
