"""What one evaluation came to, read into an `Evaluation`: a fault, a signal, the exit code of the runner protocol
(a command), or the judge's one verdict line (a Python property)."""

from __future__ import annotations

import json
import signal

from witness_gate.model.evaluation import Evaluation
from witness_gate.model.reasons import usable_reason
from witness_gate.sandbox.processes import Finished

DETAIL_CHARS = 2000
OBSERVED_CHARS = 1000  # of what the judge saw fail, kept in each row of the record


def verdict_of_process(done: Finished) -> Evaluation:
    """The evaluation a runner-protocol command's finished process (`done`) came to."""
    detail = done.stderr.decode("utf-8", errors="replace")[-DETAIL_CHARS:]
    if done.fault:
        return Evaluation("transport", done.fault, detail, done.seconds)
    if done.code < 0:
        return Evaluation("transport", f"signal:{_signal_name(-done.code)}", detail, done.seconds)
    return _protocol_verdict(done.code, done.stdout, detail, done.seconds)


def verdict_of_judge(judge: Finished, subject: Finished, isolation: str) -> Evaluation:
    """The evaluation a judge came to: its one JSON line, which its exit code must agree with. The subject's end
    decides nothing; its stderr is only shown to people."""
    said = subject.stderr.decode("utf-8", errors="replace")
    detail = (judge.stderr.decode("utf-8", errors="replace") + (f"\n[implementation]\n{said}" if said else ""))
    detail = detail[-DETAIL_CHARS:]
    if judge.fault:
        return Evaluation("transport", judge.fault, detail, judge.seconds, isolation)
    if judge.code < 0:
        return Evaluation("transport", f"signal:{_signal_name(-judge.code)}", detail, judge.seconds, isolation)
    lines = judge.stdout.splitlines()
    try:
        verdict = json.loads(lines[0]) if len(lines) == 1 else None
    except ValueError:
        verdict = None
    expected = {"pass": 0, "fail": 1, "transport": 3}
    if not isinstance(verdict, dict) or expected.get(verdict.get("outcome")) != judge.code:
        return Evaluation("transport", "no_verdict" if judge.code in (0, 1, 3) else f"exit:{judge.code}",
                          detail or "the judge ended without a verdict", judge.seconds, isolation)
    outcome, reason = verdict["outcome"], str(verdict.get("reason") or "")
    imports = tuple(str(name) for name in verdict.get("imports") or ())[:100]
    sample = verdict.get("sample") if type(verdict.get("sample")) is int else None  # the judge's, in a sample row
    failed = _indices(verdict.get("failed"))
    if outcome == "pass":
        return Evaluation("pass", None, detail, judge.seconds, isolation, imports, sample=sample, failed=failed,
                          searched=verdict.get("searched") is True)
    if outcome == "fail":  # what the judge observed (an assertion's message) ends the detail too
        observed = str(verdict.get("detail") or "")[:OBSERVED_CHARS]
        if observed and observed not in detail:
            detail = (detail + "\n" + observed).strip()[-DETAIL_CHARS:]
        return Evaluation("fail", usable_reason(reason), detail, judge.seconds, isolation, imports,
                          observed=observed, example=_example(verdict.get("witness")),
                          unsteady=verdict.get("unsteady") is True, sample=sample, failed=failed,
                          other_examples=_others(verdict.get("others")))
    said = str(verdict.get("detail") or "")  # the judge's own why (a test it could not collect), kept like a failure's
    return Evaluation("transport", reason or "no_verdict", (said + "\n" + detail).strip(), judge.seconds, isolation,
                      imports, observed=said[:OBSERVED_CHARS], sample=sample, failed=failed)


def _indices(said) -> tuple[int, ...] | None:
    """A sample row's failed inputs as the judge named them: indices in rising order, else None."""
    if type(said) is not list or not all(type(i) is int for i in said) or said != sorted(set(said)):
        return None
    return tuple(said)


def _example(said) -> dict | None:
    """A Hypothesis example as the judge recorded it (witness_gate.sandbox.judge.examples), or None."""
    from witness_gate.sandbox.judge.examples import recorded

    return dict(said) if recorded(said) else None


def _others(said) -> tuple[dict, ...]:
    """The other examples an unsteady search saw fail, as the judge recorded them: at most MAX_OTHERS, else none."""
    from witness_gate.sandbox.judge.examples import MAX_OTHERS

    if type(said) is not list or len(said) > MAX_OTHERS:
        return ()
    found = [_example(item) for item in said]
    return tuple(found) if all(found) else ()


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
