"""Build hook: glossary terms written as inline code get their tooltip too.

The glossary, ``snippets/glossary.md``, is appended to every page (``pymdownx.snippets``
``auto_append``), and Python-Markdown's ``abbr`` extension wraps each use of a term in prose in
``<abbr title="definition">``, which Material shows as a tooltip (``content.tooltips``). ``abbr``
leaves code alone, on purpose: a tooltip inside a code block would change the code a reader
copies. But parameter names such as ``num_embeddings``, ``padding_idx`` or ``indptr`` are written
as inline code in prose (`` `num_embeddings` ``) and would never get their definition. This hook
wraps an inline code span whose whole text is a glossary term, ``<code>indptr</code>``, in the
same ``<abbr>``, outside the ``<code>``; code blocks (``<pre>``) are left alone.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.structure.pages import Page

#: The glossary file, relative to the project root (also in mkdocs.yml's ``auto_append``).
GLOSSARY = "snippets/glossary.md"
ABBR = re.compile(r"^\*\[(?P<term>[^\]]+)\]: (?P<definition>.+)$")


def glossary_terms(path: Path) -> dict[str, str]:
    """Term -> definition, from an abbreviations file (``*[term]: definition`` per line).

    Raises ``ValueError`` naming the line on any other line (whatever the file holds is appended
    to every page) and on a term defined twice.
    """
    terms: dict[str, str] = {}
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        m = ABBR.match(line)
        if not m:
            raise ValueError(f"{path.name}:{n}: not an abbreviation definition: {line!r}")
        if m["term"] in terms:
            raise ValueError(f"{path.name}:{n}: {m['term']!r} is defined twice")
        terms[m["term"]] = m["definition"]
    return terms


def wrap_code_terms(page_html: str, terms: dict[str, str]) -> str:
    """``page_html`` with each inline ``<code>term</code>`` wrapped in ``<abbr title=…>``.

    Only a ``<code>`` without attributes whose whole text is a term, and not right after
    ``<pre>`` (a code block), is wrapped.
    """
    if not terms:
        return page_html
    names = "|".join(re.escape(html.escape(t, quote=False)) for t in sorted(terms, key=len)[::-1])
    pattern = re.compile(rf"(?<!<pre>)<code>(?P<term>{names})</code>")

    def wrap(match: re.Match) -> str:
        title = html.escape(terms[html.unescape(match["term"])], quote=True)
        return f'<abbr title="{title}">{match[0]}</abbr>'

    return pattern.sub(wrap, page_html)


def on_page_content(html_: str, *, page: Page, config: MkDocsConfig, files) -> str:
    """Give the glossary's terms written as inline code their tooltip (MkDocs event)."""
    path = Path(config.config_file_path).resolve().parent / GLOSSARY
    try:
        terms = glossary_terms(path)
    except (OSError, ValueError) as err:
        raise PluginError(f"glossary: {err}") from err
    return wrap_code_terms(html_, terms)
