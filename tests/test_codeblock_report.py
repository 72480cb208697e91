"""A page's failing blocks say what broke (``tests/codeblock_report.py``).

One made-up page breaks a block each way (a bare ``assert``, an exception, one raised inside a
library, a wrong output, a syntax error, a failing ``assert`` indented in an admonition); pytest
runs it in a process of its own, as a contributor runs the suite, and each test reads the report
of one block.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap

import pytest

from scripts import ROOT
from scripts.__main__ import COMMANDS
from tests.codeblock_report import REFRESH_COMMAND, expected_output_line, numbered_diff

PAGE = textwrap.dedent(
    """\
    # A page

    A block that passes, with its output.

    ```python
    print("fine")
    ```

    <!--pytest-codeblocks:expected-output-->
    ```text
    fine
    ```

    A bare assert.

    ```python
    values = [1, 2, 3]

    assert sum(values) == 7
    ```

    An exception.

    ```python
    count = int("seven")
    ```

    One raised inside a library.

    ```python
    import json

    json.loads("{")
    ```

    A wrong output.

    ```python
    for n in (1, 2, 3):
        print(n)
    ```

    <!--pytest-codeblocks:expected-output-->
    ```text
    1
    2
    4
    ```

    A syntax error.

    ```python
    x = (1,
    ```

    ??? note "An indented block"

        ```python
        shape = (3, 4)
        assert shape == (3, 5), "rows by columns"
        ```
    """
)
#: The fence's line of each block above, by what it breaks.
FENCES = {"passes": 5, "assert": 16, "exception": 24, "library": 30, "output": 38, "syntax": 52}
INDENTED_FENCE = 58


@pytest.fixture(scope="module")
def report(tmp_path_factory) -> dict[int, str]:
    """pytest's report on the page, one entry per failing block: fence line -> its section."""
    folder = tmp_path_factory.mktemp("codeblock-report")
    (folder / "page.md").write_text(PAGE, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    options = ["-p", "tests.codeblock_report", "--codeblocks", "-p", "no:cacheprovider"]
    run = subprocess.run(
        [sys.executable, "-m", "pytest", *options, "-n", "0", "-o", "addopts=", "page.md"],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    sections = re.split(r"^_+ line (\d+) _+$", run.stdout, flags=re.M)
    found = {int(n): text for n, text in zip(sections[1::2], sections[2::2], strict=True)}
    assert "6 failed, 1 passed" in run.stdout + run.stderr, run.stdout + run.stderr
    return found


def test_the_page_is_the_one_intended():
    lines = PAGE.splitlines()
    for line in [*FENCES.values(), INDENTED_FENCE]:
        assert lines[line - 1].strip() == "```python", line


def test_a_bare_assert_reports_its_line_and_values(report):
    text = report[FENCES["assert"]]
    assert "page.md:19: AssertionError in the block at line 16" in text
    assert "> 19 | assert sum(values) == 7" in text
    assert "E   AssertionError: assert 6 == 7" in text
    assert "where 6 = sum([1, 2, 3])" in text


def test_an_exception_reports_its_line_type_and_message(report):
    text = report[FENCES["exception"]]
    assert "page.md:25: ValueError in the block at line 24" in text
    assert '> 25 | count = int("seven")' in text
    assert "E   ValueError: invalid literal for int() with base 10: 'seven'" in text


def test_an_exception_from_a_library_names_the_block_line_and_where_it_rose(report):
    text = report[FENCES["library"]]
    assert "page.md:33: JSONDecodeError in the block at line 30" in text
    assert '> 33 | json.loads("{")' in text
    assert re.search(r"\(raised in \S+json[/\\]decoder\.py:\d+, in raw_decode\)", text), text


def test_a_wrong_output_shows_a_numbered_diff_and_the_command(report):
    text = report[FENCES["output"]]
    assert "page.md:45-47: the block at line 38 printed other than its expected output" in text
    assert "  45 | 1\n  46 | 2\n- 47 | 4\n+    | 3" in text
    assert f"{REFRESH_COMMAND} && git diff" in text
    assert REFRESH_COMMAND.split()[-1] in COMMANDS, "the fixing command is a real subcommand"


def test_a_syntax_error_reports_its_line(report):
    text = report[FENCES["syntax"]]
    assert "page.md:53: SyntaxError in the block at line 52" in text
    assert "> 53 | x = (1," in text


def test_an_indented_block_reports_its_line_in_the_page(report):
    text = report[INDENTED_FENCE]
    assert "page.md:60: AssertionError in the block at line 58" in text
    assert '> 60 |     assert shape == (3, 5), "rows by columns"' in text
    assert "E   AssertionError: rows by columns" in text
    assert "assert (3, 4) == (3, 5)" in text


def test_a_passing_block_with_output_passes(report):
    assert FENCES["passes"] not in report


def test_expected_output_line_finds_the_output_after_its_marker():
    assert expected_output_line(PAGE, FENCES["passes"]) == 11
    assert expected_output_line(PAGE, FENCES["output"]) == 45
    assert expected_output_line(PAGE, FENCES["assert"]) is None


def test_numbered_diff_numbers_expected_lines_from_the_first():
    assert numbered_diff("a\nb\n", "a\nc\n", 10) == ["  10 | a", "- 11 | b", "+    | c"]
    assert numbered_diff("a\n", "a", 3)[-1].startswith("(the texts differ only in whitespace")
