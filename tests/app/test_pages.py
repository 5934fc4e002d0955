"""The admin and record pages, rendered by the bot and read in a real headless Chromium."""

import shutil

import pytest
import requests
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By

from test_freeze_ledger import flaky_pull, latest, say
from test_app import gate

ADMIN_TOKEN = ADMIN_TOKEN = TOKEN = "admin-token-for-tests"  # turns the admin pages on for this module's stack


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    assert shutil.which("chromium") and shutil.which("chromedriver"), \
        "install chromium and chromium-driver (scripts/setup.sh --dev does)"
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium")
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--window-size=1280,1000", f"--user-data-dir={tmp_path_factory.mktemp('chromium')}"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=options)
    yield driver
    driver.quit()


def test_admin_and_record_pages_in_a_browser(stack, double, browser, tmp_path):
    name, _ = flaky_pull(double, tmp_path)
    run, head = gate(stack, double, name)
    say(stack, double, name, "/witness freeze accept 24h", comment_id=4242)
    stack.wait_until(lambda: latest(double, head)["conclusion"] == "neutral", what="frozen")
    frozen = latest(double, head)  # the head gated again beside the freeze: a check run of its own

    browser.get(f"{stack.url}/admin?token={TOKEN}")
    rows = browser.find_elements(By.CSS_SELECTOR, "#freezes tr")
    [coin] = [r.text for r in rows if "prop_coin" in r.text and name in r.text]
    assert "accepted" in coin and "@maintainer" in coin and "23h 59m" in coin
    assert any(name in r.text for r in browser.find_elements(By.CSS_SELECTOR, "#runs tr"))
    assert any("prop_coin" in r.text for r in browser.find_elements(By.CSS_SELECTOR, "#recent-attempts tr"))
    browser.save_screenshot(str(tmp_path / "admin.png"))

    browser.get(run["details_url"])  # the run gated before the accept stands as it ran: never relabelled frozen
    assert browser.find_element(By.ID, "label").text == "hold"  # a flake whose expiry the accept supplied
    browser.get(frozen["details_url"])  # the check run's details link: the gate run's page
    assert browser.find_element(By.ID, "label").text == "frozen"
    browser.find_element(By.LINK_TEXT, "prop_coin").click()
    assert browser.find_element(By.ID, "label").text == "frozen"  # as it stands now, not as it ran
    assert "by @maintainer" in browser.find_element(By.ID, "identifiers").text
    marks = browser.find_elements(By.CSS_SELECTOR, "#strip rect.mark")
    assert len(marks) == 20
    classes = {m.get_attribute("class") for m in marks}
    assert classes == {"mark pass", "mark fail"}  # a flake: both kinds in one series
    assert browser.find_element(By.ID, "witness").text == "{}"
    identifiers = browser.find_element(By.ID, "identifiers").text
    assert "witness_hash" in identifiers and "fixture_digest" in identifiers and "property_id" in identifiers
    browser.save_screenshot(str(tmp_path / "record.png"))


def test_admin_pages_need_the_token(stack):
    assert requests.get(f"{stack.url}/admin", timeout=5).status_code == 401
    assert requests.get(f"{stack.url}/admin?token=wrong", timeout=5).status_code == 401
    ok = requests.get(f"{stack.url}/admin", headers={"Authorization": f"Bearer {TOKEN}"}, timeout=5)
    assert ok.status_code == 200 and "text/html" in ok.headers["Content-Type"]


def test_a_record_is_json_for_programs_and_html_for_people(stack, double, tmp_path):
    name, _ = flaky_pull(double, tmp_path)
    run, _ = gate(stack, double, name)
    as_json = requests.get(run["details_url"], timeout=5)
    assert as_json.headers["Content-Type"].startswith("application/json") and as_json.json()["kind"] == "gate_run"
    as_html = requests.get(run["details_url"], headers={"Accept": "text/html"}, timeout=5)
    assert as_html.headers["Content-Type"].startswith("text/html") and "<svg" in as_html.text


# -- repo-controlled text on the pages (no browser, no stack) ------------------------------------
def test_a_record_page_escapes_what_the_repository_wrote():
    from flask import Flask

    from bot.pages import record_page

    evil = "<script>alert(1)</script>\u202e\n\x1b[2K"
    record = {"record_id": "r1", "label": "regression", "assertion_id": evil, "reason": evil, "notes": [evil],
              "hold_reasons": [evil], "witness": {"x": evil}, "failures": 1, "runs": 1, "seed": evil,
              "replays": [{"outcome": "fail", "reason": evil}, {"outcome": "<b>x", "reason": evil}]}
    with Flask(__name__).app_context():
        html = record_page(record)
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert "\u202e" not in html and "\x1b" not in html and "\\u202e" in html
    assert 'class="mark transport"' in html and "<b>x" not in html  # an unknown outcome is no class name
