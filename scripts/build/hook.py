"""The site's one build hook: every MkDocs event it handles, and the order of the steps in each.

``mkdocs.yml`` names this module alone under ``hooks:``. MkDocs calls a function of it for each
event of a build (https://www.mkdocs.org/user-guide/configuration/#hooks); each function runs
the steps listed below, in the order written, each step a function of one module of this package
(the modules are plain Python: a test imports any of them by name, and MkDocs imports them once
per process, so what they remember between ``mkdocs serve`` rebuilds lasts).

The order matters where a step reads what an earlier one wrote; the comment on each step says
what it depends on. A module that takes part in several events appears in each list.
"""

from __future__ import annotations

from mkdocs.plugins import event_priority

from scripts.build import (
    article_notebooks,
    execute_stage,
    first_figure,
    matrix_notes,
    notebooks,
    page_html,
    pdf_link,
    reproducible,
    zh,
)

#: ``on_config``: settings read before anything is built.
CONFIG = [
    reproducible.on_config,  # SOURCE_DATE_EPOCH, before MkDocs dates any page
    matrix_notes.on_config,  # the torch matrix's record and the claim register, read once
    zh.on_config,  # the i18n plugin sorts by language only the files read from docs/
]
#: ``on_files``: files produced by code join the site. Runs before the plugins' ``on_files``
#: (see :func:`on_files`): mkdocs-jupyter's must find the notebook pages already pointing at
#: their executed copies.
FILES = [
    execute_stage.on_files,  # the execute stage: figures, notebooks, downloads made and added
    pdf_link.on_files,  # a stand-in for the whole site's PDF (python -m scripts site-pdf)
    zh.on_files,  # the Chinese build: the Chinese PDF's stand-in, at zh/
]
#: ``on_page_markdown``: what a page shows beside its Markdown.
PAGE_MARKDOWN = [
    execute_stage.on_page_markdown,  # a notebook page's "Last update", from git
    matrix_notes.on_page_markdown,  # notes at blocks that fail on an earlier PyTorch release
    zh.on_page_markdown,  # a Chinese page: a note at each section behind its English source
]
#: ``on_page_content``: each page's HTML, from Markdown's output to the page served.
PAGE_CONTENT = [
    notebooks.on_page_content,  # notebook cells become Material code blocks: before the code steps
    matrix_notes.on_page_content,  # the "Verified on" line, right after the page's </h1>
    article_notebooks.on_page_content,  # the download box, right after </h1>: above that line
    zh.on_page_content,  # Chinese pages: the facts line above in Chinese; English pages of the
    # Chinese build marked English
    page_html.on_page_content,  # one pass: code blocks (line count, focus, out of search, snippet
    # titles linked), figures linked to their SVG, glossary tooltips on first use (a Chinese
    # page's from the Chinese glossary)
    first_figure.on_page_content,  # the figure above the first <h2> loads at once: after the
    # figures are linked, it reads the <img> tags
]
#: ``on_nav``: the navigation, after the i18n plugin has translated its titles.
NAV = [
    zh.on_nav,  # the Chinese build: pages without a Chinese file marked English
]
#: ``on_page_context``: what a page's template sees (after the i18n plugin's, priority 50).
PAGE_CONTEXT = [
    zh.on_page_context,  # the language selector: the same page in each language, relative links
]
#: ``on_post_page``: each page's whole HTML.
POST_PAGE = [
    zh.on_post_page,  # the Chinese build's pages load the Chinese search index
]
#: ``on_post_build``: after every page is written.
POST_BUILD = [
    zh.on_post_build,  # the Chinese build: its own search index, at zh/search/
]


def on_config(config):
    for step in CONFIG:
        config = step(config) or config
    return config


# MkDocs runs hooks after plugins for an event of equal priority; 50 puts this one first, before
# mkdocs-jupyter's (https://www.mkdocs.org/dev-guide/plugins/#event-priorities).
@event_priority(50)
def on_files(files, *, config):
    for step in FILES:
        files = step(files, config=config) or files
    return files


# After the i18n plugin's on_nav (priority -100), which translates the titles this marks.
@event_priority(-150)
def on_nav(nav, *, config, files):
    for step in NAV:
        nav = step(nav, config=config, files=files) or nav
    return nav


def on_page_markdown(markdown: str, *, page, config, files) -> str:
    for step in PAGE_MARKDOWN:
        markdown = step(markdown, page=page, config=config, files=files)
    return markdown


def on_page_content(html: str, *, page, config, files) -> str:
    for step in PAGE_CONTENT:
        html = step(html, page=page, config=config, files=files)
    return html


def on_page_context(context, *, page, config, nav):
    for step in PAGE_CONTEXT:
        context = step(context, page=page, config=config, nav=nav) or context
    return context


def on_post_page(output: str, *, page, config) -> str:
    for step in POST_PAGE:
        output = step(output, page=page, config=config)
    return output


def on_post_build(*, config) -> None:
    for step in POST_BUILD:
        step(config=config)
