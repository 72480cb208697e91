"""The Zensical canary's comparison, on small made-up sites (the canary itself, which installs
Zensical, runs in CI after the tests: ``.ci/run``)."""

from __future__ import annotations

from pathlib import Path

from scripts import ROOT
from scripts.checks.zensical_canary import (
    MARKDOWN_PACKAGES,
    ZENSICAL,
    Content,
    losses,
    page_content,
    pins,
    report,
)

PAGE = """<html><body><article><h1>Page</h1>
<img src="../figures/page/a-light.svg#only-light" alt="a"><img src="../figures/page/b.svg" alt="b">
<img src="https://example.org/x.png" alt="remote">
<div class="arithmatex"><math><mi>x</mi></math></div><p><math><mi>y</mi></math></p>
</article></body></html>"""
NOTEBOOK = """<html><body><article>
<div class="jp-Cell jp-CodeCell"><div class="jp-OutputArea-output">1</div></div>
<div class="jp-Cell jp-CodeCell"></div>
</article></body></html>"""


def site(root: Path, figures: bool, math: bool, notebook: bool) -> Path:
    (root / "page").mkdir(parents=True)
    page = PAGE if math else PAGE.replace("<math>", "<span>").replace("</math>", "</span>")
    (root / "page" / "index.html").write_text(page)
    if figures:
        (root / "figures" / "page").mkdir(parents=True)
        (root / "figures" / "page" / "a-light.svg").write_text("<svg/>")
    if notebook:
        (root / "notebooks" / "nb").mkdir(parents=True)
        (root / "notebooks" / "nb" / "index.html").write_text(NOTEBOOK)
    return root


def test_page_content_counts_what_code_made(tmp_path):
    built = site(tmp_path / "a", figures=True, math=True, notebook=True)
    assert page_content(built, "page.md") == Content(True, figures=1, formulas=2)
    assert page_content(built, "notebooks/nb.ipynb") == Content(True, cells=2, outputs=1)
    assert page_content(built, "missing.md") == Content(False)


def test_report_names_each_page_and_what_it_loses(tmp_path):
    mkdocs = site(tmp_path / "mkdocs", figures=True, math=True, notebook=True)
    zensical = site(tmp_path / "zensical", figures=False, math=False, notebook=False)
    pages = ["page.md", "notebooks/nb.ipynb"]
    assert report(mkdocs, zensical, pages) == [
        "page.md: loses 1 of 1 figures, 2 of 2 formulas",
        "notebooks/nb.ipynb: not built",
    ]
    assert report(mkdocs, mkdocs, pages) == []
    assert losses(Content(True, outputs=3), Content(True, outputs=1)) == ["2 of 3 notebook outputs"]


def test_the_canary_installs_pinned_versions_and_runs_in_ci_without_gating():
    assert ZENSICAL.count(".") == 2 and "==" not in ZENSICAL
    assert [p.split("==")[0].lower() for p in pins(MARKDOWN_PACKAGES)] == [
        n.lower() for n in MARKDOWN_PACKAGES
    ]
    ci = (ROOT / ".ci" / "run").read_text()
    line = next(ln for ln in ci.splitlines() if "scripts zensical-canary" in ln)
    assert "|| " in line, "the canary reports; it never fails CI"
