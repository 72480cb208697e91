"""The glossary's tooltips, in both languages: which terms a page explains, and with what.

An English page takes its terms from ``snippets/glossary.md``, an abbreviations file that
``pymdownx.snippets`` appends to every page (``auto_append`` in mkdocs.yml), so Python-Markdown's
``abbr`` extension already wraps each use of a term in ``<abbr title="definition">``. A Chinese
page takes its terms from the Chinese glossary page, ``docs/glossary.zh.md`` (a definition list:
the term, its English name in ``（）``, then its definition): ``abbr`` cannot find them in Chinese
text (its pattern ends a term at ``\\b``, which never matches between two Chinese characters), so
this module's step wraps them itself, after unwrapping the English glossary's ``<abbr>``.

The page's one HTML pass (:mod:`scripts.hooks.page_html`) then keeps a term's tooltip on its first
use only, and gives one to an inline code that is a term, with the terms of
:func:`terms_for`.
"""

from __future__ import annotations

import functools
import html
import re
from pathlib import Path

from mkdocs.exceptions import PluginError

from scripts import root_of
from scripts.hooks.page_text import language_of

#: The English glossary, relative to the project's folder (also mkdocs.yml's ``auto_append``).
GLOSSARY = "snippets/glossary.md"
#: The Chinese glossary page, relative to the ``docs/`` folder.
ZH_GLOSSARY = "glossary.zh.md"
#: A Chinese, Japanese or Korean character or punctuation mark (CJK Symbols and Punctuation, CJK
#: Unified Ideographs and Extension A, Halfwidth and Fullwidth Forms).
CJK = re.compile(r"[\u3000-\u303f\u3400-\u9fff\uff00-\uffef]")
#: What no tooltip goes into: comments; elements whose text is code, a link, a heading, a
#: tooltip already, a script, a formula, a caption, a control, a code block's title; and any
#: other tag (its attributes). A term is looked for only in the text between these.
NO_TERMS = (
    r"<!--.*?-->|<(code|pre|a|h[1-6]|abbr|script|style|svg|math|figcaption|summary|"
    r'button|label|textarea|title)\b.*?</\1>|<span class="filename".*?</span>|<[^>]*>'
)


def glossary_terms(path: Path) -> dict[str, str]:
    """Term -> definition of an abbreviations file (``*[term]: definition`` lines), read once per
    version of the file (``mkdocs serve`` reads an edit). Raises ``PluginError`` naming a line of
    any other form or a term defined twice."""
    return _glossary(path, path.stat().st_mtime_ns)


@functools.lru_cache(maxsize=8)  # read once per version of the file
def _glossary(path: Path, mtime_ns: int) -> dict[str, str]:
    terms: dict[str, str] = {}
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        m = re.fullmatch(r"\*\[(?P<term>[^\]]+)\]: (?P<definition>.+)", line)
        if not m or m["term"] in terms:
            raise PluginError(f"{path.name}:{n}: not a new term's definition: {line!r}")
        terms[m["term"]] = m["definition"]
    return terms


def zh_glossary(text: str) -> dict[str, str]:
    """Term -> plain definition, from the Markdown ``text`` of the Chinese glossary page.

    A term is a line followed by a definition (``:   `` and its text, continued on lines
    indented by four spaces, up to a line that is only a link); its ``（english）`` at the end is
    left out. The definition's lines are joined with a space between two Latin words and none
    next to a Chinese character (:data:`CJK`); its inline code and bold or italic marks are
    dropped, since a tooltip shows plain text. A term defined twice keeps its first definition."""
    terms: dict[str, str] = {}
    lines = text.splitlines()
    for i, line in enumerate(lines[1:], 1):
        term_line = lines[i - 1]
        starts_definition = line.startswith(":   ")
        if not starts_definition or not term_line.strip() or term_line[0] in " :":
            continue
        definition = line[4:]
        for part in lines[i + 1 :]:
            if not part.startswith("    ") or re.fullmatch(r"\s*\[[^\]]*\]\([^)]*\)\s*", part):
                break
            glue = CJK.match(definition[-1:]) or CJK.match(part.strip()[:1])
            if not glue:
                definition += " "
            definition += part.strip()
        term = re.sub(r"（[^（）]*）$", "", term_line.strip()).strip()
        plain = re.sub(r"`([^`]*)`|\*\*?([^*]+)\*\*?", lambda m: m[1] or m[2], definition)
        terms.setdefault(term, plain.strip())
    return terms


@functools.lru_cache(maxsize=8)  # read once per version of the file
def _zh_glossary(path: Path, mtime_ns: int) -> dict[str, str]:
    return zh_glossary(path.read_text(encoding="utf-8"))


def terms_for(page, config) -> dict[str, str]:
    """The glossary of ``page``'s language: term -> definition, from :data:`GLOSSARY` for an
    English page, from :data:`ZH_GLOSSARY` for a Chinese one (``{}`` when the site has no Chinese
    glossary). Raises ``PluginError`` for a malformed English glossary, ``OSError`` when it
    cannot be read."""
    if language_of(page) == "en":
        return glossary_terms(root_of(config) / GLOSSARY)
    path = Path(config.docs_dir) / ZH_GLOSSARY
    if not path.is_file():
        return {}
    return _zh_glossary(path, path.stat().st_mtime_ns)


def wrap_text_terms(page_html: str, terms: dict[str, str]) -> str:
    """``page_html`` with each term's first use in text (outside :data:`NO_TERMS`) wrapped in
    ``<abbr title="definition">``; longer terms are looked for first (``查找表`` before ``表``)."""
    if not terms:
        return page_html
    escaped = {html.escape(t, quote=False): t for t in sorted(terms, key=len, reverse=True)}
    seen = set()

    def wrap(m: re.Match) -> str:
        term = escaped.get(m[0])
        if term is None or term in seen:
            return m[0]  # not a term (a tag, code...), or a term already explained
        seen.add(term)
        return f'<abbr title="{html.escape(terms[term])}">{m[0]}</abbr>'

    words = "".join(f"|{re.escape(t)}" for t in escaped)
    return re.sub(NO_TERMS + words, wrap, page_html, flags=re.S)


def on_page_content(page_html: str, *, page, config, files) -> str:
    """A Chinese page: the English glossary's tooltips unwrapped, the Chinese glossary's terms
    wrapped (:func:`wrap_text_terms`); an English page as it is (MkDocs event)."""
    if language_of(page) == "en":
        return page_html
    page_html = re.sub(r'<abbr title="[^"]*">(.*?)</abbr>', r"\1", page_html, flags=re.S)
    return wrap_text_terms(page_html, terms_for(page, config))
