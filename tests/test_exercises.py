"""Guard: every article ends with three to five exercises, each with a solution that the tests run.

An *article* is a page listed under ``Articles`` in ``mkdocs.yml``'s ``nav`` (read from the file,
so a page added there later is covered). What counts as an exercise:

* the page's last ``## `` section is ``## Exercises``;
* inside it, each ``### Exercise N: title`` heading starts an exercise, numbered 1, 2, 3, … in
  order; any other ``###`` heading there is an error (a misspelt heading would otherwise not
  count);
* its statement opens with its kind in italics (``*Warm-up.*``, ``*Predict the output.*``,
  ``*Find the bug.*``, ``*Write it.*``), and at least one exercise per article is a "Predict the
  output" or a "Find the bug";
* each exercise holds exactly one collapsed admonition ``??? success "Solution"`` (``???+`` would
  show it open), and inside it (indented) at least one bare ```` ```python ```` fence that is not
  skipped and holds an ``assert`` statement or an ``assert_*`` call
  (``torch.testing.assert_close``): the answer, stated as a check.

A *draft* article (front matter ``status: draft``, which Material shows as a mark after its title
in the navigation) may land before its exercises exist: the guard checks it when the mark goes.

The fence is also looked up in what pytest-codeblocks 0.18 itself collects from the page, so that a
solution counts only if the plugin really runs it (it reads fences at any indentation, which
``???`` blocks need). A block in an exercise's statement that is skipped (the question of a
"predict the output" or "find the bug" exercise) must appear in that exercise's solution,
line for line and in order (indentation aside: the solution may wrap a line that raises in
``try``, and add lines between), so the code the reader is asked about is the code that runs.
Indented markers need a blank line before their fence, or Markdown renders the fence inside the
marker's paragraph.
"""

from __future__ import annotations

import ast
import re
import textwrap
from pathlib import Path

import pytest
import yaml
from mkdocs.utils.meta import get_data
from pytest_codeblocks.main import extract_from_file

from scripts import ROOT
from scripts.checks.site import nav_pages
from tests.markdown_model import Fence, read_exercises, read_fences

MIN_EXERCISES, MAX_EXERCISES = 3, 5
#: A pytest marker inside an admonition or a tab (indented), e.g. the expected-output marker.
INDENTED_MARKER = re.compile(r"^[ \t]+<!--.*-->\s*$")
LEARN_FROM_MISTAKES = {"Predict the output", "Find the bug"}
#: The front matter of a draft article: Material's page status, ``status: draft``.
DRAFT = "draft"


def is_draft(text: str) -> bool:
    """True when a page's Markdown ``text`` says ``status: draft`` in its front matter."""
    return get_data(text)[1].get("status") == DRAFT


def article_pages() -> list[str]:
    """The pages under ``Articles`` in mkdocs.yml's ``nav``, as paths relative to ``docs/``.

    Raises ``LookupError`` when the nav has no ``Articles`` section.
    """
    return nav_pages("Articles")


def _asserts(code: str) -> bool:
    """True when ``code`` holds an ``assert`` statement or calls something named ``assert*``."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return False
    for node in ast.walk(tree):
        if isinstance(node, ast.Assert):
            return True
        if isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if name.startswith("assert"):
                return True
    return False


def exercise_problems(path: Path) -> list[str]:
    """Everything that keeps ``path`` from having 3-5 exercises with executed solutions.

    Returns one message per problem, each naming the file and, where there is one, the line.
    An empty list means the page passes; a draft (:func:`is_draft`) always passes.
    """
    rel = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
    text = path.read_text(encoding="utf-8")
    if is_draft(text):
        return []
    lines = text.splitlines()
    exercises, problems = read_exercises(lines)
    problems = [f"{rel}: {p}" for p in problems]
    if not MIN_EXERCISES <= len(exercises) <= MAX_EXERCISES:
        problems.append(
            f"{rel}: {len(exercises)} exercises; an article needs "
            f"{MIN_EXERCISES} to {MAX_EXERCISES}"
        )

    for i, (line, following) in enumerate(zip(lines, lines[1:], strict=False)):
        if INDENTED_MARKER.match(line) and following.lstrip().startswith(("```", "~~~")):
            problems.append(
                f"{rel}:{i + 1}: put a blank line between this indented marker and its fence; "
                "without one, Markdown renders the block inside a <p> with the comment"
            )

    if exercises and not any(ex.kind in LEARN_FROM_MISTAKES for ex in exercises):
        problems.append(
            f"{rel}: no exercise is a '*Predict the output.*' or '*Find the bug.*' (the "
            "statement's first words), built on a mistake readers make"
        )

    fences = read_fences(path)
    collected = {block.lineno: block for block in extract_from_file(path)}
    for ex in exercises:
        where = f"{rel}:{ex.line} (Exercise {ex.number})"
        if ex.other_admonitions:
            problems.append(
                f"{where}: line {ex.other_admonitions[0]} is an admonition other than a collapsed "
                "'??? success \"Solution\"'"
            )
        if len(ex.solutions) != 1:
            problems.append(
                f"{where}: {len(ex.solutions)} '??? success \"Solution\"' blocks; "
                "it needs exactly one"
            )
            continue
        first, last = ex.solutions[0]
        inside = [f for f in fences if first < f.line <= last and f.indent.startswith("    ")]
        executed = [f for f in inside if _runs(f, collected)]
        if not executed:
            problems.append(
                f"{where}: its solution has no bare ```python fence that pytest-codeblocks runs "
                "unskipped"
            )
        elif not any(_asserts("\n".join(f.body)) for f in executed):
            problems.append(
                f"{where}: its solution's code asserts nothing; state the answer as an assert"
            )
        solution_lines = [ln.strip() for f in executed for ln in f.body if ln.strip()]
        for f in fences:
            if ex.line < f.line < first and f.executed_by_codeblocks and f.skip_reason:
                question = [ln.strip() for ln in f.body if ln.strip()]
                if not _in_order(question, solution_lines):
                    problems.append(
                        f"{f.where()}: skipped block in Exercise {ex.number}'s statement does not "
                        "appear in its solution (line for line, in order), so nothing runs it"
                    )
    return problems


def _in_order(needles: list[str], haystack: list[str]) -> bool:
    """True when every line of ``needles`` occurs in ``haystack``, in the same order."""
    rest = iter(haystack)
    return all(any(n == h for h in rest) for n in needles)


def _runs(fence: Fence, collected: dict) -> bool:
    """True when pytest-codeblocks collects ``fence`` as Python with no skip or xfail mark."""
    block = collected.get(fence.line)
    if block is None or block.syntax != "python" or not fence.executed_by_codeblocks:
        return False
    return not any(re.match(r"pytest\.mark\.(skip|skipif|xfail)\b", m) for m in block.marks)


ARTICLES = article_pages()


def test_nav_has_articles():
    """The parametrised test below is not vacuous: the nav lists articles."""
    assert len(ARTICLES) >= 6, ARTICLES


@pytest.mark.parametrize("page", ARTICLES)
def test_article_has_exercises_with_executed_solutions(page):
    problems = exercise_problems(ROOT / "docs" / page)
    assert not problems, "\n".join(problems)


GOOD_EXERCISE = """
### Exercise {n}: Something

*Find the bug.* Do something.

??? success "Solution"

    Done:

    ```python
    assert 1 + 1 == 2
    ```
"""


def _page(tmp_path: Path, body: str) -> Path:
    page = tmp_path / "page.md"
    page.write_text("# Page\n\nText.\n\n## Exercises\n" + textwrap.dedent(body), encoding="utf-8")
    return page


def test_guard_accepts_a_good_page(tmp_path):
    body = "".join(GOOD_EXERCISE.format(n=n) for n in (1, 2, 3)) + "\n[^a]: x\n"
    page = _page(tmp_path, body.replace("*Find the bug.*", "*Warm-up.*", 1))
    assert exercise_problems(page) == []


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        pytest.param(
            "".join(GOOD_EXERCISE.format(n=n) for n in (1, 2)), "2 exercises", id="too-few"
        ),
        pytest.param(
            "".join(GOOD_EXERCISE.format(n=n) for n in range(1, 7)), "6 exercises", id="too-many"
        ),
        pytest.param(
            "".join(GOOD_EXERCISE.format(n=n) for n in (1, 2, 4)),
            "numbered [1, 2, 4]",
            id="numbering",
        ),
        pytest.param(
            "".join(GOOD_EXERCISE.format(n=n) for n in (1, 2, 3)) + "\n## Where next\n\nMore.\n",
            "must be the page's last section",
            id="not-last",
        ),
        pytest.param(
            "".join(GOOD_EXERCISE.format(n=n) for n in (1, 2, 3)).replace(
                "### Exercise 3: Something", "### Exercice 3: Something"
            ),
            "not an exercise heading",
            id="misspelt-heading",
        ),
        pytest.param(
            "".join(GOOD_EXERCISE.format(n=n) for n in (1, 2, 3)).replace(
                "    ```python\n    assert 1 + 1 == 2",
                '    <!--pytest.mark.skip(reason="slow")-->\n    ```python\n    assert 1 + 1 == 2',
                1,
            ),
            "Exercise 1): its solution has no bare ```python fence",
            id="skipped",
        ),
        pytest.param(
            "".join(GOOD_EXERCISE.format(n=n) for n in (1, 2, 3)).replace(
                "    ```python\n    assert 1 + 1 == 2", "    ```py\n    x = 2", 1
            ),
            "Exercise 1): its solution has no bare ```python fence",
            id="not-bare",
        ),
        pytest.param(
            "".join(GOOD_EXERCISE.format(n=n) for n in (1, 2, 3)).replace(
                "assert 1 + 1 == 2", "print(1 + 1)", 1
            ),
            "Exercise 1): its solution's code asserts nothing",
            id="no-assert",
        ),
        pytest.param(
            "".join(GOOD_EXERCISE.format(n=n) for n in (1, 2, 3)).replace(
                '??? success "Solution"', '???+ success "Solution"', 1
            ),
            "Exercise 1): 0 '??? success",
            id="open-solution",
        ),
        pytest.param(
            "".join(GOOD_EXERCISE.format(n=n) for n in (1, 2, 3)).replace(
                "    ```python\n    assert 1 + 1 == 2\n    ```\n",
                "```python\nassert 1 + 1 == 2\n```\n",
                1,
            ),
            "Exercise 1): its solution has no bare ```python fence",
            id="code-outside-solution",
        ),
        pytest.param(
            "".join(GOOD_EXERCISE.format(n=n) for n in (1, 2, 3)).replace(
                "*Find the bug.*", "*Write it.*"
            ),
            "no exercise is a '*Predict the output.*'",
            id="no-mistake-exercise",
        ),
        pytest.param(
            "".join(GOOD_EXERCISE.format(n=n) for n in (1, 2, 3)).replace(
                "*Find the bug.* Do", "Do", 1
            ),
            "Exercise 1's statement does not open with its kind",
            id="no-kind",
        ),
        pytest.param(
            "".join(GOOD_EXERCISE.format(n=n) for n in (1, 2, 3)).replace(
                "    assert 1 + 1 == 2\n    ```\n",
                "    print(2)\n    assert 1 + 1 == 2\n    ```\n\n"
                "    <!--pytest-codeblocks:expected-output-->\n    ```text\n"
                "    2\n    ```\n",
                1,
            ),
            "put a blank line between this indented marker",
            id="marker-glued",
        ),
        pytest.param(
            "".join(GOOD_EXERCISE.format(n=n) for n in (1, 2, 3)).replace(
                "Do something.\n",
                'Do something.\n\n<!--pytest.mark.skip(reason="the question")-->\n'
                "```python\nx = 3\n```\n",
                1,
            ),
            "does not appear in its solution",
            id="orphan-question",
        ),
    ],
)
def test_guard_reports(tmp_path, body, expected):
    """The guard itself: each way of falling short is reported."""
    problems = exercise_problems(_page(tmp_path, body))
    assert any(expected in p for p in problems), problems


DRAFT_PAGE = "---\nstatus: draft\ndescription: A page.\n---\n\n# Page\n\nText.\n"


def test_a_draft_lands_without_exercises_and_the_rules_apply_when_the_mark_goes(tmp_path):
    page = tmp_path / "page.md"
    page.write_text(DRAFT_PAGE, encoding="utf-8")
    assert exercise_problems(page) == []
    page.write_text(DRAFT_PAGE.replace("status: draft\n", ""), encoding="utf-8")
    assert any("0 exercises; an article needs 3 to 5" in p for p in exercise_problems(page))
    page.write_text(DRAFT_PAGE.replace("status: draft", "status: new"), encoding="utf-8")
    assert exercise_problems(page) != []


def test_a_draft_is_marked_in_the_navigation():
    """Material's page status: its nav item template renders ``meta.status``; mkdocs.yml titles
    the ``draft`` status and extra.css draws its icon (else Material draws a blank square)."""
    import material

    template = Path(material.__file__).parent / "templates" / "partials" / "nav-item.html"
    assert "nav_item.meta.status" in template.read_text(encoding="utf-8")
    config = yaml.load((ROOT / "mkdocs.yml").read_text(), Loader=yaml.BaseLoader)  # noqa: S506
    assert config["extra"]["status"][DRAFT].startswith("Draft")
    css = (ROOT / "docs" / "stylesheets" / "extra.css").read_text(encoding="utf-8")
    assert re.search(
        rf"\.md-status--{DRAFT}::after \{{[^}}]*mask-image: var\(--md-status--{DRAFT}\)", css
    )
    assert f"--md-status--{DRAFT}: url(" in css
