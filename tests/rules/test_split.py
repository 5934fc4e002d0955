"""The path split: prefixes, globs, and the config's own oracle paths."""

import pytest

from witness_gate.config.schema import parse_config
from witness_gate.rules.path_split import path_matches, split_paths


@pytest.mark.parametrize("path, pattern, matches", [
    ("src/a.py", "src/", True),
    ("srcx/a.py", "src/", False),
    ("lib/src/a.py", "src/", False),  # a prefix anchors at the root
    ("src/deep/a.py", "**/*.py", True),
    ("a.py", "**/*.py", True),
    ("a.pyc", "**/*.py", False),
    ("src/a.py", "src/*.py", True),
    ("src/deep/a.py", "src/*.py", False),  # one star stays in one directory
    ("src/deep/a.py", "src/**", True),
    ("tests/test_x.py", "tests/test_?.py", True),
    ("tests/test_xy.py", "tests/test_?.py", False),
    ("gen/a_pb2.py", "gen/*_pb[0-9].py", True),
    (".witness.yml", ".witness.yml", True),
])
def test_path_matches(path, pattern, matches):
    assert path_matches(path, pattern) is matches


def test_split_with_the_configs_patterns():
    config = parse_config("paths:\n  impl: ['src/', 'lib/**/*.c']\n  oracle: ['spec/']\n  generated: ['gen/']\n")
    split = lambda paths: split_paths(paths, config.impl, config.oracle_patterns)  # noqa: E731
    assert split(["lib/x/y.c"]) == (True, False)
    assert split(["gen/stub.py"]) == (False, True)  # generated stubs count as oracle
    assert split([".witness.yml"]) == (False, True)  # the config itself is always oracle
    assert split(["docs/readme.md"]) == (False, False)
    assert split(["src/a.py", "spec/p.py"]) == (True, True)
