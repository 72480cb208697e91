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

#: A figure's image as Python-Markdown writes it (attribute values quoted with ``"``); ``svg`` is
#: its file, without the palette suffix.
FIGURE_IMG = re.compile(r'<img\b[^>]*?\ssrc="(?P<svg>[^"#]+\.svg)#only-(?:light|dark)"[^>]*>')
TITLE = "Open the figure full size"


def link_figure(match: re.Match) -> str:
    """One figure image (a match of :data:`FIGURE_IMG`) inside ``<a class="figure-full"
    href="<its svg>">``; an image already inside a link this step made is left as it is (so the
    step can run twice). No page links a figure itself."""
    if match.string.endswith(f'title="{TITLE}">', 0, match.start()):
        return match[0]
    return f'<a class="figure-full" href="{match["svg"]}" title="{TITLE}">{match[0]}</a>'


def link_figures(html: str) -> str:
    """``html`` with each figure image linked to its file (:func:`link_figure`)."""
    return FIGURE_IMG.sub(link_figure, html)
