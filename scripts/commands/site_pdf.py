"""The whole site as one PDF, ``embedding-executed.pdf``, printed from a built site.

Usage (from the repository root, after ``mkdocs build``)::

    python -m scripts site-pdf --site site

Not part of ``mkdocs build``: the audits (``python -m pytest -m audit``, whose site build runs
this after it) and the Pages workflow make it; every other build, ``mkdocs serve`` included,
holds the one-page stand-in of ``scripts/hooks/pdf_stand_in.py``, which this overwrites.

Every page of ``nav``, in nav order, becomes one section of a single print document: the page's
content as MkDocs rendered it (what its built page holds between its ``<h1>`` and Material's
"Last update" line: figures, MathML formulas and highlighted code already in place), under a
table of contents with a link to each page. Chromium, the one the browser test drives
(``scripts/checks/site.py``), prints it once through Playwright, with the site's own stylesheets and
print rules, an outline (the PDF's bookmarks, from the headings) and tags.

The document is made so that it reads as one (:func:`page_section`):

* every ``id`` of a page is prefixed with the page's slug (``lookup-tables--pitfalls``, the slug
  of ``scripts/checks/site.py``, which has no ``--``), and so is every reference to one
  (``href="#…"``, ``for``, ``aria-*``), so ids stay unique;
* a link to another page of the site becomes a link inside the document (``#lookup-tables`` or
  ``#lookup-tables--pitfalls``), which Chromium prints as a jump within the PDF; a link to any
  other file of the site (a notebook download, a figure's SVG) points to the published site;
* only the light figure of each pair is kept (``#only-light``), made eager; the dark one is
  dropped, with the link around it, if any (Material hides it in print anyway; dropped, it is
  neither loaded nor part of the cache key);
* collapsed blocks (exercise solutions) are printed open: paper cannot expand them.

Chromium loads the document from a made-up origin (:data:`ORIGIN`) whose every request is
answered from the site's files in memory (``File.content_bytes``); any other request is refused,
and Chromium itself resolves no host name (``CHROMIUM_ARGS``), so printing is offline. A request
for a file the document does not name, or that the site lacks, is a warning (a failed strict
build): the cache key below would not cover it.

Cache: the finished PDF is kept in ``.cache/pdf/<key>.pdf``, ``key`` the sha256 of the document's
HTML, of every file it loads (stylesheets, figures), of the print settings here and of the
Chromium and Python packages that print it. A site whose pages print the same copies it; the
other entries are deleted. ``rm -rf .cache/pdf`` forgets them.

Reproducible: Skia dates the PDF with the clock, and Chromium names table header cells by DOM
node ids that vary from run to run. The dates are replaced by the last commit's
(``SOURCE_DATE_EPOCH``, or the last commit's time as ``execute_stage.py`` gives it to the
build: :func:`stamp_dates`) and the ids by their
ranks (:func:`number_node_ids`), substitutions of the same length in the bytes; two prints of
the same document then give the same file (checked by hand: the audits' second build copies the
first one's from the cache).

Exit status 0 when the PDF is written; 1 when printing failed, the document asked for a file
the site lacks, or Chromium or the ``playwright`` package is missing (``tests/test_site_pdf.py``
then skips, or fails under ``REQUIRE_BROWSER``).
"""

from __future__ import annotations

import argparse
import hashlib
import html
import importlib.util
import mimetypes
import os
import re
import sys
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import urljoin, urlsplit

import yaml

from scripts import ROOT
from scripts.checks.site import CHROMIUM, CHROMIUM_ARGS, html_of, page_slug, page_url_path
from scripts.hooks.cache import environment_fingerprint
from scripts.hooks.execute_stage import last_commit_time
from scripts.hooks.page_text import words
from scripts.hooks.pdf_stand_in import PDF_NAME

#: Where finished PDFs are kept between builds, relative to the project.
CACHE_DIR = Path(".cache") / "pdf"
#: Bumped when what is stored changes without the document changing (this module's output).
CACHE_FORMAT = "pdf-1"
#: The made-up origin the print document is loaded from; nothing on the network answers it.
ORIGIN = "https://print.invalid/"
#: The document's own path under :data:`ORIGIN`.
DOCUMENT = "embedding-executed.html"
#: Playwright's ``page.pdf`` settings: A4, margins from :data:`PRINT_CSS`, page numbers below.
PDF_OPTIONS = {
    "format": "A4",
    "print_background": True,
    "outline": True,
    "tagged": True,
    "display_header_footer": True,
    "header_template": "<span></span>",
    "footer_template": (
        '<div style="width: 100%; font-size: 8px; text-align: center; color: #555">'
        '<span class="pageNumber"></span> / <span class="totalPages"></span></div>'
    ),
}
#: How long Chromium may take to load and print the document, in ms (a busy CI machine).
TIMEOUT_MS = 180_000

#: The heading of the print document's table of contents, per language.
CONTENTS = {"en": "Contents", "zh": "目录"}
#: What a page without a Chinese file shows after its title in the Chinese document's contents
#: (as in the Chinese site's navigation, scripts/hooks/zh.py): the Chinese partial's.
ENGLISH_MARK = str(words("zh").english_mark)

#: Rules of the print document only: each page starts a sheet, the front matter's look, and
#: every block rendered (``content-visibility: auto`` in extra.css skips blocks off screen).
PRINT_CSS = """
/* Material prints with 25 mm margins (a 573 px column); 12 mm at the sides gives 703 px, which
   holds the 700 px the print rules of extra.css are checked at (tests/test_browser.py). The
   bottom margin holds the page number. */
@page { margin: 14mm 12mm 16mm; }
.pdf-page { break-before: page; }
/* Chromium's outline drops the space where a heading wraps ("reach anembedding"), unless the
   line keeps it: spaces in headings are kept (page_section collapses their runs). */
.md-typeset :is(h1, h2, h3, h4, h5, h6) { white-space: pre-wrap; }
.md-typeset :is(.highlight, .md-typeset__scrollwrap, .admonition, details, figure, .tabbed-set) {
  content-visibility: visible !important;
}
.pdf-front .pdf-title { font-size: 2em; font-weight: 700; margin: 0 0 0.3em; }
.pdf-front .pdf-lede { color: var(--md-default-fg-color--light); margin: 0 0 2em; }
.pdf-front .pdf-contents { font-size: 1.25em; font-weight: 700; margin: 1.5em 0 0.5em; }
.md-typeset.pdf-front :is(ol, ol ol) { list-style: none; margin-left: 0; }
.md-typeset.pdf-front ol ol { margin-left: 1.2em; }
"""

#: An attribute that names or points to an element, as the site's HTML writes it (always quoted
#: with ``"``; a quote inside a value or in code text is escaped: see scripts/hooks/notebooks.py).
_ATTR = re.compile(
    r"(?<=\s)(id|for|href|xlink:href|src|aria-labelledby|aria-describedby|aria-controls"
    r'|aria-owns)="([^"]*)"'
)
#: An ``<img>`` tag (a ``>`` inside a quoted value does not end it).
_IMG = r'<img\b(?:[^>"]|"[^"]*")*>'
_DARK_IMG = r'<img\b(?:[^>"]|"[^"]*")*?\ssrc="[^"]*#only-dark"(?:[^>"]|"[^"]*")*>'
#: A dark figure, alone or as the whole content of a link (which goes with it).
_DARK = re.compile(rf"<a\b[^>]*>\s*{_DARK_IMG}\s*</a>|{_DARK_IMG}")
_LAZY = re.compile(rf'(?={_IMG})(<img\b(?:[^>"]|"[^"]*")*?)\sloading="lazy"')
_DETAILS = re.compile(r"<details\b(?![^>]*\sopen\b)")
_HEADING = re.compile(r"(<h([1-6])\b[^>]*>)(.*?)(</h\2>)", re.S)
#: A code block or inline code, and a Pygments token in it (a class of at most three letters and
#: digits, plain text inside: Pygments never nests them).
_CODE = re.compile(r"<code\b[^>]*>.*?</code>", re.S)
_TOKEN = re.compile(r'<span class="([a-z0-9]{1,3})">([^<]*)</span>')
#: The tokens whose colour a printed page keeps: comments, strings, keywords, diff and console
#: markers (Pygments' ``c…``, ``s…``, ``k`` but ``kc``, ``g…``) and highlighted lines.
KEPT_TOKENS = re.compile(r"c\w*|s\w*|k[dnprt]?|g\w|hll")
#: A fixed base that relative URLs are resolved against (never requested).
_BASE = "https://site.invalid/"


@dataclass(frozen=True)
class NavPage:
    """One page of ``nav``: its section's title (``None`` at the top), its nav title, its source
    path under docs/ (``lookup-tables.md``)."""

    section: str | None
    title: str
    src: str


def nav_entries(nav: list | None) -> list[NavPage]:
    """The pages of a ``nav`` setting (``config.nav``), in order, each with its top-level section.
    Links to other sites and untitled entries of a section are skipped or titled by their path."""
    found: list[NavPage] = []

    def walk(node, section: str | None, title: str | None) -> None:
        if isinstance(node, str):
            if not urlsplit(node).scheme:
                found.append(NavPage(section, title or node, node))
        elif isinstance(node, list):
            for item in node:
                walk(item, section, None)
        elif isinstance(node, dict):
            for key, value in node.items():
                inner = section if isinstance(value, str) or section else key
                walk(value, inner, key)

    walk(nav or [], None, None)
    return found


def page_section(content: str, url: str, slug: str, pages: dict[str, str], site_url: str) -> str:
    """One page's HTML (``content``, rendered for the page at ``url``) made a part of the print
    document: ids and references to them prefixed with ``slug``, links to other pages (``pages``:
    page URL -> slug) made links within the document, links to other files of the site made
    absolute on ``site_url``, image sources made paths from the site's root, only light figures
    (eager), code tokens thinned (:func:`lean_code`), every ``<details>`` open, and each
    heading's whitespace collapsed to single spaces."""
    content = _DARK.sub("", content)
    content = lean_code(content)
    content = _LAZY.sub(r"\1", content)
    content = _DETAILS.sub("<details open", content)
    content = _HEADING.sub(lambda h: h[1] + " ".join(h[3].split()) + h[4], content)

    def local(name: str) -> str:
        return f"{slug}--{name}"

    def rewrite(match: re.Match) -> str:
        name, value = match[1], html.unescape(match[2])
        if name in ("id", "for"):
            new = local(value)
        elif name.startswith("aria-"):
            new = " ".join(local(v) for v in value.split())
        elif name == "src":
            new = value if urlsplit(value).scheme else _site_path(url, value)
        else:
            new = _link(url, value, slug, pages, site_url)
        return f'{name}="{html.escape(new, quote=True)}"'

    return _ATTR.sub(rewrite, content)


def lean_code(content: str) -> str:
    """``content`` with the Pygments tokens of its code unwrapped to plain text, except those
    :data:`KEPT_TOKENS` names. Names, operators, punctuation and numbers then print in the code's
    own colour (names already do on screen). Each token is a box for Chromium to lay out and a
    tag of the PDF: the site's 61,000 took half the print time and made the PDF 15 MB instead of 6.
    """

    def token(match: re.Match) -> str:
        return match[0] if KEPT_TOKENS.fullmatch(match[1]) else match[2]

    return _CODE.sub(lambda block: _TOKEN.sub(token, block[0]), content)


def _site_path(url: str, value: str) -> str:
    """``value``, relative to the page at ``url``, as a path from the site's root (fragment
    kept)."""
    return urljoin(_BASE + url, value).removeprefix(_BASE)


def _link(url: str, href: str, slug: str, pages: dict[str, str], site_url: str) -> str:
    """Where a link of the page at ``url`` points in the print document (see
    :func:`page_section`)."""
    parts = urlsplit(href)
    if parts.scheme or parts.netloc:
        return href
    if href.startswith("#"):
        return f"#{slug}--{parts.fragment}" if parts.fragment else f"#{slug}"
    target = urlsplit(urljoin(_BASE + url, href))
    path = target.path.removeprefix("/")
    path = path.removesuffix("index.html") if path.endswith("index.html") else path
    if path in pages:
        other = pages[path]
        return f"#{other}--{target.fragment}" if target.fragment else f"#{other}"
    published = site_url if site_url.endswith("/") else site_url + "/"
    return urljoin(published, urljoin(_BASE + url, href).removeprefix(_BASE))


def has_title(content: str) -> bool:
    """Whether a page's content holds its ``<h1>`` (Material adds one from the page's title when
    it does not, as for notebook pages)."""
    return re.search(r"<h1\b", content) is not None


def print_document(
    sections: list[tuple[NavPage, str]],
    site_name: str,
    description: str,
    stylesheets: list[str],
    scheme: dict[str, str],
    language: str = "en",
) -> str:
    """The print document: ``sections`` (each nav page and its :func:`page_section` HTML, which
    opens with its ``<h1>``) after a front page with the site's name, ``description`` and a table
    of contents grouped by nav section, styled by ``stylesheets`` (paths from the site's root)
    in the palette ``scheme`` (``data-md-color-*`` attributes of ``<body>``), in ``language``
    (``lang`` and the contents' heading: :data:`CONTENTS`)."""
    toc, open_section = [], None
    for page, _ in sections:
        if page.section != open_section:
            if open_section is not None:
                toc.append("</ol></li>")
            if page.section is not None:
                toc.append(f"<li>{html.escape(page.section)}<ol>")
            open_section = page.section
        toc.append(f'<li><a href="#{page_slug(page.src)}">{html.escape(page.title)}</a></li>')
    if open_section is not None:
        toc.append("</ol></li>")
    links = "".join(f'<link rel="stylesheet" href="{html.escape(s)}">' for s in stylesheets)
    body_attrs = "".join(f' data-md-color-{k}="{html.escape(v)}"' for k, v in scheme.items())
    pages = "\n".join(
        f'<article class="md-typeset pdf-page" id="{page_slug(page.src)}">\n{section}\n</article>'
        for page, section in sections
    )
    return (
        f'<!doctype html>\n<html lang="{language}"><head><meta charset="utf-8">'
        f"<title>{html.escape(site_name)}</title>{links}<style>{PRINT_CSS}</style></head>\n"
        f'<body dir="ltr"{body_attrs}>\n'
        f'<div class="md-typeset pdf-front">'
        f'<p class="pdf-title">{html.escape(site_name)}</p>'
        f'<p class="pdf-lede">{html.escape(description)}</p>'
        f'<p class="pdf-contents">{CONTENTS.get(language, CONTENTS["en"])}</p>'
        f"<nav><ol>{''.join(toc)}</ol></nav></div>\n"
        f"{pages}\n</body></html>\n"
    )


#: A PDF date as Skia writes it, ``(D:YYYYMMDDHHmmSS+HH'mm')``, after ``/CreationDate`` or
#: ``/ModDate``.
_PDF_DATE = re.compile(rb"(/(?:CreationDate|ModDate) )\(D:\d{14}[+-]\d\d'\d\d'\)")


def stamp_dates(pdf: bytes, epoch: int) -> bytes:
    """``pdf`` with its creation and modification dates set to ``epoch`` (seconds, UTC).

    A substitution of the same length, so the cross-reference table's offsets stay right; raises
    ``ValueError`` when the PDF has no such date (a new Chromium writing another form).
    """
    when = datetime.fromtimestamp(epoch, UTC).strftime("D:%Y%m%d%H%M%S+00'00'").encode()
    stamped, count = _PDF_DATE.subn(lambda m: m[1] + b"(" + when + b")", pdf)
    if count == 0:
        raise ValueError("the PDF has no /CreationDate (D:…) date as Skia writes it")
    return stamped


#: A name Chromium gives a tagged element (a table's header cell) from Blink's DOM node id, in
#: its ``/ID``, the ``/Headers`` of the cells it heads and the structure tree's ``/IDTree``.
_NODE_ID = re.compile(rb"\(node(\d{8})\)")


def number_node_ids(pdf: bytes) -> bytes:
    """``pdf`` with each DOM node id name (:data:`_NODE_ID`) replaced by its rank among them.

    The ids differ from one run of Chromium to the next (119 in one, 125 in the next), but not
    their order: the ranks are the same in every run. Same order, so the ``/IDTree``'s names
    stay sorted; same length, so the cross-reference table's offsets stay right.
    """
    ids = sorted({int(found) for found in _NODE_ID.findall(pdf)})
    rank = {node: number for number, node in enumerate(ids, 1)}
    return _NODE_ID.sub(lambda m: b"(node%08d)" % rank[int(m[1])], pdf)


def missing_browser() -> list[str]:
    """What printing needs and this machine lacks: Chromium, the ``playwright`` package."""
    missing = []
    # Looked for, not imported: a build that copies the cached PDF never loads Playwright.
    if importlib.util.find_spec("playwright") is None:
        missing.append("the Python package `playwright`")
    if not CHROMIUM.is_file():
        missing.append(f"Chromium at {CHROMIUM}")
    return missing


def chromium_identity() -> str:
    """What identifies the installed Chromium in the cache key without running it
    (``chromium --version`` takes 0.2 s): its launcher's path, size and modification time, which
    a new Chromium package replaces."""
    stat = CHROMIUM.resolve().stat()
    return f"{CHROMIUM.resolve()} {stat.st_size} {stat.st_mtime_ns}"


def cache_key(document: str, resources: dict[str, bytes], chromium: str) -> str:
    """sha256 (hex) of everything the PDF is made from: the document's HTML, each file it loads
    (site path and bytes), the print settings, Chromium and the Python environment."""
    h = hashlib.sha256(f"{CACHE_FORMAT}\n{PDF_OPTIONS!r}\n{chromium}\n".encode())
    h.update(environment_fingerprint().encode() + b"\0" + document.encode() + b"\0")
    for path in sorted(resources):
        h.update(path.encode() + b"\0" + resources[path] + b"\0")
    return h.hexdigest()


def print_pdf(document: str, resources: dict[str, bytes]) -> tuple[bytes, list[str]]:
    """Print ``document`` (served at :data:`ORIGIN` + :data:`DOCUMENT`) in Chromium, answering its
    requests from ``resources`` (site path -> bytes) only. Returns the PDF and the requests it
    made that ``resources`` could not answer (refused). Raises Playwright's errors."""
    from playwright.sync_api import sync_playwright

    refused: list[str] = []
    files = {DOCUMENT: document.encode(), **resources}

    def answer(route) -> None:
        url = route.request.url.split("#")[0]
        path = url.removeprefix(ORIGIN).split("?")[0] if url.startswith(ORIGIN) else None
        if path in files:
            kind = mimetypes.guess_type(path)[0] or "application/octet-stream"
            route.fulfill(status=200, body=files[path], content_type=kind)
        else:
            refused.append(url)
            route.abort("blockedbyclient")

    with sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
        )
        try:
            context = browser.new_context(
                color_scheme="light", service_workers="block", java_script_enabled=False
            )
            context.set_default_timeout(TIMEOUT_MS)
            context.route("**/*", answer)
            tab = context.new_page()
            tab.goto(ORIGIN + DOCUMENT, wait_until="load")
            pdf = tab.pdf(**PDF_OPTIONS)
        finally:
            browser.close()
    return pdf, refused


# --- reading the built site -----------------------------------------------------------------


def page_content(page_html: str) -> str:
    """What a built page holds of its own: from its ``<h1>`` (Material writes one from the
    page's title when the content has none, as for notebook pages) to Material's "Last update"
    line, or to the end of its ``<article>``. Raises ``ValueError`` when it has no ``<h1>``
    inside an ``<article>``."""
    start = page_html.find("<article")
    title = page_html.find("<h1", start)
    if start < 0 or title < 0:
        raise ValueError("no <h1> inside an <article>")
    end = page_html.find('<aside class="md-source-file">', title)
    return page_html[title : end if end >= 0 else page_html.index("</article>", title)]


def stylesheets(site: Path, extra_css: list[str]) -> list[str]:
    """The site's stylesheets, in the order its pages load them: Material's own (main, then
    palette), then ``extra_css``. Raises ``ValueError`` when Material's are missing."""
    theme = sorted(
        (
            p.relative_to(site).as_posix()
            for p in (site / "assets" / "stylesheets").glob("*.min.css")
            if re.fullmatch(r"(main|palette)\.[0-9a-f]+\.min\.css", p.name)
        ),
        key=lambda uri: "palette" in uri,
    )
    if not theme:
        raise ValueError(
            "Material's stylesheets (assets/stylesheets/main.*.min.css) are not in the site"
        )
    return theme + list(extra_css)


def language_settings(config: dict, language: str) -> dict:
    """The i18n plugin's settings of ``language`` in mkdocs.yml's ``config`` (``{}`` if none)."""
    for plugin in config.get("plugins") or []:
        if isinstance(plugin, dict) and "i18n" in plugin:
            for lang in plugin["i18n"].get("languages") or []:
                if lang.get("locale") == language:
                    return lang
    return {}


def assemble(site: Path, config: dict, language: str = "en") -> tuple[str, dict[str, bytes]]:
    """The print document of the built ``site`` and the files it loads (site path -> bytes);
    ``config`` is mkdocs.yml's settings. ``language`` ``"zh"`` prints the Chinese site (under
    ``zh/``): its pages, titles translated as its navigation translates them (a page without a
    Chinese file, built from its English text, marked :data:`ENGLISH_MARK`), its description.
    Raises ``ValueError`` naming a page of ``nav`` that the site lacks, or a file the document
    loads that the site lacks."""
    prefix = "" if language == "en" else f"{language}/"
    settings = language_settings(config, language) if prefix else {}
    names = settings.get("nav_translations") or {}
    entries = nav_entries(config["nav"])
    pages = {prefix + page_url_path(e.src): page_slug(e.src) for e in entries}
    site_url = config.get("site_url") or "/"
    sections = []
    for entry in entries:
        built = html_of(site / prefix, entry.src)
        if not built.is_file():
            raise ValueError(f"nav page {prefix}{entry.src} was not built")
        text = built.read_text(encoding="utf-8")
        content = page_content(text)
        if prefix:
            english = '<div lang="en">' in content
            entry = NavPage(
                names.get(entry.section, entry.section),
                names.get(entry.title, entry.title) + ENGLISH_MARK * english,
                entry.src,
            )
        sections.append(
            (
                entry,
                page_section(
                    content,
                    prefix + page_url_path(entry.src),
                    page_slug(entry.src),
                    pages,
                    site_url,
                ),
            )
        )
    sheets = stylesheets(site, config.get("extra_css") or [])
    # Material prints in its light scheme whatever the reader's (its dark one is for screens
    # only), in the colours of the first palette.
    palette = config.get("theme", {}).get("palette") or [{}]
    first = palette[0] if isinstance(palette, list) else palette
    scheme = {"scheme": "default", **{k: first[k] for k in ("primary", "accent") if k in first}}
    description = settings.get("site_description") or config.get("site_description") or ""
    document = print_document(
        sections, config["site_name"], " ".join(description.split()), sheets, scheme, language
    )
    sources = [
        html.unescape(src[1])
        for tag in re.findall(_IMG, document)
        if (src := re.search(r'\ssrc="([^"]*)"', tag))
    ]
    wanted = set(sheets) | {urlsplit(s).path for s in sources if not urlsplit(s).scheme}
    resources = {}
    for path in sorted(wanted):
        if not (site / path).is_file():
            raise ValueError(f"the print document loads {path}, which the site lacks")
        resources[path] = (site / path).read_bytes()
    return document, resources


#: The cached PDFs this process has printed or copied: the others are deleted.
_printed: set[Path] = set()


def make_pdf(site: Path, root: Path = ROOT, language: str = "en") -> str:
    """Print the built ``site`` of the project at ``root`` into ``site/embedding-executed.pdf``
    (from ``.cache/pdf/`` when the same document was printed before); return a line saying how.
    With ``language`` ``"zh"``, the Chinese site into ``site/zh/embedding-executed.pdf``.
    Raises ``ValueError`` as :func:`assemble` does, or when Chromium asked for a file the
    document does not name, and Playwright's errors when printing fails."""
    config = yaml.safe_load((root / "mkdocs.yml").read_text())
    document, resources = assemble(site, config, language)
    name = PDF_NAME if language == "en" else f"{language}/{PDF_NAME}"
    target = root / CACHE_DIR / f"{cache_key(document, resources, chromium_identity())}.pdf"
    said = f"{name}: the same document was printed before (.cache/pdf/)"
    if not target.is_file():
        start = time.monotonic()
        pdf, refused = print_pdf(document, resources)
        if refused:
            raise ValueError(
                "the print document requested files it is not made from: " + ", ".join(refused)
            )
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_name(f".{target.stem}.{os.getpid()}.tmp")
        tmp.write_bytes(number_node_ids(stamp_dates(pdf, 0)))
        os.replace(tmp, target)  # a concurrent run never reads half a file
        said = f"{name} printed in {time.monotonic() - start:.1f} s"
    epoch = os.environ.get("SOURCE_DATE_EPOCH") or last_commit_time(root) or "0"
    pdf = stamp_dates(target.read_bytes(), int(epoch))
    (site / name).write_bytes(pdf)
    _printed.add(target)
    for path in target.parent.glob("*.pdf"):
        if path not in _printed:
            path.unlink(missing_ok=True)
    return f"{said} ({len(pdf) // 1024} KiB)"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--site", type=Path, default=ROOT / "site", help="the built site (default: site/)"
    )
    args = parser.parse_args(argv)
    missing = missing_browser()
    if missing:
        print(f"{PDF_NAME} not made: it needs {' and '.join(missing)}")
        return 1
    # The Chinese site, when the build made one (mkdocs.yml's i18n plugin), gets its own PDF.
    languages = ["en"] + ["zh"] * (args.site / "zh" / "index.html").is_file()
    for language in languages:
        try:
            print(make_pdf(args.site, language=language))
        except Exception as error:  # noqa: BLE001 - the exit status says it failed
            print(f"{PDF_NAME} ({language}) not made: {type(error).__name__}: {error}")
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
