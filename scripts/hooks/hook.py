"""The site's one build hook (``mkdocs.yml`` names it alone): for each MkDocs event, the steps it
runs, in the order written. Each step is a function of one module of this package; the comment on
it says what it needs from the steps before (CONTRIBUTING.md, "How the build works")."""

from __future__ import annotations

from mkdocs.plugins import event_priority

from scripts.hooks import article_notebooks, execute_stage, matrix_notes, notebooks, page_html, zh

#: ``on_config``: ``SOURCE_DATE_EPOCH`` set, before MkDocs dates any page.
CONFIG = [execute_stage.on_config]
#: ``on_files``, after the plugins' (the i18n plugin sorts only ``docs/``): the files made join.
FILES = [
    execute_stage.on_files,  # the execute stage: figures, notebooks, downloads; the PDF stand-in
    zh.on_files,  # executed notebooks as pages (under zh/ in the Chinese build); the Chinese PDF
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
    zh.on_page_content,  # Chinese pages: that line in Chinese; the Chinese build's English pages
    page_html.on_page_content,  # one pass over code blocks, figures, tooltips: after those above
]
#: ``on_nav``, after the i18n plugin has translated the titles: the Chinese build's pages without
#: a Chinese file marked English.
NAV = [zh.on_nav]
#: ``on_page_context`` (after the i18n plugin's, priority 50): the language selector's links.
PAGE_CONTEXT = [zh.on_page_context]
#: ``on_post_page``: the Chinese build's pages load the Chinese search index.
POST_PAGE = [zh.on_post_page]
#: ``on_post_template``: the Chinese build's 404 page at zh/404.html.
POST_TEMPLATE = [zh.on_post_template]
#: ``on_post_build``, after the i18n plugin's (which builds the Chinese site): the search index
#: split by language (zh/search/); zh/sitemap.xml.
POST_BUILD = [zh.on_post_build]


def run(steps: list):
    """The event function running ``steps`` in order, each given the item the last returned."""

    def event(*item, **context):
        for step in steps:
            out = step(*item, **context)
            item = (out,) if item and out is not None else item
        return item[0] if item else None

    return event


# Higher priorities run first (https://www.mkdocs.org/dev-guide/plugins/#event-priorities): these
# three run after the i18n plugin's, at -100 (see the comments on their lists).
on_config, on_page_markdown = run(CONFIG), run(PAGE_MARKDOWN)
on_files, on_nav = event_priority(-150)(run(FILES)), event_priority(-150)(run(NAV))
on_page_content, on_page_context = run(PAGE_CONTENT), run(PAGE_CONTEXT)
on_post_page, on_post_template = run(POST_PAGE), run(POST_TEMPLATE)
on_post_build = event_priority(-150)(run(POST_BUILD))
