"""The one table of labels: rank, check-run conclusion, exit code, blocking, freezable (SPEC §6, §7, §8).

The verdict, the CLI's exit code, the check-run renderer and the `conclusions:` override of
`.witness.yml` all read this table; nothing else lists labels.
"""

from __future__ import annotations

from dataclasses import dataclass

EXIT_OK, EXIT_BLOCK, EXIT_USAGE, EXIT_PERSON = 0, 1, 2, 3
CONCLUSIONS = ("success", "neutral", "skipped", "failure", "action_required")


@dataclass(frozen=True)
class Label:
    name: str
    rank: int | None  # a property label's place in the pull request's order (first wins); None: a run label
    conclusion: str  # the check run's, unless `conclusions:` overrides it
    exit_code: int
    blocking: bool  # the patch must not merge as it is
    freezable: bool  # a person may accept a freeze for it
    meaning: str


TABLE: tuple[Label, ...] = (
    Label("mixed_edit", 0, "failure", EXIT_BLOCK, True, False,
          "implementation and oracle paths changed together; nothing ran"),
    Label("oracle_defect", 1, "action_required", EXIT_PERSON, False, False,
          "only oracle paths changed: review the oracle on its own"),
    Label("hold", 2, "action_required", EXIT_PERSON, False, False,
          "evidence incomplete; the record names why"),
    Label("regression", 3, "failure", EXIT_BLOCK, True, False,
          "every replay of the witness fails"),
    Label("pre_existing", 4, "neutral", EXIT_OK, False, False,
          "the witness fails the same way on the base: the patch did not cause it"),
    Label("frozen", 5, "neutral", EXIT_OK, False, False,
          "a flake matching an accepted, unexpired freeze"),
    Label("flake", 6, "action_required", EXIT_PERSON, False, True,
          "replays disagree; all three tables allow a freeze"),
    Label("not_reproduced", 7, "action_required", EXIT_PERSON, False, False,
          "failed once, but neither the witness nor the unshrunk payload fails again"),
    Label("pass", 8, "success", EXIT_OK, False, False, "the property never failed"),
    Label("skipped", None, "skipped", EXIT_OK, False, False,
          "no implementation or oracle path changed (or only ignored ones)"),
    Label("invalid_config", None, "failure", EXIT_USAGE, True, False, "the base's .witness.yml is invalid"),
    Label("no_config", None, "neutral", EXIT_OK, False, False, "the base has no .witness.yml"),
)
BY_NAME = {label.name: label for label in TABLE}
NAMES = tuple(BY_NAME)
ORDER = tuple(label.name for label in sorted((x for x in TABLE if x.rank is not None), key=lambda x: x.rank))


def conclusion(name: str, overrides: dict[str, str] | None = None) -> str:
    return (overrides or {}).get(name) or BY_NAME[name].conclusion


def overall(names: list[str]) -> str:
    """A pull request's label: the first of ORDER among its properties' labels ("pass" when none)."""
    present = set(names)
    return next((name for name in ORDER if name in present), "pass")


def exit_of(name: str) -> int:
    """One label's own exit code (README's table)."""
    return BY_NAME[name].exit_code if name in BY_NAME else EXIT_OK


def exit_code(names: list[str]) -> int:
    """0 nothing blocks; 1 something blocks; 3 something needs a person (blocking wins)."""
    rules = [BY_NAME[name] for name in set(names) if name in BY_NAME]
    if any(rule.blocking for rule in rules):
        return EXIT_BLOCK
    if any(rule.exit_code == EXIT_PERSON for rule in rules):
        return EXIT_PERSON
    return EXIT_OK


def proposes_freeze(name: str, hold_reasons: list[str] | tuple[str, ...]) -> bool:
    """A freezable label, or a hold whose only reason is an empty expiry (the person accepting supplies it)."""
    return BY_NAME[name].freezable or (name == "hold" and list(hold_reasons) == ["expiry_empty"])
