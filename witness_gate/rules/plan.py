"""Deciding what a change gets before anything runs: refused, skipped, or a plan of what to gate.

Pure: both shells (`witness_gate.cli.local.run` and the App's `worker.jobs.gate_pull_request`) gather the
base's `.witness.yml` and the changed paths, ask here, and only then fetch, check out and run.
Nothing else decides missing or invalid configs, mixed edits, oracle-only changes or skips.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from witness_gate.config.schema import CONFIG_NAME, Config, ConfigError, parse_config
from witness_gate.rules.path_split import ChangeSplit, split_change_paths

# the head's new .witness.yml is parsed by the worker and its problems kept with the run: a few KiB is a real one
HEAD_CONFIG_BYTES = 256 * 1024
REVIEW_PROBLEMS = 50
PROBLEM_CHARS = 500


@dataclass(frozen=True)
class Refusal:
    """Nothing runs: `label` is no_config, invalid_config, mixed_edit or skipped; `reason` is one sentence."""

    label: str
    title: str
    reason: str
    files: tuple[str, ...] = ()  # what a check run annotates: the config, or the oracle files of a mixed edit
    line: int = 1  # the config's line of an invalid config
    problems: tuple[str, ...] = ()  # every problem of an invalid config, each naming file:line:key
    ignored: tuple[str, ...] = ()  # the paths.ignore paths of a skip
    split: ChangeSplit | None = None  # how the changed paths split, once they were read


MAX_NEW_FILES = 50  # oracle files asked about one by one (the App asks GitHub): more are judged a mixed edit
# files that decide how tests run: a change that adds one of them is no "new tests only" change
TEST_CONFIGURATION = frozenset({"conftest.py", "pytest.ini", "pyproject.toml", "setup.cfg", "tox.ini", CONFIG_NAME})


@dataclass(frozen=True)
class Plan:
    """The change is gated: its split, under the base's config (`new_tests`: oracle files the change only adds, set
    beside an implementation judged by the base's oracle)."""

    config: Config
    split: ChangeSplit
    new_tests: tuple[str, ...] = ()


def split_of(config: Config, paths: Iterable[str]) -> ChangeSplit:
    """The changed paths by kind, with the gate's fail-closed rule (rules/path_split.py::split_change_paths)."""
    return split_change_paths(paths, config.impl, config.oracle_patterns, config.ignore)


def config_of(raw: bytes | None, source: str, *, required: bool) -> Config | Refusal:
    """The base's `.witness.yml`: parsed, the embedded defaults when absent and not required, or a refusal."""
    if raw is None:
        if required:
            return Refusal("no_config", "no .witness.yml on the base branch",
                           f"no {CONFIG_NAME} on the base branch; add one there")
        return Config()
    try:
        return parse_config(raw, source)
    except ConfigError as exc:
        return Refusal("invalid_config", f"invalid {CONFIG_NAME} on the base branch", str(exc),
                       files=(CONFIG_NAME,), line=exc.line, problems=tuple(exc.problems))


def plan(config: Config, changed: Iterable[str], existed: Callable[[str], bool] | None = None) -> Plan | Refusal:
    """Split the changed paths (failing closed) and refuse a mixed edit or a change with nothing to gate. `existed`
    tells whether a path was there where the change forked: a change whose oracle side only adds files (no test
    configuration among them) cannot weaken a check, and with `policy.new_tests: judge_by_base` it is gated as an
    implementation-only change, the added files beside it."""
    split = split_of(config, changed)
    if split.impl_changed and split.oracle_changed and only_adds_tests(config, split.oracle, existed):
        return Plan(config, ChangeSplit(split.impl, (), split.ignored), new_tests=split.oracle)
    if split.impl_changed and split.oracle_changed:
        return Refusal("mixed_edit", "mixed_edit: implementation and oracle changed together", (
            "mixed_edit: this change edits implementation and oracle paths together "
            f"(oracle: {', '.join(split.oracle)}); split it so the oracle is reviewed on its own"),
            files=split.oracle, split=split)
    if not split.impl_changed and not split.oracle_changed:
        if not split.ignored:
            return Refusal("skipped", "no path changed", "no path changed; nothing to gate", split=split)
        more = ", ..." if len(split.ignored) > 5 else ""
        return Refusal("skipped", "only ignored paths changed", (
            f"only paths.ignore paths changed ({len(split.ignored)}: {', '.join(split.ignored[:5])}{more}); "
            "nothing to gate"), ignored=split.ignored, split=split)
    return Plan(config, split)


def only_adds_tests(config: Config, oracle: tuple[str, ...], existed: Callable[[str], bool] | None) -> bool:
    """Whether every changed oracle path is a new file that is no test configuration (a rename counts at its old
    path, which existed), and the base's config lets such a change be judged by the base's oracle."""
    if config.new_tests != "judge_by_base" or existed is None or not oracle or len(oracle) > MAX_NEW_FILES:
        return False
    if any(path.rsplit("/", 1)[-1] in TEST_CONFIGURATION for path in oracle):
        return False
    return not any(existed(path) for path in oracle)


def new_tests_note(paths: tuple[str, ...]) -> str:
    """What a person reads of the files a change adds beside its fix ("" for none)."""
    if not paths:
        return ""
    shown = ", ".join(paths[:10]) + (f" and {len(paths) - 10} more" if len(paths) > 10 else "")
    return (f"new_oracle: this change adds {shown} beside the implementation; they cannot weaken a check, so the "
            "base's oracle judges the implementation and the new files are for a reviewer to read (policy.new_tests)")


def oracle_from_base(config: Config, oracle_changed: bool) -> tuple[str, ...]:
    """The patterns whose paths are taken from the base tip and laid over the head: every oracle path
    when the change is implementation only (the base's current oracle judges it, however long ago the
    head forked), none when the oracle is what changed (it is under review as the head has it)."""
    return () if oracle_changed else config.oracle_patterns


@dataclass(frozen=True)
class ConfigReview:
    """A change that edits `.witness.yml`: the base's version still gates it; the head's is checked so its
    author sees, before it merges, each problem at its line and which of the change's own paths it would
    classify differently."""

    problems: tuple[tuple[int, str], ...] = ()  # (line, text) of each problem of the head's version
    reclassified: tuple[tuple[str, str, str], ...] = ()  # (path, kind under the base's, kind under the head's)
    deleted: bool = False

    def as_dict(self) -> dict:
        return {"problems": [list(p) for p in self.problems], "reclassified": [list(r) for r in self.reclassified],
                "deleted": self.deleted}


def review_head_config(base: Config, raw_head: bytes | None, changed: Iterable[str],
                       source: str = CONFIG_NAME) -> ConfigReview | None:
    """None when the change leaves `.witness.yml` alone; else what its new version would mean."""
    changed = sorted(set(changed))
    if CONFIG_NAME not in changed:
        return None
    if raw_head is None:
        return ConfigReview(deleted=True)
    if len(raw_head) > HEAD_CONFIG_BYTES:
        return ConfigReview(problems=((1, f"{source}: {len(raw_head)} bytes, more than a .witness.yml may hold "
                                          f"({HEAD_CONFIG_BYTES // 1024} KiB); it was not read"),))
    try:
        head = parse_config(raw_head, source)
    except ConfigError as exc:
        problems = [(line, text[:PROBLEM_CHARS]) for line, text in zip(exc.lines, exc.problems)]
        if len(problems) > REVIEW_PROBLEMS:
            problems[REVIEW_PROBLEMS:] = [(1, f"{source}: {len(problems) - REVIEW_PROBLEMS} more problems not shown")]
        return ConfigReview(problems=tuple(problems))
    rows = tuple((path, _kind(base, path), _kind(head, path)) for path in changed)
    return ConfigReview(reclassified=tuple(row for row in rows if row[1] != row[2]))


def _kind(config: Config, path: str) -> str:
    split = split_of(config, [path])
    return "+".join(kind for kind, paths in (("impl", split.impl), ("oracle", split.oracle),
                                             ("ignored", split.ignored)) if paths) or "none"
