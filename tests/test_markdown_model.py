"""The one Markdown model (``tests/markdown_model.py``): what it reads, and that nothing
else in the repository reads fences, includes or headings with a pattern of its own."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.markdown_model import (
    ROOT,
    Heading,
    Include,
    claim_ids,
    fences_of,
    heading_ids,
    headings,
    include_of,
    included_text,
    includes_in,
    read_exercises,
)

PAGE = """# Title

## Section { #custom-id }

A claim. { #claim-some-claim }

```python
## not a heading { #claim-not-a-claim }
x = 1
```

### `code` in a heading

=== "Tab"

    ```python
    --8<-- 'snippets/a.py:region'
    ```

```text
--8<-- "snippets/a.out:2:3"
```
"""


def test_includes_in_both_quote_styles_with_regions_and_line_ranges():
    assert includes_in(PAGE) == [
        Include("snippets/a.py:region", "snippets/a.py", region="region"),
        Include("snippets/a.out:2:3", "snippets/a.out", start=2, end=3),
    ]
    assert include_of('--8<-- "f.out::2"') == Include("f.out::2", "f.out", end=2)
    assert include_of("--8<-- 'f.out:3:'") == Include("f.out:3:", "f.out", start=3)
    assert include_of('--8<-- "whole.py"') == Include("whole.py", "whole.py")
    assert include_of('text --8<-- "x.py"') is None
    assert include_of("--8<-- \"x.py'") is None  # quotes must match


def test_included_text_takes_regions_and_line_ranges(tmp_path):
    (tmp_path / "f.out").write_text("one\ntwo\nthree\n")
    assert included_text(include_of('--8<-- "f.out::2"'), tmp_path) == "one\ntwo\n"
    assert included_text(include_of('--8<-- "f.out:2:2"'), tmp_path) == "two\n"
    assert included_text(include_of("--8<-- 'f.out:3:'"), tmp_path) == "three\n"
    (tmp_path / "f.py").write_text(
        "def main():\n    # --8<-- [start:body]\n    x = 1\n    # --8<-- [start:inner]\n"
        "    y = 2\n    # --8<-- [end:inner]\n    # --8<-- [end:body]\n"
    )
    assert included_text(include_of('--8<-- "f.py:body"'), tmp_path) == "x = 1\ny = 2"
    assert included_text(include_of('--8<-- "f.py:inner"'), tmp_path) == "y = 2"
    with pytest.raises(ValueError, match="no region 'missing'"):
        included_text(include_of('--8<-- "f.py:missing"'), tmp_path)


def test_headings_and_claims_outside_fences_only():
    lines = PAGE.splitlines()
    assert headings(lines) == [
        Heading(1, 1, "Title"),
        Heading(3, 2, "Section", "#custom-id"),
        Heading(12, 3, "`code` in a heading"),
    ]
    assert claim_ids(lines) == [("some-claim", 5)]
    ids = [(level, id_) for level, id_, _ in heading_ids(PAGE)]
    assert ids == [(1, "title"), (2, "custom-id"), (3, "code-in-a-heading")]
    assert [f.line for f in fences_of(lines)] == [7, 16, 20]


def test_exercises_are_read_from_the_last_section():
    text = (
        "## Exercises\n\n### Exercise 1: One\n\n*Warm-up.* Do it.\n\n"
        '??? success "Solution"\n\n    ```python\n    assert True\n    ```\n\n'
        "### Exercise 2: Two\n\nNo kind.\n"
    )
    found, problems = read_exercises(text.splitlines())
    assert [(e.number, e.title, e.kind) for e in found] == [(1, "One", "Warm-up"), (2, "Two", None)]
    assert found[0].solutions == [(7, 11)]
    assert problems == [
        "line 13: Exercise 2's statement does not open with its kind in italics "
        "('*Warm-up.*', '*Predict the output.*', '*Find the bug.*', …)"
    ]


#: What only the model may hold in a regular expression: a fence, an include, a region marker
#: or a heading's hashes.
MARKDOWN_SYNTAX = ("8<", "`{3", "```", "~{3", "#{1", "#{2", "^#", "^##")
REGEX_CALLS = {"compile", "match", "search", "fullmatch", "finditer", "findall", "sub", "split"}


def regex_literals(path: Path) -> list[tuple[int, str]]:
    """``(line, pattern)`` of every string literal passed first to a ``re`` function in
    ``path``."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id == "re"
            and node.func.attr in REGEX_CALLS
            and node.args
        ):
            first = node.args[0]
            parts = (
                [first]
                if isinstance(first, ast.Constant)
                else (
                    [v for v in first.values if isinstance(v, ast.Constant)]
                    if isinstance(first, ast.JoinedStr)
                    else []
                )
            )
            text = "".join(str(p.value) for p in parts)
            if text:
                found.append((node.lineno, text))
    return found


#: Patterns that look like Markdown but read something else, with the reason.
NOT_A_PAGE = {
    # pytest-codeblocks' error message for a wrong output, which quotes both outputs in fences
    ("tests/torch_matrix_plugin.py", "Expected output"),
}


def second_parsers(files: list[Path]) -> list[str]:
    """``file:line: pattern`` for each regular expression outside the model that reads Markdown
    syntax (:data:`MARKDOWN_SYNTAX`), less those in :data:`NOT_A_PAGE`."""
    found = []
    for path in files:
        rel = path.relative_to(ROOT).as_posix()
        for line, pattern in regex_literals(path):
            if any(token in pattern for token in MARKDOWN_SYNTAX) and not any(
                rel == where and pattern.startswith(start) for where, start in NOT_A_PAGE
            ):
                found.append(f"{rel}:{line}: {pattern}")
    return found


def test_no_second_fence_include_or_heading_pattern_in_the_tree():
    files = [
        p
        for folder in ("scripts", "tests", "snippets")
        for p in (ROOT / folder).rglob("*.py")
        if p.name not in ("markdown_model.py", "test_markdown_model.py")
    ]
    assert not second_parsers(files), "read pages through tests/markdown_model.py:\n" + "\n".join(
        second_parsers(files)
    )


def test_the_guard_finds_a_second_include_pattern(tmp_path):
    path = ROOT / "tests" / "_probe_second_parser.py"
    try:
        path.write_text('import re\nINCLUDE = re.compile(r\'--8<--\\s+"([^"]+)"\')\n')
        assert len(second_parsers([path])) == 1
    finally:
        path.unlink()
