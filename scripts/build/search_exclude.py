"""Build hook: code blocks stay out of the search index.

Every page loads the whole site's search index (``search/search_index.json``) as it starts:
Material's script downloads it, parses it and hands it to the search worker, which builds the
search's index from it. Code blocks are most of the index's text, and the part a search needs
least: a block's identifiers are also in the prose and inline code around it (which stay
indexed), and a hit inside a 40-line block leads to its section anyway. Left out, they no longer
cost every page load a download (most of a slow phone connection's time for the index) and the
worker's indexing. The cost: a word that appears only inside code blocks is not found.

Material's search plugin leaves out of the index any element that has a ``data-search-exclude``
attribute (Material's "Setting up site search", "Search exclusion", "Excluding blocks"; the
plugin checks for it in ``material/plugins/search/plugin.py``, ``Parser.handle_starttag``). This
hook puts that attribute on the ``<div>`` of every code block, Markdown and notebook pages alike
(it runs after the notebook hook, which makes notebook cells code blocks). Headings, prose,
tables, admonitions and inline ``code`` stay searchable.

Switched off by removing its line from ``hooks:`` in ``mkdocs.yml``.
"""

from __future__ import annotations

import re

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.pages import Page

#: The opening tag of a code block as Pygments (through pymdownx.highlight) and the notebook hook
#: write it, up to the end of its ``class`` attribute: ``<div class="… highlight …"``.
BLOCK_OPEN = re.compile(
    r'<div class="(?:[^"]*\s)?highlight(?:\s[^"]*)?"(?![^>]*\sdata-search-exclude)'
)


def exclude_code_blocks(page_html: str) -> str:
    """``page_html`` (HTML text) with ``data-search-exclude`` on every code block's ``<div>``.

    A block that already has the attribute is left as it is, so applying this twice changes
    nothing more.
    """
    return BLOCK_OPEN.sub(lambda m: m[0] + " data-search-exclude", page_html)


def on_page_content(html_: str, *, page: Page, config: MkDocsConfig, files) -> str:
    """MkDocs hook: mark the code blocks of every page before the search plugin indexes it."""
    return exclude_code_blocks(html_)
