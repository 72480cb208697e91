"""Shared test settings and the session-wide build of the site.

Blocks on the pages seed their own random generators, so a reader who copies one gets the same
numbers as the page; nothing here changes what a block prints.
"""

import re
from pathlib import Path

import matplotlib
import pytest
from hypothesis import HealthCheck, settings

from scripts.markdown_fences import ROOT
from scripts.site import build_site, docs_tree

matplotlib.use("Agg")  # figures render without a display

# Hypothesis profiles for the property tests (tests/test_claims_*.py). "ci", the default, is
# derandomized (the same examples on every run), keeps no example database (nothing written to
# disk) and draws few examples, so that all property tests together take a few seconds of CPU.
# "thorough" searches twenty times further (minutes, not seconds; pytest-timeout's 120 s per test
# must be lifted):
#     python -m pytest tests/test_claims_*.py --hypothesis-profile thorough --timeout 0
# A failing example it finds is added to its test as an @example.
settings.register_profile(
    "ci", derandomize=True, database=None, max_examples=25, deadline=None, print_blob=True
)
settings.register_profile(
    "thorough",
    max_examples=500,
    database=None,
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile("ci")

#: Where the browser test saved this session's screenshots (set by the ``screenshots`` fixture).
SCREENSHOTS = pytest.StashKey[Path]()


@pytest.fixture(scope="session")
def site(tmp_path_factory):
    """The site, built once per session with ``mkdocs build --strict`` into a temporary folder.

    Shared by ``tests/test_site.py`` and ``tests/test_browser.py``. Fails (rather than errors
    later) when the build fails, prints a warning, or writes into ``docs/``.
    """
    before = docs_tree()
    dest = tmp_path_factory.mktemp("site")
    proc = build_site(ROOT, dest)
    assert proc.returncode == 0, f"mkdocs build --strict failed:\n{proc.stdout}"
    warning = re.compile(r"\s*(\x1b\[[0-9;]*m)*WARNING")
    warnings = [ln for ln in proc.stdout.splitlines() if warning.match(ln)]
    assert not warnings, "\n".join(warnings)
    assert docs_tree() == before, "the build wrote into docs/"
    return dest


@pytest.fixture(scope="session")
def screenshots(site, request) -> Path:
    """``<site>/_screenshots/``: the browser test's screenshots of each page, light and dark.

    The folder is named at the end of the run (see :func:`pytest_terminal_summary`).
    """
    folder = site / "_screenshots"
    folder.mkdir(exist_ok=True)
    request.config.stash[SCREENSHOTS] = folder
    return folder


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    """Say where the browser test's screenshots are, when it took any."""
    folder = config.stash.get(SCREENSHOTS, None)
    if folder is not None and any(folder.glob("*.png")):
        terminalreporter.write_line(f"browser screenshots: {folder}")
