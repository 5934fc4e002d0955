"""The worker's GitHub client against the double over real HTTP: completing a check run, rate limits,
the headers every request carries."""

import os

import pytest

from appcore.settings import RetryPolicy, Settings
from conftest import GitRepo
from worker import checks
from worker.context import Context, complete
from worker.github_api import GitHubError


def settings_for(double, tmp_path, **retry) -> Settings:
    return Settings(app_id=str(double.app_id), private_key=double.private_key_pem, webhook_secret=b"s",
                    api_url=double.url, redis_url=os.environ["WITNESS_TEST_REDIS_URL"],
                    database_url=f"sqlite:///{tmp_path / 'witness.db'}", cache=tmp_path / "cache",
                    retry=RetryPolicy(**{"backoff": 0.01, **retry}))


@pytest.fixture
def repo(double, tmp_path):
    git = GitRepo(tmp_path / "calc")
    git.commit({"src/calc.py": "X = 1\n"}, "base")
    double.add_repo("acme/calc", git.path, installation_id=77)
    return git


@pytest.fixture
def ctx(double, tmp_path, repo):
    context = Context(settings_for(double, tmp_path))
    yield context
    context.redis.flushdb()


def target() -> dict:
    return {"installation_id": 77, "repo": "acme/calc"}


def in_progress_run(ctx, api, head: str) -> str:
    check_id = api.create_check_run(head, {"status": "in_progress"})
    run = ctx.store.add_run(repo="acme/calc", installation_id=77, pr_number=7, head_sha=head, base_sha=head,
                            status="in_progress", check_run_id=check_id, details={})
    return run.id


def test_a_completion_github_refused_is_still_completed_by_the_next_completer(double, ctx, repo):
    api = ctx.api(target())
    head = repo.git("rev-parse", "HEAD")
    run_id = in_progress_run(ctx, api, head)
    double.fail_next("PATCH", "/check-runs/", 422)  # GitHub refused the completing PATCH
    with pytest.raises(GitHubError):
        complete(ctx, api, run_id, checks.render_ended("closed"), "cancelled")
    [run] = double.runs_for(head)
    assert run["status"] == "in_progress"
    # the failure path comes next: it must still be able to end the run
    complete(ctx, api, run_id, checks.render_fault("the completion failed", ctx.details_url(run_id)), "hold")
    assert run["status"] == "completed" and run["conclusion"] == "action_required"
    assert ctx.store.get_run(run_id).status == "completed"
    patches = len(double.calls_to("PATCH", "/check-runs/"))
    complete(ctx, api, run_id, checks.render_ended("closed"), "cancelled")  # and only once
    assert len(double.calls_to("PATCH", "/check-runs/")) == patches
