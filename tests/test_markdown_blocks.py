"""The build's Markdown reader (``scripts/hooks/markdown_blocks.py``) finds the blocks that
pytest-codeblocks collects, with the same code, line, info string and expected output, on every
page, so the torch matrix's notes know a page's checks without importing pytest in the build."""

from __future__ import annotations

import io
import subprocess
import sys

import pytest
from pytest_codeblocks.main import extract_from_buffer

from scripts import ROOT
from scripts.hooks.markdown_blocks import code_blocks, flatten

PAGES = sorted(
    p.relative_to(ROOT).as_posix()
    for p in [
        *(ROOT / "docs").rglob("*.md"),
        *(ROOT / "snippets").rglob("*.md"),
        ROOT / "README.md",
        ROOT / "CONTRIBUTING.md",
        ROOT / "MAINTAINING.md",
    ]
)

#: Corners: an indented block with an empty line (pytest-codeblocks drops it), a continued block,
#: an expected output, a tilde fence (not collected), a longer closing fence, a block in a list.
CORNERS = """Text.

=== "Tab"

    ```python
    a = 1

    b = 2
    ```

<!--pytest-codeblocks:cont-->
```python
c = 3
```
<!--pytest-codeblocks:expected-output-->
```text
3
```

~~~python
not = collected
~~~

````markdown
```python
inside
```
`````

- item

    ```python
    d = 4
    ```

!!! note "Nested"

    ??? tip
        ```bash
        echo hi
        ```
"""


def collected(text: str) -> list[tuple]:
    return [
        (b.code, b.lineno, b.syntax, b.expected_output)
        for b in extract_from_buffer(io.StringIO(text))
    ]


def read(text: str) -> list[tuple]:
    return [(b.code, b.lineno, b.syntax, b.expected_output) for b in code_blocks(text)]


@pytest.mark.parametrize("page", PAGES)
def test_the_reader_finds_what_pytest_codeblocks_collects(page):
    text = (ROOT / page).read_text(encoding="utf-8")
    assert read(text) == collected(text)


def test_the_reader_agrees_in_the_corners():
    assert read(CORNERS) == collected(CORNERS)
    assert len(read(CORNERS)) == 4  # the continued block is one
    assert read("<!--pytest-codeblocks:skipfile-->\n```python\nx = 1\n```\n") == []


def test_flattening_keeps_every_line_on_its_number():
    flat = flatten(CORNERS)
    assert len(flat.splitlines()) == len(CORNERS.splitlines())
    assert flat.splitlines()[4] == "```python"


def test_the_build_imports_no_pytest():
    code = (
        "import sys; import scripts.hooks.hook; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('pytest', '_pytest', "
        "'pytest_codeblocks')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "[]"
