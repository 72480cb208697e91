"""The page's one HTML pass (``scripts/build/page_html.py``) gives what its steps give run one
after another, in the order the hook used to run them: figures, glossary, code blocks, titles."""

from __future__ import annotations

from types import SimpleNamespace

from scripts import ROOT
from scripts.build import code_heights, figure_links, glossary, source_links
from scripts.build.page_html import rewrite

CONFIG = SimpleNamespace(config_file_path=str(ROOT / "mkdocs.yml"), edit_uri="edit/main/docs/",
                         repo_url="https://example.org/site")

PAGE = (
    '<h1>T</h1><p>An <abbr title="x">one-hot</abbr> row, <code>num_embeddings</code> rows, '
    "<code>num_embeddings</code> again, <code>one-hot</code>, <code>other</code>.</p>"
    '<p><img alt="a" src="figures/p/f-light.svg#only-light" /></p>'
    '<div class="language-python highlight"><span class="filename">'
    "snippets/lookup_tables/figures.py — part</span><pre><span></span><code>x = 1\n"
    "y = 2\n</code></pre></div>"
    '<div class="highlight"><pre><span></span><code>num_embeddings\n</code></pre></div>'
    '<p><span class="filename">snippets/lookup_tables/figures.py</span></p>'
)


def one_after_another(html: str) -> str:
    terms = glossary.terms_of(CONFIG)
    html = figure_links.link_figures(html)
    html = glossary.first_uses_only(glossary.wrap_code_terms(html, terms))
    html = code_heights.annotate_code_blocks(html)
    return source_links.link_titles(html, CONFIG, ROOT)


def test_one_pass_gives_what_the_steps_give_one_after_another():
    once = rewrite(PAGE, CONFIG)
    assert once == one_after_another(PAGE)
    assert once.count("<abbr") == 2  # one-hot's first use, num_embeddings' first use
    assert once.count('class="figure-full"') == 1 and once.count("data-search-exclude") == 2
    assert once.count('<a href="https://example.org/site/blob/main/snippets/') == 2
