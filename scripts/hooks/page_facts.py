"""The line of facts under a page's short answer (its download, the releases its checks pass on)."""

from __future__ import annotations

OPEN = '<p class="page-facts">'
SEPARATOR = '<span class="page-facts-sep" aria-hidden="true"> · </span>'


def add_fact(html: str, fact: str, first: bool = False) -> str:
    """``html`` (a page body) with ``fact`` (phrasing HTML) at the end of its facts line, or at
    its start with ``first``. A new line goes after the paragraph that directly follows the first
    ``</h1>`` (the short answer), else after that ``</h1>``. Raises ``ValueError`` without one."""
    at = html.find("</h1>")
    if at < 0:
        raise ValueError("the page has no '# title' heading to put its facts under")
    at += len("</h1>")
    start = len(html) - len(html[at:].lstrip())  # the title's next element
    if html.startswith(("<p>", "<p "), start) and not html.startswith(OPEN, start):
        at = html.index("</p>", start) + len("</p>")  # a paragraph holds no other paragraph
        start = len(html) - len(html[at:].lstrip())
    if not html.startswith(OPEN, start):
        return f"{html[:at]}{OPEN}{fact}</p>{html[at:]}"
    close = html.index("</p>", start)
    inside = html[start + len(OPEN) : close]
    inside = f"{fact}{SEPARATOR}{inside}" if first else f"{inside}{SEPARATOR}{fact}"
    return f"{html[:start]}{OPEN}{inside}{html[close:]}"
