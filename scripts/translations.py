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
converter and jupytext use; fenced blocks and includes through :mod:`scripts.markdown_model`, the
site's one reader of fences (it knows a block indented inside an admonition or a tab).

A Chinese section is *current* when its marker names its English section's fingerprint and it
stands in the English order (:func:`current_pairs`). Beside the state of each section, the
module checks what a current section must keep, and measures the Chinese prose
(``tests/test_translations.py``, ``tests/test_zh_terms.py``, ``tests/test_zh_prose.py``); a
stale, missing or moved section is reported, never failed, so that an English edit fails nothing:

* :func:`code_difference`: a current section's fenced blocks are its English section's, in order:
  the same Python tokens (comments aside: a translated comment passes), every other block byte
  for byte, the same test-driving comment above each block and the same snippet includes;
* :func:`alignment_problems`: a current section has its English section's level, every number,
  inline code span, formula, link target, claim id and footnote label of the English text, and
  the same figures with Chinese alt text (:func:`section_items`);
* :func:`zh_units`, :func:`zh_sentences`, :func:`zh_stats`: the Chinese prose as a reader sees it,
  cut into sentences at 。！？；, and its numbers (``python -m scripts.translations --stats``).
"""

from __future__ import annotations

import argparse
import copy
import functools
import hashlib
import io
import re
import sys
import tokenize
import unicodedata
from dataclasses import dataclass
from pathlib import Path

import markdown
from bs4 import BeautifulSoup
from markdown_it import MarkdownIt
from mdit_py_plugins.front_matter import front_matter_plugin
from mkdocs.utils.meta import get_data

from tests.markdown_model import (
    TOC_EXTENSIONS,
    Fence,
    claim_ids,
    fenced_lines,
    fences_of,
    include_of,
)

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


# --- The code: every block of a Chinese page is its English page's block -------------------------

def _python_tokens(code: str) -> list[tuple[int, str, int]] | None:
    """``(type, string, 1-based row)`` of the Python tokens of ``code``, comments and blank-line
    tokens left out; ``None`` when ``code`` does not tokenize (then it is compared byte for
    byte)."""
    try:
        return [(t.type, t.string, t.start[0])
                for t in tokenize.generate_tokens(io.StringIO(code + "\n").readline)
                if t.type not in (tokenize.COMMENT, tokenize.NL)]
    except (tokenize.TokenError, SyntaxError):
        return None


def driving_comment(fence: Fence) -> str | None:
    """The HTML comment on the line above ``fence`` that drives the tests
    (``<!--pytest-codeblocks:expected-output-->``, ``<!--pytest.mark.…-->``), or ``None``."""
    before = fence.before.strip()
    return before if before.startswith("<!--") and "pytest" in before else None


def _name(section: Section) -> str:
    return f"#{section.anchor}" if section.anchor else "(title)"


def code_difference(english: str, chinese: str, en_name: str = "en",
                    zh_name: str = "zh") -> str | None:
    """The first difference between the fenced blocks of a page's English Markdown and its
    Chinese Markdown, as ``"<zh_name>:<line> vs <en_name>:<line>: <section> block <n>: <what>"``,
    or ``None`` when they agree.

    Each current section (:func:`current_pairs`) is compared with its English section, block by
    block in order. A Python block (:attr:`Fence.python_like`) must hold the same tokens
    (:mod:`tokenize`, ``COMMENT`` and blank-line tokens left out: a translated comment passes);
    any other block (``text``, ``console``, ``math``, an output) and a Python block that does not
    tokenize must be the same lines, byte for byte. Each block's fence, indentation, info string
    and test-driving comment (:func:`driving_comment`) must be the same, and so must the
    section's snippet includes (``--8<--``), in order. A stale or missing section is not compared:
    an English edit makes its section stale, which ``python -m scripts.translations`` reports,
    and fails nothing. Line numbers are 1-based, in the whole page."""
    for e, z in current_pairs(sections(english), sections(chinese)):
        found = _section_code_difference(e, z)
        if found is not None:
            (en_line, zh_line), what = found
            return (f"{zh_name}:{z.start + zh_line} vs {en_name}:{e.start + en_line}: "
                    f"{_name(e)} {what}")
    return None


def _section_code_difference(e: Section, z: Section) -> tuple[tuple[int, int], str] | None:
    """The first difference between the blocks of two sections: ``((English line, Chinese
    line), what)``, lines 1-based within each section, or ``None``."""
    en_lines, zh_lines = e.text.splitlines(), z.text.splitlines()
    en_fences = fences_of(en_lines)
    try:
        zh_fences = fences_of(zh_lines)
    except ValueError as error:  # a fence the reader cannot close: a block moved out of its note
        return ((1, 1), f"its blocks cannot be read: {error}")
    for n, (a, b) in enumerate(zip(en_fences, zh_fences, strict=False), start=1):
        block = f"block {n}"
        if (a.indent, a.fence, a.info) != (b.indent, b.fence, b.info):
            return ((a.line, b.line), f"{block}: opens {b.indent!r} {b.fence}{b.info!r}, "
                                      f"not {a.indent!r} {a.fence}{a.info!r}")
        if driving_comment(a) != driving_comment(b):
            return ((a.line, b.line), f"{block}: the comment above is {driving_comment(b)!r}, "
                                      f"not {driving_comment(a)!r}")
        en_tokens = _python_tokens("\n".join(a.body)) if a.python_like else None
        zh_tokens = _python_tokens("\n".join(b.body)) if a.python_like else None
        if en_tokens is not None and zh_tokens is not None:
            for x, y in zip(en_tokens, zh_tokens, strict=False):
                if x[:2] != y[:2]:
                    return ((a.line + x[2], b.line + y[2]),
                            f"{block} ({a.info}): token {y[1]!r}, not {x[1]!r}")
            if len(en_tokens) != len(zh_tokens):
                return ((a.line, b.line),
                        f"{block} ({a.info}): {len(zh_tokens)} tokens, not {len(en_tokens)}")
            continue
        for i, (x, y) in enumerate(zip(a.body, b.body, strict=False), start=1):
            if x != y:
                return ((a.line + i, b.line + i), f"{block} ({a.info}): {y!r}, not {x!r}")
        if len(a.body) != len(b.body):
            return ((a.line, b.line), f"{block} ({a.info}): {len(b.body)} lines, not {len(a.body)}")
    if len(en_fences) != len(zh_fences):
        if len(zh_fences) > len(en_fences):
            b = zh_fences[len(en_fences)]
            return ((len(en_lines), b.line), f"block {len(en_fences) + 1}: a block the English "
                                             "section lacks")
        a = en_fences[len(zh_fences)]
        return ((a.line, len(zh_lines)), f"block {len(zh_fences) + 1}: a block the Chinese "
                                         "section lacks")
    en_inc = [(n, inc.spec) for n, line in enumerate(en_lines, 1) if (inc := include_of(line))]
    zh_inc = [(n, inc.spec) for n, line in enumerate(zh_lines, 1) if (inc := include_of(line))]
    for (en_n, x), (zh_n, y) in zip(en_inc, zh_inc, strict=False):
        if x != y:
            return ((en_n, zh_n), f"includes {y!r}, not {x!r}")
    if len(en_inc) != len(zh_inc):
        return ((len(en_lines), len(zh_lines)),
                f"{len(zh_inc)} snippet includes, not {len(en_inc)}")
    return None


# --- The meaning: what each English section holds, the Chinese section holds too -----------------

#: A number in prose: digits with thousands separators (``1,000``, ``10 000`` with a thin space),
#: decimals or a version's dots (``0.5``, ``2.11.0``), an exponent (``1e-6``); not part of a word
#: (``float32``, ``H200``, ``cu130``), while a CJK character beside it is no letter (``5行``).
NUMBER = re.compile(r"(?<![A-Za-z0-9_.])\d{1,3}(?:[,\u2009\u202f]\d{3})+(?:\.\d+)*"
                    r"(?:[eE][-+\u2212]?\d+)?(?![A-Za-z0-9_])"
                    r"|(?<![A-Za-z0-9_.])\d+(?:\.\d+)*(?:[eE][-+\u2212]?\d+)?(?![A-Za-z0-9_])")
#: An HTML comment (markers, test-driving comments), taken out of the text before it is read.
HTML_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
#: An attribute list at the end of a line: ``{ #claim-x }``, ``{ loading=lazy }``, ``{ #id .cls }``.
ATTR_LIST = re.compile(r"[ \t]*\{:?[ \t]*(?:[#.][\w-]+|[\w-]+=\S+?)"
                       r"(?:[ \t]+(?:[#.][\w-]+|[\w-]+=\S+?))*[ \t]*\}[ \t]*$", re.MULTILINE)
#: A footnote's label where it is cited (``[^init]``) or defined (``[^init]:``): read from the
#: text, as a section holds the citation and the page's end the definition.
FOOTNOTE_LABEL = re.compile(r"\[\^([^\]\s]+)\]")
#: A Chinese character (CJK Unified Ideographs and Extension A).
HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")
#: The kinds of :func:`section_items`, in the order they are reported.
ITEM_KINDS = ("number", "code", "formula", "link", "claim", "footnote")


def _flat(text: str) -> tuple[str, list[str]]:
    """``text`` ready for markdown-it-py, and the bodies of its ``math`` blocks: every fenced
    block blanked (read by :func:`scripts.markdown_model.fences_of`), HTML comments and
    end-of-line attribute lists taken out, each line's indentation removed (an admonition's or a
    tab's indented body would read as an indented code block in CommonMark)."""
    lines = text.splitlines()
    maths = ["\n".join(f.body) for f in fences_of(lines) if f.info == "math"]
    inside = fenced_lines(lines)
    kept = "\n".join("" if n in inside else line for n, line in enumerate(lines, start=1))
    kept = ATTR_LIST.sub("", HTML_COMMENT.sub("", kept))
    return "\n".join(line.strip() for line in kept.splitlines()), maths


def _markdown() -> MarkdownIt:
    """markdown-it-py as the site reads a page: CommonMark, front matter, tables."""
    return MarkdownIt("commonmark").use(front_matter_plugin).enable("table")


def _without_footnote_labels(flat: str) -> str:
    """``flat`` with each footnote label taken out, so that a definition reads as the plain
    paragraph it is (CommonMark alone would take ``[^a]: https://…`` for a link definition)."""
    return FOOTNOTE_LABEL.sub("", flat)


def _all_tokens(tokens):
    """Every token of a parsed page, depth first: block tokens, inline tokens, an image's alt
    text."""
    for tok in tokens:
        yield tok
        if tok.children:
            yield from _all_tokens(tok.children)


def normal_number(number: str) -> str:
    """A number as compared: thousands separators dropped, the minus sign ASCII."""
    return re.sub(r"[,\u2009\u202f]", "", number).replace("\u2212", "-")


@dataclass(frozen=True)
class Items:
    """What a section says that a translation keeps. ``found`` maps each kind of
    :data:`ITEM_KINDS` to its items in the order met; ``figures`` holds ``(path, alt text)`` of
    each image."""

    found: dict[str, list[str]]
    figures: list[tuple[str, str]]


def section_items(text: str) -> Items:
    """The items of a section's Markdown ``text`` (or a whole page's): numbers in its text
    (:data:`NUMBER`, as :func:`normal_number`; a number inside a code span counts once, as the
    span), inline code spans, formulas (inline ``#!math …`` spans and ``math`` blocks), link
    targets, claim ids (``claim-…``), footnote labels and figures. Code blocks, HTML comments and
    the front matter are not read."""
    claims = [f"claim-{cid}" for cid, _ in claim_ids(text.splitlines())]
    flat, maths = _flat(text)
    found: dict[str, list[str]] = {kind: [] for kind in ITEM_KINDS}
    found["formula"].extend(maths)
    found["claim"].extend(claims)
    found["footnote"].extend(FOOTNOTE_LABEL.findall(flat))
    figures = []
    for tok in _all_tokens(_markdown().parse(_without_footnote_labels(flat))):
        if tok.type == "code_inline":
            math = tok.content.startswith("#!math")
            found["formula" if math else "code"].append(tok.content)
        elif tok.type == "link_open":
            found["link"].append(tok.attrGet("href"))
        elif tok.type == "image":
            figures.append((tok.attrGet("src"), tok.content))  # its alt text is read next
        elif tok.type == "text":
            found["number"].extend(normal_number(m) for m in NUMBER.findall(tok.content))
    return Items(found, figures)


def text_outside_code(text: str) -> str:
    """Every word a reader of the page's Markdown ``text`` reads outside code, one text run a
    line: prose, headings, titles of admonitions and tabs, alt text, footnotes; not code blocks,
    code spans, formulas, HTML comments, link targets or the front matter."""
    flat, _ = _flat(text)
    runs = []
    for tok in _markdown().parse(_without_footnote_labels(flat)):
        if tok.type == "inline":  # a line break inside a paragraph joins its lines
            runs.append("".join(t.content if t.type == "text" else " " if t.type == "code_inline"
                                else "" for t in _all_tokens(tok.children or [])))
    return "\n".join(runs)


def alignment_problems(english: str, chinese: str) -> list[str]:
    """What the current sections of a Chinese page lack of their English sections, one line
    each: a level that differs; each item of :func:`section_items` that the English section has
    and the Chinese section has not (``#anchor: missing number '3'``); figures whose paths
    differ; alt text with no Chinese character (:data:`HAN`: full-width punctuation alone is not
    Chinese). The title's section is ``(title)``.

    Only current sections are compared (:func:`current_pairs`): a stale, missing, extra or moved
    section is the translation's state, which an English edit can cause; ``python -m
    scripts.translations`` reports it and it fails nothing."""
    problems = []
    for e, z in current_pairs(sections(english), sections(chinese)):
        name = _name(e)
        if e.level != z.level:
            problems.append(f"{name}: a level-{z.level} heading, where the English page has "
                            f"level {e.level}")
        en_items, zh_items = section_items(e.text), section_items(z.text)
        for kind in ITEM_KINDS:
            have = set(zh_items.found[kind])
            for item in dict.fromkeys(en_items.found[kind]):
                if item not in have:
                    problems.append(f"{name}: missing {kind} {item!r}")
        en_paths = [path for path, _ in en_items.figures]
        zh_paths = [path for path, _ in zh_items.figures]
        if en_paths != zh_paths:
            problems.append(f"{name}: figures {zh_paths}, not {en_paths}")
        for path, alt in zh_items.figures:
            if not HAN.search(alt):
                problems.append(f"{name}: the alt text of {path} is not Chinese: {alt!r}")
    return problems


# --- The Chinese prose, as a reader sees it, and its numbers --------------------------------------

#: Where a Chinese sentence ends: 。！？； and any closing quotation mark or bracket after it.
SENTENCE = re.compile(r"[^。！？；]*(?:[。！？；]+[”’」』）)]*|$)")


def _collapse(text: str) -> str:
    """Whitespace as a reader sees it: a line break between two Chinese characters vanishes,
    any other run of whitespace is one space."""
    text = re.sub(r"(?<=[\u3400-\u9fff\u3000-\u303f\uff00-\uffef])\n"
                  r"(?=[\u3400-\u9fff\u3000-\u303f\uff00-\uffef])", "", text)
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
    return [s.strip() for s in SENTENCE.findall(unit)
            if any(c.isalnum() for c in s)]


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
def zh_units(text: str) -> ZhProse:
    """The prose of a Chinese page's Markdown ``text`` as a reader sees it (see :class:`ZhProse`).

    The page is rendered as ``tests/prose.py`` renders an English page: Python-Markdown with the
    extensions that decide the site's structure (:data:`scripts.markdown_model.TOC_EXTENSIONS`,
    and ``footnotes``), its front matter taken off as MkDocs does. (markdown-it-py reads emphasis
    by CommonMark's flanking rules, which leave ``**用 Embedding 还是 Linear？**输入`` unrendered
    where the site renders it bold: four characters too many.) Left out: code blocks, HTML
    comments, headings, the titles of admonitions and collapsed notes, images, link targets,
    footnote marks and footnote definitions (they quote English sources). A paragraph, a list
    item (without the list inside it) and a table cell are units of their own; a code span counts
    as its text. Raises ``ValueError`` when the page has no title followed by a paragraph.
    Remembered per text: the tests of one page read it three times."""
    body, _meta = get_data(text)
    html = markdown.Markdown(extensions=[*TOC_EXTENSIONS, "footnotes"]).convert(body)
    soup = BeautifulSoup(html, "html.parser")
    title = soup.find("h1")
    first = title.find_next_sibling() if title else None
    if first is None or first.name != "p":
        raise ValueError("no '# title' followed by a paragraph")
    answer = [first]
    if (after := first.find_next_sibling()) is not None and after.name in ("ul", "ol"):
        answer += after.find_all("li")  # a list right after the first paragraph goes on with it
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
    lines = [f"{'page':<30} {'sent.':>5} {'mean':>5} {'%>80':>5} {'%>100':>5} {'longest':>7} "
             f"{'answer':>6}"]
    for page in sorted(docs.rglob(f"*{ZH_SUFFIX}")):
        m = zh_stats(page.read_text(encoding="utf-8"))
        lines.append(f"{page.relative_to(docs).as_posix():<30} {m['sentences']:>5} "
                     f"{m['mean']:>5.1f} {m['over_80']:>5.1f} {m['over_100']:>5.1f} "
                     f"{m['longest']:>7} {m['answer']:>6}")
    lines.append("characters of rendered text; limits: no sentence over 100, at most 2 % over 80, "
                 "a short answer of at most 160")
    return lines


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
    parser.add_argument("--stats", action="store_true",
                        help="print each Chinese page's sentence numbers instead")
    parser.add_argument("--docs", type=Path, default=DOCS,
                        help="the folder of the pages (default: the site's docs/)")
    args = parser.parse_args(argv)
    if args.command == "sections":
        for s in sections(args.page.read_text(encoding="utf-8")):
            print(f"{s.anchor or '(title)'}\t{fingerprint(s)}\t{'#' * s.level} {s.heading}")
        return 0
    if args.stats:
        print("\n".join(stats_table(args.docs)))
        return 0
    reports = report(args.docs)
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
