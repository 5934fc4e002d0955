"""What the end-to-end attack tests share: gate a repository's `patch` branch against `main`, quietly, under bubblewrap."""

import os

from witness_gate.sandbox import Sandbox


def gate(repo, out, **options):
    """`local.run` of the `patch` branch against `main` (`options`: its keywords, freezes for one), output dropped."""
    from witness_gate.cli import local
    from witness_gate.cli.report import PlainReporter

    with open(os.devnull, "w") as quiet:
        return local.run(repo.path, "main", "patch", sandbox=Sandbox("bwrap"), out_dir=out,
                         reporter=PlainReporter(quiet), **options)
