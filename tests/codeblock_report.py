"""Failures of a page's blocks that say what broke: a pytest plugin over pytest-codeblocks 0.18.

pytest-codeblocks runs each Python block of a Markdown page as a test. When a block fails, its
``TestBlock.runtest`` raises a ``RuntimeError`` holding the block's code and ``str()`` of the
error, and its ``repr_failure`` returns that text alone: a bare ``assert`` reports nothing but
the code (``str(AssertionError())`` is empty), no line is given but the fence's, and a wrong
output names the fence's line twice, with no diff.

This plugin, loaded for every run by ``-p tests.codeblock_report`` in ``pyproject.toml``, hands
pytest a subclass of the plugin's own ``TestBlock`` for each block (through the
``pytest_collect_file`` hook, as a wrapper: no function of pytest-codeblocks is replaced) that

* compiles the block with pytest's assertion rewriter (``_pytest.assertion.rewrite``, the
  function pytest applies to test modules), its line numbers shifted to the Markdown file's, so a
  failing ``assert`` reports its expression and values as in any pytest test;
* lets the block's exception through, and reports it as ``page:line: Type``, the block's lines up
  to the failing statement, and the exception's message (where the exception was raised deeper,
  in a library, that frame too);
* reports a wrong output as a diff whose expected lines carry their line numbers in the Markdown
  file, and the command that rewrites the outputs (``python -m scripts refresh-outputs``).

The item keeps the class name ``TestBlock`` and a wrong output's message keeps pytest-codeblocks'
wording (``Expected output ... but got ...``): ``tests/torch_matrix_plugin.py`` reads both.

The same change belongs upstream (pytest-codeblocks' ``plugin.py``): ``runtest`` compiling with
``rewrite_asserts`` and ``ast.increment_lineno(tree, self.obj.lineno)``, raising the block's own
exception, and ``repr_failure`` formatting it as :meth:`TestBlock.repr_failure` does here.
"""

from __future__ import annotations

import ast
import difflib
import re
from pathlib import Path

import pytest
from _pytest.assertion.rewrite import rewrite_asserts
from pytest_codeblocks import plugin as codeblocks

from scripts.hooks.markdown_blocks import code_blocks

#: The command that rewrites every expected output from what the code prints now
#: (scripts/commands/refresh_outputs.py; it takes no page: it refreshes them all).
REFRESH_COMMAND = "python -m scripts refresh-outputs"
#: Lines of the block shown above the failing statement.
CONTEXT_LINES = 3


class OutputMismatch(AssertionError):
    """A block printed something other than its expected output.

    ``expected`` and ``printed``: the two texts; ``first_line``: the 1-based line, in the Markdown
    file, of the expected output's first line (``None`` where it cannot be found). Its message is
    pytest-codeblocks' own wording, which ``tests/torch_matrix_plugin.py`` parses.
    """

    def __init__(self, expected: str, printed: str, first_line: int | None):
        super().__init__(f"Expected output\n```\n{expected}```\nbut got\n```\n{printed}```")
        self.expected, self.printed, self.first_line = expected, printed, first_line


def expected_output_line(text: str, fence_line: int) -> int | None:
    """The 1-based line, in the Markdown ``text``, of the first expected-output line of the
    block whose fence opens on ``fence_line`` (1-based): the page read by the build's reader
    (:func:`scripts.hooks.markdown_blocks.code_blocks`, which reads the blocks and their
    expected outputs as pytest-codeblocks does). ``None`` when the block shows no output."""
    for block in code_blocks(text):
        if block.lineno == fence_line and block.output is not None:
            return block.output[0] + 1
    return None


def numbered_diff(expected: str, printed: str, first_line: int | None) -> list[str]:
    """The two outputs, line by line: ``  N | line`` where they agree, ``- N | line`` for an
    expected line (N: its line in the Markdown file) that was not printed, ``+   | line`` for a
    printed line that was not expected. Without a first line, N counts from 1 in the output."""
    start = first_line if first_line is not None else 1
    old, new = expected.splitlines(), printed.splitlines()
    width = len(str(start + len(old)))
    out = []
    matcher = difflib.SequenceMatcher(a=old, b=new, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            out += [f"  {start + i:>{width}} | {old[i]}" for i in range(i1, i2)]
            continue
        out += [f"- {start + i:>{width}} | {old[i]}" for i in range(i1, i2)]
        out += [f"+ {'':>{width}} | {new[j]}" for j in range(j1, j2)]
    if old == new:  # differs in the final newline or whitespace the lines hide
        out.append(f"(the texts differ only in whitespace: {expected!r} != {printed!r})")
    return out


class TestBlock(codeblocks.TestBlock):
    """pytest-codeblocks' block, run with pytest's assertion rewriting and reported by line."""

    __test__ = False  # a pytest item, not a test class for pytest to collect from this module

    def _compile(self):
        """The block's code compiled with asserts rewritten, line numbers those of the page."""
        source = self.obj.code
        tree = ast.parse(source, filename=str(self.path))
        rewrite_asserts(tree, source.encode(), str(self.path), self.config)
        ast.increment_lineno(tree, self.obj.lineno)
        return compile(tree, str(self.path), "exec", dont_inherit=True)

    def runtest(self) -> None:
        if self.obj.syntax != "python":
            super().runtest()
            return
        if self.obj.importorskip is not None:
            pytest.importorskip(self.obj.importorskip)
        try:
            code = self._compile()
        except SyntaxError as error:
            error.lineno = (error.lineno or 0) + self.obj.lineno
            raise
        with codeblocks.stdout_io() as stdout:
            exec(code, {"__MODULE__": "__main__"})
        self._compare(stdout.getvalue())

    def _compare(self, printed: str) -> None:
        expected = self.obj.expected_output
        if expected is None:
            return
        a, b = expected, printed
        if self.obj.expected_output_ignore_whitespace:
            a, b = re.sub(r"\s+", "", a), re.sub(r"\s+", "", b)
        if a != b:
            text = self.path.read_text(encoding="utf-8")
            raise OutputMismatch(expected, printed, expected_output_line(text, self.obj.lineno))

    def repr_failure(self, excinfo, style=None):
        """``page:line: what failed``, then the lines that show it: the block up to the failing
        statement and the error, or the two outputs as a numbered diff and the fixing command."""
        if self.obj.syntax != "python":
            return super().repr_failure(excinfo, style)
        rel = self._rel()
        error = excinfo.value
        if isinstance(error, OutputMismatch):
            where = error.first_line
            n = len(error.expected.splitlines())
            lines = f"{where}-{where + n - 1}" if where and n > 1 else f"{where}"
            head = (
                f"{rel}:{lines}: the block at line {self.obj.lineno} printed other than its "
                "expected output"
                if where
                else f"{rel}:{self.obj.lineno}: the block printed other than its expected output"
            )
            return "\n".join(
                [
                    head,
                    f"(- expected, numbered by its line in {rel}; + printed)",
                    *numbered_diff(error.expected, error.printed, where),
                    "",
                    "If the new output is right, rewrite the expected outputs from what the code "
                    f"prints now and review the change: {REFRESH_COMMAND} && git diff",
                ]
            )
        if isinstance(error, SyntaxError) and error.filename == str(self.path):
            line = error.lineno
            message = f"SyntaxError: {error.msg}"
        else:
            line = self._failing_line(excinfo)
            message = excinfo.exconly()
        out = [
            f"{rel}:{line or self.obj.lineno}: {type(error).__name__} in the block at line "
            f"{self.obj.lineno}"
        ]
        out += self._source(line)
        out += ["E   " + ln for ln in message.splitlines()]
        deepest = excinfo.traceback[-1]
        if line and Path(deepest.path) != self.path:
            out.append(f"(raised in {deepest.path}:{deepest.lineno + 1}, in {deepest.name})")
        return "\n".join(out)

    def _failing_line(self, excinfo) -> int | None:
        """The 1-based line, in the page, of the block's statement that was running."""
        for entry in reversed(excinfo.traceback):
            if entry.frame.code.raw.co_filename == str(self.path):
                return entry.lineno + 1
        return None

    def _source(self, line: int | None) -> list[str]:
        """The block's lines from a few above ``line`` to ``line``, numbered, ``>`` at it."""
        if line is None:
            return []
        lines = self.path.read_text(encoding="utf-8").splitlines()
        first = max(self.obj.lineno + 1, line - CONTEXT_LINES)
        width = len(str(line))
        return [
            f"{'>' if n == line else ' '} {n:>{width}} | {lines[n - 1]}"
            for n in range(first, line + 1)
        ]

    def reportinfo(self):
        """The page and the fence's line (0-based, as pytest counts), named as the test is."""
        return self.path, self.obj.lineno - 1, self.name

    def _rel(self) -> str:
        root = self.config.rootpath
        return str(self.path.relative_to(root) if self.path.is_relative_to(root) else self.path)


class MarkdownFile(codeblocks.MarkdownFile):
    """pytest-codeblocks' page, handing out this module's :class:`TestBlock`."""

    def collect(self):
        for item in super().collect():
            block = TestBlock.from_parent(self, name=item.name, obj=item.obj)
            for mark in item.own_markers:  # the page's marks, as the plugin read them
                block.add_marker(getattr(pytest.mark, mark.name)(*mark.args, **mark.kwargs))
            yield block


@pytest.hookimpl(wrapper=True)
def pytest_collect_file(file_path, parent):
    """Each page pytest-codeblocks collects, collected by :class:`MarkdownFile` instead."""
    collected = yield
    return [
        MarkdownFile.from_parent(parent, path=file_path)
        if type(node) is codeblocks.MarkdownFile
        else node
        for node in collected
    ]


__all__ = ["OutputMismatch", "TestBlock", "MarkdownFile", "numbered_diff", "expected_output_line"]
