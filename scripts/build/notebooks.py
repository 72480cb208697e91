"""Build hook: notebook pages (mkdocs-jupyter) made as light as an article, and their links checked.

mkdocs-jupyter 0.26 renders a notebook with nbconvert's JupyterLab template, which inlines
JupyterLab's whole stylesheet, a theme and Pygments rules twice, a copy-to-clipboard script with a
hidden duplicate of every code cell, a MathJax loader with an empty ``src`` and a Mermaid loader
that imports from a CDN when a page holds a diagram. None of it is configurable away, and all of
it is weight a phone downloads and styles for nothing: the site's own styles already cover code
cells and outputs.

For every page whose source is an ``.ipynb`` this hook:

* removes those ``<style>`` and ``<script>`` elements and the clipboard widgets, and raises
  ``PluginError`` on any other ``<script>`` (a notebook output that needs JavaScript would then
  silently break: better to decide about it);
* turns each code cell into the markup of a Material code block (``div.highlight > pre > code``),
  so it gets the theme's highlighting colours in both palettes and Material's copy button; text
  outputs get the same markup plus the class ``nb-output`` (styled in ``extra.css``);
* turns nbconvert's heading anchors into Material's ``headerlink`` permalinks, and drops the
  ``tabindex`` that makes every cell a keyboard stop;
* puts download links in the line under the title (``page_facts.py``): the notebook itself
  (copied next to the page by the plugin's ``include_source``) and every file in the ``data/``
  folder beside it;
* takes the page's meta description from the notebook's ``metadata.description``, if set.

MkDocs' own link validation only sees Markdown pages: ``tests/test_site.py`` checks every
relative link of every built page, notebook pages and their download links included
(``tests/built_pages.py``).
"""

from __future__ import annotations

import functools
import html as html_module
import json
import posixpath
from pathlib import Path

from bs4 import BeautifulSoup
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import Files
from mkdocs.structure.pages import Page

from scripts.build.page_facts import add_fact


def _is_notebook(page: Page) -> bool:
    return page.file.src_uri.endswith(".ipynb")


def _is_known_script(script) -> bool:
    """True for the scripts that mkdocs-jupyter's template adds to every notebook."""
    text = script.get_text()
    src = script.get("src")
    return (
        src == ""  # MathJax loader with an empty custom_mathjax_url
        or (src is not None and "mathjax" in src.lower())
        or script.get("type") == "text/x-mathjax-config"
        or (script.get("type") == "module" and "mermaid" in text)
        or "clipboard-copy" in text  # the clipboard element and its listener
    )


def _as_code_block(soup: BeautifulSoup, pre, classes: list[str]) -> None:
    """Wrap the children of ``pre`` in ``<code>`` and give its parent Material's block classes."""
    code = soup.new_tag("code")
    for child in list(pre.contents):
        code.append(child.extract())
    pre.append(code)
    pre.parent["class"] = [*classes, "highlight"]


def restyle(html: str, src_uri: str, toc_ids: tuple[str, ...] = ()) -> str:
    """Return the notebook page body ``html`` without its inlined assets, in Material's markup.

    ``src_uri`` (``notebooks/x.ipynb``) names the notebook in errors. ``toc_ids``, the ids the
    page's table of contents links to in order, become the headings' ids when there are as many
    (see :func:`_restyled`). Raises ``PluginError`` if the page holds a script that
    mkdocs-jupyter's template does not add.
    """
    return str(_restyled(html, src_uri, toc_ids))


def _restyled(html: str, src_uri: str, toc_ids: tuple[str, ...] = ()) -> BeautifulSoup:
    """:func:`restyle`, as a parsed tree."""
    soup = BeautifulSoup(html, "html.parser")
    for style in soup.find_all("style"):
        style.decompose()
    for script in soup.find_all("script"):
        if not _is_known_script(script):
            raise PluginError(
                f"notebook {src_uri}: an output holds a <script> ({str(script)[:80]}...); "
                "this site ships no notebook JavaScript"
            )
        script.decompose()
    for widget in soup.select(".zeroclipboard-container, .clipboard-copy-txt"):
        widget.decompose()
    for focusable in soup.select(".jp-Cell-inputWrapper, .jp-OutputArea-output"):
        focusable.attrs.pop("tabindex", None)  # JupyterLab's focus: a tab stop per cell
    for pre in soup.select("div.highlight-ipynb > pre"):
        lang = [c[3:] for c in pre.parent["class"] if c.startswith("hl-")] or ["python"]
        _as_code_block(soup, pre, [f"language-{lang[0]}"])
    for pre in soup.select("div.jp-RenderedText > pre"):
        _as_code_block(soup, pre, ["language-text", "nb-output", "no-copy"])
    for anchor in soup.select("a.anchor-link"):
        anchor["class"] = ["headerlink"]
        anchor["title"] = "Permanent link"
    headings = soup.find_all(["h1", "h2", "h3", "h4", "h5", "h6"], id=True)
    if toc_ids and len(headings) == len(toc_ids):
        # mkdocs-jupyter makes the table of contents from a Markdown conversion, whose ids leave
        # inline code out ("3. `[UNK]` on …" -> "3-on-…"); nbconvert's headings keep it. Each
        # heading takes the id its entry in the table of contents links to.
        for heading, new in zip(headings, toc_ids, strict=True):
            for link in heading.select("a.headerlink"):
                link["href"] = f"#{new}"
            heading["id"] = new
    return soup


def download_fact(src_uri: str, data: tuple[tuple[str, str], ...]) -> str:
    """The links to the notebook and its data files, for the line under the page's title (an
    HTML fragment, :func:`scripts.build.page_facts.add_fact`).

    ``src_uri`` is the notebook's (``notebooks/x.ipynb``); ``data`` is one ``(href, label)`` per
    data file, in order.
    """
    notebook = html_module.escape(posixpath.basename(src_uri))
    text = f'Run it yourself: <a download="" href="{notebook}">{notebook}</a>'
    if data:
        links = ", ".join(f'<a download="" href="{html_module.escape(href)}">'
                          f"{html_module.escape(label)}</a>" for href, label in data)
        text += f" and its data, {links} (keep data/ beside the notebook)"
    return f'<span class="nb-download">{text}</span>'


@functools.lru_cache(maxsize=16)
def notebook_page(html: str, src_uri: str, data: tuple[tuple[str, str], ...],
                  toc_ids: tuple[str, ...] = ()) -> str:
    """The notebook page body ``html`` restyled (:func:`restyle`) with its download links (see
    :func:`download_fact` for ``src_uri`` and ``data``).

    Remembered for the process: ``mkdocs serve`` rebuilds every page after any edit, and the
    executed notebook's HTML comes unchanged from mkdocs-jupyter's cache; parsing it again was
    most of a rebuild's time spent on notebook pages. Raises ``PluginError`` as those do.
    """
    try:
        return add_fact(str(_restyled(html, src_uri, toc_ids)), download_fact(src_uri, data),
                        first=True)
    except ValueError as error:
        raise PluginError(f"notebook {src_uri}: {error}") from error


def on_page_content(html: str, *, page: Page, config: MkDocsConfig, files: Files) -> str:
    """Restyle a notebook page and add its download links (MkDocs event).

    The data files are the site's files under a ``data/`` folder beside the notebook.
    """
    if not _is_notebook(page):
        return html
    folder = posixpath.dirname(page.file.src_uri)
    data = tuple(
        (f.url_relative_to(page.file), posixpath.relpath(f.src_uri, folder))
        for f in sorted(files, key=lambda f: f.src_uri)
        if f.src_uri.startswith(posixpath.join(folder, "data") + "/")
    )
    metadata = json.loads(Path(page.file.abs_src_path).read_text(encoding="utf-8"))["metadata"]
    if metadata.get("description"):
        page.meta["description"] = metadata["description"]
    return notebook_page(html, page.file.src_uri, data, toc_ids(page.toc))


def toc_ids(toc) -> tuple[str, ...]:
    """The ids a page's table of contents links to, in document order."""
    found: list[str] = []

    def walk(items) -> None:
        for item in items:
            found.append(item.id)
            walk(item.children)

    walk(toc)
    return tuple(found)
