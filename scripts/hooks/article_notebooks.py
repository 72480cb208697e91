"""Build hook: every article is downloadable as a notebook, with a box at the top of its page.

For each page under "Articles" in ``mkdocs.yml``'s ``nav``, :func:`on_files` adds to the site,
beside the page (``lookup-tables/``), the notebook made by
:func:`scripts.article_notebooks.article_notebook` (``lookup-tables.ipynb``) or, when the
article reads data files, a zip of the notebook with those files in the folders the notebook
expects (``static-vs-contextual.zip``): one download that runs as it is unpacked. Both are
generated in memory; nothing is written into ``docs/``. Their bytes depend only on the repository's
files (zip entries carry a fixed date), so two builds give identical files.

:func:`on_page_content` puts a download box under the page's title, in the look of the hands-on
notebook's box (``scripts/hooks/notebooks.py``). ``tests/test_article_notebooks.py`` executes
every notebook; ``tests/test_browser.py`` fetches each download from a served build.
"""

from __future__ import annotations

import io
import sys
import zipfile
from pathlib import Path

from bs4 import BeautifulSoup
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page

# MkDocs loads a hook from its file; the project root makes the ``scripts`` package importable.
_PROJECT = Path(__file__).resolve().parents[2]
if str(_PROJECT) not in sys.path:
    sys.path.insert(0, str(_PROJECT))

from scripts.article_notebooks import ArticleNotebook, article_notebook  # noqa: E402

#: The nav section whose pages become notebooks.
SECTION = "Articles"
#: Page source (``lookup-tables.md``) -> the name of its download, filled by :func:`on_files`.
_DOWNLOADS: dict[str, str] = {}


def articles(nav: list) -> list[str]:
    """The pages (paths under docs/) listed in the ``Articles`` section of a ``nav`` config."""
    for item in nav:
        if isinstance(item, dict) and SECTION in item:
            return [next(iter(p.values())) if isinstance(p, dict) else p for p in item[SECTION]]
    return []


def zip_bytes(article: ArticleNotebook) -> bytes:
    """A zip of the notebook and its data files, under a folder named after the notebook.

    Entries are stored in sorted order with a fixed date (1980-01-01) and mode 0644, so the same
    notebook and data give the same bytes.
    """
    folder = article.name.removesuffix(".ipynb")
    files = {article.name: article.ipynb_bytes(), **article.data}
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name in sorted(files):
            info = zipfile.ZipInfo(f"{folder}/{name}", date_time=(1980, 1, 1, 0, 0, 0))
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, files[name])
    return buffer.getvalue()


def downloads(article: ArticleNotebook) -> dict[str, bytes]:
    """The files a reader downloads for ``article``: file name -> bytes.

    The notebook alone (``x.ipynb``) when it reads no data; otherwise only the zip of the
    notebook and its data (``x.zip``), since the notebook without its data would stop at the first
    cell that opens a file.
    """
    if article.data:
        return {article.name.removesuffix(".ipynb") + ".zip": zip_bytes(article)}
    return {article.name: article.ipynb_bytes()}


def on_files(files: Files, *, config: MkDocsConfig) -> Files:
    """Add each article's download beside its page (MkDocs event)."""
    _DOWNLOADS.clear()
    root = Path(config.config_file_path).resolve().parent
    for page in articles(config.nav or []):
        try:
            article = article_notebook(page, config.site_url or "/", root)
        except (ValueError, OSError, SyntaxError) as err:
            raise PluginError(f"notebook of {page}: {err}") from err
        folder = page.removesuffix(".md")
        for name, content in downloads(article).items():
            files.append(File.generated(config, f"{folder}/{name}", content=content))
            _DOWNLOADS[page] = name
    return files


def download_box(soup: BeautifulSoup, name: str) -> None:
    """Insert, after the first ``<h1>`` of ``soup``, a link to the download ``name``.

    ``name`` is the notebook's file name (``x.ipynb``) or its zip's (``x.zip``). Raises
    ``PluginError`` if the page has no ``<h1>``.
    """
    box = soup.new_tag("div", attrs={"class": "admonition tip nb-download"})
    title = soup.new_tag("p", attrs={"class": "admonition-title"})
    title.string = "Run it yourself"
    text = soup.new_tag("p")
    link = soup.new_tag("a", href=name, download="")
    link.string = name
    if name.endswith(".zip"):
        text.append("Download this article as a notebook, with the data it reads: ")
        text.append(link)
        text.append(" (unzip it and open the notebook inside).")
    else:
        text.append("Download this article as a notebook: ")
        text.append(link)
        text.append(".")
    box.extend([title, text])
    heading = soup.find("h1")
    if heading is None:
        raise PluginError("an article has no '# title' heading for its download box")
    heading.insert_after(box)


def on_page_content(html: str, *, page: Page, config: MkDocsConfig, files: Files) -> str:
    """Put the download box on each article's page (MkDocs event)."""
    name = _DOWNLOADS.get(page.file.src_uri)
    if not name:
        return html
    soup = BeautifulSoup(html, "html.parser")
    download_box(soup, name)
    return str(soup)
