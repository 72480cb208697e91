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

import hashlib
import io
import sys
import zipfile
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page

# MkDocs loads a hook from its file; the project root makes the ``scripts`` package importable.
_PROJECT = Path(__file__).resolve().parents[2]
if str(_PROJECT) not in sys.path:
    sys.path.insert(0, str(_PROJECT))

from scripts.article_notebooks import ArticleNotebook, article_notebook  # noqa: E402
from scripts.hooks.page_facts import add_fact  # noqa: E402
from scripts.markdown_model import includes_in  # noqa: E402

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


def sources_digest(root: Path, page: str) -> str:
    """sha256 (hex) of the files the conversion of ``page`` reads: the page (``docs/<page>``),
    every file it includes, and everything under ``snippets/`` (the modules an included file
    imports and the data files it reads live there)."""
    h = hashlib.sha256()
    text = (root / "docs" / page).read_text(encoding="utf-8")
    included = [root / include.path for include in includes_in(text)]
    paths = {root / "docs" / page, *included, *(root / "snippets").rglob("*")}
    for path in sorted(p for p in paths if p.is_file() and "__pycache__" not in p.parts):
        h.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()


def converted_now(page: str, site_url: str, root: Path) -> dict[str, bytes]:
    """:func:`downloads` of ``page``'s notebook (the execute stage, ``scripts/execute.py``, calls
    it and keeps the result). Raises ``PluginError`` when the conversion fails."""
    try:
        return downloads(article_notebook(page, site_url, root))
    except (ValueError, OSError, SyntaxError) as err:
        raise PluginError(f"notebook of {page}: {err}") from err


#: Page -> the folder holding its download, set by the execute stage (``execute_stage.py``).
MADE: dict[str, Path] = {}


def on_files(files: Files, *, config: MkDocsConfig) -> Files:
    """Add each article's download, as the execute stage made it, beside its page (MkDocs
    event)."""
    _DOWNLOADS.clear()
    for page in articles(config.nav or []):
        folder = page.removesuffix(".md")
        for path in sorted(MADE[page].iterdir()):
            # Given as bytes, not as a path: a file with an .ipynb path would become a page
            # (mkdocs-jupyter's on_files runs after this one, see build.py).
            files.append(File.generated(config, f"{folder}/{path.name}",
                                        content=path.read_bytes()))
            _DOWNLOADS[page] = path.name
    return files


def download_fact(name: str) -> str:
    """The link to the download ``name`` for the line under the page's title (an HTML fragment):
    the notebook's file name (``x.ipynb``) or its zip's (``x.zip``), which contain no character
    HTML escapes."""
    link = f'<a download="" href="{name}">{name}</a>'
    if name.endswith(".zip"):
        return (f'<span class="nb-download">Run it yourself: {link} (this article as a notebook, '
                "with the data it reads)</span>")
    return f'<span class="nb-download">Run it yourself: {link} (this article as a notebook)</span>'


def on_page_content(html: str, *, page: Page, config: MkDocsConfig, files: Files) -> str:
    """Put the download link first in the line under each article's title
    (:func:`scripts.hooks.page_facts.add_fact`). Raises ``PluginError`` if an article has no
    ``<h1>``."""
    name = _DOWNLOADS.get(page.file.src_uri)
    if not name:
        return html
    try:
        return add_fact(html, download_fact(name), first=True)
    except ValueError as error:
        raise PluginError(f"{page.file.src_uri}: {error}") from error
