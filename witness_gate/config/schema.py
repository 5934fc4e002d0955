"""`.witness.yml`: one table of fields, parsed with line numbers so every error names file:line:key."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from witness_gate.config.values import (
    Bad,
    check_command,
    check_conclusions,
    check_contracts,
    check_fixtures,
    check_flag,
    check_int,
    check_names,
    check_new_tests,
    check_number,
    check_optional,
    check_patterns,
    check_patterns_or_empty,
    check_relpath,
    check_test_paths,
    check_text,
    check_version,
)
from witness_gate.config.yamlines import YamlProblem, load_with_lines

CONFIG_NAME = ".witness.yml"
# a runner-protocol property's name: it becomes file names (<name>.attempt.json) and config keys


class ConfigError(ValueError):
    """One or more problems in a `.witness.yml`, each naming file, line and key."""

    def __init__(self, problems: list[str], line: int = 1, lines: list[int] | None = None) -> None:
        self.problems = problems
        self.line = line  # of the first problem, for an annotation
        self.lines = lines if lines and len(lines) == len(problems) else [line] * len(problems)  # one per problem
        super().__init__("\n".join(problems))


@dataclass(frozen=True)
class Config:
    impl: tuple[str, ...] = ("src/",)
    oracle: tuple[str, ...] = ("tests/properties/", "tests/fixtures/")
    generated: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    properties_dir: str = "tests/properties"
    command: tuple[str, ...] | None = None
    names: tuple[str, ...] = ()  # the runner protocol's properties; empty: the command lists them itself
    pytest: tuple[str, ...] = ()  # test files and folders whose pytest tests are properties (oracle paths)
    fixtures: dict[str, str] = field(default_factory=dict)
    seed: str = "0"
    generator_version: int = 1
    contracts: dict[str, dict[str, str]] = field(default_factory=dict)
    runs: int = 5
    min_reruns: int = 3
    max_steps: int = 32
    max_evals: int = 2000
    max_runs: int = 50  # the most replays `/witness replay N` may ask for
    broader_sample: int = 32  # unseen inputs near each passing pinned payload; 0: none
    require_isolation: bool = False  # hold a property whose oracle and implementation share a process (a command)
    new_tests: str = "judge_by_base"  # oracle files a change only adds: judged by the base's oracle, or mixed_edit
    timeout_seconds: float = 60
    expires_in_hours: float | None = None
    max_hours: float = 168
    conclusions: dict[str, str] = field(default_factory=dict)
    setup_requirements: str | None = None
    setup_command: tuple[str, ...] | None = None
    setup_timeout_seconds: float = 600
    source: str = "(embedded defaults)"

    @property
    def oracle_patterns(self) -> tuple[str, ...]:
        """Generated stubs, the pytest tests gated and the config itself count as oracle paths."""
        return self.oracle + self.generated + self.pytest + (CONFIG_NAME,)

    def fixture_for(self, assertion_id: str) -> str:
        """The fixture path for an assertion: its own entry, then "*", then the convention."""
        if assertion_id in self.fixtures:
            return self.fixtures[assertion_id]
        if "*" in self.fixtures:
            return self.fixtures["*"]
        return f"tests/fixtures/{assertion_id}.json"


# The whole schema: YAML key, Config field, check (config/values.py: the value, or Bad with what was expected), doc.
SCHEMA: tuple[tuple[str, str | None, Callable[[Any], Any], str], ...] = (
    ("version", None, check_version, "schema version; always 1"),
    ("paths.impl", "impl", check_patterns, "implementation paths: prefixes or globs"),
    ("paths.oracle", "oracle", check_patterns, "oracle paths: properties, fixtures"),
    ("paths.generated", "generated", check_patterns, "regenerated stubs, counted as oracle"),
    ("paths.ignore", "ignore", check_patterns_or_empty,
     "changes here alone are skipped (docs); any other path outside impl and oracle counts as impl"),
    ("properties.dir", "properties_dir", check_relpath, "where prop_* functions live"),
    ("properties.command", "command", check_command, "runner-protocol command for other languages"),
    ("properties.names", "names", check_names,
     "the command's properties; empty: the command lists them (run with WITNESS_LIST=1)"),
    ("properties.pytest", "pytest", check_test_paths,
     "test files and folders gated as they are: each pytest test a property (oracle paths)"),
    ("properties.fixtures", "fixtures", check_fixtures, 'assertion id or "*" -> fixture file'),
    ("properties.seed", "seed", check_text, "the pinned seed"),
    ("properties.generator_version", "generator_version", check_int(0), "recorded in the lock"),
    ("properties.contracts", "contracts", check_contracts, "assertion id -> {invariant, domain}"),
    ("policy.runs", "runs", check_int(1), "replays of a witness"),
    ("policy.min_reruns", "min_reruns", check_int(2), "fewest replays that can decide"),
    ("policy.max_steps", "max_steps", check_int(0), "shrink step budget (a step: one round of the moves that commits a smaller witness)"),
    ("policy.max_evals", "max_evals", check_int(1), "shrink evaluation budget"),
    ("policy.max_runs", "max_runs", check_int(1), "most replays `/witness replay N` may ask for"),
    ("policy.broader_sample", "broader_sample", check_int(0),
     "unseen inputs drawn near each pinned payload that passed, from a seed the patch cannot know; one the head fails "
     "and the base passes is a regression witness (0: off)"),
    ("policy.timeout_seconds", "timeout_seconds", check_number(), "per evaluation"),
    ("policy.require_isolation", "require_isolation", check_flag,
     "hold a property whose oracle and implementation share one process (properties.command): isolation_shared"),
    ("policy.new_tests", "new_tests", check_new_tests,
     "a change whose oracle side only adds files: judge_by_base (its code judged by the base's oracle, the new "
     "files shown beside) or mixed_edit"),
    ("freeze.expires_in_hours", "expires_in_hours", check_optional(check_number()), "proposed expiry"),
    ("freeze.max_hours", "max_hours", check_number(), "longest expiry a person may accept"),
    ("conclusions", "conclusions", check_conclusions, "per-label override of the conclusion"),
    ("setup.requirements", "setup_requirements", check_optional(check_relpath), "pip requirements file installed per head"),
    ("setup.command", "setup_command", check_command, "or any set-up command; $WITNESS_ENV is its output"),
    ("setup.timeout_seconds", "setup_timeout_seconds", check_number(), "wall-clock limit of the set-up"),
)
_SECTIONS = {"paths", "properties", "policy", "freeze", "setup"}
_KEYS = {key for key, *_ in SCHEMA}


def parse_config(text: str | bytes, source: str = CONFIG_NAME) -> Config:
    """Parse and check a `.witness.yml`; raise ConfigError listing every problem."""
    try:
        values, lines = load_with_lines(text, source)
    except YamlProblem as exc:
        raise ConfigError(exc.problems, exc.line) from None
    problems: list[str] = []
    first_line: list[int] = []  # the line of each problem, in order, so the error carries it as a number

    def where(key: str) -> str:
        first_line.append(lines.get(key, 1))
        return f"{source}:{lines.get(key, 1)}: {key}"

    fields: dict[str, Any] = {"source": source}
    for key, value in _flatten(values, lines, problems, where):
        if key not in _KEYS:
            problems.append(f"{where(key)}: unknown key; allowed here: {_allowed_near(key)}")
            continue
        name, check, _doc = next((f, c, d) for k, f, c, d in SCHEMA if k == key)
        try:
            converted = check(value)
        except Bad as bad:
            problems.append(f"{where(key)}: expected {bad}, got {value!r}")
            continue
        if name:
            fields[name] = converted
    if problems:
        raise ConfigError(problems, first_line[0] if first_line else 1, first_line)
    config = Config(**fields)
    problems.extend(_cross_checks(config, where))
    if problems:
        raise ConfigError(problems, first_line[0] if first_line else 1, first_line)
    return config


def _cross_checks(config: Config, where: Callable[[str], str]) -> list[str]:
    problems = []
    if config.runs < config.min_reruns:
        problems.append(
            f"{where('policy.runs')}: {config.runs} replays are fewer than "
            f"policy.min_reruns ({config.min_reruns}); raise runs or lower min_reruns"
        )
    if config.names and config.command is None:
        problems.append(
            f"{where('properties.names')}: names runner-protocol properties, but properties.command is not set; "
            "set the command that runs them (Python prop_* functions are found without a list)"
        )
    if config.pytest and config.command is not None:
        problems.append(
            f"{where('properties.pytest')}: pytest tests run in the gate's own judge, properties.command in one "
            "process of its own; give one of them"
        )
    if config.setup_requirements and config.setup_command:
        problems.append(
            f"{where('setup.command')}: give setup.requirements or setup.command, not both "
            "(a command can install the requirements itself)"
        )
    if config.expires_in_hours is not None and config.expires_in_hours > config.max_hours:
        problems.append(
            f"{where('freeze.expires_in_hours')}: {config.expires_in_hours} is longer than "
            f"freeze.max_hours ({config.max_hours})"
        )
    return problems


def _allowed_near(key: str) -> str:
    section = key.split(".")[0]
    if section in _SECTIONS:
        return ", ".join(k for k in sorted(_KEYS) if k.startswith(section + "."))
    return ", ".join(sorted({k.split(".")[0] for k in _KEYS}))


def _flatten(values: dict, lines: dict, problems: list[str], where) -> list[tuple[str, Any]]:
    out = []
    for top, value in values.items():
        if top in _SECTIONS:
            if value is None:
                continue
            if not isinstance(value, dict):
                problems.append(f"{where(top)}: expected a mapping of settings, got {value!r}")
                continue
            out.extend((f"{top}.{k}", v) for k, v in value.items())
        else:
            out.append((str(top), value))
    return out
