"""Helpers for the warm-start reviews' attacks (tests/test_warm_attacks_4.py and later): a checkout and a
set-up environment built from text, and one property's verdicts warm and cold."""

from witness_gate.runner import PropertyRunner
from witness_gate.sandbox import Sandbox, stage_directory


def build(tmp_path, repo_files: dict, env_files: dict):
    """A staged checkout and a staged set-up environment from {relpath: text}."""
    staged = []
    for name, files in (("repo", repo_files), ("env", env_files)):
        base = tmp_path / name
        base.mkdir()
        for relpath, text in files.items():
            (base / relpath).parent.mkdir(parents=True, exist_ok=True)
            (base / relpath).write_text(text)
        staged.append(stage_directory(base))
    return staged


def rows(repo, env, selector, payloads, warm, timeout=10):
    runner = PropertyRunner(repo, selector, "17", Sandbox("bwrap"), timeout_seconds=timeout, environment=env,
                            warm=warm, parallel=1)
    try:
        return [(r.outcome, r.reason) for r in (runner(p) for p in payloads)], runner.note
    finally:
        runner.close()


def warm_and_cold(repo, env, selector, payloads, timeout=10):
    warm, note = rows(repo, env, selector, payloads, True, timeout)
    cold, _ = rows(repo, env, selector, payloads, False, timeout)
    return warm, cold, note
