"""One evaluation's row: what it came to (pass, fail or a transport fault), why, and what the record keeps of it."""

from __future__ import annotations

from dataclasses import dataclass, field

ROW_REFUSED = "sample"  # the reason of a broader sample's row a runner does not take (a command: one payload a run)


@dataclass(frozen=True)
class Evaluation:
    """One evaluation: outcome "pass", "fail" or "transport"; reason is the code or the fault kind."""

    outcome: str
    reason: str | None = None
    detail: str = ""  # the tail of stderr, or what went wrong: for people, never for decisions
    seconds: float = 0.0
    isolation: str = ""  # how it ran: split-cold, split-warm (judge and subject apart) or shared (one process)
    imports: tuple[str, ...] = field(default=(), compare=False)  # the implementation's modules the property imported
    layout: int | None = None  # a cold subject's layout number (runner.layout_env); None: the pinned seed's own
    # what the judge saw fail (pytest's assertion message, Hypothesis's falsifying example): for people, kept in rows
    observed: str = field(default="", compare=False)
    # a test's failing Hypothesis search: the example it ended on, as the choice sequence that replays it (the witness)
    example: dict | None = field(default=None, compare=False)
    unsteady: bool = False  # the judge's runner saw one example fail and pass within this evaluation (FlakyFailure)
    # beside `example`, when the search ended unsteady with no final example: other examples it saw fail, smallest first
    other_examples: tuple[dict, ...] = field(default=(), compare=False)
    sample: int | None = None  # a broader sample's row: the index of the input it ended on (it ran all: how many)
    failed: tuple[int, ...] | None = None  # a sample row's inputs before that one that failed (None: it did not say)
    searched: bool = False  # a test that passed drew its inputs with Hypothesis (its seed chose them)

    @property
    def failure_reason(self) -> str | None:
        """What the shrinker compares: the reason of a failure, or None for anything else."""
        return self.reason if self.outcome == "fail" else None

    def as_row(self) -> dict:
        row = {"outcome": self.outcome, "reason": self.reason, "seconds": round(self.seconds, 4)}
        if self.isolation:
            row["isolation"] = self.isolation
        if self.layout is not None:
            row["layout"] = self.layout
        if self.observed:
            row["observed"] = self.observed
        if self.unsteady:
            row["unsteady"] = True
        return row
