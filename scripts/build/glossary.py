"""Build hook: glossary terms written as inline code get their tooltip too.

The glossary, ``snippets/glossary.md``, is appended to every page (``pymdownx.snippets``
``auto_append``), and Python-Markdown's ``abbr`` extension wraps each use of a term in prose in
``<abbr title="definition">``, which Material shows as a tooltip (``content.tooltips``). ``abbr``
leaves code alone, on purpose: a tooltip inside a code block would change the code a reader
copies. But parameter names such as ``num_embeddings``, ``padding_idx`` or ``indptr`` are written
as inline code in prose (`` `num_embeddings` ``) and would never get their definition. This hook
wraps an inline code span whose whole text is a glossary term, ``<code>indptr</code>``, in the
same ``<abbr>``, outside the ``<code>``; code blocks (``<pre>``) are left alone.

Then only the first use of each term on a page keeps its ``<abbr>``: the definition is one hover
away where the term first appears (as a glossary link would be), the page is not dotted with
underlines, and Material sets up one tooltip per term instead of one per use (each is an element
and listeners, set up when the page loads).
"""

from __future__ import annotations

import functools
import html
import re
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.structure.pages import Page

from scripts import root_of
from scripts.build import zh
from scripts.build.code_heights import TAG

#: The glossary file, relative to the project root (also in mkdocs.yml's ``auto_append``).
GLOSSARY = "snippets/glossary.md"
ABBR = re.compile(r"^\*\[(?P<term>[^\]]+)\]: (?P<definition>.+)$")


def glossary_terms(path: Path) -> dict[str, str]:
    """Term -> definition, from an abbreviations file (``*[term]: definition`` per line), read
    once per version of the file (:func:`_terms`: once per build, and again in ``mkdocs serve``
    after an edit).

    Raises ``ValueError`` naming the line on any other line (whatever the file holds is appended
    to every page) and on a term defined twice.
    """
    return dict(_terms(path, path.stat().st_mtime_ns))


@functools.lru_cache(maxsize=4)
def _terms(path: Path, mtime_ns: int) -> tuple[tuple[str, str], ...]:
    """The (term, definition) pairs of ``path`` as it was at ``mtime_ns``."""
    terms: dict[str, str] = {}
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        m = ABBR.match(line)
        if not m:
            raise ValueError(f"{path.name}:{n}: not an abbreviation definition: {line!r}")
        if m["term"] in terms:
            raise ValueError(f"{path.name}:{n}: {m['term']!r} is defined twice")
        terms[m["term"]] = m["definition"]
    return tuple(terms.items())


#: An inline ``<code>`` without attributes, not right after ``<pre>`` (a code block): a term
#: when its whole text is one.
CODE_TERM = re.compile(r"(?<!<pre>)<code>(?P<term>[^<]*)</code>")
ABBR_TAG = re.compile(r'<abbr title="(?P<title>[^"]*)">(?P<inner>.*?)</abbr>', re.S)


def wrap_term(match: re.Match, terms: dict[str, str]) -> str:
    """An inline code (a match of :data:`CODE_TERM`) wrapped in ``<abbr title=…>`` when its text
    is a term of ``terms``; anything else as it is."""
    definition = terms.get(html.unescape(match["term"]))
    if definition is None:
        return match[0]
    return f'<abbr title="{html.escape(definition, quote=True)}">{match[0]}</abbr>'


def first_use(match: re.Match, seen: set[str]) -> str:
    """An ``<abbr>`` (a match of :data:`ABBR_TAG`) as it is the first time its term (its text
    without tags) is met, then unwrapped; ``seen`` holds the terms met so far on the page."""
    term = TAG.sub("", match["inner"])
    if term in seen:
        return match["inner"]
    seen.add(term)
    return match[0]


def wrap_code_terms(page_html: str, terms: dict[str, str]) -> str:
    """``page_html`` with each inline ``<code>term</code>`` wrapped in ``<abbr title=…>``
    (:func:`wrap_term`)."""
    return CODE_TERM.sub(lambda m: wrap_term(m, terms), page_html)


def first_uses_only(page_html: str) -> str:
    """``page_html`` with every ``<abbr>`` after the first of the same term unwrapped
    (:func:`first_use`)."""
    seen: set[str] = set()
    return ABBR_TAG.sub(lambda m: first_use(m, seen), page_html)


def terms_of(config: MkDocsConfig, page: Page | None = None) -> dict[str, str]:
    """The glossary of the project ``config`` builds (:data:`GLOSSARY`), or, for a Chinese
    ``page``, the Chinese glossary's terms (:func:`scripts.build.zh.glossary_terms_for`). Raises
    ``PluginError`` when it cannot be read."""
    chinese = zh.glossary_terms_for(page, config) if page is not None else None
    if chinese is not None:
        return chinese
    try:
        return glossary_terms(root_of(config) / GLOSSARY)
    except (OSError, ValueError) as err:
        raise PluginError(f"glossary: {err}") from err
