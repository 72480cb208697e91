"""The ProperDocs check: its comparison on small made-up sites, and, as an audit (``python -m
pytest -m audit``), ProperDocs' build of this site compared with the run's MkDocs build."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from scripts import ROOT
from scripts.checks.properdocs_check import (
    build_problems,
    compare_sites,
    internal_links,
    is_internal,
)
from scripts.checks.site import build_site, nav_pages

PAGES = ["index.md", "guide.md"]
NAMES = ("MkDocs", "ProperDocs")
PAGE = """<html><head>
<meta name="generator" content="{generator}">
<link rel="stylesheet" href="../assets/main.css">
</head><body>
<a href="../">Home</a> <a href="#setup">Setup</a> <a href="https://pytorch.org/">PyTorch</a>
<img src="../figures/guide/table-light.svg" alt="A table.">
</body></html>
"""


def make_site(root: Path, generator: str) -> Path:
    """A two-page site as MkDocs lays it out, with one figure and a search index."""
    (root / "guide").mkdir(parents=True)
    (root / "figures" / "guide").mkdir(parents=True)
    (root / "search").mkdir()
    (root / "index.html").write_text(PAGE.format(generator=generator).replace("../", ""))
    (root / "guide" / "index.html").write_text(PAGE.format(generator=generator))
    (root / "figures" / "guide" / "table-light.svg").write_bytes(b"<svg>1</svg>\n")
    index = {"docs": [{"location": ""}, {"location": "guide/"}, {"location": "guide/#setup"}]}
    (root / "search" / "search_index.json").write_text(json.dumps(index))
    return root


@pytest.fixture
def sites(tmp_path) -> tuple[Path, Path]:
    return (
        make_site(tmp_path / "mk", "mkdocs-1.6.1"),
        make_site(tmp_path / "pd", "mkdocs-ProperDocs 1.6.7"),
    )


def test_same_site_from_two_generators_has_no_difference(sites):
    assert compare_sites(*sites, PAGES, NAMES) == []


def test_a_nav_page_missing_from_one_build_is_reported(sites):
    shutil.rmtree(sites[1] / "guide")
    problems = compare_sites(*sites, PAGES, NAMES)
    assert "pages: guide.md not built by ProperDocs" in problems
    assert "pages: guide/index.html only in the MkDocs build" in problems


def test_an_extra_file_in_one_build_is_reported(sites):
    (sites[0] / "stray.html").write_text("<p>")
    assert compare_sites(*sites, PAGES, NAMES) == ["pages: stray.html only in the MkDocs build"]


def test_a_changed_internal_link_is_reported_from_both_sides(sites):
    page = sites[1] / "guide" / "index.html"
    page.write_text(page.read_text().replace('href="#setup"', 'href="#set-up"'))
    assert compare_sites(*sites, PAGES, NAMES) == [
        "links: guide/index.html links to '#setup' only in the MkDocs build",
        "links: guide/index.html links to '#set-up' only in the ProperDocs build",
    ]


def test_a_changed_search_index_location_is_reported(sites):
    index = sites[1] / "search" / "search_index.json"
    index.write_text(index.read_text().replace("guide/#setup", "guide/#set-up"))
    assert len(compare_sites(*sites, PAGES, NAMES)) == 2


def test_a_figure_with_other_bytes_is_reported(sites):
    (sites[1] / "figures" / "guide" / "table-light.svg").write_bytes(b"<svg>2</svg>\n")
    assert compare_sites(*sites, PAGES, NAMES) == ["figures: figures/guide/table-light.svg differs"]


def test_external_links_are_not_compared(sites):
    page = sites[1] / "guide" / "index.html"
    page.write_text(page.read_text().replace("https://pytorch.org/", "https://pytorch.org/docs/"))
    assert compare_sites(*sites, PAGES, NAMES) == []


@pytest.mark.parametrize(
    "url,internal",
    [
        ("../", True),
        ("#setup", True),
        ("figures/a-light.svg", True),
        ("?q=1", True),
        ("https://pytorch.org/", False),
        ("//cdn.example/x.js", False),
        ("mailto:a@b.c", False),
        ("data:image/png;base64,AAAA", False),
    ],
)
def test_internal_urls_are_relative_urls_and_fragments(url, internal):
    assert is_internal(url) is internal


def test_internal_links_reads_href_and_src():
    html = PAGE.format(generator="x")
    assert internal_links(html) == {
        "../assets/main.css",
        "../",
        "#setup",
        "../figures/guide/table-light.svg",
    }


@pytest.mark.audit
def test_properdocs_builds_the_same_site(site, tmp_path):
    """ProperDocs, MkDocs' continuation, builds this site strictly into the same pages, links
    and figures as the run's MkDocs build."""
    proc = build_site(ROOT, tmp_path / "properdocs", "properdocs")
    assert not build_problems("ProperDocs", proc)
    assert compare_sites(site, tmp_path / "properdocs", nav_pages(), NAMES) == []
