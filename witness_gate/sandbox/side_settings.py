"""What each side of an evaluation starts with: its command line, environment, mounts and limits.

A part of `PropertyRunner` (witness_gate/sandbox/runner.py), whose fields these read."""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path

from witness_gate.sandbox import ENV_MOUNT, JUDGE_SITE_MOUNT, Limits, Mount
from witness_gate.sandbox.judge.tests import is_test
from witness_gate.sandbox.sides import hash_seed
from witness_gate.sandbox.staging import judge_site
from witness_gate.sandbox.views import Views


class SideSettings:
    """The judge's and the subject's settings for every evaluation of one property."""

    def _limits(self) -> Limits:
        return replace(self.limits, cpu_seconds=math.ceil(self.timeout_seconds) + 1)

    def _side_settings(self, views: Views, inbox: Path) -> tuple[dict, dict, tuple[Mount, ...]]:
        """(the judge's environment, the subject's, the subject's mounts) of every evaluation of this property."""
        base = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "PYTHONHASHSEED": hash_seed(self.seed),
                "PYTHONBREAKPOINT": "0", "WITNESS_SEED": self.seed}
        mounts = self._mounts()
        subject_env = dict(base)
        if mounts:
            seen = self.sandbox.seen(mounts[0])
            subject_env.update(WITNESS_ENV=seen, PATH=f"{seen}/bin:{base['PATH']}")
        judge_env = {**base, **({"WITNESS_SEARCH_SEED": self.search_seed} if self.search_seed else {}),
                     "WITNESS_PROPERTY": self.selector, "WITNESS_SUBJECT_MODULES": ",".join(views.modules),
                     "WITNESS_NEW_MODULES": ",".join(self.new_modules), "WITNESS_TIMEOUT": str(self.timeout_seconds)}
        if self.judge_environment is not None:
            judge_env["WITNESS_ENV"] = self.sandbox.seen(self._judge_mounts()[0])
        if self._site_mounts():
            judge_env["WITNESS_JUDGE_SITE"] = self.sandbox.seen(self._site_mounts()[0])
            # Hypothesis's CI settings, read when it is imported: no deadline (a sandbox's timing is not the test's),
            # and a failure prints the @reproduce_failure that replays it; a profile the oracle's conftest.py loads wins
            judge_env["CI"] = "true"
        return judge_env, subject_env, mounts

    def _side(self, which: str) -> list[str]:
        return [self.sandbox.python, "-P", "-s", "-B", self.sandbox.gate_file(f"sandbox/{which}/main.py")]

    def _mounts(self) -> tuple[Mount, ...]:
        """The set-up's environment, read-only at /env, when there is one."""
        return (Mount(self.environment, ENV_MOUNT),) if self.environment is not None else ()

    def _judge_mounts(self) -> tuple[Mount, ...]:
        """The trusted set-up's environment, read-only at /env in the judge, when there is one."""
        return (Mount(self.judge_environment, ENV_MOUNT),) if self.judge_environment is not None else ()

    def _site_mounts(self) -> tuple[Mount, ...]:
        """The gate's own pytest and Hypothesis, read-only in the judge, when the run gates pytest tests (never
        settled: they are the gate's installed files, linked)."""
        site = judge_site() if self.tests or is_test(self.selector) else None
        return (Mount(site, JUDGE_SITE_MOUNT),) if site is not None else ()
