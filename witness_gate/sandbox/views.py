"""The two views of one checkout: the judge's (the oracle's files only) and the subject's (everything else)."""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from witness_gate.sandbox.staging import make_readable, mark_fixed, stage_root

_NEVER = {".git", "__pycache__", ".artifacts"}


@dataclass(frozen=True)
class Views:
    """Where each side's sandbox finds the checkout, and the implementation's top-level module names."""

    judge: Path
    subject: Path
    modules: tuple[str, ...]

    def remove(self) -> None:
        shutil.rmtree(self.judge, ignore_errors=True)
        shutil.rmtree(self.subject, ignore_errors=True)


def split_checkout(checkout: Path, is_oracle: Callable[[str], bool]) -> Views:
    """Copy each file of `checkout` into one view: an oracle path (a property, a fixture, the config) into the judge's,
    everything else into the subject's. Links stay links; special files and .git are left out."""
    judge = Path(tempfile.mkdtemp(prefix="witness-judge-", dir=stage_root()))
    subject = Path(tempfile.mkdtemp(prefix="witness-subject-", dir=stage_root()))
    for folder, dirs, files in os.walk(checkout):
        dirs[:] = sorted(d for d in dirs if d not in _NEVER and not os.path.islink(os.path.join(folder, d)))
        here = os.path.relpath(folder, checkout)
        links = [d for d in os.listdir(folder) if os.path.islink(os.path.join(folder, d))
                 and os.path.isdir(os.path.join(folder, d))]
        for name in sorted(set(files) | set(links)):
            relpath = os.path.normpath(os.path.join(here, name))
            source = os.path.join(folder, name)
            mode = os.lstat(source).st_mode
            if not (stat.S_ISREG(mode) or stat.S_ISLNK(mode)):
                continue  # a FIFO or device is never opened
            target = (judge if is_oracle(relpath) else subject) / relpath
            target.parent.mkdir(parents=True, exist_ok=True)
            if stat.S_ISLNK(mode):
                os.symlink(os.readlink(source), target)
            else:
                shutil.copyfile(source, target, follow_symlinks=False)
                if mode & 0o111:
                    os.chmod(target, 0o755)
    for view in (judge, subject):
        make_readable(view)
        mark_fixed(view)
    return Views(judge, subject, top_modules(subject))


def top_modules(view: Path) -> tuple[str, ...]:
    """The names `import` finds at the view's root and in its src/: modules, packages and namespace folders."""
    names = set()
    for folder in (view, view / "src"):
        if not folder.is_dir():
            continue
        for entry in os.scandir(folder):
            name = entry.name[:-3] if entry.name.endswith(".py") else entry.name
            if name.isidentifier() and (entry.name.endswith(".py") or entry.is_dir()):
                names.add(name)
    return tuple(sorted(names))
