"""The planner: one pure decision, before anything is fetched or runs, for the CLI and the App alike."""

import pytest

from witness_gate.rules import plan as plans
from witness_gate.config.schema import Config, parse_config
from witness_gate.rules.plan import ConfigReview, review_head_config

CONFIG = parse_config('version: 1\npaths:\n  impl: ["src/"]\n  oracle: ["tests/properties/", "tests/fixtures/"]\n'
                      '  ignore: ["docs/", "**/*.md"]\n')


@pytest.mark.parametrize("changed, label, files", [
    (["src/a.py", "tests/properties/p.py"], "mixed_edit", ("tests/properties/p.py",)),
    (["src/a.py", ".witness.yml"], "mixed_edit", (".witness.yml",)),
    (["docs/x.txt", "README.md"], "skipped", ()),
    ([], "skipped", ()),
])
def test_changes_that_are_refused_before_anything_runs(changed, label, files):
    decided = plans.plan(CONFIG, changed)
    assert isinstance(decided, plans.Refusal)
    assert (decided.label, decided.files) == (label, files)
    assert decided.split is not None and "\n" not in decided.reason


@pytest.mark.parametrize("changed, impl, oracle", [
    (["src/a.py"], True, False),
    (["helpers.py"], True, False),  # outside every pattern: implementation, the split fails closed
    (["tests/properties/p.py", "docs/x.md"], False, True),
])
def test_changes_that_are_gated(changed, impl, oracle):
    decided = plans.plan(CONFIG, changed)
    assert isinstance(decided, plans.Plan)
    assert (decided.split.impl_changed, decided.split.oracle_changed) == (impl, oracle)


BASE_FILES = {"src/a.py", "tests/properties/p.py", "tests/properties/conftest.py", "tests/fixtures/f.json"}


@pytest.mark.parametrize("changed, policy, gated, new", [
    # a fix and a new test beside it: the base's oracle judges the fix, the new test is shown beside it
    (["src/a.py", "tests/properties/p_new.py"], "judge_by_base", True, ("tests/properties/p_new.py",)),
    (["src/a.py", "tests/properties/p_new.py", "tests/fixtures/new.json"], "judge_by_base", True,
     ("tests/properties/p_new.py", "tests/fixtures/new.json")),
    # the articles' strict reading, when the base asks for it
    (["src/a.py", "tests/properties/p_new.py"], "mixed_edit", False, ()),
    # an existing oracle file changed, a rename (its old path existed), configuration added: each could weaken a check
    (["src/a.py", "tests/properties/p.py", "tests/properties/p_new.py"], "judge_by_base", False, ()),
    (["src/a.py", "tests/properties/p.py", "tests/properties/renamed.py"], "judge_by_base", False, ()),
    (["src/a.py", "tests/properties/sub/conftest.py"], "judge_by_base", False, ()),
    (["src/a.py", "tests/fixtures/pytest.ini"], "judge_by_base", False, ()),
    (["src/a.py", ".witness.yml"], "judge_by_base", False, ()),
])
def test_new_tests_beside_a_fix_are_judged_by_the_base_s_oracle(changed, policy, gated, new):
    config = parse_config('version: 1\npaths:\n  impl: ["src/"]\n  oracle: ["tests/properties/", "tests/fixtures/"]\n'
                          f'policy:\n  new_tests: {policy}\n')
    decided = plans.plan(config, changed, lambda path: path in BASE_FILES)
    if not gated:
        assert isinstance(decided, plans.Refusal) and decided.label == "mixed_edit", decided
        return
    assert isinstance(decided, plans.Plan), decided
    assert decided.new_tests == new
    assert (decided.split.impl, decided.split.oracle_changed) == (("src/a.py",), False)
    assert "new_oracle" in plans.new_tests_note(decided.new_tests)
    # without being told what existed, the planner cannot know: a mixed edit
    assert isinstance(plans.plan(config, changed), plans.Refusal)


def test_the_config_is_required_by_the_app_and_defaulted_by_the_cli():
    refused = plans.config_of(None, ".witness.yml", required=True)
    assert isinstance(refused, plans.Refusal) and refused.label == "no_config"
    assert plans.config_of(None, ".witness.yml", required=False) == Config()


def test_an_invalid_config_is_refused_with_its_line_as_a_number():
    refused = plans.config_of(b"version: 1\npolicy:\n  runs: 0\n", ".witness.yml (base abc)", required=True)
    assert isinstance(refused, plans.Refusal) and refused.label == "invalid_config"
    assert refused.line == 3 and refused.files == (".witness.yml",)
    assert refused.problems[0].startswith(".witness.yml (base abc):3: policy.runs: expected an integer >= 1")


# -- a change that edits .witness.yml: the base's still gates, the head's is reviewed ------------------
HEAD_IGNORES_SRC = b"version: 1\npaths:\n  impl: ['lib/']\n  ignore: ['src/']\n"


@pytest.mark.parametrize("raw, changed, expected", [
    (HEAD_IGNORES_SRC, ["src/a.py"], None),  # .witness.yml untouched: nothing to review
    (None, [".witness.yml"], ConfigReview(deleted=True)),
    (b"version: 1\npolicy:\n  runs: many\n", [".witness.yml"],
     ConfigReview(problems=((3, ".witness.yml:3: policy.runs: expected an integer >= 1, got 'many'"),))),
    (b"version: 1\npolicy:\n  bogus: 1\nfreeze:\n  max_hours: -1\n", [".witness.yml"],
     ConfigReview(problems=((3, ".witness.yml:3: policy.bogus: unknown key; allowed here: "
                                "policy.broader_sample, policy.max_evals, policy.max_runs, policy.max_steps, "
                                "policy.min_reruns, policy.new_tests, policy.require_isolation, policy.runs, "
                                "policy.timeout_seconds"),
                            (5, ".witness.yml:5: freeze.max_hours: expected a number > 0, got -1")))),
    (HEAD_IGNORES_SRC, [".witness.yml", "src/a.py", "tests/properties/p.py"],
     ConfigReview(reclassified=(("src/a.py", "impl", "ignored"),))),
    (b"version: 1\n", [".witness.yml", "src/a.py"], ConfigReview()),  # valid, classifies alike
])
def test_the_head_config_is_reviewed_each_problem_at_its_line(raw, changed, expected):
    assert review_head_config(Config(), raw, changed) == expected


@pytest.mark.parametrize("spelling", ["./tests", "tests/./", "tests//", "./tests/"])
def test_an_oracle_path_spelled_another_way_still_holds_the_tests(spelling):
    # `./tests` matched no changed path, so a weakened test beside a regression counted as implementation and
    # passed (found by a reviewer, also through a pytest.ini testpaths `tests/.` that init copied)
    config = parse_config(f'version: 1\npaths:\n  impl: ["src/"]\n  oracle: ["{spelling}"]\n'
                          f'properties:\n  pytest: ["{spelling}"]\n')
    decided = plans.plan(config, ["src/calc.py", "tests/test_calc.py"], lambda path: True)
    assert isinstance(decided, plans.Refusal) and decided.label == "mixed_edit", decided


@pytest.mark.parametrize("pattern", ["/tests/", "../tests/", ".", "./"])
def test_a_pattern_that_can_match_nothing_or_everything_is_refused(pattern):
    with pytest.raises(Exception, match="paths.oracle: expected paths inside the repository"):
        parse_config(f'version: 1\npaths:\n  oracle: ["{pattern}"]\n')
