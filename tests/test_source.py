"""Every page says where its source is and when it last changed.

* Material's edit and view-source buttons (``content.action.edit``/``view``) point at the page's
  file in the repository (``repo_url`` + ``edit_uri``);
* the title of every included snippet block links to that file (scripts/hooks/page_html.py);
* "Last update" shows the date, in UTC, of the last commit that changed the page's source
  (mkdocs-git-revision-date-localized-plugin), with no script;
* the header's repository link makes no request to the host's API (docs/.overrides/partials/
  source.html), and the Pages workflow fetches the whole history.
"""

from __future__ import annotations

import datetime as dt
import re
import subprocess
from pathlib import Path
from types import SimpleNamespace

import material
import pytest
import yaml
from bs4 import BeautifulSoup
from mkdocs.exceptions import PluginError

from scripts import ROOT
from scripts.checks.site import html_of, nav_pages
from scripts.hooks.page_html import rewrite
from tests.built_pages import parsed

CONFIG = yaml.load((ROOT / "mkdocs.yml").read_text(), Loader=yaml.BaseLoader)
REPO = CONFIG["repo_url"].rstrip("/")


def _soup(site: Path, page: str) -> BeautifulSoup:
    return parsed(html_of(site, page))


def last_commit_date(path: Path) -> dt.date | None:
    """The UTC date of the last commit that changed ``path``, or None outside git history."""
    proc = subprocess.run(
        ["git", "log", "-1", "--format=%at", "--", str(path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode or not proc.stdout.strip():
        return None
    return dt.datetime.fromtimestamp(int(proc.stdout), dt.UTC).date()


def test_every_page_has_edit_and_view_source(site):
    for page in nav_pages():
        links = _soup(site, page).select("a.md-content__button")
        buttons = {a.get("title"): a["href"] for a in links}
        assert buttons.get("Edit this page") == f"{REPO}/edit/main/docs/{page}", (page, buttons)
        assert buttons.get("View source of this page") == f"{REPO}/raw/main/docs/{page}", page


def test_every_page_shows_its_last_change(site):
    dated = 0
    for page in nav_pages():
        fact = _soup(site, page).select_one(".md-source-file .git-revision-date-localized-plugin")
        assert fact is not None, f"{page}: no 'Last update'"
        shown = dt.datetime.strptime(fact.get_text().strip(), "%B %d, %Y").date()
        committed = last_commit_date(ROOT / "docs" / page)
        if committed is not None:  # a page not committed yet shows the build's date
            assert shown == committed, f"{page}: shows {shown}, last commit {committed}"
            dated += 1
    assert dated, "no page's date could be compared with git (is this a git checkout?)"
    assert not list(site.rglob("timeago*")), "type: date needs no timeago script"


def test_snippet_titles_link_to_their_files(site):
    titles = 0
    for page in nav_pages():
        for title in _soup(site, page).select(".highlight .filename"):
            text = title.get_text()
            if not text.startswith("snippets/"):
                continue
            titles += 1
            link = title.find("a")
            assert link is not None, f"{page}: title {text!r} is not a link"
            path = link.get_text()
            assert (ROOT / path).is_file() and link["href"] == f"{REPO}/blob/main/{path}"
    assert titles > 50, f"only {titles} snippet titles found"


def test_source_link_hook_rules():
    config = SimpleNamespace(
        repo_url="https://host/o/r",
        edit_uri="edit/dev/docs/",
        config_file_path=str(ROOT / "mkdocs.yml"),
    )
    block = '<div class="highlight"><span class="filename">{}</span><pre><code>x</code></pre></div>'
    html = block.format("snippets/lookup_tables/onehot_equivalence.py — setup") + block.format(
        "example.py"
    )
    linked = rewrite(html, config, {})
    assert (
        '<span class="filename"><a href="https://host/o/r/blob/dev/snippets/lookup_tables/'
        'onehot_equivalence.py">snippets/lookup_tables/onehot_equivalence.py</a> — setup</span>'
    ) in linked and '<span class="filename">example.py</span>' in linked
    with pytest.raises(PluginError, match="snippets/gone.py"):
        rewrite(block.format("snippets/gone.py"), config, {})


def test_source_partial_override_tracks_material():
    """docs/.overrides/partials/source.html is Material's partial minus the attribute that makes
    its script ask the repository host's API for stars and forks (a third-party request)."""
    theirs = Path(material.__file__).parent / "templates" / "partials" / "source.html"
    ours = ROOT / "docs" / ".overrides" / "partials" / "source.html"

    def body(path: Path) -> str:
        return re.sub(r"\A\{#-.*?-#\}\n", "", path.read_text(encoding="utf-8"), flags=re.S)

    assert 'data-md-component="source"' not in body(ours)
    assert body(theirs).replace(' data-md-component="source"', "", 1) == body(ours)


def test_pages_workflow_fetches_the_whole_history():
    workflow = yaml.safe_load((ROOT / ".github" / "workflows" / "pages.yml").read_text())
    checkout = next(
        s
        for s in workflow["jobs"]["build"]["steps"]
        if s.get("uses", "").startswith("actions/checkout")
    )
    assert checkout.get("with", {}).get("fetch-depth") == 0
