"""The one line under a page's title: facts about the page, not its content.

Several build steps have something to say under the title: the notebook to download
(``article_notebooks.py``, ``notebooks.py``) and the PyTorch releases its checks passed on
(``torch_matrix.py``). So that the page's short answer stays the first thing a reader meets, they
share one compact line, ``<p class="page-facts">``, right after the page's first ``</h1>``, with
the facts separated by " · ". Each step calls :func:`add_fact`; none reads another's output.
"""

from __future__ import annotations

OPEN = '<p class="page-facts">'
SEPARATOR = '<span class="page-facts-sep" aria-hidden="true"> · </span>'


def add_fact(html: str, fact: str, first: bool = False) -> str:
    """``html`` (a page body) with ``fact`` (an HTML fragment, phrasing content only) in the line
    under its title: the line is made right after the first ``</h1>`` when there is none yet, and
    ``fact`` goes at its end, or at its start with ``first``. Raises ``ValueError`` when the page
    has no ``</h1>``."""
    end = html.find("</h1>")
    if end < 0:
        raise ValueError("the page has no '# title' heading to put its facts under")
    end += len("</h1>")
    if not html.startswith(OPEN, end):
        return f"{html[:end]}{OPEN}{fact}</p>{html[end:]}"
    close = html.index("</p>", end)
    inside = html[end + len(OPEN):close]
    inside = f"{fact}{SEPARATOR}{inside}" if first else f"{inside}{SEPARATOR}{fact}"
    return f"{html[:end]}{OPEN}{inside}{html[close:]}"
