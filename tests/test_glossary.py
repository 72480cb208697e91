"""The glossary: one file of definitions, shown as tooltips on every page, and a page that links
each term to the section that explains it.

``snippets/glossary.md`` holds the definitions as abbreviations (``*[term]: definition``);
``pymdownx.snippets`` appends it to every page (``auto_append`` in mkdocs.yml) and the ``abbr``
extension wraps each occurrence of a term in prose in ``<abbr title="definition">``, which
Material shows as a tooltip (``content.tooltips``). ``docs/glossary.md`` lists the same terms with
the same definitions and a link to a section. Checked on the session's build of the site.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from bs4 import BeautifulSoup
from mkdocs.exceptions import PluginError

from scripts import ROOT
from scripts.checks.site import html_of, nav_pages
from scripts.hooks.glossary import glossary_terms
from scripts.hooks.page_html import rewrite
from tests.built_pages import parsed, scanned

GLOSSARY = ROOT / "snippets" / "glossary.md"


def _soup(site: Path, page: str) -> BeautifulSoup:
    return parsed(html_of(site, page))


def glossary_entries(soup: BeautifulSoup) -> dict[str, tuple[str, list[str]]]:
    """Term -> (definition text, hrefs of its links), from the built glossary page's ``<dl>``."""
    entries = {}
    for dt in soup.article.select("dl > dt"):
        dd = dt.find_next_sibling("dd")
        links = [a["href"] for a in dd.find_all("a", href=True)]
        text = "".join(
            part.get_text() if hasattr(part, "get_text") else str(part)
            for part in (dd.p or dd).contents
            if getattr(part, "name", None) != "a"
        )
        entries[dt.get_text().strip()] = (" ".join(text.split()), links)
    return entries


def missing_targets(site: Path, page: str, hrefs: list[str]) -> list[str]:
    """The ``page#fragment`` links in ``hrefs`` (relative to ``page``'s built HTML) whose file
    or fragment does not exist in ``site``; a link without a fragment counts as missing."""
    missing = []
    base = html_of(site, page).parent
    for href in hrefs:
        path, _, fragment = href.partition("#")
        target = (base / path).resolve()
        target = target / "index.html" if target.is_dir() else target
        if not fragment or not target.is_file() or not parsed(target).find(id=fragment):
            missing.append(href)
    return missing


def test_glossary_file_is_only_definitions_and_appended_to_every_page():
    terms = glossary_terms(GLOSSARY)
    for required in [
        "num_embeddings",
        "embedding_dim",
        "one-hot",
        "gather",
        "scatter-add",
        "COO",
        "CSR",
        "offsets",
        "indptr",
        "bag",
        "contextual embedding",
        "weight tying",
    ]:
        assert required in terms, f"{required} is missing from {GLOSSARY.name}"
    config = yaml.load((ROOT / "mkdocs.yml").read_text(), Loader=yaml.BaseLoader)
    snippets = next(
        e["pymdownx.snippets"]
        for e in config["markdown_extensions"]
        if isinstance(e, dict) and "pymdownx.snippets" in e
    )
    assert snippets["auto_append"] == [GLOSSARY.relative_to(ROOT).as_posix()]
    assert "content.tooltips" in config["theme"]["features"]


def test_glossary_reader_rejects_other_lines(tmp_path):
    bad = tmp_path / "g.md"
    bad.write_text("*[a]: fine\nSome prose that would land on every page\n")
    with pytest.raises(PluginError, match="g.md:2"):
        glossary_terms(bad)


def test_every_term_is_a_tooltip_on_some_page(site):
    terms = glossary_terms(GLOSSARY)
    shown: dict[str, set[str]] = {term: set() for term in terms}
    for page in nav_pages():
        if page == "glossary.md":
            continue
        for abbr in scanned(html_of(site, page)).abbrs:
            term = abbr.text
            if term in terms and abbr.in_article:
                assert abbr.title == terms[term], f"{page}: {term} has another title"
                shown[term].add(page)
    unused = sorted(term for term, pages in shown.items() if not pages)
    assert not unused, f"glossary terms used in the prose of no page: {unused}"


def test_code_terms_get_a_tooltip_outside_the_code():
    terms = {"indptr": 'CSR\'s "row" pointers', "bag": "b"}
    html = "<p><code>indptr</code> <code>x</code></p><pre><code>indptr</code></pre>"
    assert rewrite(html, None, terms) == (
        '<p><abbr title="CSR&#x27;s &quot;row&quot; pointers"><code>indptr</code></abbr> '
        "<code>x</code></p><pre><code>indptr</code></pre>"
    )


def test_only_the_first_use_of_a_term_keeps_its_tooltip():
    html = (
        '<p><abbr title="t">bag</abbr> <abbr title="c"><code>CSR</code></abbr> '
        '<abbr title="t">bag</abbr> <abbr title="c"><code>CSR</code></abbr></p>'
    )
    assert rewrite(html, None, {}) == (
        '<p><abbr title="t">bag</abbr> <abbr title="c"><code>CSR</code></abbr> bag '
        "<code>CSR</code></p>"
    )


def test_each_term_has_one_tooltip_per_page(site):
    for page in nav_pages():
        terms = [a.text for a in scanned(html_of(site, page)).abbrs if a.in_article]
        repeated = sorted({t for t in terms if terms.count(t) > 1})
        assert not repeated, f"{page}: more than one tooltip for {repeated}"


def test_no_tooltip_inside_code(site):
    """No ``<abbr>`` inside code: in a code block it would change the code a reader copies."""
    inside = [
        f"{page}: {abbr.text!r}"
        for page in nav_pages()
        for abbr in scanned(html_of(site, page)).abbrs
        if abbr.in_code
    ]
    assert not inside, "\n".join(inside)


def test_glossary_page_links_each_term_to_its_section(site):
    terms = glossary_terms(GLOSSARY)
    soup = _soup(site, "glossary.md")
    entries = glossary_entries(soup)
    assert sorted(entries) == sorted(terms), "the glossary page and the glossary file differ"
    problems = []
    for term, (definition, hrefs) in entries.items():
        if definition != terms[term]:
            problems.append(f"{term}: page says {definition!r}, tooltip {terms[term]!r}")
        if not hrefs:
            problems.append(f"{term}: links nowhere")
        broken = missing_targets(site, "glossary.md", hrefs)
        problems += [f"{term}: broken link {h}" for h in broken]
    assert not problems, "\n".join(problems)
    assert "*[" not in soup.article.get_text(), "an abbreviation definition shows on the page"


def test_missing_targets_flags_a_wrong_anchor(site):
    assert missing_targets(site, "glossary.md", ["../sparsity/#the-csr-correspondence"]) == []
    assert missing_targets(site, "glossary.md", ["../sparsity/#no-such-section"]) == [
        "../sparsity/#no-such-section"
    ]
    assert missing_targets(site, "glossary.md", ["../sparsity/"]) == ["../sparsity/"]
