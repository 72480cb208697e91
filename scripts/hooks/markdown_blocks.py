"""The build's reader of a page's Markdown: markdown-it-py (CommonMark), after the containers
Python-Markdown adds (content tabs, admonitions, collapsed notes, footnotes) are flattened.

It gives a page's code blocks as pytest-codeblocks collects them (:func:`code_blocks`), its
sections (:func:`sections`) and its tokens. Used by the torch matrix's notes
(:mod:`scripts.hooks.matrix_notes`: which blocks a page runs), by the article converter
(:mod:`scripts.hooks.article_notebooks`), by the Chinese edition (:mod:`scripts.hooks.zh`: a
page's sections and their fingerprints) and by the tests. The build reads no page with pytest or
pytest-codeblocks; ``tests/test_markdown_blocks.py`` checks that :func:`code_blocks` finds exactly
the blocks pytest-codeblocks collects, on every page.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from textwrap import dedent

from markdown.extensions.toc import slugify  # the ids toc gives headings
from markdown_it import MarkdownIt
from mdit_py_plugins.front_matter import front_matter_plugin

#: A content tab or an admonition, or a footnote (``note``), and its body: the indented lines below.
CONTAINER = re.compile(
    r'^(?:(?P<mark>===|!!!|\?\?\?\+?) *(?P<kind>[\w-]*) *(?:"(?P<title>.*)")?'
    r"|(?P<note>\[\^.*))\n(?P<body>(?:(?:    .*)?\n)*)",
    re.M,
)
#: A pytest-codeblocks instruction in an HTML comment: ``<!--pytest-codeblocks:cont-->``.
INSTRUCTION = re.compile(r"<!--[-\s]*pytest-codeblocks:(.*)-->")
#: The mark of a block that needs a GPU (``tests/cuda_marker.py``): it marks the next block.
CUDA_MARK = re.compile(r"<!--[-\s]*pytest\.mark\.cuda\b.*-->")
MARKER = re.compile(r"^<!-- en: ([0-9a-f]{12}) -->$")  # under a Chinese heading: its English
ATTR_ID = re.compile(r"\s*\{\s*#([\w-]+)[^}]*\}\s*$")  # ``{ #anchor }``, as attr_list reads it


def _flat(m: re.Match) -> str:
    """A container (a match of :data:`CONTAINER`) as its bold title (a footnote: its first line)
    over its dedented body, in as many lines."""
    kind, title = (m["kind"] or "").capitalize(), m["title"]
    both = kind and title and m["mark"] != "==="
    first = m["note"] or (f"**{kind}: {title}**" if both else f"**{title or kind}**")
    return first + "\n" + dedent(m["body"])


def flatten(text: str) -> str:
    """``text`` with every container, at any depth, flattened (:func:`_flat`): each line stays
    on its line number."""
    while (flat := CONTAINER.sub(_flat, text)) != text:  # once per level of nesting
        text = flat
    return text


@functools.lru_cache(maxsize=64)  # each page is read by several steps, in each language
def tokens(text: str) -> tuple:
    """markdown-it-py's block tokens of ``text`` (CommonMark), containers flattened."""
    return tuple(MarkdownIt("commonmark").parse(flatten(text)))


@dataclass
class CodeBlock:
    """A fenced block as pytest-codeblocks collects it: its ``code``, the line of its opening
    fence (``lineno``, 1-based), its info string (``syntax``) and the expected output that follows
    it, if any, with where that output's lines are in the page (``output``: first and end line
    index, 0-based, and the fence's indentation), and whether a ``<!--pytest.mark.cuda-->``
    comment marks it (``cuda``)."""

    code: str
    lineno: int
    syntax: str
    expected_output: str | None = None
    output: tuple[int, int, str] | None = None
    cuda: bool = False


def code_blocks(text: str) -> list[CodeBlock]:
    """Every backtick-fenced block of ``text`` (a page's Markdown), in order, as pytest-codeblocks
    reads them: found by markdown-it-py, their code and info string cut from the page's own lines as
    pytest-codeblocks cuts them. A block after ``<!--pytest-codeblocks:expected-output-->`` is the
    expected output of the block before, a block after ``<!--pytest-codeblocks:cont-->`` continues
    it, and a page starting with ``<!--pytest-codeblocks:skipfile-->`` has none."""
    lines = text.splitlines(keepends=True)
    if lines and lines[0].strip() == "<!--pytest-codeblocks:skipfile-->":
        return []
    found: list[CodeBlock] = []
    pending, cuda = "", False
    for token in tokens(text):
        if token.type == "html_block":
            for line in token.content.splitlines():
                if m := INSTRUCTION.fullmatch(line.strip()):
                    pending = m[1].strip("- ")
                cuda = cuda or bool(CUDA_MARK.fullmatch(line.strip()))
        elif token.type == "fence" and token.markup.startswith("`"):
            start, end = token.map
            opening = lines[start]
            indent = len(opening) - len(opening.lstrip())
            closed = end - 1 > start and lines[end - 1].lstrip().startswith(token.markup)
            # as pytest-codeblocks cuts: at most the fence's indent of whitespace, newline included
            code = "".join(
                line[min(indent, len(line) - len(line.lstrip())) :]
                for line in lines[start + 1 : end - closed]
            )
            if pending in ("expected-output", "expected-output-ignore-whitespace") and found:
                found[-1].expected_output = code
                found[-1].output = (start + 1, end - closed, opening[:indent])
            elif pending == "cont" and found:
                found[-1].code += code
            else:
                found.append(
                    CodeBlock(code, start + 1, opening.strip()[len(token.markup) :], cuda=cuda)
                )
            pending, cuda = "", False
    return found


@dataclass(frozen=True)
class Section:
    """A section: ``anchor`` ``""`` for the title's, ``start`` its first line (0-based)."""

    anchor: str
    heading: str
    level: int
    start: int
    text: str
    marker: str | None


@functools.lru_cache(maxsize=64)  # each page's, and its English page's, read by several steps
def sections(text: str) -> tuple[Section, ...]:
    """The sections of a page's Markdown, read with markdown-it-py; a repeated id numbered as
    ``toc`` numbers it (``usage_1``). Raises ``ValueError`` when the page has no ``#`` title."""
    tokens = MarkdownIt("commonmark").use(front_matter_plugin).parse(text)
    lines, heads, seen = text.splitlines(), [], {}
    for tok, inline in zip(tokens, tokens[1:], strict=False):
        if tok.type != "heading_open" or tok.level != 0 or tok.tag not in ("h1", "h2", "h3"):
            continue
        match = ATTR_ID.search(inline.content)
        anchor = (
            ""
            if tok.tag == "h1"
            else match[1]
            if match
            else slugify(
                "".join(
                    c.content for c in inline.children or [] if c.type in ("text", "code_inline")
                ),
                "-",
            )
        )
        if anchor in seen and not match and tok.tag != "h1":
            seen[anchor] += 1
            anchor = f"{anchor}_{seen[anchor]}"
        seen.setdefault(anchor, 0)
        heads.append((tok.map[0], int(tok.tag[1]), ATTR_ID.sub("", inline.content).strip(), anchor))
    if not heads or heads[0][1] != 1:
        raise ValueError("a page must open with a '#' title")
    ends = [start for start, *_ in heads[1:]] + [len(lines)]
    return tuple(
        Section(
            anchor,
            heading,
            level,
            start,
            "\n".join(lines[start:end]),
            (m := MARKER.match(lines[start + 1].strip() if end > start + 1 else "")) and m[1],
        )
        for (start, level, heading, anchor), end in zip(heads, ends, strict=True)
    )


def toc_entries(items) -> list:
    """The entries of a page's table of contents (MkDocs' ``page.toc``), depth first, in order."""
    return [entry for item in items for entry in (item, *toc_entries(item.children))]
