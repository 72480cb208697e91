"""The facts line under a page's title (``scripts/hooks/page_facts.py``): the build steps put its
data on the page, one step writes it in the page's language, under the short answer."""

from __future__ import annotations

from types import SimpleNamespace

import jinja2
import pytest
from mkdocs.exceptions import PluginError

from scripts.hooks.page_facts import SEPARATOR, facts_line, on_page_content, set_fact, under_title

DOWNLOAD = {"what": "article", "href": "a.ipynb", "name": "a.ipynb"}
MATRIX = {
    "checks": 2,
    "releases": ["9.2.0"],
    "paths": None,
    "paths_href": None,
    "cuda": None,
    "details_id": "d",
    "differences": [],
}
CONFIG = SimpleNamespace(theme=SimpleNamespace(dirs=[]))


def page(src_uri: str = "a.md") -> SimpleNamespace:
    return SimpleNamespace(meta={}, file=SimpleNamespace(src_uri=src_uri))


def test_facts_share_one_line_after_the_short_answer_download_first():
    """Whatever order the steps put the facts in, the line shows the download first."""
    p = page()
    set_fact(p, "matrix", MATRIX)
    set_fact(p, "download", DOWNLOAD)
    html = '<h1>T</h1>\n<p id="claim-x">Answer.</p>\n<p>Next.</p>'
    out = on_page_content(html, page=p, config=CONFIG, files=None)
    line = facts_line({"download": DOWNLOAD, "matrix": MATRIX}, "en")
    assert out == f'<h1>T</h1>\n<p id="claim-x">Answer.</p>{line}\n<p>Next.</p>'
    assert line.count('class="page-facts"') == 1 and line.count(SEPARATOR) == 1
    assert line.index("nb-download") < line.index("torch-matrix")


def test_facts_go_under_the_title_when_no_paragraph_follows_it():
    assert under_title("<h1>T</h1><pre>code</pre><p>Later.</p>", "<p>F</p>") == (
        "<h1>T</h1><p>F</p><pre>code</pre><p>Later.</p>"
    )
    with pytest.raises(ValueError, match="no '# title'"):
        under_title("<p>no title</p>", "x")


def test_a_page_without_facts_is_left_alone_and_one_without_a_title_names_itself():
    assert on_page_content("<p>x</p>", page=page(), config=CONFIG, files=None) == "<p>x</p>"
    p = page("b.md")
    set_fact(p, "download", DOWNLOAD)
    with pytest.raises(PluginError, match="b.md: the page has no '# title'"):
        on_page_content("<p>x</p>", page=p, config=CONFIG, files=None)


def test_a_chinese_page_gets_the_chinese_line():
    p = page("a.zh.md")
    set_fact(p, "download", DOWNLOAD)
    out = on_page_content("<h1>T</h1>", page=p, config=CONFIG, files=None)
    assert "自己运行：" in out and "Run it yourself" not in out


def test_data_missing_a_key_fails_loudly():
    """A macro given data without a key it writes raises, rather than writing an empty word."""
    with pytest.raises(jinja2.UndefinedError):
        facts_line({"matrix": {**MATRIX, "checks": jinja2.StrictUndefined()}}, "en")
    broken = dict(MATRIX)
    del broken["releases"]
    with pytest.raises(jinja2.UndefinedError):
        facts_line({"matrix": broken}, "zh")
