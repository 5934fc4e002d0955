"""How pytest starts in the judge for one test: the oracle's own configuration, no cache, Hypothesis seeded from the
pinned seed, and options of plugins the judge does not have left out only where they change nothing it judges."""

from __future__ import annotations

import os
import sys


# options of plugins the judge does not have that change nothing of which tests run or how they are judged: running
# them apart (pytest-xdist), measuring them (pytest-benchmark, pytest-cov's reports), ordering them (pytest-randomly,
# which the judge turns off). Anything else unknown stays, and pytest's refusal holds the test: pytest-timeout's
# `--timeout`, pytest-cov's `--cov-fail-under` or an option that adds tests would judge what the judge cannot (found by
# a reviewer: `--timeout=1` dropped let a head 100 times slower pass)
HARMLESS = frozenset({"-n", "--numprocesses", "--dist", "--maxprocesses", "--max-worker-restart", "--maxschedchunk",
                      "--cov", "--cov-report", "--cov-config", "--cov-branch", "--cov-append", "--cov-context",
                      "--no-cov", "--no-cov-on-fail", "--randomly-seed", "--randomly-dont-reset-seed",
                      "--randomly-dont-reorganize"})
HARMLESS_PREFIXES = ("--benchmark-",)


def _harmless(token: str) -> bool:
    name = token.split("=", 1)[0]
    if name.startswith("-n") and not name.startswith("--") and (name[2:].isdigit() or name[2:] == "auto"):
        return True  # `-n4`, `-nauto`
    return name in HARMLESS or name.startswith(HARMLESS_PREFIXES)


def lenient(pytest, own: int):
    """A plugin that leaves out of the oracle's configuration the options of plugins the judge does not have that
    change nothing of how it judges (HARMLESS: bidict's pytest.ini names pytest-xdist's and pytest-benchmark's,
    pytest-cov's `--cov` is common): the judge runs one test a row with its own trusted plugins. Asked once the
    oracle's conftest.py files are loaded (their options are known then); the gate's own `own` last arguments are
    never touched, and what went is said on stderr (the row's detail). Any other option pytest does not know stays,
    and pytest's usage error holds the test in pytest's words (`refused`)."""

    class Lenient:
        refused = ""  # pytest's usage error, if it would not start

        @pytest.hookimpl(wrapper=True)
        def pytest_cmdline_parse(self, pluginmanager, args):
            try:
                return (yield)
            except pytest.UsageError as exc:
                self.refused = str(exc)
                raise

        @pytest.hookimpl(wrapper=True)
        def pytest_load_initial_conftests(self, early_config, parser, args):
            result = yield
            _, unknown = parser.parse_known_and_unknown_args(list(args))
            configured, dropped, kept, index = args[:len(args) - own], [], [], 0
            unknown = [token for token in unknown if _harmless(token)]
            while index < len(configured):
                token = configured[index]
                if token in unknown:
                    unknown.remove(token)
                    dropped.append(token)
                    following = configured[index + 1] if index + 1 < len(configured) else None
                    if token.startswith("-") and "=" not in token and following is not None and \
                            not following.startswith("-"):
                        dropped.append(following)  # its value (`-n auto`), else a path pytest would try to collect
                        index += 1
                else:
                    kept.append(token)
                index += 1
            if dropped:
                args[:] = kept + args[len(args) - own:]
                print("witness-gate: left out of the oracle's pytest configuration, options of plugins the judge "
                      f"does not have that change nothing it judges: {' '.join(dropped)}", file=sys.stderr)
            return result

    return Lenient()


def seeded_settings() -> None:
    """Hypothesis's CI settings (no deadline: a sandbox's timing is not the test's; no example database; the blob that
    replays a failure printed), drawing from the pinned seed: CI's own derandomize would draw the same examples
    whatever the seed, and a broader sample's second search would repeat the first. A profile the oracle's
    conftest.py loads wins."""
    try:
        from hypothesis import settings
    except ImportError:
        return
    settings.register_profile(SEEDED, parent=settings.get_profile("ci"), derandomize=False)
    settings.load_profile(SEEDED)


SEEDED = "witness-gate"


def arguments(nodeid: str, seed: str) -> list[str]:
    """pytest's command line for `nodeid`: the oracle's own configuration, no cache, Hypothesis seeded."""
    return [nodeid, "-p", "no:cacheprovider", "-p", "no:stepwise", "-p", "no:randomly", "-q", "--no-header",
            "-o", "console_output_style=classic", "--rootdir", os.getcwd(), "--tb=short",
            "-W", "ignore::pytest.PytestAssertRewriteWarning",  # the plugins a warm judge imported before it forked
            f"--hypothesis-seed={_hypothesis_seed(seed)}"]


def _hypothesis_seed(seed: str) -> int:
    """Hypothesis's seed from the pinned one: an integer, the same for every evaluation of a seed."""
    import hashlib

    return int(hashlib.sha256(seed.encode("utf-8")).hexdigest()[:15], 16)
