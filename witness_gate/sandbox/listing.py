"""The runner protocol's listing mode: the command, run with WITNESS_LIST=1 in the sandbox, names its properties.

A repository with no Python names its properties in `properties.names`, or lets `properties.command`
print them, one a line. The listing is untrusted code like any evaluation: the same sandbox and limits,
no network, a short deadline and a small output cap. Reading its output (`names_from`) is pure.
"""

from __future__ import annotations

import math
import shutil
from dataclasses import replace
from pathlib import Path

from witness_gate.config.values import NAME_RULE, PROPERTY_NAME
from witness_gate.sandbox import Limits, Sandbox
from witness_gate.sandbox.processes import Finished

LIST_TIMEOUT_SECONDS = 20  # a listing prints names; it has no reason to take longer
LIST_OUTPUT_BYTES = 64 * 1024  # room for a thousand long names
MAX_PROPERTIES = 500
DETAIL_CHARS = 400


class ListingError(ValueError):
    """A listing that names no usable properties; the message names the command and what to do."""


def list_names(repo: Path, command: tuple[str, ...], sandbox: Sandbox, timeout_seconds: float = 60) -> list[str]:
    """Run `command` with WITNESS_LIST=1 on the checkout `repo` and return the property names it prints."""
    timeout = min(timeout_seconds, LIST_TIMEOUT_SECONDS)
    limits = replace(Limits(), cpu_seconds=math.ceil(timeout) + 1, output_bytes=LIST_OUTPUT_BYTES)
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "WITNESS_LIST": "1"}
    scratch = sandbox.make_scratch()
    try:
        done = sandbox.run(list(command), repo=repo, scratch=scratch, env=env, limits=limits, timeout=timeout)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return names_from(done, command, timeout)


def names_from(done: Finished, command: tuple[str, ...], timeout: float = LIST_TIMEOUT_SECONDS) -> list[str]:
    """The names of a finished listing, or a ListingError saying what was wrong with it."""
    told = f"properties.command {list(command)} run with WITNESS_LIST=1"
    fix = "print one property name a line and exit 0, or list the names in properties.names in .witness.yml"
    if done.fault or done.code != 0:
        why = {"timeout": f"did not finish within {timeout:g} s",
               "output_limit": f"printed more than {LIST_OUTPUT_BYTES} bytes"}.get(done.fault or "")
        if why is None:
            why = f"failed ({done.fault or _ended(done.code)})"
        tail = done.stderr.decode("utf-8", errors="replace").strip()[-DETAIL_CHARS:]
        raise ListingError(f"{told} {why}{': ' + tail if tail else ''}; {fix}")
    try:
        text = done.stdout.decode("utf-8")
    except UnicodeDecodeError:
        raise ListingError(f"{told} printed bytes that are not UTF-8 text; {fix}") from None
    names: list[str] = []
    for number, line in enumerate(text.splitlines(), 1):
        name = line.strip()
        if not name:
            continue
        if not PROPERTY_NAME.fullmatch(name):
            raise ListingError(f"{told}: line {number}, {name[:120]!r}, is not a property name ({NAME_RULE}); {fix}")
        if name in names:
            raise ListingError(f"{told}: line {number} names {name} a second time; each property once")
        names.append(name)
    if not names:
        raise ListingError(f"{told} printed no property names; {fix}")
    if len(names) > MAX_PROPERTIES:
        raise ListingError(f"{told} printed {len(names)} names, more than {MAX_PROPERTIES}; gate fewer properties")
    return names


def _ended(code: int) -> str:
    return f"killed by signal {-code}" if code < 0 else f"exit {code}"
