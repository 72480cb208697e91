"""Guard: every Python-looking block on the site is executed, or says why not.

pytest-codeblocks silently skips Python blocks whose fence is not exactly ```` ```python ````, and
it executes ```` ```bash ```` / ```` ```sh ```` blocks in a shell (a ``mkdocs serve`` there would
hang the run). This test fails, naming file and line, on:

* a Python-looking fence that nothing executes, unless it only includes files from ``snippets/``
  with ``--8<--`` (those files run in ``tests/test_snippets.py``) or carries
  ``<!--pytest.mark.skip(reason="…")-->`` with a reason on the line above;
* a shell fence (``bash``, ``sh``, …) unless it carries such a skip: write shell sessions as
  ```` ```console ````;
* an expected-output marker that does not follow an executed block.
"""

from __future__ import annotations

import tomllib

import pytest

from scripts import ROOT
from tests.markdown_model import markdown_files, read_fences

FILES = markdown_files()
#: The longest line of a page's code: ruff's limit for the project's files, which the print
#: stylesheet sizes code to fit on A4 and Letter pages without wrapping (docs/stylesheets/).
LINE_LENGTH = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["ruff"]["line-length"]


def _problems(path) -> list[str]:
    problems = []
    fences = read_fences(path)
    for n, f in enumerate(fences):
        if f.is_expected_output:
            prev = fences[n - 1] if n else None
            if prev is None or not prev.executed_by_codeblocks:
                problems.append(f"{f.where()}: expected output does not follow a ```python block")
            continue
        if f.python_like and not f.executed_by_codeblocks:
            includes = f.snippet_paths
            if includes is not None:
                for inc in includes:
                    if not inc.startswith("snippets/") or not (ROOT / inc).is_file():
                        problems.append(f"{f.where()}: includes {inc}, not a file under snippets/")
                continue
            if f.skip_reason is None:
                problems.append(
                    f"{f.where()}: ```{f.info} is never executed (pytest-codeblocks runs only a "
                    "bare ```python fence); make it ```python, include a snippets/ file, or put "
                    '<!--pytest.mark.skip(reason="...")--> above it'
                )
        elif f.shell_like and f.skip_reason is None:
            problems.append(
                f"{f.where()}: ```{f.info} would be executed in a shell by pytest-codeblocks; "
                "write shell sessions as ```console"
            )
        elif f.executed_by_codeblocks and f.before.startswith("<!--pytest.mark.skip"):
            if f.skip_reason is None:
                problems.append(f"{f.where()}: skipped without a reason")
        if f.python_like:
            problems += [
                f"{path.relative_to(ROOT)}:{f.line + k + 1}: {len(line)} characters, over "
                f"the {LINE_LENGTH} that fit a printed page (pyproject.toml's line-length)"
                for k, line in enumerate(f.body)
                if len(line) > LINE_LENGTH
            ]
    return problems


@pytest.mark.parametrize("path", FILES, ids=[p.relative_to(ROOT).as_posix() for p in FILES])
def test_every_python_block_is_executed_or_explains_why(path):
    problems = _problems(path)
    assert not problems, "\n".join(problems)


def test_guard_catches_silent_and_shell_fences(tmp_path):
    """The guard itself: each kind of silent block is reported with its line."""
    page = tmp_path / "page.md"
    page.write_text(
        '# t\n\n```py\nx = 1\n```\n\n```python title="a.py"\nx = 1\n```\n\n'
        "~~~python\nx = 1\n~~~\n\n```bash\nmkdocs serve\n```\n\n"
        '<!--pytest.mark.skip(reason="needs a GPU")-->\n```python hl_lines="1"\nx = 1\n```\n\n'
        "```python\nprint(1)\n```\n\n<!--pytest-codeblocks:expected-output-->\n```text\n1\n```\n",
        encoding="utf-8",
    )
    problems = _problems(page)
    lines = sorted(int(p.split(":")[1]) for p in problems)
    assert lines == [3, 7, 11, 15], problems


def test_refresh_rewrites_an_expected_output_inside_a_content_tab(tmp_path):
    """refresh_outputs reads indented fences (content tabs) as pytest-codeblocks does."""
    from scripts.commands.refresh_outputs import refresh_markdown

    page = tmp_path / "tabs.md"
    page.write_text(
        '=== "A"\n\n    ```python\n    print("x")\n    print("  y")\n    ```\n\n'
        "    <!--pytest-codeblocks:expected-output-->\n    ```text\n    stale\n    ```\n",
        encoding="utf-8",
    )
    assert refresh_markdown(page, write=True) == [f"{page}:9"]
    assert "    ```text\n    x\n      y\n    ```\n" in page.read_text(encoding="utf-8")
    assert refresh_markdown(page, write=True) == []  # now current
