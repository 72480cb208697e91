"""The Nu HTML checker's errors, sorted into the theme's and the site's
(``scripts/checks/html_check.py``), and, as an audit (``python -m pytest -m audit``), the checker
run on the run's build."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from scripts import ROOT
from scripts.checks.html_check import Message, check, ensure_checker, messages


def test_theme_errors_are_told_apart_from_the_sites(tmp_path):
    site = tmp_path / "site"
    report = {
        "messages": [
            {
                "type": "error",
                "url": f"file:{site}/a/index.html",
                "lastLine": 12,
                "message": "Bad value “” for attribute “tabindex” on element “label”: "
                "The empty string is not a valid integer.",
            },
            {
                "type": "error",
                "url": f"file:{site}/index.html",
                "lastLine": 3,
                "message": (
                    "Attribute “autocomplete” is only allowed when the input type is “color”."
                ),
            },
            {
                "type": "error",
                "url": f"file:{site}/b/index.html",
                "lastLine": 40,
                "message": "Duplicate ID “x”.",
            },
            {"type": "info", "url": f"file:{site}/b/index.html", "message": "Trailing slash."},
        ]
    }
    found = messages(report, site)
    assert [m.file for m in found] == ["a/index.html", "index.html", "b/index.html"]
    assert [m.theme_source() is not None for m in found] == [True, True, False]
    assert found[2] == Message("b/index.html", 40, "Duplicate ID “x”.")


def test_the_checker_is_pinned_and_runs_in_ci():
    lock = (ROOT / ".ci" / "vnu" / "package-lock.json").read_text(encoding="utf-8")
    assert '"node_modules/vnu-jar"' in lock
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "\npython -m pytest -m audit\n" in ci
    assert Path(".ci/vnu/node_modules/").as_posix() + "/" in (ROOT / ".gitignore").read_text()


@pytest.mark.audit
def test_the_nu_checker_finds_no_error_the_site_makes(site):
    """Every HTML file of the build passes the W3C Nu HTML checker, but for the errors of
    Material's own templates (``THEME_ERRORS``). Needs Java and npm: skipped without them, or
    failed when ``REQUIRE_BROWSER`` is set, as in CI."""
    missing = [tool for tool in ("java", "npm") if shutil.which(tool) is None]
    if missing:
        message = (
            f"the Nu HTML checker needs {' and '.join(missing)} (apt-get install "
            "default-jre-headless npm)"
        )
        if os.environ.get("REQUIRE_BROWSER"):
            pytest.fail(message)
        pytest.skip(message)
    ensure_checker()
    ours = [f"{m.file}:{m.line}: {m.text}" for m in check(site) if not m.theme_source()]
    assert not ours, "\n".join(ours)
