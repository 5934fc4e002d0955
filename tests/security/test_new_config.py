"""A head's own .witness.yml, reviewed beside the result (never gating): parsed in bounded time and space."""


def test_a_head_s_witness_yml_of_nested_aliases_is_refused_at_the_first_alias():
    # each line nine aliases of the one before: 9^n strings once a problem prints the value (9 lines: gigabytes
    # in the worker, outside any sandbox); four lines show the rule without the cost
    from witness_gate.config.schema import Config
    from witness_gate.rules.plan import review_head_config

    lines = ["version: 1", "bomb:", '  a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    lines += [f"  a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, 4)]
    lines += ["properties:", "  names: *a3"]
    review = review_head_config(Config(), "\n".join(lines).encode(), [".witness.yml"])
    [(line, problem)] = review.problems
    assert line == 4 and "an alias (*name) is not allowed here" in problem, review.problems


def test_a_huge_new_witness_yml_is_reviewed_in_a_bounded_answer():
    # 100,000 unknown keys were 100,000 problems (11 MB kept with the run and rendered), a long list one problem
    # that printed the whole value; a file past the cap is not parsed at all
    from witness_gate.config.schema import Config
    from witness_gate.rules.plan import HEAD_CONFIG_BYTES, PROBLEM_CHARS, REVIEW_PROBLEMS, review_head_config

    many = ("version: 1\n" + "".join(f"k{i}: 1\n" for i in range(2000))).encode()
    review = review_head_config(Config(), many, [".witness.yml"])
    assert len(review.problems) == REVIEW_PROBLEMS + 1 and "1950 more problems not shown" in review.problems[-1][1]
    long = ("version: 1\nproperties:\n  names: [" + ", ".join(["x"] * 5000) + "]\n").encode()
    [(_line, problem)] = review_head_config(Config(), long, [".witness.yml"]).problems
    assert len(problem) <= PROBLEM_CHARS
    [(_line, problem)] = review_head_config(Config(), b"#" * (HEAD_CONFIG_BYTES + 1), [".witness.yml"]).problems
    assert "more than a .witness.yml may hold" in problem
