"""The pure parts of the Lighthouse audit (``python -m scripts lighthouse-audit``), which itself
needs Node.js and minutes and so is not part of ``pytest``."""

from __future__ import annotations

import json
import os
import shutil
import subprocess

import pytest

from scripts.checks.lighthouse_audit import (
    LIGHTHOUSE_DIR,
    audited_pages,
    calibrated_multiplier,
    chrome_flags,
    failing_audits,
    quote_flag,
)
from scripts.checks.site import CHROMIUM_ARGS, nav_pages, page_slug, page_url_path


@pytest.mark.parametrize(
    "index,expected",
    [(100, 1.0), (150, 1.0), (800, 2.0), (1050, 2.5), (1300, 3.0), (1533, 4.0), (2500, 4.0)],
)
def test_cpu_slowdown_follows_lighthouse_calculator_capped_at_its_default(index, expected):
    assert calibrated_multiplier(index) == pytest.approx(expected, abs=0.01)


def test_page_slugs_are_file_names():
    assert [page_slug(p) for p in ["index.md", "lookup-tables.md", "notebooks/intro.ipynb"]] == [
        "index",
        "lookup-tables",
        "notebooks__intro",
    ]


def test_failing_audits_lists_only_weighted_audits_that_fell_short():
    lhr = {
        "categories": {
            "seo": {
                "auditRefs": [
                    {"id": "meta-description", "weight": 1},
                    {"id": "canonical", "weight": 1},
                    {"id": "structured-data", "weight": 0},
                ]
            }
        },
        "audits": {
            "meta-description": {"score": 0, "title": "No meta description"},
            "canonical": {"score": 1, "title": "Canonical is valid"},
            "structured-data": {"score": 0, "title": "Manual check"},
        },
    }
    assert failing_audits(lhr, "seo") == ["meta-description (0.00): No meta description"]


def test_every_page_is_audited_in_both_languages():
    """Each page of the navigation once at / and once at /zh/, where the Chinese build puts it."""
    pages = audited_pages()
    english = nav_pages()
    assert pages == english + [f"zh/{page}" for page in english]
    assert {page_url_path(page) for page in pages if page.startswith("zh/")} == {
        "zh/" + page_url_path(page) for page in english
    }
    assert page_slug("zh/index.md") == "zh"
    assert page_slug("zh/lookup-tables.md") == "zh__lookup-tables"


def test_a_flag_value_with_spaces_is_quoted_after_its_equals_sign():
    assert quote_flag("--rules=MAP * ~NOTFOUND") == '--rules="MAP * ~NOTFOUND"'
    assert quote_flag("--disable-quic") == "--disable-quic"
    assert quote_flag("--headless=new") == "--headless=new"


@pytest.mark.skipif(
    not (LIGHTHOUSE_DIR / "node_modules" / "lighthouse").is_dir() or shutil.which("node") is None,
    reason="needs Lighthouse installed in .ci/lighthouse (npm ci) and Node.js",
)
def test_lighthouse_passes_every_browser_flag_to_chrome_unchanged():
    """Lighthouse's own parser of ``--chrome-flags`` gives back each flag as written, the
    no-network host rules (which hold spaces) included."""
    script = (
        "import {parseChromeFlags} from './cli/run.js';"
        "console.log(JSON.stringify(parseChromeFlags(process.env.FLAGS)));"
    )
    proc = subprocess.run(
        ["node", "--input-type=module", "-e", script],
        env={**os.environ, "FLAGS": chrome_flags()},
        cwd=LIGHTHOUSE_DIR / "node_modules" / "lighthouse",
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    parsed = json.loads(proc.stdout.strip().splitlines()[-1])
    assert parsed[: len(CHROMIUM_ARGS) + 1] == ["--headless=new", *CHROMIUM_ARGS]


def test_a_page_waits_for_an_idle_host_and_no_longer_than_allowed(monkeypatch):
    """:func:`wait_for_idle` polls the 1-minute load average until it falls below the threshold,
    and gives up at the deadline, returning the load it saw last."""
    from scripts.checks import lighthouse_audit as audit

    loads = iter([1.4, 0.9, 0.6, 0.4, 0.3])
    clock = iter(range(0, 1000, 5))
    monkeypatch.setattr(audit.os, "getloadavg", lambda: (next(loads), 0.0, 0.0))
    monkeypatch.setattr(audit.time, "monotonic", lambda: next(clock))
    monkeypatch.setattr(audit.time, "sleep", lambda s: None)
    assert audit.wait_for_idle(0.5, 60) == 0.4  # the first load below 0.5
    loads = iter([2.0] * 100)
    clock = iter(range(0, 1000, 5))
    assert audit.wait_for_idle(0.5, 20) == 2.0  # gave up at the deadline
    assert next(clock) <= 35, "polled past the deadline"
