"""What the end-to-end review tests share: gate a repository's `patch` branch against `main`, quietly, under bubblewrap."""

import os

from witness_gate import shadowing
from witness_gate.sandbox import Sandbox

# a package the sandbox's interpreter has installed, for the shadowing attacks: PyYAML, from the system's python3-yaml
YAML_INSTALLED = "yaml" in shadowing.installed_names(Sandbox("bwrap").python, None)


def gate(repo, out, **options):
    """`local.run` of the `patch` branch against `main` (`options`: its keywords, freezes for one), output dropped."""
    from witness_gate import local
    from witness_gate.report import PlainReporter

    with open(os.devnull, "w") as quiet:
        return local.run(repo.path, "main", "patch", sandbox=Sandbox("bwrap"), out_dir=out,
                         reporter=PlainReporter(quiet), **options)
