"""``CONTRIBUTING.md`` describes the build as the code has it: the steps of
``scripts/hooks/hook.py`` in their order, every module of ``scripts/hooks/``, every file it names,
and every subcommand of ``python -m scripts``."""

from __future__ import annotations

import re

from scripts import ROOT
from scripts.__main__ import COMMANDS
from scripts.hooks import hook

TEXT = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
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


def section(title: str) -> str:
    """The text of the ``## title`` section, up to the next ``## ``."""
    start = TEXT.index(f"\n## {title}\n")
    end = TEXT.find("\n## ", start + 1)
    return TEXT[start : end if end > 0 else None]


def test_the_steps_are_listed_in_the_order_the_hook_runs_them():
    build = section("How the build works")
    written = {}
    for event, names in re.findall(r"^- `(on_\w+)`: (.*(?:\n  .*)*)", build, re.M):
        written[event] = re.findall(r"`(\w+\.on_\w+)`", names)
    code = {
        event: [f"{f.__module__.rsplit('.', 1)[1]}.{f.__name__}" for f in getattr(hook, name)]
        for name, event in EVENTS.items()
    }
    assert written == code


def test_every_module_of_the_build_is_named():
    build = section("How the build works")
    named = set(re.findall(r"scripts/hooks/(\w+)\.py", build)) | set(
        re.findall(r"`(\w+)\.on_\w+`", build)
    )
    modules = {p.stem for p in (ROOT / "scripts" / "hooks").glob("*.py") if p.stem != "__init__"}
    assert modules - named == set(), "CONTRIBUTING.md's build section does not name these"


def test_every_file_named_exists_and_every_subcommand_is_described():
    for rel in set(re.findall(r"(?<![\w/.])((?:scripts|tests|snippets|docs)/[\w/.-]+\.\w+)", TEXT)):
        if "<" not in rel and "/x/" not in rel:  # placeholders of examples
            assert (ROOT / rel).exists(), f"CONTRIBUTING.md names {rel}, which does not exist"
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for name in COMMANDS:
        assert f"python -m scripts {name}" in TEXT + readme, f"no word on the subcommand {name}"


def test_the_opening_path_takes_at_most_ten_ideas():
    path = section("Add an article with one block and one figure")
    steps = re.findall(r"^\d+\. \*\*", path.split("\n\n```")[0], re.M)
    assert 0 < len(steps) <= 10
