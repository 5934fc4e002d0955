"""`.witness.yml`: defaults, valid documents, and the exact error for each invalid one."""

import pytest

from witness_gate.config.schema import CONFIG_NAME, Config, ConfigError, parse_config

SPEC_EXAMPLE = """\
version: 1
paths:
  impl: ["src/"]                         # required; "dir/" prefixes or globs ("**/*.py")
  oracle: ["tests/properties/", "tests/fixtures/"]   # required
  generated: []                          # regenerated stubs: counted as oracle paths
  ignore: []                             # e.g. ["docs/", "**/*.md"]: changes here alone are `skipped`;
                                         # any other path outside impl and oracle counts as impl
properties:
  dir: tests/properties
  command: null                          # optional runner-protocol command (list of args)
  fixtures: {"*": tests/fixtures/orders.json}   # assertion id or "*" -> fixture file
  seed: "17"
  generator_version: 1
  contracts: {}                          # assertion id -> {invariant, domain}
policy:
  runs: 5
  min_reruns: 3                          # >= 2
  max_steps: 32
  max_evals: 2000
  timeout_seconds: 60                    # per evaluation
freeze:
  expires_in_hours: null                 # proposed expiry; null: a person supplies it
  max_hours: 168                         # longer expiries are refused
conclusions: {}                          # optional per-label override of §7
"""


def test_the_specs_example_parses():
    config = parse_config(SPEC_EXAMPLE)
    assert config.impl == ("src/",)
    assert config.fixture_for("prop_anything") == "tests/fixtures/orders.json"
    assert config.seed == "17" and config.runs == 5 and config.expires_in_hours is None
    assert config.ignore == ()


def test_embedded_defaults():
    config = Config()
    assert parse_config("") == Config(source=CONFIG_NAME)
    assert config.oracle_patterns[-1] == ".witness.yml"  # the config is always an oracle path
    assert config.fixture_for("prop_x") == "tests/fixtures/prop_x.json"
    assert (config.runs, config.min_reruns, config.max_steps, config.max_evals) == (5, 3, 32, 2000)


@pytest.mark.parametrize("text, field, value", [
    ("properties:\n  seed: 17\n", "seed", "17"),  # an unquoted seed is still a string
    ("paths:\n  generated: ['gen/**/*.py']\n", "oracle_patterns",
     ("tests/properties/", "tests/fixtures/", "gen/**/*.py", ".witness.yml")),
    ("properties:\n  command: ['./prop.sh', '--fast']\n", "command", ("./prop.sh", "--fast")),
    ("properties:\n  command: [node, run.js]\n  names: [total_ok, receipt-lines]\n", "names",
     ("total_ok", "receipt-lines")),
    ("properties:\n  command: [node, run.js]\n", "names", ()),  # no names: the command lists them
    ("properties:\n  contracts:\n    prop_x: {invariant: 'x >= 0', domain: 'ints'}\n", "contracts",
     {"prop_x": {"invariant": "x >= 0", "domain": "ints"}}),
    ("freeze:\n  expires_in_hours: 24\n", "expires_in_hours", 24),
    ("conclusions: {flake: failure}\n", "conclusions", {"flake": "failure"}),
    ("policy:\n  timeout_seconds: 0.5\n", "timeout_seconds", 0.5),
    ("policy:\n", "runs", 5),  # an empty section keeps the defaults
    ("setup:\n  requirements: requirements.txt\n", "setup_requirements", "requirements.txt"),
    ("setup:\n  command: [sh, -c, 'pip install --target \"$WITNESS_ENV\" .']\n", "setup_command",
     ("sh", "-c", 'pip install --target "$WITNESS_ENV" .')),
    ("setup:\n  timeout_seconds: 120\n", "setup_timeout_seconds", 120),
    ("version: 1\n", "setup_requirements", None),  # no set-up unless asked for
    ("version: 1\n", "ignore", ()),  # nothing is ignored unless asked for
    ("paths:\n  ignore: ['docs/', '**/*.md']\n", "ignore", ("docs/", "**/*.md")),
    ("paths:\n  ignore: null\n", "ignore", ()),
])
def test_valid(text, field, value):
    assert getattr(parse_config(text), field) == value


@pytest.mark.parametrize("text, error", [
    ("version: 2\n", ".witness.yml:1: version: expected 1 (the only version there is), got 2"),
    ("policy:\n  runs: five\n", ".witness.yml:2: policy.runs: expected an integer >= 1, got 'five'"),
    ("policy:\n  runs: 0\n", ".witness.yml:2: policy.runs: expected an integer >= 1, got 0"),
    ("policy:\n  runs: true\n", ".witness.yml:2: policy.runs: expected an integer >= 1, got True"),
    ("policy:\n  min_reruns: 1\n", ".witness.yml:2: policy.min_reruns: expected an integer >= 2, got 1"),
    ("policy:\n  timeout_seconds: -1\n", ".witness.yml:2: policy.timeout_seconds: expected a number > 0, got -1"),
    ("policy:\n  runz: 5\n", ".witness.yml:2: policy.runz: unknown key; allowed here: policy.broader_sample, "
     "policy.max_evals, policy.max_runs, policy.max_steps, policy.min_reruns, policy.new_tests, "
     "policy.require_isolation, policy.runs, policy.timeout_seconds"),
    ("polcy:\n  runs: 5\n", ".witness.yml:1: polcy: unknown key; allowed here: conclusions, freeze, paths, "
     "policy, properties, setup, version"),
    ("setup:\n  requirements: /etc/passwd\n", ".witness.yml:2: setup.requirements: expected a path inside the "
     "repository (no leading '/', no '..'), got '/etc/passwd'"),
    ("setup:\n  command: pip install .\n", ".witness.yml:2: setup.command: expected null or a list of "
     "arguments, like [\"./run-property.sh\"], got 'pip install .'"),
    ("setup:\n  requirements: r.txt\n  command: [make]\n", ".witness.yml:3: setup.command: give "
     "setup.requirements or setup.command, not both (a command can install the requirements itself)"),
    ("setup:\n  timeout_seconds: 0\n", ".witness.yml:2: setup.timeout_seconds: expected a number > 0, got 0"),
    ("setup:\n  run: make\n", ".witness.yml:2: setup.run: unknown key; allowed here: setup.command, "
     "setup.requirements, setup.timeout_seconds"),
    ("paths:\n  impl: src/\n", '.witness.yml:2: paths.impl: expected a list of path prefixes or globs, like '
     '["src/"] or ["**/*.py"], got \'src/\''),
    ("paths: [src]\n", ".witness.yml:1: paths: expected a mapping of settings, got ['src']"),
    ("paths:\n  ignore: docs/\n", '.witness.yml:2: paths.ignore: expected a list of path prefixes or globs, '
     'like ["docs/", "**/*.md"], got \'docs/\''),
    ("version: 1\npaths:\n  impl: [src/]\n  ignore: [docs/, 3]\n", '.witness.yml:4: paths.ignore: expected a '
     'list of path prefixes or globs, like ["docs/", "**/*.md"], got [\'docs/\', 3]'),
    ("paths:\n  ignore: ['']\n", '.witness.yml:2: paths.ignore: expected a list of path prefixes or globs, '
     'like ["docs/", "**/*.md"], got [\'\']'),
    ("paths:\n  ignored: [docs/]\n", ".witness.yml:2: paths.ignored: unknown key; allowed here: "
     "paths.generated, paths.ignore, paths.impl, paths.oracle"),
    ("properties:\n  dir: /etc\n", ".witness.yml:2: properties.dir: expected a path inside the repository "
     "(no leading '/', no '..'), got '/etc'"),
    ("properties:\n  fixtures: {'*': ../secret.json}\n", ".witness.yml:2: properties.fixtures: expected a path "
     "inside the repository (no leading '/', no '..'), got {'*': '../secret.json'}"),
    ("properties:\n  seed: ''\n", ".witness.yml:2: properties.seed: expected a non-empty string, got ''"),
    ("properties:\n  names: [total_ok]\n", ".witness.yml:2: properties.names: names runner-protocol "
     "properties, but properties.command is not set; set the command that runs them (Python prop_* functions "
     "are found without a list)"),
    ("properties:\n  command: [sh, p.sh]\n  names: ['a b']\n", ".witness.yml:3: properties.names: expected "
     "property names of a letter, then letters, digits, '_' or '-' (at most 100); 'a b' is not one, got ['a b']"),
    ("properties:\n  command: [sh, p.sh]\n  names: [a, a]\n", ".witness.yml:3: properties.names: expected "
     "each name once; ['a'] repeat, got ['a', 'a']"),
    ("properties:\n  command: ./prop.sh\n", ".witness.yml:2: properties.command: expected null or a list of "
     "arguments, like [\"./run-property.sh\"], got './prop.sh'"),
    ("properties:\n  contracts:\n    prop_x: {invariant: 'x'}\n", ".witness.yml:2: properties.contracts: "
     "expected a mapping of assertion id to {invariant: ..., domain: ...}; 'prop_x' has ['invariant'], "
     "got {'prop_x': {'invariant': 'x'}}"),
    ("conclusions: {flake: green}\n", ".witness.yml:1: conclusions: expected conclusions among success, "
     "neutral, skipped, failure, action_required; 'green' is not one, got {'flake': 'green'}"),
    ("policy:\n  runs: 2\n", ".witness.yml:2: policy.runs: 2 replays are fewer than policy.min_reruns (3); "
     "raise runs or lower min_reruns"),
    ("freeze:\n  expires_in_hours: 500\n", ".witness.yml:2: freeze.expires_in_hours: 500 is longer than "
     "freeze.max_hours (168)"),
    ("version: 1\nversion: 1\n", ".witness.yml:2: version: duplicate key"),
    ("- a\n- b\n", ".witness.yml:1: expected a mapping at the top"),
    ("paths:\n  impl: [src/\n", ".witness.yml:3: not valid YAML (expected ',' or ']', but got '<stream end>')"),
    ("a: *missing\n", ".witness.yml:1: not valid YAML (an alias (*name) is not allowed here; write the value "
                      "out in full)"),
    (b"version: \xff\n", ".witness.yml: not UTF-8 text (byte 9); save it as UTF-8"),
])
def test_invalid(text, error):
    with pytest.raises(ConfigError) as caught:
        parse_config(text)
    assert str(caught.value) == error


def test_every_problem_is_reported_at_once():
    with pytest.raises(ConfigError) as caught:
        parse_config("policy:\n  runs: x\n  max_steps: -1\nfreeze:\n  max_hours: 0\n", "repo/.witness.yml")
    assert caught.value.problems == [
        "repo/.witness.yml:2: policy.runs: expected an integer >= 1, got 'x'",
        "repo/.witness.yml:3: policy.max_steps: expected an integer >= 0, got -1",
        "repo/.witness.yml:5: freeze.max_hours: expected a number > 0, got 0",
    ]


def test_the_guide_documents_every_key_of_the_schema():
    from conftest import ROOT
    from witness_gate.config.schema import SCHEMA

    guide = (ROOT / "docs" / "GUIDE.md").read_text(encoding="utf-8")
    section = guide.split("## `.witness.yml`", 1)[1].split("\n## ", 1)[0]
    rows = {line.split("|")[1].strip().strip("`") for line in section.splitlines() if line.startswith("| `")}
    assert rows == {key for key, *_ in SCHEMA}
    for doc in (ROOT / "README.md", ROOT / "docs" / "GUIDE.md"):
        assert "../shared/" not in doc.read_text(encoding="utf-8")  # the repository stands on its own
