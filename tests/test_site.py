"""The site builds strictly, shows its generated figures, and makes no third-party request.

The build runs once per test run, shared by every worker (the ``site`` fixture in
``tests/conftest.py``: ``mkdocs build --strict`` into a temporary folder, without ``-q``: in MkDocs
1.6 ``-q`` hides warnings and exits 0 despite them).
"""

from __future__ import annotations

import difflib
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from urllib.parse import urlparse

import material
import pytest
import yaml

from scripts import ROOT
from scripts.checks.site import html_of, nav_pages
from tests.built_pages import Scan, broken_links, parsed, scan_html, scanned
from tests.conftest import build_problems

#: ``<link rel=…>`` values that make the browser fetch nothing.
NON_FETCHING_RELS = {"canonical", "alternate", "author", "license", "me", "prev", "next", "search"}
CSS_URL = re.compile(r"""url\(\s*['"]?([^'")\s]+)|@import\s+['"]([^'"]+)""")


def is_third_party(url: str) -> bool:
    parsed = urlparse(url.strip())
    if parsed.scheme in ("", "data", "blob", "about"):
        return url.strip().startswith("//")
    return parsed.scheme in ("http", "https", "ftp", "ws", "wss") and parsed.hostname not in (
        "localhost",
        "127.0.0.1",
    )


def resource_urls(scan: Scan) -> list[str]:
    """URLs a browser fetches to show a scanned page (:func:`tests.built_pages.scan_html`):
    scripts, styles, icons, images, media, CSS url()."""
    urls: list[str] = []
    fetching = {"script", "img", "iframe", "embed", "audio", "video", "source", "track"}
    for tag, attrs in scan.tags:
        if tag in fetching and attrs.get("src"):
            urls.append(attrs["src"])
        if tag in fetching:
            urls += [
                part.split()[0] for part in (attrs.get("srcset") or "").split(",") if part.strip()
            ]
        if tag == "object" and attrs.get("data"):
            urls.append(attrs["data"])
        rels = set((attrs.get("rel") or "").split())
        if tag == "link" and attrs.get("href") and not rels <= NON_FETCHING_RELS:
            urls.append(attrs["href"])
    for css in scan.styles + [attrs["style"] for _, attrs in scan.tags if attrs.get("style")]:
        urls += [a or b for a, b in CSS_URL.findall(css)]
    return urls


def test_every_nav_page_is_built(site):
    pages = nav_pages()
    assert "index.md" in pages
    for page in pages:
        assert html_of(site, page).is_file(), f"{page} was not built"


def test_no_page_requests_a_third_party_host(site):
    offenders = []
    for html_file in site.rglob("*.html"):
        for url in resource_urls(scanned(html_file)):
            if is_third_party(url):
                offenders.append(f"{html_file.relative_to(site)}: {url}")
    for css_file in site.rglob("*.css"):
        for a, b in CSS_URL.findall(css_file.read_text(encoding="utf-8", errors="replace")):
            if is_third_party(a or b):
                offenders.append(f"{css_file.relative_to(site)}: {a or b}")
    assert not offenders, "\n".join(offenders)


def test_third_party_detector_catches_each_kind():
    html = (
        '<script src="https://cdn.example.com/x.js"></script>'
        '<link rel="stylesheet" href="//fonts.example.com/f.css">'
        '<link rel="canonical" href="https://example.com/page/">'
        '<img src="https://img.example.com/a.png" alt="a">'
        '<div style="background: url(https://bg.example.com/b.png)"></div>'
        '<a href="https://example.com/read-more">plain link</a>'
        '<img src="figures/local.svg" alt="b">'
    )
    flagged = [u for u in resource_urls(scan_html(html)) if is_third_party(u)]
    assert flagged == [  # tags in the page's order, then CSS
        "https://cdn.example.com/x.js",
        "//fonts.example.com/f.css",
        "https://img.example.com/a.png",
        "https://bg.example.com/b.png",
    ]


def test_figures_come_in_light_and_dark_with_alt_text_and_caption(site):
    for page in nav_pages():
        soup = parsed(html_of(site, page))
        for img in soup.find_all("img"):
            src = img.get("src", "")
            assert img.get("alt", "").strip(), f"{page}: <img src={src!r}> has no alt text"
            if "figures/" not in src:
                continue
            target = (html_of(site, page).parent / src.split("#")[0]).resolve()
            assert target.is_file(), f"{page}: {src} was not generated"
            assert src.endswith(("-light.svg#only-light", "-dark.svg#only-dark")), (
                f"{page}: {src} should carry its palette suffix"
            )
            other = (
                src.replace("-light.svg#only-light", "-dark.svg#only-dark")
                if "light" in src
                else src.replace("-dark.svg#only-dark", "-light.svg#only-light")
            )
            assert soup.find("img", src=other), f"{page}: {src} has no matching variant {other}"
            figure = img.find_parent("figure")
            assert figure and figure.find("figcaption"), f"{page}: {src} has no caption"
            first = soup.find("img", src=re.compile("figures/.*#only-light$"))
            h2 = first.find_previous("h2") if first is not None else None
            if img is first and h2 is None:  # the top figure: scripts/hooks/page_html.py
                assert img.get("loading") is None and img.get("fetchpriority") == "high", src
                continue
            assert img.get("loading") == "lazy", (
                f"{page}: {src} needs {{ loading=lazy }}, or both palettes' files are downloaded"
            )


def test_every_figure_image_has_its_svgs_size(site):
    """Each figure's ``<img>``, on every page in both languages, states its SVG's size in CSS
    pixels (``width``/``height`` of the ``<svg>``; 1pt = 4/3 px), whole pixels within half a
    pixel: the browser reserves the image's box before the image arrives, so nothing under it
    moves (a layout shift, scripts/hooks/page_html.py)."""
    checked = 0
    for page in sorted(site.rglob("*.html")):
        for img in parsed(page).find_all("img"):
            src = img.get("src", "")
            if "figures/" not in src or not src.split("#")[0].endswith(".svg"):
                continue
            where = f"{page.relative_to(site)}: {src}"
            svg = ET.parse((page.parent / src.split("#")[0]).resolve()).getroot()
            for name in ("width", "height"):
                length = re.fullmatch(r"([\d.]+)(pt|px)?", svg.get(name, ""))
                assert length, f"{where}: its <svg> {name}={svg.get(name)!r}"
                px = float(length[1]) * (4 / 3 if length[2] == "pt" else 1)
                stated = img.get(name, "")
                assert stated.isdigit() and abs(int(stated) - px) <= 0.5, (
                    f"{where}: {name}={stated!r}, its SVG's is {px:g} CSS px"
                )
            checked += 1
    assert checked >= 40, f"only {checked} figure images found"


def test_the_site_builds_strictly_with_a_clean_log(site_build):
    """The strict build succeeds, writes nothing into docs/, and every line it prints is an INFO
    line: no warning (a broken link or anchor), no theme banner (mkdocs.yml sets
    NO_MKDOCS_2_WARNING), no kernel warning (scripts/hooks/jupyter/), no torch warning. The one
    test that fails for a bad build: the others that need the site are skipped, pointing here."""
    problems = build_problems(site_build)
    assert not problems, "\n".join(problems[:40])


def first_differences(first: bytes, second: bytes, name: str, lines: int = 6) -> str:
    """The first differing lines of two versions of the file ``name`` (a unified diff, at most
    ``lines`` changed lines), or their sizes and first differing byte when either is binary."""
    try:
        a, b = first.decode("utf-8").splitlines(), second.decode("utf-8").splitlines()
    except UnicodeDecodeError:
        at = next(
            (i for i, (x, y) in enumerate(zip(first, second, strict=False)) if x != y),
            min(len(first), len(second)),
        )
        return f"{name}: binary, {len(first)} and {len(second)} bytes, first difference at {at}"
    diff = [
        ln
        for ln in difflib.unified_diff(
            a, b, f"{name} (first)", f"{name} (second)", n=0, lineterm=""
        )
    ]
    changed = [ln for ln in diff[2:] if not ln.startswith("@@")]
    return "\n".join([*diff[:2], *(ln[:200] for ln in changed[:lines])])


def test_byte_identity_failure_shows_the_differing_lines():
    text = first_differences(b"<p>a</p>\n<p>10:31</p>\n", b"<p>a</p>\n<p>10:32</p>\n", "page.html")
    assert "-<p>10:31</p>" in text and "+<p>10:32</p>" in text and "<p>a</p>" not in text
    assert "first difference at 2" in first_differences(b"\x89PN\xff", b"\x89PX\xff", "f.png")


@pytest.mark.audit
def test_two_builds_of_the_same_sources_are_byte_identical(site, site_build, second_site_build):
    """A second strict build gives the same files, byte for byte: nothing depends on the clock,
    the order of a set or the process (the sitemap's dates come from the last commit, see
    scripts/hooks/execute_stage.py).

    The second build (``second_site_build`` in tests/conftest.py, started in the background as
    soon as the first is done) renders the same executed notebooks and figures: it must find
    every one under the key the first build gave it, so no key depends on the process. Each
    notebook is executed again, and compared with its copy, by tests/test_notebooks.py; each
    figure is drawn again by tests/test_figures.py.

    An audit (``python -m pytest -m audit``): both builds make the PDF, as the Pages workflow
    does, the second from the PDF cache (``.cache/pdf/``) under the key the first gave it.
    """
    again = second_site_build
    assert again["returncode"] == 0, again["log"][-3000:]
    assert again["cache_after"] == again["cache_before"], (
        "the second build changed .cache/executed/: a notebook's key differs between builds"
    )
    for page in nav_pages():
        if page.endswith(".ipynb"):
            assert f"notebook {page}: not executed, nothing changed" in again["log"], (
                f"the second build executed {page} again: its key differs between builds"
            )

    def tree(root: Path) -> dict[str, bytes]:
        return {
            p.relative_to(root).as_posix(): p.read_bytes()
            for p in sorted(root.rglob("*"))
            if p.is_file()
        }

    first, second = tree(site), tree(Path(again["folder"]))
    assert sorted(first) == sorted(second), set(first) ^ set(second)
    differ = [name for name in first if first[name] != second[name]]
    assert not differ, f"{len(differ)} files differ:\n" + "\n\n".join(
        first_differences(first[n], second[n], n) for n in differ[:10]
    )


def test_notebook_pages_are_executed_light_and_downloadable(site):
    """A notebook page shows outputs computed at build time, carries none of mkdocs-jupyter's
    inlined stylesheets or scripts (scripts/hooks/notebooks.py), and its download link serves the
    committed notebook, byte for byte."""
    notebooks = [p for p in nav_pages() if p.endswith(".ipynb")]
    assert notebooks
    for page in notebooks:
        html_file = html_of(site, page)
        article = parsed(html_file).article
        assert article.select("div.nb-output pre > code"), f"{page}: no outputs rendered"
        assert not article.find_all(["style", "script"]), f"{page}: inlined assets left"
        assert html_file.stat().st_size < 300_000, f"{page}: {html_file.stat().st_size} bytes"
        link = article.select_one(".nb-download a[href$='.ipynb']")
        assert link is not None, f"{page}: no download link"
        assert (html_file.parent / link["href"]).read_bytes() == (ROOT / "docs" / page).read_bytes()


def test_search_partial_override_tracks_material():
    """docs/.overrides/partials/search.html is Material's own partial plus an aria-label.

    When Material is upgraded and its partial changes, this fails instead of the site silently
    keeping an old copy: copy the new partial over and add the attribute again.
    """
    theirs = Path(material.__file__).parent / "templates" / "partials" / "search.html"
    ours = ROOT / "docs" / ".overrides" / "partials" / "search.html"

    def body(path: Path) -> str:
        return re.sub(r"\A\{#-.*?-#\}\n", "", path.read_text(encoding="utf-8"), flags=re.S)

    label = " aria-label=\"{{ lang.t('search') }}\""
    assert label in body(ours)
    assert body(ours).replace(label, "", 1) == body(theirs)


def test_every_code_block_states_its_line_count(site):
    """Each code block's ``--code-lines`` (scripts/hooks/page_html.py) is the lines it shows.

    extra.css turns the count into the block's placeholder height while it is off screen; a
    block without it, or with a wrong count, makes the page jump when it is shown. Counted here
    independently of the hook, from the text BeautifulSoup reads in the ``<pre>``.
    """
    problems, blocks = [], 0
    for page in nav_pages():
        soup = parsed(html_of(site, page))
        for div in soup.select("div.highlight"):
            pre = div.find("pre", recursive=False)
            if pre is None:
                continue
            blocks += 1
            shown = len(pre.get_text().rstrip("\n").split("\n"))
            match = re.fullmatch(r"--code-lines: (\d+)", div.get("style", ""))
            if match is None or int(match[1]) != shown:
                problems.append(
                    f"{page}: {div.get('style')!r} on a block of {shown} lines: "
                    f"{pre.get_text()[:60]!r}"
                )
    assert blocks > 100, f"only {blocks} code blocks found: is the selector still right?"
    assert not problems, "\n".join(problems)


def test_the_short_answer_comes_first_on_every_article(site):
    """Under an article's title: the short answer, then the one compact line of page facts
    (download link, torch matrix). No box above the answer."""
    for page in nav_pages("Articles"):
        article = parsed(html_of(site, page)).article
        title = article.find("h1")
        following = [el for el in title.find_next_siblings() if el.name]
        answer = following[0]
        assert answer.name == "p" and answer.get_text().startswith("Short answer."), (
            page,
            str(answer)[:200],
        )
        facts = following[1]
        assert facts.name == "p" and facts.get("class") == ["page-facts"], (page, str(facts)[:200])
        assert facts.select_one(".nb-download a[download]"), f"{page}: no download link"
        assert facts.select_one(".torch-matrix"), f"{page}: no torch matrix status"


def test_a_formula_breaks_into_lines_at_top_level_double_backslashes():
    from scripts.hooks.markdown_math import math_block, split_lines

    assert split_lines(r"a = b \\ c = \frac{d}{e}") == ["a = b", r"c = \frac{d}{e}"]
    assert split_lines(r"\begin{pmatrix} 1 \\ 2 \end{pmatrix} \\ x") == [
        r"\begin{pmatrix} 1 \\ 2 \end{pmatrix}",
        "x",
    ]
    assert split_lines(r"x_{a \\ b} = 1") == [r"x_{a \\ b} = 1"]
    assert split_lines(r"\left\{ x \right. \\ y") == [r"\left\{ x \right.", "y"]
    assert split_lines(r"a \\[4pt] b") == ["a", "b"]
    block = math_block("a = 1 \\\\\n b = 2", "math", {}, None)
    assert block.count("<math ") == 2 and 'tabindex="0"' in block
    assert 'aria-label="a = 1 \\\\ b = 2"' in block


def test_mkdocs_yml_runs_no_code_while_it_is_read():
    """YAML's safe loader reads mkdocs.yml: it holds no ``!!python/…`` tag, which would import a
    module (and so run its code) while the file is parsed."""
    assert yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))["site_name"]


def _site_markdown(names: list[str] | None = None):
    """A Markdown converter with mkdocs.yml's extensions (``names``, in that order: all of them
    by default) and their settings."""
    import markdown

    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    entries = [e if isinstance(e, dict) else {e: {}} for e in config["markdown_extensions"]]
    settings = {name: options or {} for entry in entries for name, options in entry.items()}
    names = names or list(settings)
    return markdown.Markdown(extensions=names, extension_configs={n: settings[n] for n in names})


def test_a_formula_that_cannot_be_converted_fails_the_page():
    """With the site's own Markdown settings (the extensions mkdocs.yml lists), a fence or an
    inline formula latex2mathml cannot read raises MathError instead of being shown as its raw
    text (what pymdownx does with any other exception of a formatter)."""
    from scripts.hooks.markdown_math import MathError

    md = _site_markdown(
        ["pymdownx.superfences", "pymdownx.inlinehilite", "scripts.hooks.markdown_math"]
    )
    assert "<math" in md.convert("```math\n\\frac{1}{2}\n```\n")
    assert "<math" in md.reset().convert("A `#!math x^2` here.\n")
    for broken in ("```math\n\\frac{1}{\n```\n", "A `#!math \\frac{1}{` here.\n"):
        with pytest.raises(MathError, match="cannot convert math"):
            md.reset().convert(broken)
    with pytest.raises(ValueError, match="must come after"):
        _site_markdown(
            ["scripts.hooks.markdown_math", "pymdownx.superfences", "pymdownx.inlinehilite"]
        )


def test_every_anchor_and_table_of_contents_link_resolves(site):
    """Every relative link of every page, navigation and table of contents included, reaches a
    file of the site and, with a ``#fragment``, an element with that id (the check the build runs
    on notebook pages, ``scripts/hooks/notebooks.py``, here on every page)."""
    problems = sorted(
        {
            f"{page}: {problem}"
            for page in nav_pages()
            for problem in broken_links(
                site, html_of(site, page).relative_to(site).as_posix(), whole_page=True
            )
        }
    )
    assert not problems, "\n".join(problems)


def test_no_table_has_an_empty_header_cell(site):
    """A header cell names its column or row for a screen reader (WCAG 1.3.1)."""
    empty = [
        f"{page}: {th.find_parent('table').get_text(' ', strip=True)[:60]}"
        for page in nav_pages()
        for th in parsed(html_of(site, page)).find_all("th")
        if not th.get_text(strip=True)
    ]
    assert not empty, "\n".join(empty)
