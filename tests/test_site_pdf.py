"""The whole site as one PDF (``scripts/commands/site_pdf.py``): the audits' build (``python -m
pytest -m audit``) holds ``embedding-executed.pdf``, opened here with pypdf.

It has a sheet per nav page at least, an outline whose top level is every nav page's title in nav
order, each title on the page's first sheet, a formula's characters, links that jump inside the
document (the table of contents' to each page, and links between pages), and the light figures
only. The step's pure functions (ids, links, figures, code tokens, dates, the stand-in PDF) are
checked on small strings, without a build, in the contributor's loop.

Without Chromium, Playwright or pypdf the PDF checks are skipped, saying what to install; with
``REQUIRE_BROWSER=1`` (CI, ``.ci/run``) they fail instead.
"""

from __future__ import annotations

import os
import re
import unicodedata
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from scripts.checks.site import BROWSER_INSTALL_HINT, html_of, nav_pages
from scripts.commands import site_pdf
from scripts.commands.site_pdf import NavPage
from scripts.hooks.pdf_stand_in import PDF_NAME, STAND_IN, placeholder_pdf
from snippets.figure_style import THEMES
from tests.built_pages import parsed
from tests.conftest import build_problems

try:
    from pypdf import PdfReader
except ImportError:  # the `pdf` fixture skips, saying how to install it
    PdfReader = None

PAGES = nav_pages()


def plain(text: str) -> str:
    """``text`` compatibility-normalised (a math italic 𝐿 is an L) with its whitespace removed:
    what survives any line breaking and spacing of the PDF's text."""
    return "".join(unicodedata.normalize("NFKC", text).split())


@pytest.fixture(scope="module")
def pdf(site):
    """The built site's PDF, read by pypdf; skipped (failed under REQUIRE_BROWSER) when the
    build could not print it."""
    missing = site_pdf.missing_browser()
    hint = BROWSER_INSTALL_HINT if missing else "`python -m pip install -r requirements.txt`"
    if PdfReader is None:
        missing.append("the Python package `pypdf`")
    if missing:
        message = f"the site's PDF needs {' and '.join(missing)}: {hint}"
        if os.environ.get("REQUIRE_BROWSER"):
            pytest.fail(message + " (REQUIRE_BROWSER is set, so this is a failure, not a skip)")
        pytest.skip(message)
    return PdfReader(site / PDF_NAME)


def titles(site: Path) -> list[str]:
    """Each nav page's title as its built page shows it (its ``<h1>``), in nav order."""
    found = []
    for page in PAGES:
        h1 = parsed(html_of(site, page)).select_one("article h1")
        found.append(" ".join(h1.get_text().replace("¶", " ").split()))
    return found


@pytest.fixture(scope="module")
def first_sheets(pdf, site) -> list[int]:
    """The index of each nav page's first sheet, from the outline's top level, which must be
    the pages' titles in nav order."""
    top = [entry for entry in pdf.outline if not isinstance(entry, list)]
    assert [" ".join(e.title.split()) for e in top] == titles(site)
    return [pdf.get_destination_page_number(entry) for entry in top]


@pytest.mark.audit
def test_one_sheet_per_page_at_least_and_the_outline_in_nav_order(pdf, first_sheets):
    """Every page starts a sheet of its own, after the table of contents, in nav order."""
    assert len(pdf.pages) >= len(PAGES) + 1
    assert first_sheets[0] >= 1, "the first page shares the table of contents' sheet"
    assert first_sheets == sorted(set(first_sheets)), first_sheets
    assert first_sheets[-1] < len(pdf.pages)


@pytest.mark.audit
def test_each_page_title_is_on_its_first_sheet(pdf, site, first_sheets):
    for title, sheet in zip(titles(site), first_sheets, strict=True):
        assert plain(title) in plain(pdf.pages[sheet].extract_text()), (title, sheet)


@pytest.mark.audit
def test_a_formula_is_printed_as_text(pdf, site, first_sheets):
    """The first display formula of the differentiability page (MathML, rendered when the site
    builds) is text in the PDF, found between that page's first sheet and the next page's."""
    page = PAGES.index("differentiability.md")
    math = parsed(html_of(site, "differentiability.md")).select_one("article div.arithmatex math")
    formula = plain(math.get_text())
    assert len(formula) > 10 and "∂" in formula, formula
    text = ""
    for sheet in range(first_sheets[page], first_sheets[page + 1]):
        text += plain(pdf.pages[sheet].extract_text())
        if formula in text:
            return
    pytest.fail(f"formula {formula!r} not in the differentiability page's sheets")


def link_targets(pdf) -> list[tuple[int, int | str]]:
    """Every link of the PDF as (its sheet, the sheet it jumps to, or the URI it opens)."""
    named = pdf.named_destinations
    links = []
    for number, sheet in enumerate(pdf.pages):
        for annotation in sheet.get("/Annots") or []:
            annotation = annotation.get_object()
            if annotation.get("/Subtype") != "/Link":
                continue
            action = annotation.get("/A")
            if action is not None and action.get("/S") == "/URI":
                links.append((number, str(action["/URI"])))
                continue
            dest = annotation.get("/Dest")
            if dest is None and action is not None and action.get("/S") == "/GoTo":
                dest = action.get("/D")
            assert dest is not None, f"sheet {number}: a link that neither jumps nor opens a URI"
            if not isinstance(dest, list):
                assert str(dest) in named, f"sheet {number}: a jump to a missing name {dest}"
                links.append((number, pdf.get_destination_page_number(named[str(dest)])))
            else:
                links.append((number, pdf.get_page_number(dest[0].get_object())))
    return links


@pytest.mark.audit
def test_links_jump_inside_the_document(pdf, first_sheets):
    """The table of contents links every page's first sheet, in order; some link of a page jumps
    to another page; and no link opens the made-up address the document was printed from."""
    links = link_targets(pdf)
    contents = [target for sheet, target in links if sheet == 0]
    assert contents == first_sheets

    def page_of(sheet: int) -> int:
        return max(i for i, first in enumerate(first_sheets) if first <= sheet)

    across = [(s, t) for s, t in links if s > 0 and isinstance(t, int) and page_of(s) != page_of(t)]
    assert len(across) >= len(PAGES), f"only {len(across)} links between pages"
    uris = [t for _, t in links if isinstance(t, str)]
    assert not [u for u in uris if u.startswith(site_pdf.ORIGIN) or not urlsplit(u).scheme]


#: A colour as Skia writes it in a content stream: ``.1216 .1373 .1569 rg`` (or ``RG``, stroke).
_COLOUR = re.compile(rb"(?<![\w.])([\d.]+) ([\d.]+) ([\d.]+) (?:rg|RG)\b")


@pytest.mark.audit
def test_only_light_figures_are_printed(pdf):
    """Every colour of the light figure palette (snippets/figure_style.py) is drawn somewhere in
    the PDF, and none of the dark palette's."""
    drawn = set()
    for sheet in pdf.pages:
        contents = sheet.get_contents()
        for match in _COLOUR.finditer(b"" if contents is None else contents.get_data()):
            drawn.add(tuple(round(float(x) * 255) for x in match.groups()))

    def colours(theme) -> dict[str, tuple[int, ...]]:
        return {
            name: tuple(int(getattr(theme, name)[i : i + 2], 16) for i in (1, 3, 5))
            for name in ("fg", "muted", "accent", "accent_fill", "second", "cell")
        }

    light, dark = (colours(t) for t in THEMES)
    assert {n: c for n, c in light.items() if c not in drawn} == {}
    assert {n: c for n, c in dark.items() if c in drawn and c not in light.values()} == {}


# --- the step's pure functions ----------------------------------------------------------------

PAGE_URLS = {"": "index", "lookup-tables/": "lookup-tables", "sparsity/": "sparsity"}


def section(content: str) -> str:
    return site_pdf.page_section(
        content, "sparsity/", "sparsity", PAGE_URLS, "https://example.org/site/"
    )


def test_ids_and_references_to_them_are_prefixed():
    out = section(
        '<h2 id="bags">Bags</h2><a href="#bags">up</a><a href="#">top</a>'
        '<input id="t1"><label for="t1">x</label><div aria-labelledby="t1 t2">'
    )
    assert 'id="sparsity--bags"' in out and 'href="#sparsity--bags"' in out
    assert 'href="#sparsity"' in out
    assert 'id="sparsity--t1"' in out and 'for="sparsity--t1"' in out
    assert 'aria-labelledby="sparsity--t1 sparsity--t2"' in out


def test_links_to_pages_stay_in_the_document_and_other_files_go_to_the_site():
    out = section(
        '<a href="../lookup-tables/#where-it-breaks">a</a>'
        '<a href="../lookup-tables/">b</a><a href="../">c</a>'
        '<a href="../lookup-tables/index.html#x">d</a>'
        '<a download="" href="sparsity.ipynb">e</a>'
        '<a href="../figures/sparsity/f-light.svg">f</a>'
        '<a href="https://pytorch.org/docs/">g</a><a href="mailto:a@b.c">h</a>'
    )
    assert re.findall(r'href="([^"]*)"', out) == [
        "#lookup-tables--where-it-breaks",
        "#lookup-tables",
        "#index",
        "#lookup-tables--x",
        "https://example.org/site/sparsity/sparsity.ipynb",
        "https://example.org/site/figures/sparsity/f-light.svg",
        "https://pytorch.org/docs/",
        "mailto:a@b.c",
    ]


def test_only_light_figures_are_kept_and_made_eager():
    light = '<img alt="A &gt; B" loading="lazy" src="../figures/sparsity/f-light.svg#only-light" />'
    dark = '<img alt="A > B" loading="lazy" src="../figures/sparsity/f-dark.svg#only-dark" />'
    out = section(
        f"<figure><p>{light}\n{dark}</p></figure>"
        f'<figure><a href="../figures/sparsity/g-dark.svg">{dark}</a></figure>'
    )
    assert "only-dark" not in out and "-dark.svg" not in out and "<a" not in out
    assert out.count("<img") == 1 and 'loading="lazy"' not in out
    assert 'src="figures/sparsity/f-light.svg#only-light"' in out


def test_code_keeps_the_colours_of_comments_strings_and_keywords_only():
    code = (
        '<pre><code><span class="k">for</span> <span class="n">i</span> '
        '<span class="ow">in</span> <span class="nb">range</span><span class="p">(</span>'
        '<span class="mi">3</span><span class="p">):</span>  <span class="c1"># c</span>'
        '\n    <span class="nb">print</span><span class="p">(</span>'
        '<span class="s2">&quot;x&quot;</span><span class="p">)</span></code></pre>'
        '<p><span class="n">prose</span></p>'
    )
    out = site_pdf.lean_code(code)
    assert re.findall(r'<span class="(\w+)">', out) == ["k", "c1", "s2", "n"]
    assert re.sub(r"<[^>]+>", "", out) == re.sub(r"<[^>]+>", "", code)


def test_solutions_print_open_and_headings_keep_single_spaces():
    out = section(
        '<details class="success">\n<summary>Solution</summary></details>'
        '<details open class="note"></details><h2 id="a">Two\n   words</h2>'
    )
    assert out.count("<details open") == 2
    assert '<h2 id="sparsity--a">Two words</h2>' in out


def test_nav_entries_keep_order_and_sections():
    nav = [
        {"Home": "index.md"},
        {"Articles": [{"A": "a.md"}, "b.md"]},
        {"More": [{"Sub": [{"C": "c/d.ipynb"}]}, {"Out": "https://example.org/"}]},
    ]
    assert site_pdf.nav_entries(nav) == [
        NavPage(None, "Home", "index.md"),
        NavPage("Articles", "A", "a.md"),
        NavPage("Articles", "b.md", "b.md"),
        NavPage("More", "C", "c/d.ipynb"),
    ]


def test_the_print_document_has_a_linked_table_of_contents():
    pages = [
        (NavPage(None, "Home", "index.md"), "<h1>Home</h1>"),
        (NavPage("Articles", "Bags & tables", "bags.md"), "<h1>Bags</h1>"),
    ]
    doc = site_pdf.print_document(
        pages, "Site", "About it", ["a.css", "b.css"], {"scheme": "default"}
    )
    assert '<a href="#index">Home</a>' in doc and '<a href="#bags">Bags &amp; tables</a>' in doc
    assert '<li>Articles<ol><li><a href="#bags">' in doc
    assert doc.index('href="a.css"') < doc.index('href="b.css"') < doc.index("<style>")
    assert '<article class="md-typeset pdf-page" id="bags">' in doc
    assert '<body dir="ltr" data-md-color-scheme="default">' in doc


def test_dates_are_stamped_in_place():
    pdf = (
        b"%PDF-1.4\n1 0 obj\n<</CreationDate (D:20261125033049+01'00')\n"
        b"/ModDate (D:20261125033049+01'00')>>\nendobj\n"
    )
    stamped = site_pdf.stamp_dates(pdf, 86400)
    assert len(stamped) == len(pdf)
    assert stamped.count(b"(D:19700102000000+00'00')") == 2
    with pytest.raises(ValueError):
        site_pdf.stamp_dates(b"%PDF-1.4\n", 0)


def test_node_ids_become_their_ranks_in_order():
    pdf = (
        b"<</ID (node00000125)>> <</Headers [(node00000119)]>> <</ID (node00000119)>>"
        b"<</Names [(node00000119) 1 0 R (node00000125) 2 0 R]>>"
    )
    numbered = site_pdf.number_node_ids(pdf)
    assert len(numbered) == len(pdf)
    assert numbered == pdf.replace(b"00000119", b"00000001").replace(b"00000125", b"00000002")


def test_the_stand_in_pdf_is_well_formed():
    data = placeholder_pdf(["made by (mkdocs build)"])
    xref = int(data.rsplit(b"startxref\n", 1)[1].split()[0])
    assert data[xref:].startswith(b"xref\n0 6\n")
    offsets = [int(line.split()[0]) for line in data[xref:].splitlines()[3:8]]
    for number, offset in enumerate(offsets, 1):
        assert data[offset:].startswith(b"%d 0 obj" % number)
    assert b"(made by \\(mkdocs build\\)) '" in data


@pytest.mark.audit
def test_the_audited_build_is_clean_and_holds_the_pdf(site_build):
    """The audits' build: strict with a clean log, as the contributor's, then printed
    (``python -m scripts site-pdf``). When it fails, this is the one audit that says why; the
    others are skipped, pointing here."""
    assert not build_problems(site_build), "\n".join(build_problems(site_build))
    assert (Path(site_build["folder"]) / PDF_NAME).read_bytes() != placeholder_pdf(STAND_IN)


def test_a_build_holds_the_stand_in_and_the_script_prints_the_pdf_over_it(site, tmp_path):
    """The contributor's build holds the stand-in (the home page's link validates), which says
    how the PDF is made; the script fails, saying why, on a site it cannot print."""
    assert (site / PDF_NAME).read_bytes() == placeholder_pdf(STAND_IN)
    assert "python -m scripts site-pdf" in " ".join(STAND_IN)
    with pytest.raises(ValueError, match="nav page index.md was not built"):
        site_pdf.make_pdf(tmp_path)
    (tmp_path / "index.html").write_text("<html><body><p>no article</p></body></html>")
    with pytest.raises(ValueError, match="no <h1>"):
        site_pdf.make_pdf(tmp_path)


def test_a_page_s_own_content_is_cut_from_its_built_page():
    built = (
        '<html><article class="md-content__inner"><a class="md-content__button">edit</a>'
        '<h1 id="t">T</h1><p>body</p><aside class="md-source-file">Last update</aside>'
        "</article></html>"
    )
    assert site_pdf.page_content(built) == '<h1 id="t">T</h1><p>body</p>'
    assert (
        site_pdf.page_content(
            built.replace('<aside class="md-source-file">Last update</aside>', "")
        )
        == '<h1 id="t">T</h1><p>body</p>'
    )


@pytest.mark.audit
def test_the_chinese_site_prints_its_own_pdf_with_chinese_text(pdf, site):
    """The Chinese site (zh/) gets its own PDF, in Chinese: its front page's contents heading,
    its navigation's translated titles, and a CJK font (Debian's Noto CJK, installed by .ci/run)
    that pypdf can read the characters back from (Kangxi radicals, which some CJK fonts map
    their glyphs to, normalised by NFKC to the ideographs)."""
    chinese = PdfReader(site / "zh" / PDF_NAME)
    front = plain("".join(page.extract_text() for page in chinese.pages[:2]))
    # (页 of 首页 comes back as a radical of the CJK Radicals Supplement, which NFKC keeps.)
    assert "目录" in front and "文章" in front and "参考" in front
    home = (site / "zh" / "index.html").read_text(encoding="utf-8")
    assert 'href="embedding-executed.pdf"' in home  # its own, beside it
    assert plain(pdf.pages[0].extract_text()).startswith("Embedding,Executed")
