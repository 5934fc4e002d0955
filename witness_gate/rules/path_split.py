"""Which side of the change each path is on: the implementation, the oracle, or ignored (SPEC §4, fail closed)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

IMPL_PREFIX = "src/"
ORACLE_PREFIX = "tests/properties/"


_GLOB_CHARS = re.compile(r"[*?\[]")


@lru_cache(maxsize=512)
def _glob_regex(pattern: str) -> re.Pattern[str]:
    """`**` spans directories, `*` and `?` stay inside one path segment."""
    out = []
    i = 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        elif pattern[i] == "[":
            end = pattern.find("]", i + 1)
            if end == -1:
                out.append(re.escape("["))
                i += 1
            else:
                out.append("[" + pattern[i + 1 : end].replace("\\", "\\\\") + "]")
                i = end + 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return re.compile("".join(out) + r"\Z")


def path_matches(path: str, pattern: str) -> bool:
    """A pattern with glob characters is a glob; otherwise a prefix ("src/") or an exact path."""
    if _GLOB_CHARS.search(pattern):
        return _glob_regex(pattern).match(path) is not None
    return path.startswith(pattern)


def split_paths(
    paths: Iterable[str],
    impl_prefixes: Iterable[str] = (IMPL_PREFIX,),
    oracle_prefixes: Iterable[str] = (ORACLE_PREFIX,),
) -> tuple[bool, bool]:
    """(impl_changed, oracle_changed) for a list of changed repository paths, as article 001 has it.

    A path matching neither list counts as neither; the gate itself uses split_change, which
    counts such a path as implementation (it fails closed).
    """
    paths = list(paths)
    impl = tuple(impl_prefixes)
    oracle = tuple(oracle_prefixes)
    impl_changed = any(path_matches(p, pat) for p in paths for pat in impl)
    oracle_changed = any(path_matches(p, pat) for p in paths for pat in oracle)
    return impl_changed, oracle_changed


@dataclass(frozen=True)
class ChangeSplit:
    """Each changed path by kind; a path matching impl and oracle patterns is in both lists."""

    impl: tuple[str, ...] = ()
    oracle: tuple[str, ...] = ()
    ignored: tuple[str, ...] = ()

    @property
    def impl_changed(self) -> bool:
        return bool(self.impl)

    @property
    def code(self) -> tuple[str, ...]:
        """Every changed path that is not oracle: ignored paths are in the checkout too, and can be imported."""
        return tuple(sorted(set(self.impl) | set(self.ignored)))

    @property
    def oracle_changed(self) -> bool:
        return bool(self.oracle)


def split_change_paths(
    paths: Iterable[str],
    impl_patterns: Iterable[str],
    oracle_patterns: Iterable[str],
    ignore_patterns: Iterable[str] = (),
) -> ChangeSplit:
    """The gate's split, which fails closed (SPEC §4).

    A path matching an oracle pattern is oracle (whatever else it matches); one matching an impl
    pattern is impl (both: both, which is a mixed edit by itself). Any other path is impl too,
    because the harness puts the repository root and `src/` on sys.path and the code under test can
    import it, unless it matches an ignore pattern (documentation and the like). Only a change made
    entirely of ignored paths has nothing to gate.
    """
    impl, oracle, ignore = tuple(impl_patterns), tuple(oracle_patterns), tuple(ignore_patterns)
    out: dict[str, list[str]] = {"impl": [], "oracle": [], "ignored": []}
    for path in dict.fromkeys(paths):
        is_oracle = any(path_matches(path, pat) for pat in oracle)
        is_impl = any(path_matches(path, pat) for pat in impl)
        if is_oracle:
            out["oracle"].append(path)
        if is_impl or (not is_oracle and not any(path_matches(path, pat) for pat in ignore)):
            out["impl"].append(path)
        elif not is_oracle:
            out["ignored"].append(path)
    return ChangeSplit(tuple(out["impl"]), tuple(out["oracle"]), tuple(out["ignored"]))


def split_change(
    paths: Iterable[str],
    impl_patterns: Iterable[str],
    oracle_patterns: Iterable[str],
    ignore_patterns: Iterable[str] = (),
) -> tuple[bool, bool]:
    """(impl_changed, oracle_changed) by the gate's fail-closed rule (see split_change_paths)."""
    split = split_change_paths(paths, impl_patterns, oracle_patterns, ignore_patterns)
    return split.impl_changed, split.oracle_changed
