"""Build step: one pass over a page's HTML rewrites each element of :data:`ELEMENTS` by its
kind's handler (:data:`HANDLERS`). CONTRIBUTING.md ("How the build works") says why."""

from __future__ import annotations

import functools
import html
import posixpath
import re
from pathlib import Path
from types import SimpleNamespace

from mkdocs.exceptions import PluginError

from scripts import root_of
from scripts.hooks import zh

#: The glossary file, relative to the project root (also mkdocs.yml's ``auto_append``).
GLOSSARY = "snippets/glossary.md"
FIGURE_TITLE = "Open the figure full size"
TAG = re.compile(r"<[^>]+>")
#: Each kind of element, as Python-Markdown, pymdownx.highlight and the notebook step write it.
ELEMENTS = re.compile(
    "|".join(
        f"(?P<{kind}>{pattern})"
        for kind, pattern in {
            # a code block: its <div>, its title bar if any, its <pre> (code escapes "</pre>")
            "block": r'(?P<div><div class="(?:[^"]*\s)?highlight(?:\s[^"]*)?")'
            r"(?P<attrs>[^>]*)>"
            r'(?P<title>\s*(?:<span class="filename">[^<]*</span>\s*)?)(?P<pre><pre\b.*?</pre>)',
            "figure": r'<img\b[^>]*?\ssrc="(?P<svg>[^"#]+\.svg)'
            r'#only-(?P<palette>light|dark)"[^>]*>',
            "abbr": r'<abbr title="[^"]*">(?P<inner>.*?)</abbr>',
            # an inline code without attributes, not a code block's
            "code": r"(?<!<pre>)<code>(?P<term>[^<]*)</code>",
        }.items()
    ),
    re.S,
)
#: A code block's title that starts with a file under snippets/.
SNIPPET = re.compile(r'<span class="filename">(?P<path>snippets/[\w./-]+)')


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
    """A figure's image, sized as its SVG when the site's ``page.files`` are given, in a link to
    it; the light image of the first figure above any ``<h2>``, eager and of high priority instead
    of lazy. Raises ``PluginError`` naming the page for a figure the site lacks or cannot size."""
    img, src = m[0], html.unescape(m["svg"])
    if page.files is not None:  # the src is relative to the page's URL; a figure's URL is its path
        file = page.files.get_file_from_path(posixpath.normpath(posixpath.join(page.folder, src)))
        width, height = svg_size(file.content_bytes if file else b"", f"{page.src_uri}: {src}")
        img = img.replace("<img", f'<img width="{width}" height="{height}"', 1)
    if page.first_figure and m["palette"] == "light":
        page.first_figure = False
        if m.string.find("<h2", 0, m.start()) < 0:
            img = img.replace(' loading="lazy"', ' fetchpriority="high"', 1)
    return f'<a class="figure-full" href="{m["svg"]}" title="{FIGURE_TITLE}">{img}</a>'


def svg_size(svg: bytes, name: str) -> tuple[int, int]:
    """An SVG's root ``width`` and ``height`` in pt (as matplotlib writes them) in whole CSS pixels,
    1pt being 4/3 px (CSS Values 4). Raises ``PluginError`` naming ``name`` without them."""
    found = re.search(rb'<svg\b[^>]*?\swidth="([\d.]+)pt"\s+height="([\d.]+)pt"', svg)
    if found is None:
        raise PluginError(f"{name}: no figure of the site, or its <svg> has no size in pt")
    return round(float(found[1]) * 4 / 3), round(float(found[2]) * 4 / 3)


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


def rewrite(page_html: str, config, terms: dict[str, str], of=None, files=None) -> str:
    """``page_html``'s :data:`ELEMENTS` rewritten by their handlers in one pass, with the glossary's
    ``terms``; figures sized from MkDocs' ``files`` when given with their page, ``of``."""
    # what the handlers share: the terms met so far, whether the first light figure is ahead
    page = SimpleNamespace(
        config=config,
        terms=terms,
        seen=set(),
        first_figure=True,
        files=files,
        folder=posixpath.dirname(of.url) if of else "",
        src_uri=of.file.src_uri if of else "",
    )
    return ELEMENTS.sub(lambda m: HANDLERS[m.lastgroup](m, page), page_html)


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
    from the Chinese glossary (:func:`scripts.hooks.zh.glossary_terms_for`)."""
    terms = zh.glossary_terms_for(page, config)
    if terms is None:
        terms = glossary_terms(root_of(config) / GLOSSARY)
    return rewrite(page_html, config, terms, page, files)
