"""The site's one build hook (``mkdocs.yml`` names it alone): for each MkDocs event, the steps it
runs, in the order written. Each step is a function of one module of this package; the comment on
it says what it needs from the steps before (CONTRIBUTING.md, "How the build works")."""

from __future__ import annotations

from pathlib import Path

from mkdocs.config.base import ValidationError
from mkdocs.plugins import event_priority

from scripts import ROOT

# Before the imports below, which another checkout's package may not hold: MkDocs loads this file
# by its path in mkdocs.yml, so it is the project's own; the package it imports may be another
# checkout's (scripts/hooks/checkout.py says how, and checks the mkdocs.yml's folder too).
if not Path(__file__).resolve().is_relative_to(ROOT):
    raise ValidationError(
        f"the build code imported is the scripts package of {ROOT}, not that of the project "
        f"being built, whose hook is {Path(__file__).resolve()}: run the build with PYTHONPATH "
        "set to the project's folder (or pip install -e it), so that its own build code builds it"
    )

from scripts.hooks import (  # noqa: E402 (after the check above)
    article_notebooks,
    checkout,
    execute_stage,
    glossary,
    matrix_notes,
    notebooks,
    page_facts,
    page_html,
    pdf_stand_in,
    stylesheets,
    zh,
)

#: ``on_config``: the build code is the project's; ``SOURCE_DATE_EPOCH`` set, before MkDocs dates
#: any page.
CONFIG = [checkout.on_config, execute_stage.on_config]
#: ``on_files``, after the plugins' (the i18n plugin sorts only ``docs/``): the files made join.
FILES = [
    execute_stage.on_files,  # the execute stage: figures, notebook pages, downloads
    notebooks.on_files,  # the Chinese build: the executed notebook pages under zh/
    pdf_stand_in.on_files,  # the site's PDF, a stand-in (and the Chinese one, at zh/)
    stylesheets.on_files,  # extra_css, minified
]
#: ``on_page_markdown``: what a page shows beside its Markdown.
PAGE_MARKDOWN = [
    execute_stage.on_page_markdown,  # a notebook page's "Last update", from git
    matrix_notes.on_page_markdown,  # notes at blocks that fail on an earlier PyTorch release
    zh.on_page_markdown,  # a Chinese page: a note at each section behind its English source
]
#: ``on_page_content``: each page's HTML, from Markdown's output to the page served. The three
#: steps before ``page_facts`` put the facts line's data on the page; it writes the line.
PAGE_CONTENT = [
    notebooks.on_page_content,  # notebook cells become Material code blocks; the download's data
    matrix_notes.on_page_content,  # the "Verified on" data; the list at the end; the tables
    article_notebooks.on_page_content,  # an article's download's data
    page_facts.on_page_content,  # the facts line, in the page's language, under the short answer
    glossary.on_page_content,  # a Chinese page: the Chinese glossary's tooltips
    zh.on_page_content,  # formulas on Chinese pages; the Chinese build's English pages marked
    page_html.on_page_content,  # one pass over code blocks, figures, tooltips: after those above
]
#: ``on_nav``, after the i18n plugin has translated the titles: the Chinese build's pages without
#: a Chinese file marked English.
NAV = [zh.on_nav]
#: ``on_page_context`` (after the i18n plugin's, priority 50): the language selector's links.
PAGE_CONTEXT = [zh.on_page_context]
#: ``on_post_page``: the language roots' links without ``hreflang``; the Chinese build's pages
#: load the Chinese search index.
POST_PAGE = [zh.on_post_page]
#: ``on_post_template``: the Chinese build's 404 page at zh/404.html.
POST_TEMPLATE = [zh.on_post_template]
#: ``on_post_build``, after the i18n plugin's (which builds the Chinese site): the search index
#: split by language (zh/search/); zh/sitemap.xml.
POST_BUILD = [zh.on_post_build]


def run(steps: list):
    """The event function running ``steps`` in order, each given the item the last returned (an
    event's first argument: the config, the files, a page's Markdown or HTML...; a step that
    returns ``None`` leaves it as it was)."""

    def event(*item, **context):
        for step in steps:
            out = step(*item, **context)
            if item and out is not None:
                item = (out,)
        if item:
            return item[0]
        return None

    return event


# Higher priorities run first (https://www.mkdocs.org/dev-guide/plugins/#event-priorities): three
# events run after the i18n plugin's, at -100 (see the comments on their lists).
on_config = run(CONFIG)
on_files = event_priority(-150)(run(FILES))
on_nav = event_priority(-150)(run(NAV))
on_page_markdown = run(PAGE_MARKDOWN)
on_page_content = run(PAGE_CONTENT)
on_page_context = run(PAGE_CONTEXT)
on_post_page = run(POST_PAGE)
on_post_template = run(POST_TEMPLATE)
on_post_build = event_priority(-150)(run(POST_BUILD))
