"""The one gather both shells read through (witness_gate/pipeline/gather.py): what the change gets, a property's pin and
the base commit, from the base side only, the same whether the facts come from git (the CLI) or GitHub (the App)."""

from __future__ import annotations

import json

import pytest

from witness_gate.config.schema import parse_config
from witness_gate.pipeline.discover import PropertyTarget
from witness_gate.model.canonical import patch_digest
from witness_gate.pipeline.gather import Change, Commits, base_of, gathered, pin_from_base, planned
from witness_gate.rules.verdict import Split
from witness_gate.sources.facts import GitSource
from witness_gate.sandbox import Sandbox

CONFIG = parse_config("version: 1\npaths:\n  impl: [\"src/\"]\n  oracle: [\"tests/\"]\n", ".witness.yml")


def target(assertion_id: str, node: str = "") -> PropertyTarget:
    return PropertyTarget(assertion_id, f"tests/properties/x.py::{assertion_id}@abcdefabcdef", "tests/properties/x.py",
                          1, None, node=node)


@pytest.fixture
def source(git_repo, tmp_path):
    git_repo.commit({"tests/fixtures/prop_double.json": '{"fixture": {"x": 2}, "seed": "41"}',
                     "tests/fixtures/prop_broken.json": "{not json", "src/calc.py": "X = 1\n"}, "base")
    base = git_repo.git("rev-parse", "HEAD")
    # the head moves the pin and the code: the gather reads neither
    git_repo.commit({"tests/fixtures/prop_double.json": '{"fixture": {"x": 3}, "seed": "42"}',
                     "src/calc.py": "X = 2\n"}, "head")
    facts = GitSource(git_repo.path)
    yield facts, base
    facts.close()


def test_a_property_is_pinned_to_the_base_s_fixture_and_its_seed(source):
    facts, base = source
    pinned = pin_from_base(facts, base, CONFIG)(target("prop_double"))
    assert (pinned.fixture.payload, pinned.lock.seed, pinned.problem) == ({"x": 2}, "41", "")
    # a seed the run was given comes first
    assert pin_from_base(facts, base, CONFIG, seed="7")(target("prop_double")).lock.seed == "7"


@pytest.mark.parametrize("name, problem", [
    ("prop_missing", "no fixture at tests/fixtures/prop_missing.json on the base commit"),
    ("prop_broken", "tests/fixtures/prop_broken.json (at base "),
])
def test_a_fixture_missing_or_broken_on_the_base_is_said_not_raised(source, name, problem):
    facts, base = source
    pinned = pin_from_base(facts, base, CONFIG)(target(name))
    assert pinned.lock is None and problem in pinned.problem, pinned.problem


def test_a_pytest_test_is_pinned_to_the_empty_payload(source):
    facts, base = source
    pinned = pin_from_base(facts, base, CONFIG, seed="9")(target("tests.test_x.test_one", node="test_one"))
    assert (pinned.fixture.payload, pinned.lock.seed) == ({}, "9")


def test_the_base_is_checked_out_on_first_use_and_not_when_the_oracle_changed(source, tmp_path):
    facts, base = source
    assert base_of(facts, base, CONFIG, oracle_changed=True, sandbox=Sandbox("bwrap"), cache=tmp_path,
                   say=print) is None
    folder = facts.check_out(base)
    assert (folder / "src" / "calc.py").read_text() == "X = 1\n"  # the base's code, not the head's
    assert not (folder / ".git").exists()
    # the sandbox's uid reads it: every folder on the way is open to others (a checkout inside a 0700 scratch
    # folder left the base's set-up and evaluations unable to read it)
    assert all(part.stat().st_mode & 0o005 == 0o005 for part in (folder, *folder.parents))
    facts.close()
    assert not folder.exists()


class Facts:
    """A source of facts as a dict of (path, sha) -> bytes and a list of changed paths, counting what it was asked."""

    def __init__(self, files: dict, changed: list[str] = ()) -> None:
        self.files, self.changed, self.asked = files, list(changed), []

    def file_at(self, path: str, sha: str) -> bytes | None:
        self.asked.append((path, sha))
        return self.files.get((path, sha))

    def changed_paths(self, base_sha: str, head_sha: str) -> list[str]:
        self.asked.append(("changed", base_sha, head_sha))
        return self.changed

    def merge_base(self, base_sha: str, head_sha: str) -> str:
        self.asked.append(("merge_base", base_sha, head_sha))
        return "fork"


def commits_of(facts: Facts, changed: list[str]) -> Commits:
    facts.changed, facts.asked = changed, []
    return Commits(facts, "base", "head")


def test_the_plan_reads_where_the_head_forked_only_for_new_tests_beside_a_fix():
    config = parse_config("version: 1\npaths:\n  impl: [\"src/\"]\n  oracle: [\"tests/\"]\npolicy:\n"
                          "  new_tests: judge_by_base\n", ".witness.yml")
    facts = Facts({("tests/test_old.py", "fork"): b"def test_old(): pass\n"})
    decided, review = planned(commits_of(facts, ["src/calc.py"]), config)
    assert (decided.split.impl, review, facts.asked) == (("src/calc.py",), None, [("changed", "base", "head")])
    decided, _ = planned(commits_of(facts, ["src/calc.py", "tests/test_new.py"]), config)
    assert decided.new_tests == ("tests/test_new.py",)
    assert facts.asked == [("changed", "base", "head"), ("merge_base", "base", "head"), ("tests/test_new.py", "fork")]
    decided, _ = planned(commits_of(facts, ["src/calc.py", "tests/test_old.py"]), config)
    assert decided.label == "mixed_edit"  # an existing test changed beside the code


def test_an_edited_witness_yml_is_read_at_the_head_and_reviewed_beside_the_base_s():
    # the head's own .witness.yml would call the code it changes an oracle path: said, while the base's still gates
    facts = Facts({(".witness.yml", "head"): b"version: 1\npaths:\n  impl: [\"lib/\"]\n  oracle: [\"tests/\", \"src/\"]\n"})
    decided, review = planned(commits_of(facts, [".witness.yml", "src/calc.py"]), CONFIG)
    assert (".witness.yml", "head") in facts.asked and decided.label == "mixed_edit"
    assert review.reclassified == (("src/calc.py", "impl", "oracle"),), review
    facts = Facts({(".witness.yml", "head"): b"version: 2\n"})
    _, review = planned(commits_of(facts, [".witness.yml"]), CONFIG)
    assert review.problems and ".witness.yml (at head head" in review.problems[0][1], review


def test_a_change_s_facts_are_gathered_once_from_either_source_and_travel_whole(git_repo):
    # base moved on after the head forked: the base's current oracle is laid over the head; a module the head adds
    # is named as new (the judge never imports it from the implementation)
    fork = git_repo.commit({"src/calc.py": "X = 1\n", "tests/test_calc.py": "def test_x(): pass\n"}, "fork")
    git_repo.git("checkout", "-q", "-b", "head")
    head = git_repo.commit({"src/calc.py": "X = 2\n", "src/helpers.py": "", "hypothesis.py": ""}, "head")
    git_repo.git("checkout", "-q", "main")
    base = git_repo.commit({"tests/test_calc.py": "def test_x(): assert True\n"}, "base moved on")
    config = parse_config("version: 1\npaths:\n  impl: [\"src/\", \"*.py\"]\n  oracle: [\"tests/\"]\n", ".witness.yml")
    commits = Commits(GitSource(git_repo.path), base, head)
    decided, _ = planned(commits, config)
    assert commits.changed == ["hypothesis.py", "src/calc.py", "src/helpers.py"]  # from the fork, not the base
    change = gathered(commits, config, decided)
    assert (change.head_sha, change.base_sha, change.head_tree) == (head, base, git_repo.git("rev-parse", "head^{tree}"))
    assert change.patch_digest == patch_digest(git_repo.git("rev-parse", "main^{tree}"), change.head_tree)
    assert change.split == Split(impl_changed=True, oracle_changed=False)
    assert change.judged_by == ("tests/", ".witness.yml") and change.new_modules == ("hypothesis", "helpers")
    # the record says where the changed paths were counted from, so a reviewer can list them again
    assert change.fork_sha == fork
    assert change.provenance(tree="t") == {"head_sha": head, "head_tree": change.head_tree, "base_sha": base,
                                           "fork_sha": fork, "tree": "t", "oracle_paths": ["tests/", ".witness.yml"]}
    # what the App keeps in its run's details between jobs is the same change, through JSON
    assert Change.from_details(json.loads(json.dumps(change.as_details()))) == change
    # the head forked off the base itself: its oracle is the base's already, nothing is laid over it
    assert gathered(Commits(GitSource(git_repo.path), fork, head), config, decided).judged_by == ()
