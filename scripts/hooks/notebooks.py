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
* puts a download box under the title: the notebook itself (copied next to the page by the
  plugin's ``include_source``) and every file in the ``data/`` folder beside it;
* takes the page's meta description from the notebook's ``metadata.description``, if set.

After the build it checks every relative ``href`` and ``src`` of every notebook page, download
links included: the target must exist in the built site and, for ``#fragment`` links, hold that
``id``. A miss is logged as a warning, which ``strict: true`` turns into a failed build (MkDocs'
own link validation only sees Markdown pages).
"""

from __future__ import annotations

import json
import logging
import posixpath
from pathlib import Path
from urllib.parse import unquote, urlsplit

from bs4 import BeautifulSoup
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import Files
from mkdocs.structure.pages import Page

log = logging.getLogger("mkdocs.hooks.notebooks")

#: Paths in the site (``notebooks/x/index.html``) of the notebook pages built, for the link check.
_NOTEBOOK_PAGES: list[str] = []


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


def restyle(html: str, src_uri: str) -> str:
    """Return the notebook page body ``html`` without its inlined assets, in Material's markup.

    ``src_uri`` (``notebooks/x.ipynb``) names the notebook in errors. Raises ``PluginError`` if
    the page holds a script that mkdocs-jupyter's template does not add.
    """
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
    return str(soup)


def _download_box(soup: BeautifulSoup, page: Page, files: Files) -> None:
    """Insert, after the page's first heading, links to the notebook and to its data files.

    Data files are the site's files under a ``data/`` folder beside the notebook. Raises
    ``PluginError`` if the notebook has no level-1 heading to put the box under.
    """
    folder = posixpath.dirname(page.file.src_uri)
    notebook = posixpath.basename(page.file.src_uri)
    data = sorted(
        (f for f in files if f.src_uri.startswith(posixpath.join(folder, "data") + "/")),
        key=lambda f: f.src_uri,
    )
    box = soup.new_tag("div", attrs={"class": "admonition tip nb-download"})
    title = soup.new_tag("p", attrs={"class": "admonition-title"})
    title.string = "Run it yourself"
    text = soup.new_tag("p")
    text.append("Download the notebook, ")
    link = soup.new_tag("a", href=notebook, download="")
    link.string = notebook
    text.append(link)
    for n, f in enumerate(data):
        text.append(", and its data, " if n == 0 else ", ")
        data_link = soup.new_tag("a", href=f.url_relative_to(page.file), download="")
        data_link.string = posixpath.relpath(f.src_uri, folder)
        text.append(data_link)
    text.append(" (keep data/ beside the notebook)." if data else ".")
    box.extend([title, text])
    heading = soup.find("h1")
    if heading is None:
        raise PluginError(f"notebook {page.file.src_uri} has no '# title' heading")
    heading.insert_after(box)


def on_page_content(html: str, *, page: Page, config: MkDocsConfig, files: Files) -> str:
    """Restyle a notebook page and add its download box (MkDocs event)."""
    if not _is_notebook(page):
        return html
    soup = BeautifulSoup(restyle(html, page.file.src_uri), "html.parser")
    _download_box(soup, page, files)
    metadata = json.loads(Path(page.file.abs_src_path).read_text(encoding="utf-8"))["metadata"]
    if metadata.get("description"):
        page.meta["description"] = metadata["description"]
    _NOTEBOOK_PAGES.append(Path(page.file.abs_dest_path).relative_to(config.site_dir).as_posix())
    return str(soup)


def on_pre_build(config: MkDocsConfig) -> None:
    """Forget the pages of a previous build; ``mkdocs serve`` rebuilds (MkDocs event)."""
    _NOTEBOOK_PAGES.clear()


def _ids(path: Path, cache: dict[Path, set[str]]) -> set[str]:
    if path not in cache:
        soup = BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")
        cache[path] = {tag["id"] for tag in soup.find_all(id=True)}
    return cache[path]


def broken_links(site_dir: Path, page_dest: str) -> list[str]:
    """Relative links and sources of the built page ``page_dest`` whose target is missing.

    ``page_dest`` is the page's path in ``site_dir`` (``notebooks/x/index.html``). Returns one
    ``"url: why"`` string per broken link. Links with a scheme (``https:``) are not checked;
    absolute paths (``/x/``) are reported.
    """
    page_path = site_dir / page_dest
    soup = BeautifulSoup(page_path.read_text(encoding="utf-8"), "html.parser")
    article = soup.find("article") or soup
    problems: list[str] = []
    cache: dict[Path, set[str]] = {}
    for tag in article.find_all(href=True) + article.find_all(src=True):
        url = tag.get("href") or tag.get("src")
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


def on_post_build(config: MkDocsConfig) -> None:
    """Warn (a failed build under ``strict``) on each broken link of a notebook page."""
    for dest in _NOTEBOOK_PAGES:
        for problem in broken_links(Path(config.site_dir), dest):
            log.warning("notebook page %s: broken link %s", dest, problem)
