"""Build step: every figure opens full size on a tap or a click.

A figure drawn for a 360 px phone is still small there; a reader who wants to look closer opens
the SVG itself, which the browser shows at its full size and lets them zoom, offline, with no
script. Each generated figure on a page (an ``<img>`` whose ``src`` is an ``.svg`` with
Material's ``#only-light`` or ``#only-dark`` suffix) is wrapped in a link to its file. The link
of the palette not shown is hidden with its image (``extra.css``), so it is never a keyboard stop;
the image's alt text names the link.
"""

from __future__ import annotations

import re

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import Files
from mkdocs.structure.pages import Page

#: A figure's image as Python-Markdown writes it (attribute values quoted with ``"``); group 1 is
#: its file, without the palette suffix.
FIGURE_IMG = re.compile(r'<img\b[^>]*?\ssrc="([^"#]+\.svg)#only-(?:light|dark)"[^>]*>')
TITLE = "Open the figure full size"


def link_figures(html: str) -> str:
    """``html`` with each figure image (see :data:`FIGURE_IMG`) inside
    ``<a class="figure-full" href="<its svg>">``; an image already inside a link this step made is
    left as it is (so the step can run twice). No page links a figure itself."""
    out, last = [], 0
    for match in FIGURE_IMG.finditer(html):
        before = html[last:match.start()]
        out.append(before)
        if html.endswith(f'title="{TITLE}">', 0, match.start()):
            out.append(match.group(0))
        else:
            out.append(f'<a class="figure-full" href="{match.group(1)}" title="{TITLE}">'
                       f"{match.group(0)}</a>")
        last = match.end()
    out.append(html[last:])
    return "".join(out)


def on_page_content(html: str, *, page: Page, config: MkDocsConfig, files: Files) -> str:
    """Link each figure of the page to its file (MkDocs event)."""
    return link_figures(html)
