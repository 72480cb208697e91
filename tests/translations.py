"""The checks of what a current Chinese section keeps of its English section (the tests' part of
the Chinese edition; the sections, fingerprints and report are the build's,
:mod:`scripts.hooks.zh`).

A stale, missing or moved section is reported by ``python -m scripts translations``, never
failed, so that an English edit fails nothing; the checks compare the current sections only
(:func:`scripts.hooks.zh.current_pairs`), as ``tests/test_translations.py`` and
``tests/test_zh_terms.py`` run them:

* :func:`code_difference`: a current section's fenced blocks are its English section's, in order:
  the same Python tokens (comments aside: a translated comment passes), every other block byte
  for byte, the same test-driving comment above each block and the same snippet includes;
* :func:`alignment_problems`: a current section has its English section's level, every number,
  inline code span, formula, link target, claim id and footnote label of the English text, and
  the same figures with Chinese alt text (:func:`section_items`);
* :func:`text_outside_code`: every word a reader reads outside code (for the term list).

Fenced blocks and includes are read through :mod:`tests.markdown_model`, the site's one reader of
fences (it knows a block indented inside an admonition or a tab); the rest with markdown-it-py.
"""

from __future__ import annotations

import io
import re
import tokenize
from dataclasses import dataclass

from markdown_it import MarkdownIt
from mdit_py_plugins.front_matter import front_matter_plugin

from scripts.commands.translations import HAN
from scripts.hooks.markdown_blocks import Section, sections
from scripts.hooks.zh import current_pairs
from tests.markdown_model import Fence, claim_ids, fenced_lines, fences_of, include_of

# --- The code: every block of a Chinese page is its English page's block -------------------------


def _python_tokens(code: str) -> list[tuple[int, str, int]] | None:
    """``(type, string, 1-based row)`` of the Python tokens of ``code``, comments and blank-line
    tokens left out; ``None`` when ``code`` does not tokenize (then it is compared byte for
    byte)."""
    try:
        return [
            (t.type, t.string, t.start[0])
            for t in tokenize.generate_tokens(io.StringIO(code + "\n").readline)
            if t.type not in (tokenize.COMMENT, tokenize.NL)
        ]
    except (tokenize.TokenError, SyntaxError):
        return None


def driving_comment(fence: Fence) -> str | None:
    """The HTML comment on the line above ``fence`` that drives the tests
    (``<!--pytest-codeblocks:expected-output-->``, ``<!--pytest.mark.…-->``), or ``None``."""
    before = fence.before.strip()
    return before if before.startswith("<!--") and "pytest" in before else None


def _name(section: Section) -> str:
    return f"#{section.anchor}" if section.anchor else "(title)"


def code_difference(
    english: str, chinese: str, en_name: str = "en", zh_name: str = "zh"
) -> str | None:
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
    an English edit makes its section stale, which ``python -m scripts translations`` reports,
    and fails nothing. Line numbers are 1-based, in the whole page."""
    for e, z in current_pairs(sections(english), sections(chinese)):
        found = _section_code_difference(e, z)
        if found is not None:
            (en_line, zh_line), what = found
            return (
                f"{zh_name}:{z.start + zh_line} vs {en_name}:{e.start + en_line}: {_name(e)} {what}"
            )
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
            return (
                (a.line, b.line),
                f"{block}: opens {b.indent!r} {b.fence}{b.info!r}, "
                f"not {a.indent!r} {a.fence}{a.info!r}",
            )
        if driving_comment(a) != driving_comment(b):
            return (
                (a.line, b.line),
                f"{block}: the comment above is {driving_comment(b)!r}, not {driving_comment(a)!r}",
            )
        en_tokens = _python_tokens("\n".join(a.body)) if a.python_like else None
        zh_tokens = _python_tokens("\n".join(b.body)) if a.python_like else None
        if en_tokens is not None and zh_tokens is not None:
            for x, y in zip(en_tokens, zh_tokens, strict=False):
                if x[:2] != y[:2]:
                    return (
                        (a.line + x[2], b.line + y[2]),
                        f"{block} ({a.info}): token {y[1]!r}, not {x[1]!r}",
                    )
            if len(en_tokens) != len(zh_tokens):
                return (
                    (a.line, b.line),
                    f"{block} ({a.info}): {len(zh_tokens)} tokens, not {len(en_tokens)}",
                )
            continue
        for i, (x, y) in enumerate(zip(a.body, b.body, strict=False), start=1):
            if x != y:
                return ((a.line + i, b.line + i), f"{block} ({a.info}): {y!r}, not {x!r}")
        if len(a.body) != len(b.body):
            return ((a.line, b.line), f"{block} ({a.info}): {len(b.body)} lines, not {len(a.body)}")
    if len(en_fences) != len(zh_fences):
        if len(zh_fences) > len(en_fences):
            b = zh_fences[len(en_fences)]
            return (
                (len(en_lines), b.line),
                f"block {len(en_fences) + 1}: a block the English section lacks",
            )
        a = en_fences[len(zh_fences)]
        return (
            (a.line, len(zh_lines)),
            f"block {len(zh_fences) + 1}: a block the Chinese section lacks",
        )
    en_inc = [(n, inc.spec) for n, line in enumerate(en_lines, 1) if (inc := include_of(line))]
    zh_inc = [(n, inc.spec) for n, line in enumerate(zh_lines, 1) if (inc := include_of(line))]
    for (en_n, x), (zh_n, y) in zip(en_inc, zh_inc, strict=False):
        if x != y:
            return ((en_n, zh_n), f"includes {y!r}, not {x!r}")
    if len(en_inc) != len(zh_inc):
        return (
            (len(en_lines), len(zh_lines)),
            f"{len(zh_inc)} snippet includes, not {len(en_inc)}",
        )
    return None


# --- The meaning: what each English section holds, the Chinese section holds too -----------------

#: A number in prose: digits with thousands separators (``1,000``, ``10 000`` with a thin space),
#: decimals or a version's dots (``0.5``, ``2.11.0``), an exponent (``1e-6``); not part of a word
#: (``float32``, ``H200``, ``cu130``), while a CJK character beside it is no letter (``5行``).
NUMBER = re.compile(
    r"(?<![A-Za-z0-9_.])\d{1,3}(?:[,\u2009\u202f]\d{3})+(?:\.\d+)*"
    r"(?:[eE][-+\u2212]?\d+)?(?![A-Za-z0-9_])"
    r"|(?<![A-Za-z0-9_.])\d+(?:\.\d+)*(?:[eE][-+\u2212]?\d+)?(?![A-Za-z0-9_])"
)
#: An HTML comment (markers, test-driving comments), taken out of the text before it is read.
HTML_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
#: An attribute list at the end of a line: ``{ #claim-x }``, ``{ loading=lazy }``, ``{ #id .cls }``.
ATTR_LIST = re.compile(
    r"[ \t]*\{:?[ \t]*(?:[#.][\w-]+|[\w-]+=\S+?)"
    r"(?:[ \t]+(?:[#.][\w-]+|[\w-]+=\S+?))*[ \t]*\}[ \t]*$",
    re.MULTILINE,
)
#: A footnote's label where it is cited (``[^init]``) or defined (``[^init]:``): read from the
#: text, as a section holds the citation and the page's end the definition.
FOOTNOTE_LABEL = re.compile(r"\[\^([^\]\s]+)\]")
#: The kinds of :func:`section_items`, in the order they are reported.
ITEM_KINDS = ("number", "code", "formula", "link", "claim", "footnote")


def _flat(text: str) -> tuple[str, list[str]]:
    """``text`` ready for markdown-it-py, and the bodies of its ``math`` blocks: every fenced
    block blanked (read by :func:`tests.markdown_model.fences_of`), HTML comments and
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
            runs.append(
                "".join(
                    t.content if t.type == "text" else " " if t.type == "code_inline" else ""
                    for t in _all_tokens(tok.children or [])
                )
            )
    return "\n".join(runs)


def alignment_problems(english: str, chinese: str) -> list[str]:
    """What the current sections of a Chinese page lack of their English sections, one line
    each: a level that differs; each item of :func:`section_items` that the English section has
    and the Chinese section has not (``#anchor: missing number '3'``); figures whose paths
    differ; alt text with no Chinese character (:data:`HAN`: full-width punctuation alone is not
    Chinese). The title's section is ``(title)``.

    Only current sections are compared (:func:`current_pairs`): a stale, missing, extra or moved
    section is the translation's state, which an English edit can cause; ``python -m
    scripts translations`` reports it and it fails nothing."""
    problems = []
    for e, z in current_pairs(sections(english), sections(chinese)):
        name = _name(e)
        if e.level != z.level:
            problems.append(
                f"{name}: a level-{z.level} heading, where the English page has level {e.level}"
            )
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
