"""The page's one HTML pass (``scripts/hooks/page_html.py``): one reading of the page, each kind of
element rewritten by its handler."""

from __future__ import annotations

import os
from types import SimpleNamespace

import pytest
from mkdocs.exceptions import PluginError

from scripts import ROOT
from scripts.hooks.glossary import GLOSSARY, glossary_terms
from scripts.hooks.page_html import rewrite, svg_size

CONFIG = SimpleNamespace(
    config_file_path=str(ROOT / "mkdocs.yml"),
    edit_uri="edit/main/docs/",
    repo_url="https://example.org/site",
)

PAGE = (
    '<h1>T</h1><p>An <abbr title="x">one-hot</abbr> row, <code>num_embeddings</code> rows, '
    "<code>num_embeddings</code> again, <code>one-hot</code>, <code>other</code>.</p>"
    '<p><img alt="a" src="figures/p/f-light.svg#only-light" /></p>'
    '<div class="language-python highlight"><span class="filename">'
    "snippets/lookup_tables/figures.py — part</span><pre><span></span><code>x = 1\n"
    "y = 2\n</code></pre></div>"
    '<div class="highlight"><pre><span></span><code>num_embeddings\n</code></pre></div>'
)
PAIR = (
    '<figure><img alt="A" loading="lazy" src="../figures/p/a-light.svg#only-light" />'
    '<img alt="A" loading="lazy" src="../figures/p/a-dark.svg#only-dark" /></figure>'
)


def test_one_pass_rewrites_each_kind_of_element():
    once = rewrite(PAGE, CONFIG, glossary_terms(ROOT / GLOSSARY))
    assert once.count("<abbr") == 2  # one-hot's first use, num_embeddings' first use
    assert once.count('class="figure-full"') == 1 and once.count("data-search-exclude") == 2
    assert (
        '<div class="language-python highlight" data-search-exclude style="--code-lines: 2">'
        in once
        and once.count('<code tabindex="0">') == 2
    )
    assert (
        '<span class="filename"><a href="https://example.org/site/blob/main/snippets/'
        'lookup_tables/figures.py">snippets/lookup_tables/figures.py</a> — part</span>' in once
    )


def test_top_figure_light_variant_is_eager_dark_stays_lazy():
    out = rewrite(f"<h1>T</h1><p>x</p>{PAIR}<h2>S</h2>{PAIR}", None, {})
    assert out.count('fetchpriority="high"') == 1 and out.count('loading="lazy"') == 3
    assert '<img alt="A" fetchpriority="high" src="../figures/p/a-light.svg#only-light" />' in out
    assert out.index("fetchpriority") < out.index("<h2>")


def test_figure_below_the_first_section_heading_stays_lazy():
    out = rewrite(f"<h1>T</h1><p>x</p><h2>S</h2>{PAIR}", None, {})
    assert "fetchpriority" not in out and out.count('loading="lazy"') == 2


SVG = (
    '<?xml version="1.0"?>\n<svg xmlns:xlink="http://www.w3.org/1999/xlink" width="{}" '
    'height="{}" viewBox="0 0 1 1" xmlns="http://www.w3.org/2000/svg"><rect width="5"/></svg>'
)


def test_an_svgs_size_in_pt_is_given_in_css_pixels():
    """matplotlib writes an SVG's size in pt (tests/test_site.py checks each figure of the site):
    1pt is 4/3 CSS px, rounded to whole pixels."""
    assert svg_size(SVG.format("460.8pt", "345.6pt").encode(), "f") == (614, 461)


@pytest.mark.parametrize(
    "svg",
    [
        SVG.format("120", "80px"),
        SVG.format("50%", "2pt"),
        '<svg viewBox="0 0 1 1"><rect width="5pt" height="5pt"/></svg>',
        "not an svg",
        "",
    ],
)
def test_an_svg_without_a_size_in_pt_fails_the_build_naming_it(svg):
    with pytest.raises(PluginError, match="^f: no figure of the site, or its <svg> has no size"):
        svg_size(svg.encode(), "f")


def test_a_figures_src_is_read_from_the_site_file_at_its_url():
    """The ``src`` is relative to the page's URL (the built site's pages, in directories, are
    checked by tests/test_site.py), also without ``use_directory_urls``; a ``src`` that no file
    of the site has, or one without a size, fails the build, naming the page."""
    files = {"figures/p/b.svg": "<svg/>", "figures/p/a-light.svg": SVG.format("3pt", "6pt")}
    site = SimpleNamespace(
        get_file_from_path=lambda path: (
            SimpleNamespace(content_bytes=files[path].encode()) if path in files else None
        )
    )
    img = '<img alt="a" src="{}#only-light" loading="lazy">'

    def sized(url: str, src_uri: str, src: str) -> str:
        page = SimpleNamespace(url=url, file=SimpleNamespace(src_uri=src_uri))
        return rewrite(f"<h1>T</h1>{img.format(src)}", None, {}, page, site)

    assert '<img width="4" height="8" alt="a"' in sized(
        "zh/b.html", "b.zh.md", "../figures/p/./a-light.svg"
    )
    with pytest.raises(PluginError, match="^a.md: figures/p/a-light.svg: no figure of the site"):
        sized("a/", "a.md", "figures/p/a-light.svg")
    with pytest.raises(PluginError, match="^a.md: ../figures/p/b.svg: no figure of the site, or"):
        sized("a/", "a.md", "../figures/p/b.svg")


def test_the_glossaries_are_read_once_per_version_of_their_files(tmp_path, monkeypatch):
    """Every page gets its glossary's tooltips, but a build reads each glossary file once; an
    edit (a new modification time) is read again, as ``mkdocs serve`` needs."""
    import pathlib

    from scripts.hooks import glossary

    english, chinese = tmp_path / "glossary.md", tmp_path / "glossary.zh.md"
    english.write_text("*[one-hot]: a row of zeros and a single one\n", encoding="utf-8")
    chinese.write_text("# 术语表\n\n独热（one-hot）\n:   只有一个一的行\n", encoding="utf-8")
    reads = []
    read_text = pathlib.Path.read_text
    monkeypatch.setattr(
        pathlib.Path,
        "read_text",
        lambda self, *a, **k: reads.append(self.name) or read_text(self, *a, **k),
    )
    config = SimpleNamespace(docs_dir=str(tmp_path))
    zh_page = SimpleNamespace(file=SimpleNamespace(src_uri="x.zh.md"))
    for _ in range(3):
        assert glossary_terms(english) == {"one-hot": "a row of zeros and a single one"}
        assert glossary.terms_for(zh_page, config) == {"独热": "只有一个一的行"}
    assert sorted(reads) == ["glossary.md", "glossary.zh.md"]
    english.write_text("*[one-hot]: edited\n", encoding="utf-8")
    os.utime(english, ns=(english.stat().st_atime_ns, english.stat().st_mtime_ns + 10**9))
    assert glossary_terms(english) == {"one-hot": "edited"}
