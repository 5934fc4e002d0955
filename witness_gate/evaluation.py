"""What one evaluation's process came to, read into an `Evaluation`: a fault, a signal, the exit code of the runner
protocol, or the harness's one line signed with the evaluation's key."""

from __future__ import annotations

import hmac
import signal
from dataclasses import dataclass

from witness_gate.harness import VERDICT_MARK, usable_reason
from witness_gate.processes import Finished

DETAIL_CHARS = 2000


@dataclass(frozen=True)
class Evaluation:
    """One evaluation: outcome "pass", "fail" or "transport"; reason is the code or the fault kind."""

    outcome: str
    reason: str | None = None
    detail: str = ""  # the tail of stderr, or what went wrong: for people, never for decisions
    seconds: float = 0.0

    @property
    def failure_reason(self) -> str | None:
        """What the shrinker compares: the reason of a failure, or None for anything else."""
        return self.reason if self.outcome == "fail" else None

    def as_row(self) -> dict:
        return {"outcome": self.outcome, "reason": self.reason, "seconds": round(self.seconds, 4)}



def verdict_of_process(done: Finished, key: str) -> Evaluation:
    """The evaluation a finished process (`done`) came to; `key`: the harness's verdict key ('' for a command)."""
    detail = done.stderr.decode("utf-8", errors="replace")[-DETAIL_CHARS:]
    if done.fault:
        return Evaluation("transport", done.fault, detail, done.seconds)
    if done.code < 0:
        return Evaluation("transport", f"signal:{_signal_name(-done.code)}", detail, done.seconds)
    if key:
        return _harness_verdict(done.code, key, done.stdout, detail, done.seconds)
    return _protocol_verdict(done.code, done.stdout, detail, done.seconds)


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return str(number)


def _protocol_verdict(code: int, stdout: bytes, detail: str, seconds: float) -> Evaluation:
    if code == 0:
        return Evaluation("pass", None, detail, seconds)
    if code == 1:
        lines = [ln.strip() for ln in stdout.decode("utf-8", errors="replace").splitlines() if ln.strip()]
        return Evaluation("fail", usable_reason(lines[-1] if lines else ""), detail, seconds)
    return Evaluation("transport", f"exit:{code}", detail, seconds)


def _harness_verdict(code: int, key: str, stdout: bytes, detail: str, seconds: float) -> Evaluation:
    """The one line signed with the key is the verdict; the harness's exit code must agree with it."""
    signed = []
    for line in stdout.splitlines():
        parts = line.split(b" ")
        if len(parts) == 5 and parts[0] == VERDICT_MARK.encode():
            body = b" ".join(parts[1:4])
            expected = hmac.digest(key.encode("ascii"), body, "sha256").hex().encode()  # OpenSSL's one call
            if hmac.compare_digest(parts[4], expected):
                signed.append(parts[1:4])
    if len(signed) != 1:
        kind = "no_verdict" if code in (0, 1, 3) else f"exit:{code}"
        why = "the property exited before the harness sent a verdict" if not signed else "more than one verdict"
        return Evaluation("transport", kind, detail or why, seconds)
    try:
        outcome, kind = signed[0][0].decode("ascii"), signed[0][1].decode("ascii")
        said = bytes.fromhex(signed[0][2].decode("ascii")).decode("utf-8", errors="replace")
    except ValueError:
        return Evaluation("transport", "no_verdict", "the harness's verdict line is malformed", seconds)
    if outcome == "no_verdict" and code == 3:
        return Evaluation("transport", kind if kind in ("import", "bad_return") else "no_verdict",
                          said[-DETAIL_CHARS:], seconds)
    if outcome == "pass" and code == 0:
        return Evaluation("pass", None, detail, seconds)
    if outcome == "fail" and code == 1 and said:
        return Evaluation("fail", usable_reason(said), detail, seconds)
    return Evaluation("transport", "no_verdict", f"exit {code} disagrees with the verdict {outcome!r}", seconds)
