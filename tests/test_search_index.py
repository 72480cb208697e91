"""Code blocks stay out of the search index (``scripts/hooks/search_exclude.py``); the rest of every
page stays in it. A page remembered between ``mkdocs serve`` rebuilds
(``scripts/hooks/search_memo.py``) gives the entries Material's plugin makes from it."""

from __future__ import annotations

import json
import re
from types import SimpleNamespace

from material.plugins.search.plugin import SearchIndex
from mkdocs.structure.toc import get_toc

from scripts.hooks.search_exclude import exclude_code_blocks
from scripts.hooks.search_memo import Remembered
from scripts.site import html_of, nav_pages, page_url_path

CODE_DIV = re.compile(r'<div class="(?:[^"]*\s)?highlight(?:\s[^"]*)?"[^>]*>')


def test_every_code_block_div_gets_the_attribute_once():
    page = (
        '<div class="language-python highlight" style="--code-lines: 2"><pre><code>x = 1\n'
        '</code></pre></div>'
        '<div class="highlight"><span class="filename">a.py</span><pre><code>y</code></pre></div>'
        '<div class="highlighted">not code</div><p class="highlight">not a div</p>'
    )
    marked = exclude_code_blocks(page)
    assert marked.count(" data-search-exclude") == 2
    assert '<div class="highlighted">not code</div>' in marked
    assert exclude_code_blocks(marked) == marked


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


def _page(url: str, body: str, **meta) -> SimpleNamespace:
    """What Material's search plugin reads from a rendered MkDocs page."""
    toc = get_toc([{"level": 2, "id": "b", "name": "B", "children": []}])
    return SimpleNamespace(url=url, title="T", content=body, toc=toc, meta=meta)


def test_a_remembered_page_gives_the_plugins_entries():
    pages = [
        _page("a/", '<h1 id="a">A</h1><p>one <code>x</code></p><h2 id="b">B</h2><p>two</p>'),
        _page("c/", "<p>no heading</p>", search={"boost": 2}, tags=["t"]),
    ]
    plain = SearchIndex()
    for page in pages:
        plain.add_entry_from_context(page)
    memory = Remembered()
    for build in range(3):  # the first build fills the memory, the next two use it
        index = SearchIndex()
        assert memory.wrap(index)
        for page in pages:
            index.add_entry_from_context(page)
        assert index.entries == plain.entries, f"build {build}"
        memory.forget_unused()
    assert memory.hits == 4
    # A changed page is parsed again; the old version is forgotten after the build.
    index = SearchIndex()
    memory.wrap(index)
    index.add_entry_from_context(_page("a/", '<h1 id="a">A</h1><p>three</p>'))
    memory.forget_unused()
    assert index.entries[0]["text"] == "<p>three</p>" and memory.hits == 4
    assert len(memory.entries) == 1
    assert not memory.wrap(SimpleNamespace()), "an index without the plugin's methods is left alone"
