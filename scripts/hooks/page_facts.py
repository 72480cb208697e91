"""The line of facts under a page's title and short answer: the page's download, and the
releases, CPU paths and GPUs its checks passed on.

The steps that know a fact put it on the page as data (:func:`set_fact`, into ``page.meta``:
``notebooks.py`` and ``article_notebooks.py`` the download, ``matrix_notes.py`` the matrix's
counts). This module's step, which runs after them, writes the line once, in the page's
language, with the macros of that language's partial (:mod:`scripts.hooks.page_text`: the
download first, then the matrix), and puts it under the short answer.
"""

from collections.abc import Sequence

from mkdocs.exceptions import PluginError

from scripts.hooks import page_text

#: The key of ``page.meta`` holding the page's facts: name -> the data of its macro.
META_KEY = "facts"
#: The facts, in the order the line shows them; each is the name of a macro of the partials.
ORDER = ("download", "matrix")
OPEN = '<p class="page-facts">'
SEPARATOR = '<span class="page-facts-sep" aria-hidden="true"> · </span>'


def set_fact(page, name: str, data: dict) -> None:
    """Put the fact ``name`` (one of :data:`ORDER`) on ``page`` (a MkDocs page), as the data
    its macro takes (see ``docs/.overrides/partials/page-text/en.html``)."""
    page.meta.setdefault(META_KEY, {})[name] = data


def facts_line(facts: dict, language: str, dirs: Sequence[str] = ()) -> str:
    """The facts line (an HTML paragraph) of ``facts`` (name -> data) in ``language``, ``""``
    when there is no fact. ``dirs``: the theme's folders (:func:`scripts.hooks.page_text.words`).
    Raises ``jinja2.UndefinedError`` when a fact's data lacks a key its macro writes."""
    words = page_text.words(language, dirs)
    parts = [str(getattr(words, name)(facts[name])) for name in ORDER if name in facts]
    if not parts:
        return ""
    return OPEN + SEPARATOR.join(parts) + "</p>"


def under_title(html: str, line: str) -> str:
    """``html`` (a page body) with ``line`` after the paragraph that directly follows the first
    ``</h1>`` (the page's short answer), else right after that ``</h1>``. Raises ``ValueError``
    when the page has no ``</h1>``."""
    at = html.find("</h1>")
    if at < 0:
        raise ValueError("the page has no '# title' heading to put its facts under")
    at += len("</h1>")
    start = len(html) - len(html[at:].lstrip())  # where the title's next element starts
    if html.startswith(("<p>", "<p "), start):
        # a paragraph holds no other paragraph: its first </p> closes it
        at = html.index("</p>", start) + len("</p>")
    return html[:at] + line + html[at:]


def on_page_content(html: str, *, page, config, files) -> str:
    """Write the page's facts line under its short answer (MkDocs event), in the page's language
    (:func:`scripts.hooks.page_text.language_of`). Raises ``PluginError`` naming the page when
    it has facts and no ``<h1>``."""
    facts = page.meta.get(META_KEY)
    if not facts:
        return html
    line = facts_line(facts, page_text.language_of(page), config.theme.dirs)
    try:
        return under_title(html, line)
    except ValueError as error:
        raise PluginError(f"{page.file.src_uri}: {error}") from error
