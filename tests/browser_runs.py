"""The browser checks that passed, remembered by the content of everything they read.

Opening a page in Chromium and running axe-core on it in both palettes is most of the test
suite's time (three to thirteen seconds a page on two cores), and a contributor's edit usually
changes one page. A page's browser check reads only files: the page's HTML and what the browser
fetched while the check ran (stylesheets, scripts, figures, downloads), plus the test code, the
browser and the installed packages. So a check that passed is remembered in
``.cache/browser-runs/<name>.json`` with the SHA-256 of each of those files, and a later run
skips it, saying so, only when every one of them has the same bytes again.

Left out of a page's files: the site's search index, which changes with every page's text.
Searching is checked by a test of its own that types every page's title
(``tests/test_browser.py``), which is never skipped.

A fresh clone (as in CI) has no ``.cache/`` and runs every check; ``rm -rf .cache/browser-runs``
does the same here. A check that fails, errors or is skipped writes nothing.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import subprocess
from pathlib import Path
from urllib.parse import unquote, urlparse

from scripts.execute import environment_fingerprint
from scripts.markdown_model import ROOT
from scripts.site import CHROMIUM

#: Where the passed checks are remembered, one JSON file each.
RUNS_DIR = ROOT / ".cache" / "browser-runs"

#: Files of the built site that a page fetches but whose bytes a page check does not depend on
#: (paths relative to the site). The search index: see this module's docstring.
NOT_KEYED = {"search/search_index.json"}

#: The code that decides a check's outcome, besides the page: the checks themselves, the
#: fixtures and server they use, the figure-text bound they apply, and this module.
CHECK_CODE = ["tests/test_browser.py", "tests/browser_runs.py", "tests/conftest.py",
              "scripts/site.py", "snippets/figure_style.py"]


@functools.cache
def chromium_version() -> str:
    """What ``chromium --version`` prints (text; empty when Chromium is missing or fails)."""
    try:
        return subprocess.run([str(CHROMIUM), "--version"], capture_output=True, text=True,
                              timeout=60).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""


@functools.cache
def check_key(root: Path = ROOT) -> str:
    """SHA-256 (hex) of what every browser check depends on besides the site: the bytes of the
    :data:`CHECK_CODE` files under ``root``, the Chromium version and every installed package's
    version (:func:`scripts.execute.environment_fingerprint`)."""
    h = hashlib.sha256()
    for rel in CHECK_CODE:
        h.update(rel.encode() + b"\0" + (root / rel).read_bytes() + b"\0")
    h.update(chromium_version().encode() + b"\0" + environment_fingerprint().encode())
    return h.hexdigest()


def site_path(url: str, base_url: str) -> str | None:
    """The file of the site that ``url`` fetched from the server at ``base_url``, as a path
    relative to the site (``lookup-tables/index.html``, ``figures/x-light.svg``); None for a URL
    of another origin or a ``data:`` URL. Query and fragment are dropped; a folder means its
    ``index.html``."""
    base, got = urlparse(base_url), urlparse(url)
    if (got.scheme, got.netloc) != (base.scheme, base.netloc):
        return None
    path = unquote(got.path).removeprefix(base.path.rstrip("/")).lstrip("/")
    return path + "index.html" if path == "" or path.endswith("/") else path


def file_digests(site: Path, paths: set[str]) -> dict[str, str]:
    """``{path: SHA-256 hex of site/path}`` for each of ``paths`` but :data:`NOT_KEYED`;
    ``"missing"`` for a path that is no file of ``site`` (a 404 the check saw)."""
    found = {}
    for rel in sorted(paths - NOT_KEYED):
        file = site / rel
        found[rel] = hashlib.sha256(file.read_bytes()).hexdigest() if file.is_file() else "missing"
    return found


def _record(name: str) -> Path:
    return RUNS_DIR / (name.replace("/", "__") + ".json")


def passed_before(name: str, site: Path) -> bool:
    """Whether check ``name`` (a page such as ``notebooks/x.ipynb``, or any test's own name)
    passed in an earlier run with the same :func:`check_key` and the same bytes in every file
    of ``site`` it read then. False when there is no record, or it cannot be read."""
    try:
        record = json.loads(_record(name).read_text())
        files = record["files"]
    except (OSError, ValueError, KeyError, TypeError):
        return False
    return record.get("check") == check_key() and file_digests(site, set(files)) == files


def remember(name: str, site: Path, paths: set[str]) -> None:
    """Record that check ``name`` passed, having read ``paths`` (relative to ``site``). Written
    atomically (a worker of a concurrent run never reads half a record)."""
    RUNS_DIR.mkdir(parents=True, exist_ok=True)
    target = _record(name)
    tmp = target.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_text(json.dumps({"check": check_key(), "files": file_digests(site, paths)},
                              indent=1, sort_keys=True))
    os.replace(tmp, target)
