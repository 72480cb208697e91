"""The built site's HTML pages, parsed once per test process, and their links checked.

Several test files read the same pages of the session's build (``tests/conftest.py``); each
parse of a long page takes a noticeable fraction of a second, and the tests asked for the same
pages dozens of times. The build does not change during a run, so a page is parsed on first use
and the tree is shared. Callers read it and never modify it.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from html import unescape
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

from bs4 import BeautifulSoup


@functools.cache
def _parse(path: Path, mtime_ns: int) -> BeautifulSoup:
    return BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")


def parsed(path: Path) -> BeautifulSoup:
    """The HTML file ``path`` parsed with Python's ``html.parser``, shared: read-only.

    Parsed again if the file changed since (its modification time). Raises ``OSError`` when the
    file cannot be read.
    """
    return _parse(path, path.stat().st_mtime_ns)


@dataclass
class Abbr:
    """One ``<abbr>`` of a page: its ``title``, its text, and whether it sits inside ``<code>`` or
    ``<pre>`` and inside the page's ``<article>``."""

    title: str | None
    text: str = ""
    in_code: bool = False
    in_article: bool = False


@dataclass
class Scan:
    """What one pass of Python's ``html.parser`` over a page collects, without building a tree:
    every start tag with its attributes, the text of each ``<style>`` element, every ``<abbr>``."""

    tags: list[tuple[str, dict[str, str | None]]] = field(default_factory=list)
    styles: list[str] = field(default_factory=list)
    abbrs: list[Abbr] = field(default_factory=list)


class _Scanner(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.scan, self.open = Scan(), {"code": 0, "pre": 0, "article": 0, "style": 0, "abbr": 0}

    def handle_starttag(self, tag, attrs):
        self.scan.tags.append((tag, dict(attrs)))
        if tag == "abbr":
            self.scan.abbrs.append(
                Abbr(
                    dict(attrs).get("title"),
                    in_code=bool(self.open["code"] or self.open["pre"]),
                    in_article=bool(self.open["article"]),
                )
            )
        if tag == "style":
            self.scan.styles.append("")
        if tag in self.open:
            self.open[tag] += 1

    def handle_endtag(self, tag):
        if self.open.get(tag):
            self.open[tag] -= 1

    def handle_data(self, data):
        if self.open["abbr"]:
            self.scan.abbrs[-1].text += data
        if self.open["style"]:
            self.scan.styles[-1] += data


def scan_html(html: str) -> Scan:
    """One event-driven pass of ``html.parser`` over ``html`` (see :class:`Scan`): several times
    faster than :func:`parsed`'s tree, for checks that only need tags, styles and tooltips."""
    scanner = _Scanner()
    scanner.feed(html)
    scanner.close()
    return scanner.scan


@functools.cache
def _scan(path: Path, mtime_ns: int) -> Scan:
    return scan_html(path.read_text(encoding="utf-8"))


def scanned(path: Path) -> Scan:
    """:func:`scan_html` of the HTML file ``path``, shared: read-only; scanned again if the file
    changed since. Raises ``OSError`` when the file cannot be read."""
    return _scan(path, path.stat().st_mtime_ns)


#: An ``id`` attribute as the site's HTML writes it (MkDocs, Markdown and Material's templates
#: always quote attribute values with ``"``; a quote inside code text is escaped as ``&quot;``).
_ID = re.compile(r'\sid="([^"]*)"')


def _ids(path: Path, cache: dict[Path, set[str]]) -> set[str]:
    """The ``id`` values of the built page ``path`` (a pattern, not a parse: a whole page's parse
    took longer than the rest of the check)."""
    if path not in cache:
        cache[path] = set(_ID.findall(path.read_text(encoding="utf-8")))
    return cache[path]


#: A link or source attribute, quoted as in :data:`_ID`.
_URL_ATTR = {name: re.compile(rf'\s{name}="([^"]*)"') for name in ("href", "src")}


def broken_links(site_dir: Path, page_dest: str, whole_page: bool = False) -> list[str]:
    """Relative links and sources of the built page ``page_dest`` whose target is missing.

    ``page_dest`` is the page's path in ``site_dir`` (``notebooks/x/index.html``). Only the
    ``<article>`` is checked (the whole page when it has none, or with ``whole_page``: the
    navigation and table of contents too): its ``href`` values, then its ``src`` values, read
    with patterns (see :data:`_ID`). Returns one ``"url: why"`` string per
    broken link. Links with a scheme (``https:``) are not checked; absolute paths (``/x/``) are
    reported.
    """
    page_path = site_dir / page_dest
    text = page_path.read_text(encoding="utf-8")
    start, end = text.find("<article"), text.rfind("</article>")
    article = text[start:end] if 0 <= start < end and not whole_page else text
    problems: list[str] = []
    cache: dict[Path, set[str]] = {}
    urls = [unescape(u) for name in ("href", "src") for u in _URL_ATTR[name].findall(article)]
    for url in urls:
        parts = urlsplit(url)
        if parts.scheme or parts.netloc:
            continue
        if url.startswith("/"):
            problems.append(f"{url}: absolute path (breaks under a site_url with a path)")
            continue
        target = (page_path.parent / unquote(parts.path)).resolve() if parts.path else page_path
        if target.is_dir():
            target = target / "index.html"
        if not target.is_file():
            problems.append(f"{url}: no such file in the site")
        elif parts.fragment and target.suffix == ".html":
            if parts.fragment not in _ids(target, cache):
                problems.append(f"{url}: no element with id {parts.fragment!r}")
    return problems
