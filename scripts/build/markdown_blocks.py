"""The build's reader of a page's Markdown: markdown-it-py (CommonMark), after the containers
Python-Markdown adds (content tabs, admonitions, collapsed notes, footnotes) are flattened.

Used by the torch matrix's notes (:mod:`scripts.build.matrix_notes`: which blocks a page runs), by
the article converter (:mod:`scripts.build.article_notebooks`) and by the tests. The build reads
no page with pytest or pytest-codeblocks; ``tests/test_markdown_blocks.py`` checks that
:func:`code_blocks` finds exactly the blocks pytest-codeblocks collects, on every page.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from textwrap import dedent

from markdown_it import MarkdownIt

#: A content tab or an admonition, or a footnote (``note``), and its body: the indented lines below.
CONTAINER = re.compile(r'^(?:(?P<mark>===|!!!|\?\?\?\+?) *(?P<kind>[\w-]*) *(?:"(?P<title>.*)")?'
                       r"|(?P<note>\[\^.*))\n(?P<body>(?:(?:    .*)?\n)*)", re.M)
#: A pytest-codeblocks instruction in an HTML comment: ``<!--pytest-codeblocks:cont-->``.
INSTRUCTION = re.compile(r"<!--[-\s]*pytest-codeblocks:(.*)-->")
#: The mark of a block that needs a CUDA GPU (``tests/cuda_marker.py``), as pytest-codeblocks
#: reads a ``<!--pytest.mark.…-->`` comment: it marks the next block, whatever lies between.
CUDA_MARK = re.compile(r"<!--[-\s]*pytest\.mark\.cuda\b.*-->")


def _flat(m: re.Match) -> str:
    """A tab or an admonition (a match of :data:`CONTAINER`) as a bold title over its dedented
    body; a footnote as its first line over its dedented body. As many lines as it had."""
    kind, title = (m["kind"] or "").capitalize(), m["title"]
    both = kind and title and m["mark"] != "==="
    first = m["note"] or (f"**{kind}: {title}**" if both else f"**{title or kind}**")
    return first + "\n" + dedent(m["body"])


def flatten(text: str) -> str:
    """``text`` with every container, at every level of nesting, replaced by its title over its
    dedented body (:func:`_flat`): each line stays on its line number."""
    while (flat := CONTAINER.sub(_flat, text)) != text:  # once per level of nesting
        text = flat
    return text


def tokens(text: str) -> list:
    """markdown-it-py's block tokens of ``text`` (CommonMark), containers flattened."""
    return MarkdownIt("commonmark").parse(flatten(text))


@dataclass
class CodeBlock:
    """A fenced block as pytest-codeblocks collects it: its code, the line of its opening fence
    (1-based), its info string (``syntax``) and the expected output that follows it, if any, with
    where that output's lines are in the page (``output``: first and end line index, 0-based, and
    the fence's indentation), and whether a ``<!--pytest.mark.cuda-->`` comment marks it
    (``cuda``)."""

    code: str
    lineno: int
    syntax: str
    expected_output: str | None = None
    output: tuple[int, int, str] | None = None
    cuda: bool = False


def _cut(line: str, indent: int) -> str:
    """A line of a block whose fence is indented by ``indent`` spaces, as pytest-codeblocks keeps
    it: at most ``indent`` leading whitespace characters cut, the newline counted among them (so
    an empty line of an indented block is dropped, as pytest-codeblocks drops it)."""
    return line[min(indent, len(line) - len(line.lstrip())):]


def code_blocks(text: str) -> list[CodeBlock]:
    """Every backtick-fenced block of ``text`` (a page's Markdown), in order, as pytest-codeblocks
    reads them: found by markdown-it-py, their code and info string cut from the page's own lines
    as pytest-codeblocks cuts them. A block after ``<!--pytest-codeblocks:expected-output-->`` is
    the expected output of the block before, a block after ``<!--pytest-codeblocks:cont-->``
    continues it, and a page starting with ``<!--pytest-codeblocks:skipfile-->`` has none."""
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
            code = "".join(_cut(line, indent) for line in lines[start + 1:end - closed])
            if pending in ("expected-output", "expected-output-ignore-whitespace") and found:
                found[-1].expected_output = code
                found[-1].output = (start + 1, end - closed, opening[:indent])
            elif pending == "cont" and found:
                found[-1].code += code
            else:
                found.append(CodeBlock(code, start + 1, opening.strip()[len(token.markup):],
                                       cuda=cuda))
            pending, cuda = "", False
    return found
