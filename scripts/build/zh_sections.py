"""A page's sections and their fingerprints: which sections of a Chinese page (``<page>.zh.md``)
have fallen behind the English page they translate.

Sections start at the ``#`` title and at each ``##``/``###`` at the left margin; they pair up by
anchor (a Chinese heading names the English one with ``{ #id }``). Under each Chinese heading,
``<!-- en: 1a2b3c4d5e6f -->`` records the fingerprint of the English section it translates.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from dataclasses import dataclass

from markdown_it import MarkdownIt
from mdit_py_plugins.front_matter import front_matter_plugin

#: The comment under a Chinese heading that names the fingerprint of its English section.
MARKER = re.compile(r"^<!-- en: ([0-9a-f]{12}) -->$")
#: A heading's attribute list at its end, as attr_list reads it: ``{ #anchor }``.
ATTR_ID = re.compile(r"\s*\{\s*#([\w-]+)[^}]*\}\s*$")
#: A Chinese character (CJK Unified Ideographs and Extension A).
HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")


@dataclass(frozen=True)
class Section:
    """One section: ``anchor`` (``""`` for the title's), ``heading`` as written, ``level`` 1-3,
    0-based lines ``start``-``end`` (exclusive), its ``text``, and the fingerprint its
    ``<!-- en: -->`` comment records (``marker``, else ``None``)."""

    anchor: str
    heading: str
    level: int
    start: int
    end: int
    text: str
    marker: str | None


def slugify(text: str) -> str:
    """The id Python-Markdown's ``toc`` gives a heading of rendered text ``text``."""
    value = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    return re.sub(r"[-\s]+", "-", re.sub(r"[^\w\s-]", "", value).strip().lower())


def sections(text: str) -> list[Section]:
    """The sections of a page's Markdown ``text`` (markdown-it-py, CommonMark); repeated ids
    numbered as ``toc`` numbers them (``usage_1``). Raises ``ValueError`` without a ``#`` title."""
    tokens = MarkdownIt("commonmark").use(front_matter_plugin).parse(text)
    lines, heads, seen = text.splitlines(), [], {}
    for tok, inline in zip(tokens, tokens[1:]):
        if tok.type != "heading_open" or tok.level != 0 or tok.tag not in ("h1", "h2", "h3"):
            continue
        match = ATTR_ID.search(inline.content)
        anchor = "" if tok.tag == "h1" else match[1] if match else slugify("".join(
            c.content for c in inline.children or [] if c.type in ("text", "code_inline")))
        if anchor in seen and not match and tok.tag != "h1":
            seen[anchor] += 1
            anchor = f"{anchor}_{seen[anchor]}"
        seen.setdefault(anchor, 0)
        heads.append((tok.map[0], int(tok.tag[1]), ATTR_ID.sub("", inline.content).strip(), anchor))
    if not heads or heads[0][1] != 1:
        raise ValueError("a page must open with a '#' title")
    out = []
    for n, (start, level, heading, anchor) in enumerate(heads):
        body = lines[start:heads[n + 1][0] if n + 1 < len(heads) else len(lines)]
        marker = MARKER.match(body[1].strip()) if len(body) > 1 else None
        out.append(Section(anchor, heading, level, start, start + len(body), "\n".join(body),
                           marker and marker[1]))
    return out


def fingerprint(section: Section) -> str:
    """12 hex digits of the SHA-256 of a section's text, trailing blanks and blank lines at
    either end left out (a word's edit changes it, a trailing space does not)."""
    text = "\n".join(line.rstrip() for line in section.text.splitlines()).strip("\n")
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


def current_pairs(english: list[Section], chinese: list[Section]) -> list[tuple[Section, Section]]:
    """The (English, Chinese) pairs whose Chinese section records its English section's
    fingerprint and stands after the pair before it (a section moved out of order is stale)."""
    zh = {s.anchor: (n, s) for n, s in enumerate(chinese)}
    pairs, last = [], -1
    for section in english:
        n, other = zh.get(section.anchor, (-1, None))
        if other is not None and n > last and other.marker == fingerprint(section):
            pairs.append((section, other))
            last = n
    return pairs

