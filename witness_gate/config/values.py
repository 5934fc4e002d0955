"""The values a `.witness.yml` key may hold: one converter a type, returning the value or raising `Bad` with what is
wrong and what to write instead (config/schema.py's table names which converter each key has)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from witness_gate.model import outcomes

LABELS = outcomes.NAMES  # every label a `conclusions:` override may name (no_config included)
CONCLUSIONS = outcomes.CONCLUSIONS
PROPERTY_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_-]{0,99}")
NAME_RULE = "a letter, then letters, digits, '_' or '-' (at most 100)"


class Bad(Exception):
    pass


def check_int(lo: int) -> Callable[[Any], int]:
    def check(v: Any) -> int:
        if isinstance(v, bool) or not isinstance(v, int) or v < lo:
            raise Bad(f"an integer >= {lo}")
        return v
    return check


def check_number(positive: bool = True) -> Callable[[Any], float]:
    def check(v: Any) -> float:
        if isinstance(v, bool) or not isinstance(v, (int, float)) or (positive and v <= 0):
            raise Bad("a number > 0")
        return v
    return check


def check_flag(v: Any) -> bool:
    if not isinstance(v, bool):
        raise Bad("true or false")
    return v


def check_optional(inner: Callable[[Any], Any]) -> Callable[[Any], Any]:
    def check(v: Any) -> Any:
        return None if v is None else inner(v)
    return check


def check_text(v: Any) -> str:
    # a seed written as 17 is the string "17": seeds are strings everywhere else
    if isinstance(v, bool) or not isinstance(v, (str, int)) or str(v).strip() == "":
        raise Bad("a non-empty string")
    return str(v)


def normal_path(path: str) -> str:
    """A path as the changed paths are spelled: no `./`, no `//`, no `/./` (a pattern spelled `./tests` matched no
    path, so every test counted as implementation: found by a reviewer); a folder keeps its slash."""
    parts = [part for part in path.split("/") if part not in ("", ".")]
    return "/".join(parts) + ("/" if path.endswith("/") and parts else "")


def check_relpath(v: Any) -> str:
    if not isinstance(v, str) or not v.strip():
        raise Bad("a non-empty repository path")
    if v.startswith("/") or ".." in v.split("/"):
        raise Bad("a path inside the repository (no leading '/', no '..')")
    if not normal_path(v):
        raise Bad("a path inside the repository, not the repository itself")
    return normal_path(v)


def check_patterns(v: Any) -> tuple[str, ...]:
    if not isinstance(v, list) or not all(isinstance(p, str) and p.strip() for p in v):
        raise Bad('a list of path prefixes or globs, like ["src/"] or ["**/*.py"]')
    if any(p.startswith("/") or ".." in p.split("/") for p in v):
        raise Bad('paths inside the repository, like ["src/"] (no leading "/", no "..": they would match nothing)')
    if any(not normal_path(p) for p in v):
        raise Bad('paths inside the repository, like ["src/"] ("." or "./" is the whole repository: say "**")')
    return tuple(normal_path(p) for p in v)


def check_patterns_or_empty(v: Any) -> tuple[str, ...]:
    if v is None or v == []:
        return ()
    try:
        return check_patterns(v)
    except Bad:
        raise Bad('a list of path prefixes or globs, like ["docs/", "**/*.md"]') from None


def check_command(v: Any) -> tuple[str, ...] | None:
    if v is None:
        return None
    if not isinstance(v, list) or not v or not all(isinstance(a, str) and a for a in v):
        raise Bad('null or a list of arguments, like ["./run-property.sh"]')
    return tuple(v)


def check_names(v: Any) -> tuple[str, ...]:
    if v is None:
        return ()
    if not isinstance(v, list) or not all(isinstance(n, str) for n in v):
        raise Bad('a list of property names, like ["total_non_negative", "receipt_lists_every_line"]')
    for name in v:
        if not PROPERTY_NAME.fullmatch(name):
            raise Bad(f"property names of {NAME_RULE}; {name!r} is not one")
    if len(set(v)) != len(v):
        raise Bad(f"each name once; {sorted(n for n in set(v) if v.count(n) > 1)} repeat")
    return tuple(v)


def check_test_paths(v: Any) -> tuple[str, ...]:
    if v is None or v == []:
        return ()
    if not isinstance(v, list):
        raise Bad('a list of test files or folders, like ["tests/"]')
    paths = tuple(check_relpath(p) for p in v)
    # a folder is a prefix of its files only with its slash: "tests" must not take in "tests_old/"
    return tuple(p if p.endswith((".py", "/")) else p + "/" for p in paths)


def check_fixtures(v: Any) -> dict[str, str]:
    if not isinstance(v, dict) or not all(isinstance(k, str) for k in v):
        raise Bad('a mapping of assertion id or "*" to a fixture path')
    return {k: check_relpath(p) for k, p in v.items()}


def check_contracts(v: Any) -> dict[str, dict[str, str]]:
    shape = "a mapping of assertion id to {invariant: ..., domain: ...}"
    if not isinstance(v, dict):
        raise Bad(shape)
    out = {}
    for name, body in v.items():
        if not isinstance(body, dict) or set(body) != {"invariant", "domain"}:
            raise Bad(f"{shape}; {name!r} has {sorted(body) if isinstance(body, dict) else body!r}")
        if not all(isinstance(body[k], str) and body[k].strip() for k in body):
            raise Bad(f"{shape}; {name!r} has an empty invariant or domain")
        out[str(name)] = {"invariant": body["invariant"], "domain": body["domain"]}
    return out


def check_conclusions(v: Any) -> dict[str, str]:
    if not isinstance(v, dict):
        raise Bad("a mapping of label to conclusion")
    for label, conclusion in v.items():
        if label not in LABELS:
            raise Bad(f"labels among {', '.join(LABELS)}; {label!r} is not one")
        if conclusion not in CONCLUSIONS:
            raise Bad(f"conclusions among {', '.join(CONCLUSIONS)}; {conclusion!r} is not one")
    return dict(v)


def check_new_tests(v: Any) -> str:
    if v not in ("judge_by_base", "mixed_edit"):
        raise Bad("judge_by_base or mixed_edit")
    return v


def check_version(v: Any) -> int:
    if v != 1 or isinstance(v, bool):
        raise Bad("1 (the only version there is)")
    return 1
