"""The gate's path split fails closed: a path outside impl, oracle and ignore counts as implementation."""

import pytest

from witness_gate.config.schema import Config, parse_config
from witness_gate.rules.path_split import ChangeSplit, split_change, split_change_paths, split_paths
from witness_gate.rules.plan import split_of

IMPL, ORACLE = ("src/",), ("tests/properties/", "tests/fixtures/", ".witness.yml")
DOCS = ("docs/", "**/*.md")


@pytest.mark.parametrize("paths, ignore, expected", [
    (["src/calc.py"], (), (True, False)),
    (["tests/properties/p.py"], (), (False, True)),
    (["src/calc.py", "tests/fixtures/f.json"], (), (True, True)),
    # the harness puts the root and src/ on sys.path: a root module is code under test
    (["helpers.py"], (), (True, False)),
    (["app.py"], DOCS, (True, False)),
    (["lib/util.py"], DOCS, (True, False)),
    (["README.md"], (), (True, False)),  # no ignore list: nothing is ignored
    (["README.md", "docs/guide.rst"], DOCS, (False, False)),
    (["README.md", "helpers.py"], DOCS, (True, False)),  # one unignored path is enough
    (["tests/properties/NOTES.md"], DOCS, (False, True)),  # oracle wins over ignore
    ([".witness.yml"], ("**",), (False, True)),  # the config is always oracle
    (["src/notes.md"], DOCS, (True, False)),  # impl wins over ignore
    ([], DOCS, (False, False)),
])
def test_split_change(paths, ignore, expected):
    assert split_change(paths, IMPL, ORACLE, ignore) == expected


def test_the_split_lists_each_kind_and_a_path_in_impl_and_oracle_is_both():
    split = split_change_paths(["docs/a.md", "helpers.py", "tests/fixtures/f.json", "src/x.py", "src/x.py"],
                               IMPL, ORACLE, DOCS)
    assert split == ChangeSplit(impl=("helpers.py", "src/x.py"), oracle=("tests/fixtures/f.json",),
                                ignored=("docs/a.md",))
    both = split_change_paths(["src/gen.json"], ("src/",), ("**/*.json",))
    assert (both.impl, both.oracle, both.impl_changed and both.oracle_changed) == (("src/gen.json",),
                                                                                  ("src/gen.json",), True)


def test_the_config_splits_with_its_own_patterns():
    config = parse_config("paths:\n  impl: ['src/']\n  oracle: ['spec/']\n  generated: ['gen/']\n"
                          "  ignore: ['docs/', '**/*.md']\n")
    assert config.ignore == ("docs/", "**/*.md")
    assert split_of(config, ["gen/stub.py"]).oracle == ("gen/stub.py",)  # generated counts as oracle
    assert split_of(config, ["gen/README.md"]).oracle == ("gen/README.md",)  # oracle (generated) wins over ignore
    assert split_of(config, ["docs/x.md", "CHANGES.md"]).ignored == ("docs/x.md", "CHANGES.md")
    assert split_of(config, ["setup.py"]).impl == ("setup.py",)
    assert split_of(Config(), ["docs/x.md"]).impl == ("docs/x.md",)  # default: ignore nothing


def test_the_articles_split_paths_keeps_its_own_semantics():
    # article 001's function is untouched: a path outside both lists is neither
    assert split_paths(["README.md"]) == (False, False)
    assert split_paths(["helpers.py"], IMPL, ORACLE) == (False, False)
    assert split_change(["helpers.py"], IMPL, ORACLE) == (True, False)
