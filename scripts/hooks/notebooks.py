"""Build steps: notebook pages (mkdocs-jupyter's) made as light as an article.

mkdocs-jupyter renders a notebook with nbconvert's JupyterLab template, which inlines JupyterLab's
whole stylesheet, a theme and Pygments rules twice, a copy-to-clipboard script with a hidden
duplicate of every code cell, a MathJax loader with an empty ``src`` and a Mermaid loader that
imports from a CDN when a page holds a diagram. None of it is configurable away, and all of it is
weight a phone downloads and styles for nothing: the site's own styles already cover code cells
and outputs. For every page whose source is an ``.ipynb``, :func:`on_page_content`:

* removes those ``<style>`` and ``<script>`` elements and the clipboard widgets, and raises
  ``PluginError`` on any other ``<script>`` (a notebook output that needs JavaScript would then
  silently break: better to decide about it);
* turns each code cell into the markup of a Material code block (``div.highlight > pre > code``),
  so it gets the theme's highlighting colours in both palettes and Material's copy button; text
  outputs get the same markup plus the class ``nb-output`` (styled in ``extra.css``);
* turns nbconvert's heading anchors into Material's ``headerlink`` permalinks, with the ids the
  table of contents links to, and drops the ``tabindex`` that makes every cell a keyboard stop;
* puts the download (the committed notebook, and every file of the ``data/`` folder beside it) on
  the page as the first of its facts (:mod:`scripts.hooks.page_facts` writes the line);
* takes the page's meta description from the notebook's ``metadata.description``, if set.

The restyled HTML is kept in the build's cache (``.cache/pages/``), and each language's build
renders the same page. :class:`NotebookPage` is the ``File`` of an executed notebook, which the
execute stage makes; in the Chinese build, :func:`on_files` moves those pages and their downloads
under ``zh/``.
"""

from __future__ import annotations

import functools
import json
import posixpath
from pathlib import Path

from bs4 import BeautifulSoup
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File

from scripts import root_of
from scripts.hooks import cache
from scripts.hooks.markdown_blocks import toc_entries
from scripts.hooks.page_facts import set_fact


class NotebookPage(File):
    """An executed notebook as a page (mkdocs-jupyter renders any page whose source is .ipynb):
    the execute stage (:mod:`scripts.hooks.execute_stage`) makes one of each notebook."""

    def is_documentation_page(self) -> bool:
        return True


@functools.lru_cache(maxsize=8)  # each language's build renders the same notebook pages
def restyle(html: str, src_uri: str, toc_ids: tuple[str, ...] = ()) -> str:
    """The notebook page body ``html`` without the template's assets, in Material's markup; the
    headings take ``toc_ids`` (the ids the table of contents links to) when there are as many.
    Raises ``PluginError`` naming ``src_uri`` for a script the template does not add."""
    soup = BeautifulSoup(html, "html.parser")
    for script in soup.find_all("script"):  # the template's: MathJax, Mermaid, the clipboard
        src, text, kind = script.get("src"), script.get_text(), script.get("type")
        if not (
            src == ""
            or "mathjax" in (src or "").lower()
            or "clipboard-copy" in text
            or kind == "text/x-mathjax-config"
            or (kind == "module" and "mermaid" in text)
        ):
            raise PluginError(
                f"notebook {src_uri}: an output holds a <script> ("
                f"{str(script)[:80]}...); this site ships no notebook JavaScript"
            )
    for element in soup.select("style, script, .zeroclipboard-container, .clipboard-copy-txt"):
        element.decompose()
    for focusable in soup.select(".jp-Cell-inputWrapper, .jp-OutputArea-output"):
        focusable.attrs.pop("tabindex", None)  # JupyterLab's focus: a tab stop per cell
    for pre in soup.select("div.highlight-ipynb > pre, div.jp-RenderedText > pre"):
        lang = [c[3:] for c in pre.parent["class"] if c.startswith("hl-")] or ["python"]
        code = soup.new_tag("code")
        code.extend([child.extract() for child in list(pre.contents)])
        pre.append(code)
        output = "jp-RenderedText" in pre.parent["class"]
        pre.parent["class"] = (
            ["language-text", "nb-output", "no-copy"] if output else [f"language-{lang[0]}"]
        ) + ["highlight"]
    for anchor in soup.select("a.anchor-link"):
        anchor["class"], anchor["title"] = ["headerlink"], "Permanent link"
    headings = soup.find_all(["h1", "h2", "h3", "h4", "h5", "h6"], id=True)
    if toc_ids and len(headings) == len(toc_ids):
        # each heading takes its toc entry's id (nbconvert's keep inline code, the toc's do not)
        for heading, new in zip(headings, toc_ids, strict=True):
            for link in heading.select("a.headerlink"):
                link["href"] = f"#{new}"
            heading["id"] = new
    return str(soup)


def restyled(html: str, src_uri: str, toc_ids: tuple[str, ...], store: Path) -> str:
    """:func:`restyle`'s page, kept in the cache ``store`` by its arguments and step's source."""
    name = cache.key(html, src_uri, "\n".join(toc_ids), Path(__file__).read_bytes())
    if (entry := cache.get(store, name)) is None:
        entry = cache.put(store, name, {"page.html": restyle(html, src_uri, toc_ids).encode()})
        cache.prune(store, {name})
    return (entry / "page.html").read_text(encoding="utf-8")


def on_page_content(html, *, page, config, files):
    """Restyle a notebook page; put its download and ``data/`` files on it as the first of its
    facts (:func:`scripts.hooks.page_facts.set_fact`, ``download``); take its ``description``
    from the notebook's metadata (MkDocs event). Raises ``PluginError`` naming the page."""
    src_uri = page.file.src_uri
    if not src_uri.endswith(".ipynb"):
        return html
    folder, name = posixpath.dirname(src_uri), posixpath.basename(src_uri)
    data = [
        {"href": f.url_relative_to(page.file), "label": posixpath.relpath(f.src_uri, folder)}
        for f in sorted(files, key=lambda f: f.src_uri)
        if f.src_uri.startswith(posixpath.join(folder, "data") + "/")
    ]
    metadata = json.loads(Path(page.file.abs_src_path).read_text(encoding="utf-8"))["metadata"]
    if metadata.get("description"):
        page.meta["description"] = metadata["description"]
    set_fact(page, "download", {"what": "notebook", "href": name, "name": name, "data": data})
    ids = tuple(entry.id for entry in toc_entries(page.toc))
    return restyled(html, src_uri, ids, root_of(config) / ".cache/pages")


def on_files(files, *, config):
    """The Chinese build (``theme.language`` ``zh``): each executed notebook page under ``zh/``,
    with the files the execute stage made beside it (its downloads), so the Chinese site's
    notebook pages link their own copies (MkDocs event)."""
    if config.theme["language"] != "zh":
        return files
    for notebook in [f for f in files if isinstance(f, NotebookPage)]:
        notebook.dest_uri = f"zh/{notebook.dest_uri}"
        folder = notebook.src_uri.removesuffix(".ipynb")
        for made in [f for f in files if f.generated_by and f.src_uri.rpartition("/")[0] == folder]:
            copy = File.generated(config, f"zh/{made.src_uri}", content=made.content_bytes)
            files.append(copy)
    return files
