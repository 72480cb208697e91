"""The Nu HTML checker's errors, sorted into the theme's and the site's (``scripts/html_check.py``;
the checker itself runs in CI, ``.ci/run``, on the MkDocs build)."""

from __future__ import annotations

from pathlib import Path

from scripts.html_check import Message, messages
from scripts.markdown_model import ROOT


def test_theme_errors_are_told_apart_from_the_sites(tmp_path):
    site = tmp_path / "site"
    report = {"messages": [
        {"type": "error", "url": f"file:{site}/a/index.html", "lastLine": 12,
         "message": "Bad value “” for attribute “tabindex” on element “label”: The empty string "
                    "is not a valid integer."},
        {"type": "error", "url": f"file:{site}/index.html", "lastLine": 3,
         "message": "Attribute “autocomplete” is only allowed when the input type is “color”."},
        {"type": "error", "url": f"file:{site}/b/index.html", "lastLine": 40,
         "message": "Duplicate ID “x”."},
        {"type": "info", "url": f"file:{site}/b/index.html", "message": "Trailing slash."},
    ]}
    found = messages(report, site)
    assert [m.file for m in found] == ["a/index.html", "index.html", "b/index.html"]
    assert [m.theme_source() is not None for m in found] == [True, True, False]
    assert found[2] == Message("b/index.html", 40, "Duplicate ID “x”.")


def test_the_checker_is_pinned_and_runs_in_ci():
    lock = (ROOT / ".ci" / "vnu" / "package-lock.json").read_text(encoding="utf-8")
    assert '"node_modules/vnu-jar"' in lock
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "python -m scripts.html_check --site" in ci
    assert Path(".ci/vnu/node_modules/").as_posix() + "/" in (ROOT / ".gitignore").read_text()
