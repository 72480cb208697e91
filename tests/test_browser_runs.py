"""A browser check is skipped only when everything it read is byte for byte what it read when it
passed (``tests/browser_runs.py``). No browser needed: the records are files."""

from __future__ import annotations

import json

import pytest

from tests import browser_runs

BASE = "http://127.0.0.1:8123/"


@pytest.fixture
def site(tmp_path, monkeypatch):
    """A small built site, and the records kept in a folder of this test's own."""
    monkeypatch.setattr(browser_runs, "RUNS_DIR", tmp_path / "runs")
    site = tmp_path / "site"
    for rel, text in {"page/index.html": "<h1>Page</h1>", "stylesheets/extra.css": "p {}",
                      "figures/a-light.svg": "<svg/>", "search/search_index.json": "{}"}.items():
        (site / rel).parent.mkdir(parents=True, exist_ok=True)
        (site / rel).write_text(text)
    return site


def fetched(*urls: str) -> set[str]:
    return {path for url in urls if (path := browser_runs.site_path(url, BASE))}


def test_a_url_names_the_file_the_server_sent():
    assert browser_runs.site_path(BASE, BASE) == "index.html"
    assert browser_runs.site_path(BASE + "page/", BASE) == "page/index.html"
    assert browser_runs.site_path(BASE + "figures/a-light.svg#only-light", BASE) == \
        "figures/a-light.svg"
    assert browser_runs.site_path(BASE + "x%20y.css?v=2", BASE) == "x y.css"
    assert browser_runs.site_path("http://127.0.0.1:9999/page/", BASE) is None
    assert browser_runs.site_path("https://example.com/a.js", BASE) is None
    assert browser_runs.site_path("data:image/png;base64,AAAA", BASE) is None


def test_a_check_is_skipped_only_while_every_file_it_read_is_unchanged(site):
    read = fetched(BASE + "page/", BASE + "stylesheets/extra.css",
                   BASE + "figures/a-light.svg#only-light", BASE + "search/search_index.json")
    assert not browser_runs.passed_before("page.md", site), "no record yet"
    browser_runs.remember("page.md", site, read)
    assert browser_runs.passed_before("page.md", site)
    for rel in ["page/index.html", "stylesheets/extra.css", "figures/a-light.svg"]:
        before = (site / rel).read_bytes()
        (site / rel).write_bytes(before + b" ")
        assert not browser_runs.passed_before("page.md", site), f"{rel} changed"
        (site / rel).write_bytes(before)
        assert browser_runs.passed_before("page.md", site), f"{rel} is back as it was"
    (site / "figures/a-light.svg").unlink()
    assert not browser_runs.passed_before("page.md", site), "a file it read is gone"


def test_the_search_index_is_no_part_of_a_page_check(site):
    """Every page's text is in it: a page check keyed on it would run again after any edit.
    Searching is tested on its own, every run (test_search_finds_every_page_by_its_title)."""
    read = fetched(BASE + "page/", BASE + "search/search_index.json")
    browser_runs.remember("page.md", site, read)
    (site / "search/search_index.json").write_text('{"docs": []}')
    assert browser_runs.passed_before("page.md", site)


def test_other_checks_chromium_or_packages_run_it_again(site):
    """A record made under another :func:`browser_runs.check_key` (the test code, Chromium, the
    installed packages) does not count; nor does a record that cannot be read."""
    browser_runs.remember("page.md", site, fetched(BASE + "page/"))
    record = browser_runs.RUNS_DIR / "page.md.json"
    saved = json.loads(record.read_text())
    record.write_text(json.dumps({**saved, "check": "0" * 64}))
    assert not browser_runs.passed_before("page.md", site)
    record.write_text("{")
    assert not browser_runs.passed_before("page.md", site)


def test_the_check_key_covers_the_check_code(tmp_path):
    for rel in browser_runs.CHECK_CODE:
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text("x = 1\n")
    before = browser_runs.check_key(tmp_path)
    for rel in browser_runs.CHECK_CODE:
        browser_runs.check_key.cache_clear()
        (tmp_path / rel).write_text("x = 2\n")
        assert browser_runs.check_key(tmp_path) != before, f"{rel} is not in the key"
        (tmp_path / rel).write_text("x = 1\n")
    browser_runs.check_key.cache_clear()
