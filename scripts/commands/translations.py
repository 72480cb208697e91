"""``python -m scripts translations``: the state of the Chinese pages, for a translator.

* with no option, every translated page's current, stale, missing and extra sections
  (:func:`report`; exit 0 either way, ``--strict`` exits 1 when any
  section is stale or missing); the audits print the same list after their summary;
* ``sections docs/<page>.md``: each section of an English page, its anchor, its fingerprint (what
  a Chinese heading's ``<!-- en: ... -->`` records) and its heading;
* ``mark docs/<page>.zh.md <anchor>...``: after a translator has brought a Chinese section in
  line with its changed English section, record the English section's current fingerprint in the
  section's ``<!-- en: ... -->`` line (:func:`mark`), so nobody copies a fingerprint by hand;
* ``--stats``: the numbers of each Chinese page's prose (:func:`zh_stats`), which
  ``tests/test_zh_prose.py`` holds to its limits.

The Chinese prose as a reader sees it (:func:`zh_units`, :func:`zh_sentences`) is measured here:
the page rendered with Python-Markdown, cut into sentences at 。！？；.
"""

from __future__ import annotations

import argparse
import copy
import functools
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import markdown
from bs4 import BeautifulSoup
from mkdocs.utils.meta import get_data

from scripts import ROOT
from scripts.hooks.markdown_blocks import sections
from scripts.hooks.zh import current_pairs, fingerprint

DOCS = ROOT / "docs"
#: The suffix of a Chinese page (mkdocs-static-i18n's suffix structure).
ZH_SUFFIX = ".zh.md"
#: The Python-Markdown extensions that decide a page's structure on the site (``mkdocs.yml``):
#: what the tests' prose rules and ``--stats`` render a page with.
TOC_EXTENSIONS = [
    "toc",
    "attr_list",
    "md_in_html",
    "admonition",
    "pymdownx.superfences",
    "pymdownx.tabbed",
    "pymdownx.details",
    "pymdownx.blocks.caption",
    "tables",
]


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
    """Compare a page's English Markdown with its Chinese Markdown, section by section: a section
    is current (:func:`scripts.hooks.zh.current_pairs`), stale (translated, but not
    current) or missing. Raises ``ValueError`` when either page has no ``#`` title."""
    en, zh = sections(english), sections(chinese)
    current = {e.anchor for e, _ in current_pairs(en, zh)}
    present = {s.anchor for s in zh}
    return PageReport(
        page,
        current=[s.anchor for s in en if s.anchor in current],
        stale=[s.anchor for s in en if s.anchor in present and s.anchor not in current],
        missing=[s.anchor for s in en if s.anchor not in present],
        extra=[s.anchor for s in zh if s.anchor not in {e.anchor for e in en}],
    )


def translated_pages(docs: Path = DOCS) -> list[Path]:
    """The English pages under ``docs`` that have a Chinese page beside them, sorted."""
    return sorted(
        p.with_name(p.name[: -len(ZH_SUFFIX)] + ".md") for p in docs.rglob(f"*{ZH_SUFFIX}")
    )


def report(docs: Path = DOCS) -> list[PageReport]:
    """One :class:`PageReport` per translated page under ``docs``."""
    return [
        compare(
            p.read_text(encoding="utf-8"),
            p.with_name(p.stem + ZH_SUFFIX).read_text(encoding="utf-8"),
            p.relative_to(docs).as_posix(),
        )
        for p in translated_pages(docs)
    ]


#: How ``sections`` and ``mark`` name the title's section, whose anchor is empty.
TITLE = "(title)"


def mark(chinese_page: Path, anchors: list[str]) -> list[str]:
    """Record, under each named section's heading in ``chinese_page`` (``docs/<page>.zh.md``),
    the fingerprint its English section has now (:func:`scripts.hooks.zh.fingerprint`): the
    ``<!-- en: ... -->`` line is replaced, or added on the line after the heading. The file is
    rewritten once, only when something changed; one line per anchor says what was done.

    Run it only after the Chinese text says what the English says now: the mark is the claim that
    it does. ``anchors`` are the headings' ids (``{ #anchor }``); :data:`TITLE` names the title.
    Raises ``ValueError`` naming the anchor when the English page has no such section, or the
    Chinese page has not translated it yet (nothing is written then), and ``FileNotFoundError``
    when either page is missing.
    """
    if not chinese_page.name.endswith(ZH_SUFFIX):
        raise ValueError(f"{chinese_page}: not a Chinese page (docs/<page>{ZH_SUFFIX})")
    english_page = chinese_page.with_name(chinese_page.name[: -len(ZH_SUFFIX)] + ".md")
    english = {s.anchor: s for s in sections(english_page.read_text(encoding="utf-8"))}
    text = chinese_page.read_text(encoding="utf-8")
    chinese = {s.anchor: s for s in sections(text)}
    lines = text.splitlines(keepends=True)
    done, edits = [], {}
    for name in anchors:
        anchor = "" if name == TITLE else name.removeprefix("#")
        if anchor not in english:
            raise ValueError(f"{english_page}: no section #{anchor}")
        if anchor not in chinese:
            raise ValueError(
                f"{chinese_page}: section #{anchor} is not translated yet: add its heading "
                f"(`## 标题 {{ #{anchor} }}`) and its text first"
            )
        new, section = fingerprint(english[anchor]), chinese[anchor]
        if section.marker == new:
            done.append(f"#{anchor or TITLE}: already current ({new})")
            continue
        edits[section.start] = (section.marker is not None, f"<!-- en: {new} -->\n")
        was = f"was {section.marker}" if section.marker else "had none"
        done.append(f"#{anchor or TITLE}: records {new} ({was})")
    for start in sorted(edits, reverse=True):
        replace, line = edits[start]
        lines[start + 1 : start + 1 + replace] = [line]
    if edits:
        chinese_page.write_text("".join(lines), encoding="utf-8")
    return done


# --- The Chinese prose, as a reader sees it, and its numbers --------------------------------------

HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")  # a Chinese character
#: Where a Chinese sentence ends: 。！？； and any closing quotation mark or bracket after it.
SENTENCE = re.compile(r"[^。！？；]*(?:[。！？；]+[”’」』）)]*|$)")


def _collapse(text: str) -> str:
    """Whitespace as a reader sees it: a line break between two Chinese characters vanishes,
    any other run of whitespace is one space."""
    text = re.sub(
        r"(?<=[\u3400-\u9fff\u3000-\u303f\uff00-\uffef])\n"
        r"(?=[\u3400-\u9fff\u3000-\u303f\uff00-\uffef])",
        "",
        text,
    )
    return " ".join(text.split())


@dataclass(frozen=True)
class ZhProse:
    """A Chinese page's prose: ``answer``, its short answer (the first paragraph after the title,
    with a list right after it), and ``units``, every paragraph, list item and table cell in
    order, the short answer's included, as plain text."""

    answer: str
    units: tuple[str, ...]

    @functools.cached_property
    def sentences(self) -> list[str]:
        """Every sentence of every unit (:func:`zh_sentences`) that holds a Chinese character:
        a table cell of a number or of code alone is no sentence."""
        return [s for unit in self.units for s in zh_sentences(unit) if HAN.search(s)]


def zh_sentences(unit: str) -> list[str]:
    """The sentences of one unit of plain text, split after 。！？； (a closing quotation mark
    or bracket stays with its sentence), stripped; pieces with no letter or digit left out."""
    return [s.strip() for s in SENTENCE.findall(unit) if any(c.isalnum() for c in s)]


def _unit_text(element) -> str:
    """The text a reader sees of an element (a paragraph, a list item, a table cell): a nested
    list, footnote marks and images left out, a code span as its text (a formula as its source,
    without ``#!math``), whitespace as :func:`_collapse` reads it."""
    element = copy.copy(element)
    for inner in element.select("ul, ol, sup, img"):
        inner.decompose()
    for code in element.find_all("code"):
        code.replace_with(code.get_text().removeprefix("#!math").strip())
    return _collapse(element.get_text())


@functools.lru_cache(maxsize=32)
def rendered_page(text: str) -> tuple[BeautifulSoup, list]:
    """A page's Markdown ``text`` rendered as the site renders its structure (Python-Markdown with
    :data:`TOC_EXTENSIONS` and ``footnotes``, front matter off as MkDocs takes it), and its short
    answer: the paragraph after the title, and a list right after that paragraph, which goes on
    with it. Shared by the English and the Chinese prose rules (``tests/prose.py``). Raises
    ``ValueError`` when the page has no title followed by a paragraph."""
    body, _meta = get_data(text)
    html = markdown.Markdown(extensions=[*TOC_EXTENSIONS, "footnotes"]).convert(body)
    soup = BeautifulSoup(html, "html.parser")
    title = soup.find("h1")
    first = title.find_next_sibling() if title else None
    if first is None or first.name != "p":
        raise ValueError("no '# title' followed by a paragraph")
    after = first.find_next_sibling()
    return soup, [first, *([after] if after is not None and after.name in ("ul", "ol") else [])]


def zh_units(text: str) -> ZhProse:
    """The prose of a Chinese page's Markdown ``text`` as a reader sees it (see :class:`ZhProse`).

    The page is rendered as ``tests/prose.py`` renders an English page: Python-Markdown with the
    extensions that decide the site's structure (:data:`TOC_EXTENSIONS`,
    and ``footnotes``), its front matter taken off as MkDocs does. (markdown-it-py reads emphasis
    by CommonMark's flanking rules, which leave ``**用 Embedding 还是 Linear？**输入`` unrendered
    where the site renders it bold: four characters too many.) Left out: code blocks, HTML
    comments, headings, the titles of admonitions and collapsed notes, images, link targets,
    footnote marks and footnote definitions (they quote English sources). A paragraph, a list
    item (without the list inside it) and a table cell are units of their own; a code span counts
    as its text. Raises ``ValueError`` when the page has no title followed by a paragraph.
    Remembered per text: the tests of one page read it three times."""
    soup, answer = rendered_page(text)
    answer = answer[:1] + [li for lst in answer[1:] for li in lst.find_all("li")]
    answer_text = _collapse("\n".join(_unit_text(element) for element in answer))
    for element in soup.select("pre, div.footnote, p.admonition-title, summary"):
        element.decompose()
    units = []
    for element in soup.find_all(["p", "li", "td", "th"]):
        if element.name == "p" and element.find_parent(["li", "td", "th"]):
            continue  # read with its list item or cell
        if unit := _unit_text(element):
            units.append(unit)
    return ZhProse(answer_text, tuple(units))


def zh_stats(text: str) -> dict[str, float]:
    """The numbers of a Chinese page's prose (:func:`zh_units`): ``sentences``, ``mean``
    characters a sentence, ``over_80`` and ``over_100`` (shares of the sentences, in %),
    ``longest`` (characters) and ``answer`` (the short answer's characters). A character is one
    of the rendered text, spaces included."""
    prose = zh_units(text)
    lengths = [len(s) for s in prose.sentences]
    n = len(lengths)
    return {
        "sentences": n,
        "mean": sum(lengths) / n if n else 0.0,
        "over_80": 100 * sum(k > 80 for k in lengths) / n if n else 0.0,
        "over_100": 100 * sum(k > 100 for k in lengths) / n if n else 0.0,
        "longest": max(lengths, default=0),
        "answer": len(prose.answer),
    }


def stats_table(docs: Path = DOCS) -> list[str]:
    """The lines ``--stats`` prints: one per Chinese page under ``docs`` with the numbers of
    :func:`zh_stats`, then the limits they are held to (``tests/test_zh_prose.py``)."""
    lines = [
        f"{'page':<30} {'sent.':>5} {'mean':>5} {'%>80':>5} {'%>100':>5} {'longest':>7} "
        f"{'answer':>6}"
    ]
    for page in sorted(docs.rglob(f"*{ZH_SUFFIX}")):
        m = zh_stats(page.read_text(encoding="utf-8"))
        lines.append(
            f"{page.relative_to(docs).as_posix():<30} {m['sentences']:>5} "
            f"{m['mean']:>5.1f} {m['over_80']:>5.1f} {m['over_100']:>5.1f} "
            f"{m['longest']:>7} {m['answer']:>6}"
        )
    lines.append(
        "characters of rendered text; limits: no sentence over 100, at most 2 % over 80, "
        "a short answer of at most 160"
    )
    return lines


def main(argv: list[str] | None = None) -> int:
    """Run the subcommand with ``argv`` (``sys.argv[1:]`` by default); return 0, or 1 with
    ``--strict`` when a section is stale or missing (argparse exits 2 on a wrong option)."""
    parser = argparse.ArgumentParser(
        description="List the stale and missing sections of the Chinese pages (exit 0 either way; "
        "--strict exits 1 when any is stale or missing)."
    )
    sub = parser.add_subparsers(dest="command")
    show = sub.add_parser(
        "sections",
        help="print an English page's sections: anchor, fingerprint, heading (for a translator)",
    )
    show.add_argument("page", type=Path)
    marking = sub.add_parser(
        "mark",
        help="record that Chinese sections translate their English sections as they are now",
        description="Write, under each named section's heading in a Chinese page, the current "
        "fingerprint of its English section (the <!-- en: ... --> line), which makes the "
        "section current. Run it ONLY after updating the Chinese text to say what the English "
        "says now: the mark claims that it does.",
    )
    marking.add_argument("page", type=Path, help="the Chinese page, docs/<page>.zh.md")
    marking.add_argument(
        "anchors", nargs="+", help=f"the sections' anchors (their {{ #id }}); {TITLE} for the title"
    )
    parser.add_argument("--strict", action="store_true")
    parser.add_argument(
        "--stats", action="store_true", help="print each Chinese page's sentence numbers instead"
    )
    parser.add_argument(
        "--docs",
        type=Path,
        default=DOCS,
        help="the folder of the pages (default: the site's docs/)",
    )
    args = parser.parse_args(argv)
    if args.command == "sections":
        for s in sections(args.page.read_text(encoding="utf-8")):
            print(f"{s.anchor or '(title)'}\t{fingerprint(s)}\t{'#' * s.level} {s.heading}")
        return 0
    if args.command == "mark":
        try:
            print("\n".join(f"{args.page}: {line}" for line in mark(args.page, args.anchors)))
        except (ValueError, FileNotFoundError) as error:
            print(f"translations mark: {error}", file=sys.stderr)
            return 1
        return 0
    if args.stats:
        print("\n".join(stats_table(args.docs)))
        return 0
    reports = report(args.docs)
    behind = 0
    for r in reports:
        total = len(r.current) + len(r.stale) + len(r.missing)
        print(
            f"{r.page}: {len(r.current)} of {total} sections current, {len(r.stale)} stale, "
            f"{len(r.missing)} missing"
        )
        for kind in ("stale", "missing", "extra"):
            for anchor in getattr(r, kind):
                print(f"  {kind}: #{anchor}" if anchor else f"  {kind}: (title)")
        behind += len(r.stale) + len(r.missing)
    print(f"{len(reports)} translated pages; {behind} sections stale or missing")
    return 1 if args.strict and behind else 0


if __name__ == "__main__":
    sys.exit(main())
