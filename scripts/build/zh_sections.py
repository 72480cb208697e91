"""A page's sections (its ``#`` title and each ``##``/``###`` at the left margin) and their
fingerprints. A Chinese heading names its English section's anchor (``{ #id }``) and, on the
next line, the fingerprint of the English text it translates (``<!-- en: 1a2b3c4d5e6f -->``).
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from dataclasses import dataclass

from markdown_it import MarkdownIt
from mdit_py_plugins.front_matter import front_matter_plugin

MARKER = re.compile(r"^<!-- en: ([0-9a-f]{12}) -->$")
ATTR_ID = re.compile(r"\s*\{\s*#([\w-]+)[^}]*\}\s*$")  # ``{ #anchor }``, as attr_list reads it
HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")  # a Chinese character


@dataclass(frozen=True)
class Section:
    """``anchor`` (``""`` for the title's), ``heading`` as written, ``level`` 1-3, ``start`` (its
    0-based first line), ``text`` and ``marker``, the fingerprint its comment records, or None."""

    anchor: str
    heading: str
    level: int
    start: int
    text: str
    marker: str | None


def slugify(text: str) -> str:
    """The id Python-Markdown's ``toc`` gives a heading of rendered text ``text``."""
    value = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    return re.sub(r"[-\s]+", "-", re.sub(r"[^\w\s-]", "", value).strip().lower())


def sections(text: str) -> list[Section]:
    """The sections of a page's Markdown, read with markdown-it-py; a repeated id numbered as
    ``toc`` numbers it (``usage_1``). Raises ``ValueError`` when the page has no ``#`` title."""
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
    ends = [start for start, *_ in heads[1:]] + [len(lines)]
    return [Section(anchor, heading, level, start, "\n".join(lines[start:end]),
                    (m := MARKER.match(lines[start + 1].strip() if end > start + 1 else ""))
                    and m[1]) for (start, level, heading, anchor), end in zip(heads, ends)]


def fingerprint(section: Section) -> str:
    """12 hex digits of the SHA-256 of a section's text without trailing blanks or blank lines at
    either end: editing a word changes it, a trailing space does not."""
    text = "\n".join(line.rstrip() for line in section.text.splitlines()).strip("\n")
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


def current_pairs(english: list[Section], chinese: list[Section]) -> list[tuple[Section, Section]]:
    """The (English, Chinese) pairs whose Chinese section records its English section's
    fingerprint and stands after the pair before (a section moved out of order is stale)."""
    zh = {s.anchor: (n, s) for n, s in enumerate(chinese)}
    pairs, last = [], -1
    for section in english:
        n, other = zh.get(section.anchor, (-1, None))
        if other is not None and n > last and other.marker == fingerprint(section):
            pairs.append((section, other))
            last = n
    return pairs
