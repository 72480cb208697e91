"""Which sections of the Chinese pages have fallen behind their English source: what the build
needs of the Chinese edition (:mod:`scripts.build.zh` shows it to readers).

A page ``docs/<page>.md`` is translated in ``docs/<page>.zh.md``. Both are cut into the same
sections: the title's section (from the ``#`` title to the first ``##``) and one section per
``##`` or ``###`` heading that stands at the left margin (a heading inside an admonition or a tab
belongs to the section around it). Sections are matched by anchor: an English heading's anchor is
its ``{ #id }`` attribute or the id Python-Markdown's ``toc`` extension gives it; a Chinese
heading names the English anchor with ``{ #id }``, since a slug of Chinese words would differ.

Right under each Chinese heading, the title's included, a comment records a fingerprint of the
English section it translates: ``<!-- en: 1a2b3c4d5e6f -->``. When the English section changes,
its fingerprint changes and the Chinese section is *stale* until a translator brings it up to date
and writes the new fingerprint. A Chinese section is *current* when its marker names its English
section's fingerprint and it stands in the English order (:func:`current_pairs`); :func:`compare`
and :func:`report` give each page's current, stale, missing and extra sections.

Markdown is read with markdown-it-py (CommonMark, with front matter), the parser the build's article
converter and jupytext use. ``python -m scripts translations``
(:mod:`scripts.commands.translations`) prints the report, each section's fingerprint for a
translator, and the Chinese prose's numbers; the checks of what a current section keeps are the
tests' (``tests/translations.py``).
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path

from markdown_it import MarkdownIt
from mdit_py_plugins.front_matter import front_matter_plugin

from scripts import ROOT

DOCS = ROOT / "docs"

#: The comment under a Chinese heading that names the fingerprint of its English section.
MARKER = re.compile(r"^<!-- en: ([0-9a-f]{12}) -->$")
#: A heading's attribute list at its end, as attr_list reads it: ``{ #anchor }``.
ATTR_ID = re.compile(r"\s*\{\s*#([\w-]+)[^}]*\}\s*$")
#: The suffix of a Chinese page (mkdocs-static-i18n's suffix structure).
ZH_SUFFIX = ".zh.md"
#: A Chinese character (CJK Unified Ideographs and Extension A).
HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")
#: The Python-Markdown extensions that decide a heading's id on the site (``mkdocs.yml``): the
#: ids :func:`slugify` and :func:`sections` work out, and the structure the tests' prose rules and
#: ``python -m scripts translations --stats`` render a page with.
TOC_EXTENSIONS = ["toc", "attr_list", "md_in_html", "admonition", "pymdownx.superfences",
                  "pymdownx.tabbed", "pymdownx.details", "pymdownx.blocks.caption", "tables"]


@dataclass(frozen=True)
class Section:
    """One section of a page.

    ``anchor`` is ``""`` for the title's section; ``heading`` the heading's text as written
    (without its attribute list); ``level`` 1 to 3; ``start`` and ``end`` 0-based line numbers
    (``end`` exclusive); ``text`` the section's lines, heading included; ``marker`` the
    fingerprint a Chinese section's comment records (``None`` on an English page or when absent).
    """

    anchor: str
    heading: str
    level: int
    start: int
    end: int
    text: str
    marker: str | None


def slugify(text: str) -> str:
    """The id Python-Markdown's ``toc`` extension gives a heading whose rendered text is
    ``text`` (``markdown.extensions.toc.slugify`` with separator ``-``)."""
    value = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    value = re.sub(r"[^\w\s-]", "", value).strip().lower()
    return re.sub(r"[-\s]+", "-", value)


def _plain_text(inline) -> str:
    """The text a heading renders to: its text and code spans, without markup."""
    return "".join(child.content for child in inline.children or []
                   if child.type in ("text", "code_inline"))


def sections(text: str) -> list[Section]:
    """Cut a page's Markdown ``text`` into its sections (see the module docstring).

    Ids repeat as ``toc`` makes them unique: a second ``#usage`` becomes ``#usage_1``. Raises
    ``ValueError`` when the page has no ``#`` title."""
    md = MarkdownIt("commonmark").use(front_matter_plugin)
    tokens = md.parse(text)
    lines = text.splitlines()
    heads: list[tuple[int, int, str, str]] = []  # (line, level, heading, anchor)
    seen: dict[str, int] = {}
    for i, tok in enumerate(tokens):
        if tok.type != "heading_open" or tok.level != 0 or tok.tag not in ("h1", "h2", "h3"):
            continue
        level = int(tok.tag[1])
        inline = tokens[i + 1]
        match = ATTR_ID.search(inline.content)
        heading = ATTR_ID.sub("", inline.content).strip()
        if level == 1:
            anchor = ""
        elif match:
            anchor = match.group(1)
        else:
            anchor = slugify(_plain_text(inline))
            if anchor in seen:
                seen[anchor] += 1
                anchor = f"{anchor}_{seen[anchor]}"
        seen.setdefault(anchor, 0)
        heads.append((tok.map[0], level, heading, anchor))
    if not heads or heads[0][1] != 1:
        raise ValueError("a page must open with a '#' title")
    out = []
    for n, (start, level, heading, anchor) in enumerate(heads):
        end = heads[n + 1][0] if n + 1 < len(heads) else len(lines)
        body = lines[start:end]
        marker = None
        if len(body) > 1 and (m := MARKER.match(body[1].strip())):
            marker = m.group(1)
        out.append(Section(anchor, heading, level, start, end, "\n".join(body), marker))
    return out


def fingerprint(section: Section) -> str:
    """12 hexadecimal digits of the SHA-256 of an English section's text, its lines stripped of
    trailing blanks and its blank lines at either end dropped: an edit of a word changes it, a
    trailing space does not."""
    text = "\n".join(line.rstrip() for line in section.text.splitlines()).strip("\n")
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


@dataclass(frozen=True)
class PageReport:
    """The state of one translated page: anchors of ``current``, ``stale`` and ``missing``
    sections (English order) and ``extra`` Chinese sections that no English section has."""

    page: str
    current: list[str]
    stale: list[str]
    missing: list[str]
    extra: list[str]


def current_pairs(english: list[Section], chinese: list[Section]) -> list[tuple[Section, Section]]:
    """The ``(English section, Chinese section)`` pairs whose Chinese section is current: it
    names its English section's anchor and fingerprint, and it comes after the Chinese section of
    the pair before (a section moved out of the English order is stale until it is moved back)."""
    zh = {s.anchor: (n, s) for n, s in enumerate(chinese)}
    pairs, last = [], -1
    for section in english:
        n, other = zh.get(section.anchor, (-1, None))
        if other is not None and n > last and other.marker == fingerprint(section):
            pairs.append((section, other))
            last = n
    return pairs


def compare(english: str, chinese: str, page: str = "") -> PageReport:
    """Compare a page's English Markdown with its Chinese Markdown, section by section: a section
    is current (:func:`current_pairs`), stale (translated, but not current) or missing."""
    en, zh = sections(english), sections(chinese)
    current = {e.anchor for e, _ in current_pairs(en, zh)}
    present = {s.anchor for s in zh}
    return PageReport(
        page,
        current=[s.anchor for s in en if s.anchor in current],
        stale=[s.anchor for s in en if s.anchor in present and s.anchor not in current],
        missing=[s.anchor for s in en if s.anchor not in present],
        extra=[s.anchor for s in zh if s.anchor not in {e.anchor for e in en}])


def translated_pages(docs: Path = DOCS) -> list[Path]:
    """The English pages under ``docs`` that have a Chinese page beside them, sorted."""
    return sorted(p.with_name(p.name[: -len(ZH_SUFFIX)] + ".md")
                  for p in docs.rglob(f"*{ZH_SUFFIX}"))


def report(docs: Path = DOCS) -> list[PageReport]:
    """One :class:`PageReport` per translated page under ``docs``."""
    return [compare(p.read_text(encoding="utf-8"),
                    p.with_name(p.stem + ZH_SUFFIX).read_text(encoding="utf-8"),
                    p.relative_to(docs).as_posix())
            for p in translated_pages(docs)]

