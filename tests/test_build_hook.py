"""``scripts/hooks/hook.py`` is the one hook ``mkdocs.yml`` names, and it runs every build step of
the package: each event function (``on_<event>``) of each module of ``scripts/hooks/`` appears,
once, in the list of the event that MkDocs calls it for."""

from __future__ import annotations

import importlib
import inspect
import os
import shutil
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
import yaml
from mkdocs.exceptions import PluginError

from scripts import ROOT
from scripts.hooks import checkout
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
    # the check that the build code is the project's, first of all
    assert runs["on_config"][0] == "checkout.on_config"
    for event in LISTS.values():
        assert sorted(runs[event]) == sorted(steps.get(event, set())), event
        assert len(runs[event]) == len(set(runs[event])), f"{event}: a step listed twice"
    assert set(steps) <= set(LISTS.values()), f"events hook.py does not handle: {set(steps)}"
    for event in LISTS.values():  # hook.py answers every event it lists steps for
        assert callable(getattr(build, event))


def test_a_build_by_another_checkouts_code_stops_and_says_why(tmp_path):
    """A copy of the project at ``tmp_path`` built with this checkout's ``scripts`` package on
    ``PYTHONPATH`` (as the editable install of a shared virtual environment makes it) stops at
    once, naming both folders and the fix; the same build with the copy's own package on
    ``PYTHONPATH`` gets past that check."""
    project = tmp_path / "clone"
    shutil.copytree(
        ROOT / "scripts", project / "scripts", ignore=shutil.ignore_patterns("__pycache__")
    )
    (project / "docs").mkdir()
    (project / "docs" / "index.md").write_text("# Home\n", encoding="utf-8")
    (project / "mkdocs.yml").write_text(
        yaml.safe_dump(
            {
                "site_name": "clone",
                "theme": {"name": "material"},
                "hooks": ["scripts/hooks/hook.py"],
            }
        ),
        encoding="utf-8",
    )

    def build(pythonpath):
        env = {**os.environ, "PYTHONPATH": str(pythonpath), "NO_MKDOCS_2_WARNING": "1"}
        return subprocess.run(
            # the console script, as a contributor runs it: ``python -m`` would put the current
            # folder first on sys.path, and so the copy's own package
            [Path(sys.executable).parent / "mkdocs", "build", "-d", str(tmp_path / "site")],
            cwd=project,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )

    wrong = build(ROOT)
    assert wrong.returncode != 0
    said = " ".join(wrong.stderr.split())
    reason = f"the build code imported is the scripts package of {ROOT}, not that of the project"
    assert reason in said, said[-2000:]
    assert str(project.resolve()) in said.split(reason)[1]
    assert "PYTHONPATH" in said and "Traceback" not in wrong.stderr
    right = build(project)
    assert "the build code imported" not in right.stderr, right.stderr[-2000:]


def test_on_config_stops_when_the_mkdocs_yml_is_another_projects(tmp_path):
    """The check of ``on_config`` itself: ``scripts.ROOT`` against the folder of the
    ``mkdocs.yml`` being built (a made-up config of another folder, then this project's)."""
    elsewhere = SimpleNamespace(config_file_path=str(tmp_path / "mkdocs.yml"))
    with pytest.raises(PluginError, match="not that of the project being built"):
        checkout.on_config(elsewhere)
    here = SimpleNamespace(config_file_path=str(ROOT / "mkdocs.yml"))
    assert checkout.on_config(here) is here
