"""The two guides say what the code does.

``MAINTAINING.md`` describes the build as the code has it: the steps of ``scripts/hooks/hook.py``
in their order, every module of ``scripts/hooks/``, and, with ``CONTRIBUTING.md`` and the README,
every subcommand of ``python -m scripts``. ``CONTRIBUTING.md``, the writers' guide, stays at most
10 KB, and each rule it lists names the test that enforces it or calls itself a review rule. Every
file either names exists, and every link between the guides, the README and the pages resolves.
"""

from __future__ import annotations

import re

import pytest

from scripts import ROOT
from scripts.__main__ import COMMANDS
from scripts.hooks import hook
from tests.markdown_model import fenced_lines, heading_ids

CONTRIBUTING = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
MAINTAINING = (ROOT / "MAINTAINING.md").read_text(encoding="utf-8")
README = (ROOT / "README.md").read_text(encoding="utf-8")
GUIDES = {"CONTRIBUTING.md": CONTRIBUTING, "MAINTAINING.md": MAINTAINING, "README.md": README}
#: The most a writer reads before adding a page (bytes, UTF-8).
CONTRIBUTING_LIMIT = 10 * 1024
#: Each list of hook.py and the MkDocs event it serves.
EVENTS = {
    "CONFIG": "on_config",
    "FILES": "on_files",
    "NAV": "on_nav",
    "PAGE_MARKDOWN": "on_page_markdown",
    "PAGE_CONTENT": "on_page_content",
    "PAGE_CONTEXT": "on_page_context",
    "POST_PAGE": "on_post_page",
    "POST_TEMPLATE": "on_post_template",
    "POST_BUILD": "on_post_build",
}
#: A test a guide names: ``tests/test_x.py`` or ``tests/test_x.py::test_name``.
NAMED_TEST = re.compile(r"`(tests/test_\w+\.py)(?:::(\w+))?`")
#: What a rule says when no test enforces it.
REVIEW_RULE = "review rule"


def section(text: str, title: str) -> str:
    """The text of the ``## title`` section of ``text``, up to the next ``## ``."""
    start = text.index(f"\n## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start : end if end > 0 else None]


def prose(text: str) -> str:
    """``text`` with the lines of its fenced blocks blanked (``tests/markdown_model.py`` finds
    them), so line numbers hold."""
    lines = text.splitlines()
    inside = fenced_lines(lines)
    return "\n".join("" if n in inside else line for n, line in enumerate(lines, start=1))


def list_items(text: str) -> list[str]:
    """The top-level bullet items (``- ``) of ``text`` outside fences, continuation lines joined."""
    items: list[str] = []
    inside = False  # the last line read belongs to an item
    for line in prose(text).splitlines():
        if line.startswith("- "):
            items.append(line[2:])
            inside = True
        elif inside and line.startswith("  ") and line.strip():
            items[-1] += " " + line.strip()
        else:
            inside = False
    return [item for item in items if item]


def anchors(text: str) -> set[str]:
    """The ids of the headings of the Markdown ``text``, as the site's ``toc`` makes them (for
    these headings, GitHub's too)."""
    return {anchor for _, anchor, _ in heading_ids(text)}


def test_the_steps_are_listed_in_the_order_the_hook_runs_them():
    build = section(MAINTAINING, "How the build works")
    written = {}
    for event, names in re.findall(r"^- `(on_\w+)`: (.*(?:\n  .*)*)", build, re.M):
        written[event] = re.findall(r"`(\w+\.on_\w+)`", names)
    code = {
        event: [f"{f.__module__.rsplit('.', 1)[1]}.{f.__name__}" for f in getattr(hook, name)]
        for name, event in EVENTS.items()
    }
    assert written == code


def test_every_module_of_the_build_is_named():
    build = section(MAINTAINING, "How the build works")
    named = set(re.findall(r"scripts/hooks/(\w+)\.py", build)) | set(
        re.findall(r"`(\w+)\.on_\w+`", build)
    )
    modules = {p.stem for p in (ROOT / "scripts" / "hooks").glob("*.py") if p.stem != "__init__"}
    assert modules - named == set(), "MAINTAINING.md's build section does not name these"


@pytest.mark.parametrize("name", ["CONTRIBUTING.md", "MAINTAINING.md"])
def test_every_file_named_exists(name):
    pattern = r"(?<![\w/.])((?:scripts|tests|snippets|docs)/[\w/.-]+\.\w+)"
    for rel in set(re.findall(pattern, GUIDES[name])):
        if "<" not in rel and "/x/" not in rel:  # placeholders of examples
            assert (ROOT / rel).exists(), f"{name} names {rel}, which does not exist"


def test_every_subcommand_is_described_and_every_one_written_exists():
    text = MAINTAINING + CONTRIBUTING + README
    for name in COMMANDS:
        assert f"python -m scripts {name}" in text, f"no word on the subcommand {name}"
    for name in re.findall(r"python -m scripts (\w[\w-]*)", MAINTAINING + CONTRIBUTING):
        assert name in COMMANDS, f"a guide names python -m scripts {name}, no subcommand"


def test_the_opening_path_takes_at_most_ten_ideas():
    path = section(CONTRIBUTING, "Add an article with one block and one figure")
    steps = re.findall(r"^\d+\. \*\*", path.split("\n\n```")[0], re.M)
    assert 0 < len(steps) <= 10


def test_the_writers_guide_is_at_most_10_kb():
    size = len(CONTRIBUTING.encode("utf-8"))
    assert size <= CONTRIBUTING_LIMIT, f"CONTRIBUTING.md is {size} bytes; move detail elsewhere"


def test_every_rule_names_its_test_or_is_a_review_rule():
    """Each bullet of CONTRIBUTING.md is a rule: it names a test file (and test) that exists, or
    says it is a review rule, or names the run that checks it (the pages' blocks, the audits)."""
    items = list_items(CONTRIBUTING)
    assert len(items) >= 20, items
    for item in items:
        tests = NAMED_TEST.findall(item)
        by_run = "pytest runs each page's blocks" in item or "python -m pytest -m audit" in item
        assert tests or REVIEW_RULE in item or by_run, f"neither tested nor a review rule: {item}"
        for path, name in tests:
            assert (ROOT / path).is_file(), path
            if name:
                assert f"def {name}(" in (ROOT / path).read_text(encoding="utf-8"), (path, name)


def test_the_list_reader_joins_continuations_and_skips_fences():
    text = "Intro.\n\n- one\n  more\n- two\n\n```console\n- not an item\n```\n\nEnd.\n"
    assert list_items(text) == ["one more", "two"]


def test_links_between_the_guides_and_the_pages_resolve():
    """Relative links of the README and both guides, and links from the pages to a guide on
    GitHub, point to a file that exists and, with ``#anchor``, to a heading it has."""
    found = []
    for name, text in GUIDES.items():
        for target in re.findall(r"\]\(([^)\s]+)\)", prose(text)):
            if not target.startswith(("http://", "https://", "mailto:")):
                found.append((name, target))
    for page in sorted((ROOT / "docs").rglob("*.md")):
        for guide, anchor in re.findall(
            r"/blob/main/((?:CONTRIBUTING|MAINTAINING|README)\.md)(#[\w-]+)?",
            page.read_text(encoding="utf-8"),
        ):
            found.append((page.name, guide + anchor))
    assert any(target.startswith("MAINTAINING.md") for _, target in found)
    for source, target in found:
        path, _, anchor = target.partition("#")
        file = ROOT / path if path else ROOT / source
        assert file.exists(), f"{source} links {target}: no such file"
        if anchor and file.suffix == ".md":
            assert anchor in anchors(file.read_text(encoding="utf-8")), f"{source}: {target}"
