"""Published projects as their maintainers would adopt the gate (examples/projects/): each made into a git repository
with the .witness.yml `witness-gate init` wrote (make_repo.sh), heads made on it as an agent would push them, and the
gate run on them through the CLI (`run --json`)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from conftest import ROOT, run_cli


def published(project: str, tmp_path_factory) -> Path:
    """examples/projects/<project> as its maintainers would adopt the gate (make_repo.sh): the .witness.yml init wrote."""
    dest = tmp_path_factory.mktemp("projects") / project
    env = {**os.environ, "PYTHONPATH": str(ROOT), "WITNESS_GATE": f"{sys.executable} -m witness_gate"}
    subprocess.run(["bash", str(ROOT / "examples/projects/make_repo.sh"), project, str(dest)], check=True, env=env,
                   capture_output=True, text=True)
    return dest


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True).stdout


def branch(repo: Path, name: str, edits: dict[str, tuple[str, str]], start: str = "main", message: str = "a change"):
    """A head on `start`: each file's text with `old` replaced by `new` (old None: the file is new, holding new)."""
    git(repo, "checkout", "-q", "-b", name, start)
    for path, (old, new) in edits.items():
        target = repo / path
        if old is None:
            target.write_text(new)
        else:
            text = target.read_text()
            assert old in text, (path, old)
            target.write_text(text.replace(old, new))
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message)
    git(repo, "checkout", "-q", "main")


def gate(repo: Path, base: str, head: str, *only: str) -> dict:
    done = run_cli("run", "--base", base, "--head", head, "--out", str(repo.parent / f"out-{head}"), "--json",
                   *(part for pattern in only for part in ("--only", pattern)), cwd=repo)
    assert done.returncode in (0, 1, 3), done.stdout + done.stderr
    return json.loads(done.stdout)
