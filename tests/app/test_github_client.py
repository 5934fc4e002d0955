"""The worker's GitHub client against the double over real HTTP: completing a check run, rate limits,
the headers every request carries."""

import base64
import os
import time

import pytest

from appcore.settings import RetryPolicy, Settings
from conftest import GitRepo
from witness_gate.sources import gitrepo
from worker import checks
from worker.checkout import changed_paths_locally, checkout
from worker.context import Context, complete
from worker.github_api import GitHubError, RateLimited


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


def test_an_installation_token_github_did_not_answer_is_asked_for_again(double, ctx):
    # the token is the first call of every job: a reset connection or a 502 there is retried like any other
    from worker.github_api import installation_token

    double.fail_next("POST", "/access_tokens", 502)
    token = installation_token(ctx.settings, ctx.redis, 77, fresh=True)
    assert token and [c.status for c in double.calls_to("POST", "/access_tokens")][-2:] == [502, 201]
    double.fail_next("POST", "/access_tokens", 404)  # an answer that asking again cannot change
    with pytest.raises(GitHubError, match="installation 77: no token"):
        installation_token(ctx.settings, ctx.redis, 77, fresh=True)


# -- fetching the head exactly (issue 14, item 4) ----------------------------------------------------
ATTRIBUTES = "tests/ export-ignore\nsrc/version.py export-subst\n*.py text eol=crlf\n"


def test_a_head_whose_gitattributes_reshape_archives_is_checked_out_exactly(double, ctx, repo, tmp_path):
    repo.commit({".gitattributes": ATTRIBUTES, "src/version.py": "V = '$Format:%H$'\n",
                 "tests/properties/test_calc.py": "def prop_one(fixture):\n    return True\n"}, "attrs")
    # and a submodule: its commit lives in another repository, never fetched, so no checkout holds it
    repo.git("update-index", "--add", "--cacheinfo", f"160000,{'1' * 40},vendor/lib")
    repo.git("commit", "-q", "-m", "submodule")
    head = repo.git("rev-parse", "HEAD")
    api = ctx.api(target())
    directory, matches = checkout(api, "acme/calc", head, cache=tmp_path / "cache")
    assert matches  # the commit's own tree: patch_digest is the real one, no patch_mismatch
    assert (directory / "tests/properties/test_calc.py").read_bytes() == b"def prop_one(fixture):\n    return True\n"
    assert (directory / "src/version.py").read_text() == "V = '$Format:%H$'\n"
    assert double.calls_to("POST", "/acme/calc.git/git-upload-pack") and not double.calls_to("GET", "/tarball/")
    token = ctx.redis.get("witness:token:4242:77").decode()
    for path in (tmp_path / "cache").rglob("*"):  # the installation token is never written to disk
        assert not path.is_file() or token.encode() not in path.read_bytes(), path


def test_a_fetch_larger_than_its_cap_is_refused_with_the_reason(double, repo, tmp_path):
    repo.commit({"blob.bin": os.urandom(300_000).hex()}, "large")
    store = tmp_path / "store.git"
    gitrepo.git(tmp_path, "init", "-q", "--bare", str(store))
    header = "Authorization: Basic " + base64.b64encode(f"x-access-token:{grant(double)}".encode()).decode()
    with pytest.raises(gitrepo.GitError, match="larger than 0.1 MiB"):
        gitrepo.fetch(store, f"{double.url}/acme/calc.git", [repo.git("rev-parse", "HEAD")], header=header,
                      max_bytes=100_000)
    with pytest.raises(gitrepo.GitError, match="could not read Username"):  # and no token, no code
        gitrepo.fetch(store, f"{double.url}/acme/calc.git", [repo.git("rev-parse", "HEAD")], header="X: y",
                      max_bytes=10**9)


def grant(double) -> str:
    token = "ghs_" + "7" * 36
    double.tokens[token] = (77, time.time() + 600)
    return token


def test_a_git_server_error_is_tried_again(double, ctx, repo, tmp_path):
    double.fail_next("GET", ".git/info/refs", 502)
    _directory, matches = checkout(ctx.api(target()), "acme/calc", repo.git("rev-parse", "HEAD"), cache=tmp_path / "c")
    assert matches and [c.status for c in double.calls_to("GET", ".git/info/refs")] == [502, 200]


# -- rate limits (issue 14, item 5) ----------------------------------------------------------------
SECONDARY = "You have exceeded a secondary rate limit. Please wait a few minutes before you try again."


@pytest.fixture
def pull(double, repo):
    repo.git("checkout", "-q", "-b", "patch")
    repo.commit({"src/calc.py": "X = 2\n"}, "patch")
    double.open_pull("acme/calc", "patch", "main", 7)
    return repo.git("rev-parse", "HEAD")


def test_rate_limit_waits_do_not_use_up_the_tries_against_errors(double, tmp_path, pull):
    ctx = Context(settings_for(double, tmp_path, attempts=1))  # not one retry for errors
    double.fail_next("GET", "/pulls/7", 429, headers={"Retry-After": "1"})
    double.fail_next("GET", "/pulls/7", 403, headers={"Retry-After": "1"})
    assert ctx.api(target()).pull(7).head_sha == pull
    assert [c.status for c in double.calls_to("GET", "/pulls/7")] == [429, 403, 200]


def test_a_secondary_rate_limit_without_headers_defers_the_job_at_least_a_minute(double, ctx, pull):
    double.fail_next("GET", "/pulls/7", 403, message=SECONDARY)
    with pytest.raises(RateLimited) as caught:
        ctx.api(target()).pull(7)
    assert caught.value.retry_in >= 60 and "secondary rate limit" in str(caught.value)
    assert len(double.calls_to("GET", "/pulls/7")) == 1  # no worker slept through the minute


def test_a_primary_rate_limit_waits_until_its_reset(double, ctx, pull):
    reset = int(time.time()) + 600
    double.fail_next("GET", "/pulls/7", 403, headers={"x-ratelimit-remaining": "0", "x-ratelimit-reset": str(reset)},
                     message="API rate limit exceeded for installation ID 77.")
    with pytest.raises(RateLimited) as caught:
        ctx.api(target()).pull(7)
    assert 590 <= caught.value.retry_in <= 600


def test_a_permission_403_is_no_rate_limit(double, ctx, pull):
    double.fail_next("GET", "/pulls/7", 403, message="Resource not accessible by integration")
    with pytest.raises(GitHubError) as caught:
        ctx.api(target()).pull(7)
    assert not isinstance(caught.value, RateLimited) and caught.value.status == 403


def limited_job() -> None:
    raise RateLimited("GET pull 7: 403 You have exceeded a secondary rate limit", 403, 75.0)


def test_a_deferred_job_is_scheduled_again_and_its_dependents_wait(ctx):
    from rq import Queue, SimpleWorker
    from rq.job import Callback, Dependency
    from rq.serializers import JSONSerializer

    from appcore import jobspec

    queue = Queue(f"defer-{os.getpid()}", connection=ctx.redis, serializer=JSONSerializer)
    job = queue.enqueue("test_github_client.limited_job", on_failure=Callback(jobspec.ON_FAILURE))
    after = queue.enqueue("test_github_client.limited_job", depends_on=Dependency(jobs=[job], allow_failure=True))
    started = time.time()
    SimpleWorker([queue], connection=ctx.redis, serializer=JSONSerializer).work(burst=True)
    job.refresh()
    assert job.get_status() == "scheduled" and job.meta["deferrals"] == 1
    at = queue.scheduled_job_registry.get_scheduled_time(job).timestamp()
    assert started + 74 <= at  # the minute GitHub asked for, not now
    assert after.get_status() == "deferred"  # finish_run waits for a deferred property job


# -- smaller, each real (issue 14, item 8) -----------------------------------------------------------
def test_past_3000_files_the_diff_starts_where_the_head_forked(double, ctx, pull, repo, tmp_path):
    repo.git("checkout", "-q", "main")
    tip = repo.commit({"tests/properties/test_calc.py": "def prop_x(fixture):\n    return True\n"}, "main moves on")
    paths = changed_paths_locally(ctx.api(target()), "acme/calc", tip, pull, cache=tmp_path / "c")
    assert paths == ["src/calc.py"]  # main's own edit is not the patch's: no mixed_edit from a moved base
    assert double.calls_to("GET", f"/compare/{tip}...{pull}")


def test_every_request_says_which_api_version_it_reads(double, ctx, pull):
    api = ctx.api(target())
    api.pull(7), api.changed_files(7), api.file_at("src/calc.py", pull), api.repo_id()
    assert double.calls and double.problems == []  # the double flags any request without X-GitHub-Api-Version
