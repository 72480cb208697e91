"""Code blocks stay out of the search index (``scripts/hooks/page_html.py``); the rest of every
page stays in it."""

from __future__ import annotations

import json
import re

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
