"""Code blocks, exercises' solutions, footnotes and "Where next" stay out of the search index
(``scripts/hooks/page_html.py``); the rest of every page stays in it."""

from __future__ import annotations

import json
import re

import pytest

from scripts.checks.site import html_of, nav_pages, page_url_path
from scripts.hooks.page_html import rewrite

CODE_DIV = re.compile(r'<div class="(?:[^"]*\s)?highlight(?:\s[^"]*)?"[^>]*>')


def test_every_code_block_div_gets_the_attribute_once():
    page = (
        '<div class="language-python highlight"><pre><code>x = 1\n'
        "</code></pre></div>"
        '<div class="highlight"><span class="filename">a.py</span><pre><code>y</code></pre></div>'
        '<div class="highlighted">not code</div><p class="highlight">not a div</p>'
    )
    marked = rewrite(page, None, {})
    assert marked.count(" data-search-exclude") == 2
    assert '<div class="highlighted">not code</div>' in marked


def test_built_code_blocks_are_marked(site):
    for page in nav_pages():
        html = html_of(site, page).read_text(encoding="utf-8")
        unmarked = [div for div in CODE_DIV.findall(html) if "data-search-exclude" not in div]
        assert not unmarked, f"{page}: {unmarked[:3]}"


def test_search_index_holds_every_page_but_no_code_block(site):
    docs = json.loads((site / "search" / "search_index.json").read_text(encoding="utf-8"))["docs"]
    locations = {doc["location"].split("#")[0] for doc in docs}
    assert {page_url_path(page) for page in nav_pages()} <= locations
    with_code = [doc["location"] for doc in docs if "<pre>" in doc["text"]]
    assert not with_code, with_code[:5]
    # Inline code in prose stays searchable.
    assert any("<code>padding_idx</code>" in doc["text"] for doc in docs)


def test_solutions_footnotes_and_where_next_are_marked_once():
    page = (
        '<details class="success"><summary>Solution</summary><p>3</p></details>'
        '<details class="note"><summary>Note</summary><p>kept</p></details>'
        '<h2 id="where-next">Where next</h2><h2 id="exercises">Exercises</h2>'
        '<div class="footnote"><hr><ol><li>a source</li></ol></div>'
    )
    marked = rewrite(page, None, {})
    assert '<details class="success" data-search-exclude>' in marked
    assert '<h2 id="where-next" data-search-exclude>' in marked
    assert '<div class="footnote" data-search-exclude>' in marked
    assert marked.count("data-search-exclude") == 3  # the note and other headings stay


def _paragraph_starts(html: str, opening: str) -> list[str]:
    """The first 80 characters of the first paragraph in each element ``opening`` starts."""
    from bs4 import BeautifulSoup

    found = []
    for start in (m.start() for m in re.finditer(re.escape(opening), html)):
        element = BeautifulSoup(html[start:], "html.parser").find()
        paragraph = element.find("p") if element else None
        if paragraph and len(paragraph.get_text(" ", strip=True)) >= 40:
            found.append(" ".join(paragraph.get_text(" ", strip=True).split())[:80])
    return found


@pytest.mark.parametrize("language", ["en", "zh"])
def test_the_index_leaves_out_solutions_footnotes_and_where_next(site, language):
    """In each language's index: no "Where next" section, no solution's or footnote's text; the
    exercises themselves stay searchable."""
    prefix = "zh/" if language == "zh" else ""
    docs = json.loads((site / prefix / "search" / "search_index.json").read_text("utf-8"))["docs"]
    assert not [d["location"] for d in docs if d["location"].endswith("#where-next")]
    text = " ".join(" ".join(re.sub(r"<[^>]+>", " ", d["text"]).split()) for d in docs)
    left_out = 0
    for page in nav_pages():
        html = html_of(site, prefix + page).read_text(encoding="utf-8")
        for opening in ('<details class="success"', '<div class="footnote"'):
            for start in _paragraph_starts(html, opening):
                assert start not in text, f"{prefix}{page}: {start!r} is in the search index"
                left_out += 1
    assert left_out > 50, f"only {left_out} solutions and footnotes found: the check reads nothing"
    assert any(d["location"].endswith("#exercise-1-ten-rows-on-four-ranks") for d in docs)
