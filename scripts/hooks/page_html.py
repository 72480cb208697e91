"""Build step: one pass over a page's HTML for the steps that rewrite elements in place
(CONTRIBUTING.md, "How the build works", says what each does and why).

Each kind of element is named by one pattern and rewritten by one handler (:data:`HANDLERS`):

* a code block: its line count, keyboard focus and search exclusion, its snippet title linked to
  the file in the repository (:func:`code_block`, :func:`snippet_link`);
* a figure's image: sized as its SVG, in a link to it, the first one eager (:func:`figure`);
* an ``<abbr>`` of the glossary and an inline code that is a glossary term: a tooltip on a term's
  first use on the page only (:func:`abbr`, :func:`code`), with the glossary of the page's
  language (:func:`scripts.hooks.glossary.terms_for`);
* an exercise's solution, the footnotes (a page's sources) and the "Where next" section: out of
  search (the ``unsearched`` pattern says why).

The patterns are joined into one regular expression, :data:`ELEMENTS`, which reads the page once,
left to right; each match goes to its kind's handler by the name of the alternative that matched
(one parser, one dispatch); the handlers share a :class:`PageState`.
"""

import html
import posixpath
import re
from dataclasses import dataclass, field

from mkdocs.exceptions import PluginError

from scripts import root_of
from scripts.hooks.glossary import terms_for

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
            # Out of search (on a heading, its whole section): an exercise's solution, written
            # ``??? success`` (CONTRIBUTING.md), so a search finds the exercise, not the answer;
            # the footnotes, whose sources the citing text names; "Where next", links to pages
            # found under their own titles. About a tenth of the index, which every page's first
            # load fetches (tests/test_first_load.py).
            "unsearched": r'<details class="success"|<div class="footnote"'
            r'|<h2 id="where-next"',
        }.items()
    ),
    re.S,
)
#: A code block's title that starts with a file under snippets/.
SNIPPET = re.compile(r'<span class="filename">(?P<path>snippets/[\w./-]+)')


@dataclass
class PageState:
    """What the handlers of one page's pass share: the site's ``config``, the glossary's
    ``terms`` (term -> definition), the site's ``files`` (MkDocs' ``Files``, to size figures;
    ``None``: not sized), the page's URL folder and source path (``folder``, ``src_uri``), the
    terms already given a tooltip (``seen``) and whether the first light figure is still ahead
    (``first_figure``)."""

    config: object
    terms: dict[str, str]
    files: object = None
    folder: str = ""
    src_uri: str = ""
    seen: set[str] = field(default_factory=set)
    first_figure: bool = True


def code_block(m: re.Match, state: PageState) -> str:
    """A code block with its line count (``--code-lines``), out of search, its ``<code>``
    focusable, its snippet title linked. Raises ``PluginError`` for a title naming no file."""
    lines = html.unescape(TAG.sub("", m["pre"])).removesuffix("\n").count("\n") + 1
    title = SNIPPET.sub(lambda t: snippet_link(t["path"], state.config), m["title"])
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


def figure(m: re.Match, state: PageState) -> str:
    """A figure's image, sized as its SVG when the site's ``state.files`` are given, in a link to
    it; the light image of the first figure above any ``<h2>``, eager and of high priority instead
    of lazy. Raises ``PluginError`` naming the page for a figure the site lacks or cannot size."""
    img, src = m[0], html.unescape(m["svg"])
    if state.files is not None:  # the src is relative to the page's URL; a figure's URL is its path
        file = state.files.get_file_from_path(posixpath.normpath(posixpath.join(state.folder, src)))
        width, height = svg_size(file.content_bytes if file else b"", f"{state.src_uri}: {src}")
        img = img.replace("<img", f'<img width="{width}" height="{height}"', 1)
    if state.first_figure and m["palette"] == "light":
        state.first_figure = False
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


def abbr(m: re.Match, state: PageState) -> str:
    """A glossary ``<abbr>`` kept on its term's first use on the page, unwrapped after."""
    term = TAG.sub("", m["inner"])
    if term in state.seen:
        return m["inner"]
    state.seen.add(term)
    return m[0]


def code(m: re.Match, state: PageState) -> str:
    """An inline code whose whole text is a glossary term, in that term's ``<abbr>`` on the
    term's first use on the page; any other as it is."""
    definition = state.terms.get(html.unescape(m["term"]))
    if definition is None or m["term"] in state.seen:
        return m[0]
    state.seen.add(m["term"])
    return f'<abbr title="{html.escape(definition)}">{m[0]}</abbr>'


HANDLERS = {
    "block": code_block,
    "figure": figure,
    "abbr": abbr,
    "code": code,
    "unsearched": lambda m, state: m[0] + " data-search-exclude",
}


def rewrite(page_html: str, config, terms: dict[str, str], page=None, files=None) -> str:
    """``page_html``'s :data:`ELEMENTS` rewritten by their handlers in one pass, with the glossary's
    ``terms``; figures sized from MkDocs' ``files`` when they are given with their ``page`` (a
    MkDocs page: its URL locates a figure's file)."""
    state = PageState(config, terms, files)
    if page is not None:
        state.folder = posixpath.dirname(page.url)
        state.src_uri = page.file.src_uri
    return ELEMENTS.sub(lambda m: HANDLERS[m.lastgroup](m, state), page_html)


def on_page_content(page_html: str, *, page, config, files) -> str:
    """Rewrite the page's elements (MkDocs event), with the glossary of the page's language
    (:func:`scripts.hooks.glossary.terms_for`)."""
    return rewrite(page_html, config, terms_for(page, config), page, files)
