"""Build step: one pass over a page's HTML for the steps that rewrite elements in place.

Each step names the elements it reads with one pattern and rewrites each with one function:

* a code block (:data:`scripts.build.code_heights.BLOCK`): its line count, keyboard focus and
  search exclusion (:func:`~scripts.build.code_heights.annotate_block`), then its snippet title
  linked to the file (:func:`~scripts.build.source_links.link_title`);
* a figure's image (:data:`scripts.build.figure_links.FIGURE_IMG`): a link to its SVG;
* an ``<abbr>`` of the glossary (:data:`scripts.build.glossary.ABBR_TAG`) and an inline code that
  is a glossary term (:data:`scripts.build.glossary.CODE_TERM`): a tooltip on a term's first use
  on the page only.

The patterns are joined into one regular expression, :data:`ELEMENTS`, which reads the page once,
left to right; each match goes to its step's function by the name of the alternative that
matched (one parser, one dispatch). The glossary is read once per version of its file.
"""

from __future__ import annotations

import re

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.pages import Page

from scripts import root_of
from scripts.build import code_heights, figure_links, glossary, source_links

#: Every element a step rewrites, one named alternative per kind, tried in this order.
ELEMENTS = re.compile("|".join(f"(?P<{kind}>{pattern.pattern})" for kind, pattern in [
    ("block", code_heights.BLOCK), ("figure", figure_links.FIGURE_IMG),
    ("abbr", glossary.ABBR_TAG), ("code", glossary.CODE_TERM), ("snippet", source_links.TITLE),
]), re.S)


def rewrite(page_html: str, config: MkDocsConfig, page: Page | None = None) -> str:
    """``page_html`` with every element of :data:`ELEMENTS` rewritten by its step, in one pass.
    A Chinese ``page`` gets the Chinese glossary's terms. Raises ``PluginError`` for an unreadable
    glossary or a snippet title naming a missing file."""
    terms, seen, root = glossary.terms_of(config, page), set(), root_of(config)

    def title(match: re.Match) -> str:
        return source_links.link_title(match, config, root)

    def dispatch(match: re.Match) -> str:
        kind = match.lastgroup
        if kind == "block":
            return source_links.TITLE.sub(title, code_heights.annotate_block(match))
        if kind == "figure":
            return figure_links.link_figure(match)
        if kind == "abbr":
            return glossary.first_use(match, seen)
        if kind == "code":
            wrapped = glossary.wrap_term(match, terms)
            if wrapped == match[0] or match["term"] in seen:
                return match[0]
            seen.add(match["term"])
            return wrapped
        return title(match)

    return ELEMENTS.sub(dispatch, page_html)


def on_page_content(html_: str, *, page: Page, config: MkDocsConfig, files) -> str:
    """Rewrite the page's code blocks, figures, glossary terms and snippet titles (MkDocs
    event)."""
    return rewrite(html_, config, page)
