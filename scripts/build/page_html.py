"""Build step: one pass over a page's HTML rewrites each element of :data:`ELEMENTS` by its
kind's handler (:data:`HANDLERS`). CONTRIBUTING.md ("How the build works") says why."""

from __future__ import annotations

import functools
import html
import posixpath
import re
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace

from mkdocs.exceptions import PluginError

from scripts import root_of
from scripts.build import zh

#: The glossary file, relative to the project root (also mkdocs.yml's ``auto_append``).
GLOSSARY = "snippets/glossary.md"
FIGURE_TITLE = "Open the figure full size"
TAG = re.compile(r"<[^>]+>")
#: Each kind of element, as Python-Markdown, pymdownx.highlight and the notebook step write it.
ELEMENTS = re.compile("|".join(f"(?P<{kind}>{pattern})" for kind, pattern in {
    # a code block: its <div>, its title bar if it has one, its <pre> (code escapes "</pre>")
    "block": r'(?P<div><div class="(?:[^"]*\s)?highlight(?:\s[^"]*)?")(?P<attrs>[^>]*)>'
             r'(?P<title>\s*(?:<span class="filename">[^<]*</span>\s*)?)(?P<pre><pre\b.*?</pre>)',
    "figure": r'<img\b[^>]*?\ssrc="(?P<svg>[^"#]+\.svg)#only-(?P<palette>light|dark)"[^>]*>',
    "abbr": r'<abbr title="[^"]*">(?P<inner>.*?)</abbr>',
    # an inline code without attributes, not a code block's
    "code": r"(?<!<pre>)<code>(?P<term>[^<]*)</code>",
}.items()), re.S)
#: A code block's title that starts with a file under snippets/.
SNIPPET = re.compile(r'<span class="filename">(?P<path>snippets/[\w./-]+)')
#: An SVG's root element, and its ``width`` or ``height`` with their unit (matplotlib writes pt).
SVG_ROOT = re.compile(rb"<svg\b[^>]*>")
SVG_LENGTH = re.compile(rb'\s(?P<name>width|height)="(?P<value>[\d.]+)(?P<unit>pt|px|)"')
#: CSS pixels per unit (CSS Values 4: 1pt is 1/72 in, 1px is 1/96 in; no unit is px in SVG).
PX_PER = {b"pt": 96 / 72, b"px": 1.0, b"": 1.0}


def code_block(m: re.Match, page: SimpleNamespace) -> str:
    """A code block with its line count (``--code-lines``), out of search, its ``<code>``
    focusable, its snippet title linked. Raises ``PluginError`` for a title naming no file."""
    lines = html.unescape(TAG.sub("", m["pre"])).removesuffix("\n").count("\n") + 1
    title = SNIPPET.sub(lambda t: snippet_link(t["path"], page.config), m["title"])
    pre = m["pre"].replace("<code", '<code tabindex="0"', 1)
    return f'{m["div"]} data-search-exclude{m["attrs"]} style="--code-lines: {lines}">{title}{pre}'


def snippet_link(path: str, config) -> str:
    """The opening of a title whose ``path`` links to the file in the repository, on the branch
    ``edit_uri`` names (``main`` when it names none)."""
    if not (root_of(config) / html.unescape(path)).is_file():
        raise PluginError(f"a code block's title names {path}, which does not exist")
    branch = re.match(r"/?(?:edit|blob)/([^/]+)", config.edit_uri or "")
    href = f"{config.repo_url.rstrip('/')}/blob/{branch[1] if branch else 'main'}/{path}"
    return f'<span class="filename"><a href="{html.escape(href)}">{path}</a>'


def figure(m: re.Match, page: SimpleNamespace) -> str:
    """A figure's image inside a link to its SVG, with the SVG's own ``width`` and ``height`` (CSS
    pixels) when ``page.figure_size`` gives them, so the browser reserves its box before the
    image arrives; the light image of a page's first figure, when no ``<h2>`` comes before it,
    eager and of high priority instead of lazy."""
    img = m[0]
    if page.figure_size is not None:
        width, height = page.figure_size(html.unescape(m["svg"]))
        img = img.replace("<img", f'<img width="{width}" height="{height}"', 1)
    if page.first_figure and m["palette"] == "light":
        page.first_figure = False
        if m.string.find("<h2", 0, m.start()) < 0:
            img = img.replace(' loading="lazy"', ' fetchpriority="high"', 1)
    return f'<a class="figure-full" href="{m["svg"]}" title="{FIGURE_TITLE}">{img}</a>'


def abbr(m: re.Match, page: SimpleNamespace) -> str:
    """A glossary ``<abbr>`` kept on its term's first use on the page, unwrapped after."""
    term = TAG.sub("", m["inner"])
    if term in page.seen:
        return m["inner"]
    page.seen.add(term)
    return m[0]


def code(m: re.Match, page: SimpleNamespace) -> str:
    """An inline code whose whole text is a glossary term, in that term's ``<abbr>`` on the
    term's first use on the page; any other as it is."""
    definition = page.terms.get(html.unescape(m["term"]))
    if definition is None or m["term"] in page.seen:
        return m[0]
    page.seen.add(m["term"])
    return f'<abbr title="{html.escape(definition)}">{m[0]}</abbr>'


HANDLERS = {"block": code_block, "figure": figure, "abbr": abbr, "code": code}


def rewrite(page_html: str, config, terms: dict[str, str],
            figure_size: Callable[[str], tuple[int, int]] | None = None) -> str:
    """``page_html`` with each element of :data:`ELEMENTS` rewritten by its handler, in one
    pass; ``terms`` are the glossary's; ``figure_size`` maps a figure's ``src`` to its SVG's
    size (:func:`figure_sizes`; None adds no size). Raises ``PluginError`` as
    :func:`code_block` and ``figure_size`` do."""
    # what the handlers share: the terms met so far, whether the first light figure is ahead
    page = SimpleNamespace(config=config, terms=terms, seen=set(), first_figure=True,
                           figure_size=figure_size)
    return ELEMENTS.sub(lambda m: HANDLERS[m.lastgroup](m, page), page_html)


def svg_size(svg: bytes) -> tuple[int, int]:
    """The ``width`` and ``height`` of an SVG document's root element in whole CSS pixels
    (rounded; an ``<img>`` of it shows at that size when nothing scales it). Raises
    ``ValueError`` when either is missing or in a unit other than pt, px or none."""
    root = SVG_ROOT.search(svg)
    lengths = {m["name"]: float(m["value"]) * PX_PER[m["unit"]]
               for m in SVG_LENGTH.finditer(root[0] if root else b"")}
    if set(lengths) != {b"width", b"height"}:
        raise ValueError("its <svg> has no width and height in pt or px")
    return round(lengths[b"width"]), round(lengths[b"height"])


def figure_sizes(page, files) -> Callable[[str], tuple[int, int]]:
    """The size (:func:`svg_size`) of the SVG that a ``src`` on ``page`` (a MkDocs page, whose
    ``url`` the ``src`` is relative to) names, read from the site's file (``files``, MkDocs'
    collection: the execute stage adds the figures it drew there). Raises ``PluginError``
    naming the page and the ``src`` when no file of the site has that URL or its size is
    unreadable."""
    base = posixpath.dirname(page.url)

    @functools.cache
    def by_url() -> dict:
        return {file.url: file for file in files}

    def size(src: str) -> tuple[int, int]:
        url = posixpath.normpath(posixpath.join(base, src))
        file = by_url().get(url)
        if file is None:
            raise PluginError(f"{page.file.src_uri}: figure {src} is no file of the site")
        try:
            return svg_size(file.content_bytes)
        except ValueError as error:
            raise PluginError(f"{page.file.src_uri}: figure {src}: {error}") from None
    return size


def glossary_terms(path: Path) -> dict[str, str]:
    """Term -> definition of an abbreviations file (``*[term]: definition`` lines), read once per
    version of the file (``mkdocs serve`` reads an edit). Raises ``PluginError`` naming a line of
    any other form or a term defined twice."""
    return _glossary(path, path.stat().st_mtime_ns)


@functools.lru_cache(maxsize=8)
def _glossary(path: Path, mtime_ns: int) -> dict[str, str]:
    terms: dict[str, str] = {}
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        m = re.fullmatch(r"\*\[(?P<term>[^\]]+)\]: (?P<definition>.+)", line)
        if not m or m["term"] in terms:
            raise PluginError(f"{path.name}:{n}: not a new term's definition: {line!r}")
        terms[m["term"]] = m["definition"]
    return terms


def on_page_content(page_html: str, *, page, config, files) -> str:
    """Rewrite the page's elements (MkDocs event), with the glossary's terms, a Chinese page's
    from the Chinese glossary (:func:`scripts.build.zh.glossary_terms_for`)."""
    terms = zh.glossary_terms_for(page, config)
    if terms is None:
        terms = glossary_terms(root_of(config) / GLOSSARY)
    return rewrite(page_html, config, terms, figure_sizes(page, files))
