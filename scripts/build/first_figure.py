"""Build step: the figure at the top of a page loads at once.

Every figure is written with ``{ loading=lazy }`` (CONTRIBUTING, "Add an article"), so that a
browser fetches only the variant of the reader's palette: Material hides the other one
(``#only-dark`` in the light palette), and a hidden lazy image is never fetched. But a figure
above the page's first ``<h2>`` sits on or near the first screen, and there it is usually the
largest element a reader waits for (Lighthouse's largest contentful paint): lazy, it is only
requested once layout has found it visible. So the light variant of that first figure is made
eager and asked for first (``fetchpriority="high"``); its dark variant stays lazy. Light is the
palette Lighthouse and most readers load; a reader in the dark palette fetches one more small
SVG.
"""

from __future__ import annotations

import re

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.pages import Page

#: The light variant of a figure, lazy (attributes as attr_list writes them, any order).
LIGHT_LAZY = re.compile(r'<img\b[^>]*?src="[^"]*figures/[^"]*#only-light"[^>]*>')


def eager_first_figure(page_html: str) -> str:
    """``page_html`` with the first figure's light ``<img>`` eager and of high fetch priority,
    when that figure comes before the first ``<h2>``; unchanged otherwise."""
    match = LIGHT_LAZY.search(page_html)
    h2 = page_html.find("<h2")
    if match is None or (0 <= h2 < match.start()) or 'loading="lazy"' not in match[0]:
        return page_html
    tag = match[0].replace(' loading="lazy"', ' fetchpriority="high"', 1)
    return page_html[:match.start()] + tag + page_html[match.end():]


def on_page_content(html: str, *, page: Page, config: MkDocsConfig, files) -> str:
    """Load the page's top figure at once (MkDocs event)."""
    return eager_first_figure(html)
