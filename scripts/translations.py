"""Which sections of the Chinese pages have fallen behind their English source.

A page ``docs/<page>.md`` is translated in ``docs/<page>.zh.md``. Both are cut into the same
sections: the title's section (from the ``#`` title to the first ``##``) and one section per
``##`` or ``###`` heading that stands at the left margin (a heading inside an admonition or a tab
belongs to the section around it). Sections are matched by anchor: an English heading's anchor is
its ``{ #id }`` attribute or the id Python-Markdown's ``toc`` extension gives it; a Chinese
heading names the English anchor with ``{ #id }``, since a slug of Chinese words would differ.

Right under each Chinese heading, the title's included, a comment records a fingerprint of the
English section it translates: ``<!-- en: 1a2b3c4d5e6f -->``. When the English section changes,
its fingerprint changes and the Chinese section is *stale* until a translator brings it up to date
and writes the new fingerprint. ``python -m scripts.translations`` lists every stale and missing
section per page; ``python -m scripts.translations sections docs/<page>.md`` prints each section's
anchor, fingerprint and heading, for a translator.

Markdown is read with markdown-it-py (CommonMark, with front matter), the parser the build's article
converter and jupytext use.
"""

from __future__ import annotations

import argparse
import hashlib
import re
import sys
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


def compare(english: str, chinese: str, page: str = "") -> PageReport:
    """Compare a page's English Markdown with its Chinese Markdown, section by section."""
    zh = {s.anchor: s for s in sections(chinese)}
    current, stale, missing = [], [], []
    en = sections(english)
    for section in en:
        other = zh.get(section.anchor)
        if other is None:
            missing.append(section.anchor)
        elif other.marker == fingerprint(section):
            current.append(section.anchor)
        else:
            stale.append(section.anchor)
    extra = [a for a in zh if a not in {s.anchor for s in en}]
    return PageReport(page, current, stale, missing, extra)


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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m scripts.translations",
        description="List the stale and missing sections of the Chinese pages (exit 0 either way; "
                    "--strict exits 1 when any is stale or missing).")
    sub = parser.add_subparsers(dest="command")
    show = sub.add_parser("sections", help="print an English page's sections: anchor, "
                                           "fingerprint, heading (for a translator)")
    show.add_argument("page", type=Path)
    parser.add_argument("--strict", action="store_true")
    args = parser.parse_args(argv)
    if args.command == "sections":
        for s in sections(args.page.read_text(encoding="utf-8")):
            print(f"{s.anchor or '(title)'}\t{fingerprint(s)}\t{'#' * s.level} {s.heading}")
        return 0
    reports = report()
    behind = 0
    for r in reports:
        total = len(r.current) + len(r.stale) + len(r.missing)
        print(f"{r.page}: {len(r.current)} of {total} sections current, {len(r.stale)} stale, "
              f"{len(r.missing)} missing")
        for kind in ("stale", "missing", "extra"):
            for anchor in getattr(r, kind):
                print(f"  {kind}: #{anchor}" if anchor else f"  {kind}: (title)")
        behind += len(r.stale) + len(r.missing)
    print(f"{len(reports)} translated pages; {behind} sections stale or missing")
    return 1 if args.strict and behind else 0


if __name__ == "__main__":
    sys.exit(main())
