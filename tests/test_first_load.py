"""A page's first load, in both languages: what a reader's phone downloads before it can search.

Every page of ``mkdocs.yml``'s ``nav``, at ``/`` and at ``/zh/``, is opened once in Debian's
Chromium (the browser test's, headless and offline), each in a fresh browser context, so nothing
is cached, from the session's build served gzip-compressed as GitHub Pages serves it
(:func:`scripts.checks.site.serve` with ``compress=True``). The page's first load is the bytes of
its HTML, its stylesheets, its scripts (the search worker's included) and its language's search
index, as sent (``Content-Length`` of each response, compressed where the host compresses);
images, the favicon and the sitemaps Material's script reads are listed but not counted.

* :data:`BUDGET_BYTES` (175 KiB) is the most each language's home page's first load may weigh
  (:data:`HOME_PAGES`); every page's bytes are printed;
* an English page loads ``search/search_index.json`` and a Chinese one ``zh/search/…`` only:
  each language's pages load only that language's search index;
* a Chinese page weighs no more than its English page: the translation adds nothing to a first
  load but its text.

Before the Chinese edition (6154b23), five of the sixteen English pages were already over
175 KiB by this measure, so the budget holds for the home pages only. The English index has
grown since with new English content, not with the Chinese edition.

Each page's bytes are recorded with the test (``record_property``), and the audit run prints
them as one table after its results (``tests/conftest.py``), whether the tests pass or fail.

The two checks are audits (``python -m pytest -m audit``): they need the browser, as
``tests/test_browser.py`` does, and are skipped (failed with ``REQUIRE_BROWSER=1``) without it.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from urllib.parse import urlparse

import pytest

from scripts.checks.site import nav_pages, page_url_path, serve
from tests.test_browser import TIMEOUT_MS

#: The most a home page's first load may weigh, in bytes (1 KiB = 1024 bytes, the unit in which
#: Lighthouse reports a page's weight). Four pages (issues 47 and 51) took the English index from
#: 101.8 to 116.1 KB; the site keeps within the budget by leaving out of search what a search
#: should not land on (``scripts/hooks/page_html.py``: code, solutions, footnotes, "Where next";
#: ``matrix_notes.py``: the record's tables and lists) and by serving its stylesheet without its
#: comments (``scripts/hooks/stylesheets.py``).
BUDGET_BYTES = 175 * 1024

#: Every page in both languages: the Chinese site (``zh/``) has every page of ``nav``.
PAGES = [*nav_pages(), *(f"zh/{page}" for page in nav_pages())]

#: The pages the budget holds for: each language's home page, whose first load the budget was set
#: from (171 KB in English before the Chinese edition).
HOME_PAGES = ["index.md", "zh/index.md"]

#: The search index of each language, as a URL path.
INDEX_PATHS = {"en": "/search/search_index.json", "zh": "/zh/search/search_index.json"}

#: What each counted part of a first load is, by the browser's resource type.
COUNTED = {"document": "html", "stylesheet": "css", "script": "js"}

#: The columns of the printed table: the counted parts, their total, and what is not counted.
COLUMNS = ["html", "css", "js", "index", "total", "not counted"]

#: The property each test records its page's row under; tests/conftest.py prints them.
TABLE_PROPERTY = "first_load_row"


def language(page: str) -> str:
    """``"zh"`` for a page of the Chinese site (``zh/…``), ``"en"`` otherwise."""
    return "zh" if page.startswith("zh/") else "en"


@dataclass
class FirstLoad:
    """What one page's first load fetched: bytes per counted part, and every index it read."""

    parts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(COLUMNS[:4], 0))
    not_counted: int = 0
    indexes: set[str] = field(default_factory=set)
    unsized: list[str] = field(default_factory=list)

    @property
    def total(self) -> int:
        return sum(self.parts.values())

    def add(self, resource_type: str, url: str, body_bytes: int | None) -> None:
        """Count one response: ``body_bytes`` as sent (``None`` when it had no length)."""
        path = urlparse(url).path
        if body_bytes is None:
            self.unsized.append(url)
            body_bytes = 0
        if path.endswith("/search/search_index.json"):
            self.indexes.add(path)
            self.parts["index"] += body_bytes
        elif resource_type in COUNTED:
            self.parts[COUNTED[resource_type]] += body_bytes
        else:
            self.not_counted += body_bytes

    def row(self, page: str) -> str:
        """One Markdown table row: the page and its bytes per column."""
        cells = [*self.parts.values(), self.total, self.not_counted]
        return f"| {page} | " + " | ".join(f"{cell:,}" for cell in cells) + " |"


def table_header() -> str:
    return (
        "| Page | " + " | ".join(f"{c} (bytes)" for c in COLUMNS) + " |\n"
        "|---|" + "---:|" * len(COLUMNS)
    )


@pytest.fixture(scope="session")
def compressed_url(site):
    """The session's build served gzip-compressed, as GitHub Pages sends it, at a free port."""
    with serve(site, compress=True) as url:
        yield url


def measure(browser, base_url: str, page: str) -> FirstLoad:
    """Open ``page`` (a nav path, ``zh/…`` for the Chinese site) of the site served at
    ``base_url`` in a fresh context of ``browser`` and return its :class:`FirstLoad`.

    The first load ends once the search index has arrived and the network has then been quiet
    for half a second (Material's script starts the search worker and reads the sitemaps after
    the index). Raises Playwright's ``TimeoutError`` when no search index is requested.
    """
    origin = base_url.rstrip("/")
    context = browser.new_context(viewport={"width": 412, "height": 823}, service_workers="block")
    context.set_default_timeout(TIMEOUT_MS)
    # Nothing leaves the machine: a request to another host is aborted (the browser test reports
    # such requests), and the browser's flags make every host name unresolvable anyway.
    context.route(
        "**/*",
        lambda route: (
            route.continue_() if route.request.url.startswith(origin + "/") else route.abort()
        ),
    )
    load = FirstLoad()
    tab = context.new_page()

    def received(response) -> None:
        length = response.headers.get("content-length")
        load.add(response.request.resource_type, response.url, int(length) if length else None)

    tab.on("response", received)
    try:
        with tab.expect_response(
            lambda r: urlparse(r.url).path.endswith("/search/search_index.json")
        ):
            tab.goto(base_url + page_url_path(page), wait_until="load")
        tab.wait_for_load_state("networkidle")
    finally:
        context.close()
    return load


@pytest.fixture(scope="session")
def first_load(browser, compressed_url):
    """A function: page -> its :class:`FirstLoad` (:func:`measure`), once per page and worker."""
    return functools.cache(lambda page: measure(browser, compressed_url, page))


@pytest.mark.audit
@pytest.mark.parametrize("page", HOME_PAGES)
def test_a_home_pages_first_load_stays_within_the_budget(page, first_load):
    """HTML, styles, scripts and the search index of each language's home page, compressed: at
    most 175 KiB. Every page's bytes are printed by the run (an article's own HTML, mostly
    highlighted code, adds 10 to 46 KB to the same shared 162 KB)."""
    load = first_load(page)
    assert not load.unsized, f"{page}: responses without a Content-Length: {load.unsized}"
    assert load.total <= BUDGET_BYTES, (
        f"{page}: first load {load.total:,} bytes, over the budget of {BUDGET_BYTES:,} "
        f"by {load.total - BUDGET_BYTES:,} ({load.parts})"
    )


@pytest.mark.audit
@pytest.mark.parametrize("page", nav_pages())
def test_a_chinese_page_loads_no_more_than_its_english_page(page, first_load):
    """The Chinese edition adds nothing to a reader's first load but its text: each Chinese page
    (its HTML, the same styles and scripts, the Chinese index) weighs no more than its English
    page does (loading both indexes would add half)."""
    chinese, english = first_load(f"zh/{page}"), first_load(page)
    assert chinese.total <= english.total, (
        f"zh/{page}: first load {chinese.total:,} bytes, {chinese.total - english.total:,} more "
        f"than the English page's {english.total:,} ({chinese.parts} against {english.parts})"
    )


@pytest.mark.audit
@pytest.mark.parametrize("page", PAGES)
def test_each_language_loads_only_its_own_search_index(page, first_load, record_property):
    """An English page reads ``search/search_index.json``, a Chinese one ``zh/search/…``."""
    load = first_load(page)
    record_property(TABLE_PROPERTY, load.row(page))
    assert load.indexes == {INDEX_PATHS[language(page)]}, (
        f"{page} loaded {sorted(load.indexes)}, not only {INDEX_PATHS[language(page)]}"
    )


def test_the_measure_counts_what_it_claims_to():
    """The counting itself, without a browser: parts by resource type, the index by its path,
    the rest left out of the total but listed."""
    load = FirstLoad()
    for resource_type, url, size in [
        ("document", "http://h/zh/", 30_000),
        ("stylesheet", "http://h/a.css", 20_000),
        ("script", "http://h/bundle.js", 35_000),
        ("script", "http://h/worker.js", 12_000),
        ("xhr", "http://h/zh/search/search_index.json", 80_000),
        ("xhr", "http://h/sitemap.xml", 700),
        ("image", "http://h/f.svg", 2_000),
    ]:
        load.add(resource_type, url, size)
    assert load.parts == {"html": 30_000, "css": 20_000, "js": 47_000, "index": 80_000}
    assert (load.total, load.not_counted) == (177_000, 2_700)
    assert load.indexes == {"/zh/search/search_index.json"}
    assert load.row("zh/x.md") == (
        "| zh/x.md | 30,000 | 20,000 | 47,000 | 80,000 | 177,000 | 2,700 |"
    )
