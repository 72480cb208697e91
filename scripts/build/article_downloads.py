"""Build hook: each article downloads as a notebook (``scripts/build/article_notebooks.py``), linked
from the line under its title. The execute stage (``scripts/build/execute.py``) makes each download
with :func:`converted_now`, keyed by :func:`sources_digest`, and adds it beside the page
(``lookup-tables/lookup-tables.ipynb``); :func:`on_page_content` links it."""

from __future__ import annotations

import hashlib
import io
import zipfile
from pathlib import Path

from mkdocs.exceptions import PluginError

from scripts.build.article_notebooks import ArticleNotebook, article_notebook, included
from scripts.build.page_facts import add_fact


def articles(nav: list) -> list[str]:
    """The pages (paths under docs/) listed in the ``Articles`` section of a ``nav`` config."""
    section = next((i["Articles"] for i in nav if isinstance(i, dict) and "Articles" in i), [])
    return [next(iter(p.values())) if isinstance(p, dict) else p for p in section]


def downloads(article: ArticleNotebook) -> dict[str, bytes]:
    """File name -> bytes of what a reader downloads: the notebook alone (``x.ipynb``), or, when
    it reads files, only a zip of it and them under a folder ``x/`` (``x.zip``; entries sorted,
    dated 1980-01-01, mode 0644: the same notebook and files give the same bytes)."""
    folder, files = article.name.removesuffix(".ipynb"), {article.name: article.ipynb_bytes()}
    if not article.data:
        return files
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, content in sorted((files | article.data).items()):
            info = zipfile.ZipInfo(f"{folder}/{name}", date_time=(1980, 1, 1, 0, 0, 0))
            info.external_attr, info.compress_type = 0o644 << 16, zipfile.ZIP_DEFLATED
            archive.writestr(info, content)
    return {f"{folder}.zip": buffer.getvalue()}


def sources_digest(root: Path, page: str) -> str:
    """sha256 (hex) of every file the conversion of ``page`` may read: ``docs/<page>``, each file
    it includes (:func:`scripts.build.article_notebooks.included`) and everything under
    ``snippets/``."""
    text = (root / "docs" / page).read_text(encoding="utf-8")
    paths = {root / "docs" / page, *(root / "snippets").rglob("*"),
             *(root / path for path in included(text, root))}
    h = hashlib.sha256()
    for path in sorted(p for p in paths if p.is_file() and "__pycache__" not in p.parts):
        h.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()


def converted_now(page: str, site_url: str, root: Path) -> dict[str, bytes]:
    """:func:`downloads` of ``page``'s notebook. Raises ``PluginError`` when it cannot be made."""
    try:
        return downloads(article_notebook(page, site_url, root))
    except (ValueError, OSError, SyntaxError) as err:
        raise PluginError(f"notebook of {page}: {err}") from err


def download_name(page: str, files) -> str | None:
    """The file name of ``page``'s download among the site's ``files`` (added by the execute
    stage, ``scripts/build/execute_stage.py``, beside the page), or ``None`` for a page without
    one."""
    folder = page.removesuffix(".md") + "/"
    return next((f.src_uri.removeprefix(folder) for f in files
                 if f.generated_by and f.src_uri.startswith(folder)
                 and f.src_uri.endswith((".ipynb", ".zip"))), None)


def on_page_content(html, *, page, config, files):
    """Put the download link first in the line under an article's title
    (:func:`scripts.build.page_facts.add_fact`). Raises ``PluginError`` if it has no ``<h1>``."""
    # A Chinese page (lookup-tables.zh.md, mkdocs-static-i18n) links its English page's download.
    source = getattr(page.file, "norm_src_uri", None) or page.file.src_uri
    name = download_name(source, files)
    if name is None:
        return html
    target = files.get_file_from_path(f"{source.removesuffix('.md')}/{name}")
    href = target.url_relative_to(page.file) if target is not None else name
    what = "this article as a notebook" + ", with the files it reads" * name.endswith(".zip")
    try:
        return add_fact(html, f'<span class="nb-download">Run it yourself: <a download="" '
                              f'href="{href}">{name}</a> ({what})</span>', first=True)
    except ValueError as error:
        raise PluginError(f"{page.file.src_uri}: {error}") from error
