"""Chinese typography as a Chinese reader gets it: no stray space inside Chinese text, no slanted
Chinese glyphs, the spacing and punctuation a maintained CJK linter asks for, and links to pages
that exist in English alone marked （英文）.

Why each rule, measured on the site before it held:

* A line break inside a paragraph is whitespace in HTML. Chromium draws whitespace between two
  Chinese characters as a space (``独热。⏎能算出`` measured 3.6 px wider than ``独热。能算出``);
  Firefox drops it. So no whitespace may sit between two Chinese characters (or Chinese
  punctuation) in the built Chinese pages' prose. The fix is in the source: a Chinese paragraph
  is written on one line.
* Chinese fonts have no italic, so a browser slants the glyphs of ``*…*``: Chinese emphasis is
  bold (``**…**``).
* Spacing and punctuation between Chinese and Latin text follow autocorrect
  (https://github.com/huacnlee/autocorrect, the ``autocorrect-py`` package, pinned), with its own
  defaults: it leaves code, links and front matter alone itself. Its suggestion is printed with
  each finding.
"""

from __future__ import annotations

import re
from pathlib import Path

import autocorrect_py
import pytest

from scripts.commands.translations import DOCS, ZH_SUFFIX, rendered_page
from tests.built_pages import parsed
from tests.markdown_model import fenced_lines

#: The Chinese pages, when the tests are collected.
CHINESE_PAGES = sorted(p.relative_to(DOCS).as_posix() for p in DOCS.rglob(f"*{ZH_SUFFIX}"))
#: A Chinese character or a CJK punctuation mark (CJK symbols and punctuation, full-width forms).
CJK = r"[\u3400-\u4dbf\u4e00-\u9fff\u3000-\u303f\uff00-\uffef]"
#: Whitespace between two of them, as a browser reads the text.
SPACE_BETWEEN = re.compile(rf"({CJK})(\s+)(?={CJK})")
HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")
#: The elements whose text is prose: a block of running text and the inline elements inside it.
PROSE_BLOCKS = ["p", "li", "td", "th", "dt", "dd", "figcaption", "summary", "h1", "h2", "h3", "h4"]
#: Inside these, text belongs to a block of its own, measured on its own.
NESTED = {"ul", "ol", "p", "table", "div", "script", "style"}
#: Inside these, text is code or a formula: read as Latin text (one ``x``), not as Chinese.
CODE = {"pre", "code", "svg", "math"}


def read(page: str) -> str:
    return (DOCS / page).read_text(encoding="utf-8")


def prose_text(block) -> str:
    """The text of one prose block as a browser lays it out: every string inside it in document
    order, code and formulas read as one Latin letter each, nested blocks left out (they are
    measured on their own)."""
    parts = []
    for string in block.find_all(string=True):
        inside = set()
        for parent in string.parents:
            if parent is block:
                break
            inside.add(parent.name)
        if not inside.isdisjoint(NESTED):
            continue
        parts.append("x" if not inside.isdisjoint(CODE) else str(string))
    return "".join(parts)


def spaces_between_chinese(soup) -> list[str]:
    """Each place in the prose of a page's ``<article>`` where whitespace sits between two
    Chinese characters or marks, shown with ten characters either side."""
    article = soup.find("article") or soup
    found = []
    for block in article.find_all(PROSE_BLOCKS):
        if block.find_parent(["pre", "code"]):
            continue
        text = prose_text(block)
        for m in SPACE_BETWEEN.finditer(text):
            found.append(repr(text[max(0, m.start() - 10) : m.end() + 10]))
    return found


def chinese_built_pages(site: Path) -> list[Path]:
    """The built pages of the Chinese pages under ``docs/`` (``zh/<page>/index.html``)."""
    pages = []
    for page in CHINESE_PAGES:
        stem = page.removesuffix(ZH_SUFFIX)
        pages.append(site / "zh" / ("" if stem == "index" else stem) / "index.html")
    return pages


def test_built_chinese_prose_has_no_whitespace_between_two_chinese_characters(site):
    problems = []
    for path in chinese_built_pages(site):
        found = spaces_between_chinese(parsed(path))
        problems += [f"{path.relative_to(site)}: {where}" for where in found]
    assert not problems, (
        "whitespace between two Chinese characters is drawn as a space by Chromium; write each "
        "Chinese paragraph on one line (a line break inside it is such whitespace):\n"
        + "\n".join(problems[:40])
    )


def test_the_whitespace_rule_sees_a_line_break_inside_a_chinese_paragraph():
    """The rule above reads a paragraph written on two lines as a browser does: it fails on it,
    and passes the same paragraph on one line and a space between Chinese and Latin text."""
    two_lines, _ = rendered_page("# 标题\n\n独热向量乘以权重，\n能算出同一行。\n")
    one_line, _ = rendered_page(
        "# 标题\n\n独热向量乘以权重，能算出同一行。使用 `weight` 和**行**。\n"
    )
    across_markup, _ = rendered_page("# 标题\n\n查找表\n**只**返回一行。\n")
    before_bold, _ = rendered_page("# 标题\n\n它只返回 **一行**。\n")
    assert spaces_between_chinese(two_lines) == ["'独热向量乘以权重，\\n能算出同一行。'"]
    assert spaces_between_chinese(one_line) == []
    assert spaces_between_chinese(across_markup) == ["'查找表\\n只返回一行。'"]
    assert spaces_between_chinese(before_bold) == ["'它只返回 一行。'"]


@pytest.mark.parametrize("page", CHINESE_PAGES)
def test_chinese_emphasis_is_bold_never_italic(page):
    soup, _ = rendered_page(read(page))
    slanted = [em.get_text() for em in soup.find_all("em") if HAN.search(em.get_text())]
    assert not slanted, (
        f"{page}: Chinese fonts have no italic, so the browser slants these glyphs; write "
        f"**…** (bold) instead of *…*: {slanted}"
    )


@pytest.mark.parametrize("page", CHINESE_PAGES)
def test_autocorrect_finds_nothing(page):
    result = autocorrect_py.lint_for(read(page), page)
    findings = [f"line {r.line}, column {r.col}: {r.old!r} -> {r.new!r}" for r in result.lines]
    assert not findings, (
        f"{page}: autocorrect's spacing and punctuation between Chinese and Latin text "
        "(its suggestion after each ->; `autocorrect_py.format_for(text, path)` applies all):\n"
        + "\n".join(findings)
    )


def test_autocorrect_reports_a_space_inside_chinese_quotes():
    """The linter, as configured, is not silent: a space between “ and Chinese text is found."""
    assert autocorrect_py.lint_for("# 标题\n\n查找给 “bank” 一个向量。\n", "x.zh.md").lines
    assert not autocorrect_py.lint_for("# 标题\n\n查找给“bank”一个向量。\n", "x.zh.md").lines


#: A Markdown link to another page of the site: its text and target (no scheme, not an anchor).
PAGE_LINK = re.compile(r"\[(?P<text>[^\]]+)\]\((?P<target>(?![a-z]+:|#)[^)\s#]+)(?:#[^)\s]*)?\)")
#: What follows a link to a page that exists in English only (after an attribute list, if any).
ENGLISH_MARK = re.compile(r"(?:\{[^}]*\})?（英文）")


def outside_fences(text: str) -> str:
    """``text`` with the lines of its fenced blocks blanked (tests/markdown_model.py finds them)."""
    lines = text.split("\n")
    inside = fenced_lines(lines)
    return "\n".join("" if n in inside else line for n, line in enumerate(lines, start=1))


def english_only_links(page: str, text: str) -> list[str]:
    """The links in the Chinese page ``page``'s Markdown ``text`` (outside code fences) to a page
    of ``docs/`` that has no Chinese version and that do not say （英文） right after them."""
    here = (DOCS / page).parent
    found = []
    for m in PAGE_LINK.finditer(outside_fences(text)):
        target = (here / m["target"]).resolve()
        if target.suffix not in (".md", ".ipynb") or not target.is_file():
            continue
        if target.suffix == ".md" and target.with_suffix("").with_suffix(ZH_SUFFIX).is_file():
            continue
        if target.name.endswith(ZH_SUFFIX):
            continue
        if not ENGLISH_MARK.match(outside_fences(text), m.end()):
            found.append(m[0])
    return found


@pytest.mark.parametrize("page", CHINESE_PAGES)
def test_links_to_english_only_pages_say_so(page):
    unmarked = english_only_links(page, read(page))
    assert not unmarked, (
        f"{page}: these pages have no Chinese version; write （英文） right after each link, as "
        f"the navigation does: {unmarked}"
    )


def test_the_english_mark_rule_reads_links_as_written():
    assert english_only_links("index.zh.md", "见[声明](claims.md)。") == ["[声明](claims.md)"]
    assert english_only_links("index.zh.md", "见[声明](claims.md#x)（英文）。") == []
    assert english_only_links("index.zh.md", "见[查找表](lookup-tables.md)。") == []
    assert english_only_links("index.zh.md", "```\n[a](claims.md)\n```\n") == []
