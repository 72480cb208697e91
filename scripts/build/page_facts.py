"""The one line of facts about a page (not its content), right after its short answer.

Several build steps have something to say about a page: the notebook to download
(``article_notebooks.py``, ``notebooks.py``) and the PyTorch releases its checks passed on
(``torch_matrix.py``). So that the page's short answer is the first thing a reader meets, and
ends on the first screen of a phone, they share one compact line, ``<p class="page-facts">``,
placed after the paragraph that directly follows the page's first ``</h1>`` (the short answer),
or right after the ``</h1>`` when no paragraph follows it, with the facts separated by " · ".
Each step calls :func:`add_fact`; none reads another's output.
"""

from __future__ import annotations

OPEN = '<p class="page-facts">'
SEPARATOR = '<span class="page-facts-sep" aria-hidden="true"> · </span>'


def facts_position(html: str) -> int:
    """Where the facts line of ``html`` (a page body) starts or goes: the end of the paragraph
    that directly follows the first ``</h1>`` (only whitespace between them), else the end of
    that ``</h1>``. Raises ``ValueError`` when the page has no ``</h1>``."""
    end = html.find("</h1>")
    if end < 0:
        raise ValueError("the page has no '# title' heading to put its facts under")
    end += len("</h1>")
    first = len(html) - len(html[end:].lstrip())
    if html.startswith(OPEN, first):
        return first  # no answer paragraph: the line is already right under the title
    if not html.startswith(("<p>", "<p "), first):
        return end
    return html.index("</p>", first) + len("</p>")  # a paragraph holds no other paragraph


def add_fact(html: str, fact: str, first: bool = False) -> str:
    """``html`` (a page body) with ``fact`` (an HTML fragment, phrasing content only) in the
    facts line after its short answer (:func:`facts_position`): the line is made there when
    there is none yet, and ``fact`` goes at its end, or at its start with ``first``. Raises
    ``ValueError`` when the page has no ``</h1>``."""
    at = facts_position(html)
    rest = html[at:].lstrip()
    if not rest.startswith(OPEN):
        return f"{html[:at]}{OPEN}{fact}</p>{html[at:]}"
    start = len(html) - len(rest)
    close = html.index("</p>", start)
    inside = html[start + len(OPEN):close]
    inside = f"{fact}{SEPARATOR}{inside}" if first else f"{inside}{SEPARATOR}{fact}"
    return f"{html[:start]}{OPEN}{inside}{html[close:]}"
