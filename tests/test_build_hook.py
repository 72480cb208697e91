"""``scripts/hooks/hook.py`` is the one hook ``mkdocs.yml`` names, and it runs every build step of
the package: each event function (``on_<event>``) of each module of ``scripts/hooks/`` appears,
once, in the list of the event that MkDocs calls it for."""

from __future__ import annotations

import importlib
import inspect

import yaml

from scripts import ROOT
from scripts.hooks import hook as build

#: Each list of hook.py and the MkDocs event it serves.
LISTS = {
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


def step_functions() -> dict[str, set[str]]:
    """Event name -> ``module.function`` of every ``on_*`` function in ``scripts/hooks/*.py``
    other than hook.py."""
    found: dict[str, set[str]] = {}
    for path in sorted((ROOT / "scripts" / "hooks").glob("*.py")):
        if path.stem in ("__init__", "hook"):
            continue
        module = importlib.import_module(f"scripts.hooks.{path.stem}")
        for name, fn in vars(module).items():
            own = inspect.isfunction(fn) and fn.__module__ == module.__name__
            if name.startswith("on_") and own:
                found.setdefault(name, set()).add(f"{path.stem}.{name}")
    return found


def listed() -> dict[str, list[str]]:
    """Event name -> ``module.function`` of the steps hook.py lists for it, in order."""
    return {
        event: [f"{fn.__module__.rsplit('.', 1)[1]}.{fn.__name__}" for fn in getattr(build, name)]
        for name, event in LISTS.items()
    }


def test_mkdocs_yml_names_build_py_alone():
    text = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    hooks = yaml.safe_load(text)["hooks"]
    assert hooks == ["scripts/hooks/hook.py"]


def test_every_step_of_every_module_runs_once_in_its_event():
    steps, runs = step_functions(), listed()
    for event in LISTS.values():
        assert sorted(runs[event]) == sorted(steps.get(event, set())), event
        assert len(runs[event]) == len(set(runs[event])), f"{event}: a step listed twice"
    assert set(steps) <= set(LISTS.values()), f"events hook.py does not handle: {set(steps)}"
    for event in LISTS.values():  # hook.py answers every event it lists steps for
        assert callable(getattr(build, event))
