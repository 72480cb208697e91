"""Build steps: the execute stage (``scripts/build/execute.py``) runs first, then pages render.

MkDocs builds a notebook page from the file its ``File`` points at, and mkdocs-jupyter renders
that file without running it (``execute: false`` in ``mkdocs.yml``). So:

* ``on_pre_build`` runs the execute stage (:func:`scripts.build.execute.run`): every figure module
  and every notebook whose sources changed is drawn or executed, and each article's download made,
  before any page is rendered; a failing cell fails the build, naming the notebook and the cell (a
  failing figure, naming the module and the function). What it makes is kept in the build's cache
  (:mod:`scripts.build.cache`).
* ``on_files`` adds what the stage made to the site's files: every figure's SVG, each article's
  download, and each notebook page pointed at its executed copy (a ``File`` with the same
  ``src_uri``, so its URL, its place in ``nav`` and its edit link are the committed notebook's)
  and adds the committed notebook, without outputs, as the download beside the page
  (``notebooks/<name>/<name>.ipynb``, where the page's download link points). It must run before
  mkdocs-jupyter's own ``on_files``, which turns ``.ipynb`` files into pages: ``hook.py`` gives
  that event a higher priority (MkDocs' ``event_priority``). The download is a generated file
  (no source path), which mkdocs-jupyter leaves alone.
* ``on_page_markdown`` gives a notebook page its "Last update" date: the date of the last commit
  of the committed notebook, in the form git-revision-date-localized gives the other pages (that
  plugin excludes notebooks in ``mkdocs.yml``: it would ask git about the executed copy, which git
  does not track).
* ``on_post_build`` deletes executed copies, figures and article downloads that no build has
  used for an hour (:meth:`scripts.build.cache.Store.prune`).
"""

from __future__ import annotations

import logging
import os
import subprocess
from datetime import UTC, datetime
from pathlib import Path

from babel.dates import format_date
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page

from scripts import ROOT, root_of
from scripts.build import article_downloads, execute
from scripts.build.cache import Store

log = logging.getLogger("mkdocs.hooks.execute_stage")

#: The meta key Material's ``partials/source-file.html`` shows as "Last update".
DATE_META = "git_revision_date_localized"


class _Build:
    """What the execute stage made for the current build (set by :func:`on_pre_build`, read by
    the other events of this module): the one place a build's state is kept between events."""

    root: Path = ROOT
    made: execute.Made = execute.Made({}, {}, [])


def on_pre_build(*, config: MkDocsConfig) -> None:
    """Run the execute stage (MkDocs event). Raises ``PluginError`` when a notebook fails."""
    _Build.root = root_of(config)
    try:
        _Build.made = execute.run(_Build.root, None, Path(config.docs_dir),
                                  tuple(article_downloads.articles(config.nav or [])),
                                  config.site_url or "/")
    except execute.NotebookFailed as error:
        raise PluginError(f"notebook {error}") from None
    for uri, (_, now) in _Build.made.notebooks.items():
        log.info("notebook %s: %s", uri, "executed" if now else "not executed, nothing changed")


def download_uri(src_uri: str) -> str:
    """Where a notebook's download sits in the site: beside its page
    (``notebooks/x.ipynb`` -> ``notebooks/x/x.ipynb``)."""
    folder, name = src_uri.rsplit("/", 1) if "/" in src_uri else ("", src_uri)
    stem = name.removesuffix(".ipynb")
    return f"{folder}/{stem}/{name}" if folder else f"{stem}/{name}"


def on_files(files: Files, *, config: MkDocsConfig) -> Files:
    """Add what the execute stage made to the site's files (MkDocs event; must run before
    mkdocs-jupyter's): notebook pages point at their executed copies, beside each the committed
    notebook as its download; every figure's SVG, by path; each article's download, as bytes
    (as a path, an ``.ipynb`` file would become a page). Raises ``PluginError`` for a figure
    module the stage has not drawn."""
    made = _Build.made
    for uri, (base, _) in made.notebooks.items():
        committed = files.get_file_from_path(uri)
        if committed is None:  # not under docs/ (excluded by the configuration)
            continue
        files.remove(committed)
        files.append(File(uri, str(base), config.site_dir, config.use_directory_urls))
        files.append(File.generated(config, download_uri(uri),
                                    content=Path(committed.abs_src_path).read_bytes()))
    figures = Store(_Build.root, "figures")
    for plan in made.figures:
        drawn = figures.path(plan.key)
        if not drawn.is_dir():
            raise PluginError(f"figure script {plan.rel}: not drawn (the execute stage, "
                              "python -m scripts execute, draws it)")
        for svg in sorted(drawn.rglob("*.svg")):
            uri = svg.relative_to(drawn).as_posix()
            files.append(File(uri, str(drawn), config.site_dir, config.use_directory_urls))
    for page, folder in made.articles.items():
        for path in sorted(folder.iterdir()):
            files.append(File.generated(config, f"{page.removesuffix('.md')}/{path.name}",
                                        content=path.read_bytes()))
    return files


def revision_date(path: Path) -> str:
    """The "Last update" HTML of ``path``: the author date of its last commit (UTC), as
    git-revision-date-localized writes it with ``type: date`` and ``locale: en`` (a ``<span>``
    whose text is the long English date and whose title adds the time). Outside git, or for a
    file git does not know, the time of the build (``SOURCE_DATE_EPOCH`` if set)."""
    try:
        # The plugin's own query (its util.py): renames followed, whitespace-only edits ignored,
        # so a merge that only brings a file's lines together does not date it.
        out = subprocess.run(["git", "log", "-1", "--format=%at", "--diff-filter=r", "--follow",
                              "--ignore-all-space", "--ignore-blank-lines", "--", path.name],
                             cwd=path.parent, capture_output=True, text=True, timeout=10,
                             check=True).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        out = ""
    stamp = int(out or os.environ.get("SOURCE_DATE_EPOCH") or datetime.now().timestamp())
    when = datetime.fromtimestamp(stamp, tz=UTC)
    day = format_date(when, format="long", locale="en")
    return (f'<span class="git-revision-date-localized-plugin '
            f'git-revision-date-localized-plugin-date" '
            f'title="{day} {when.strftime("%H:%M:%S %Z")}">{day}</span>')


def on_page_markdown(markdown: str, *, page: Page, config: MkDocsConfig, files: Files) -> str:
    """A notebook page's "Last update", from its committed notebook (MkDocs event)."""
    if page.file.src_uri in _Build.made.notebooks:
        page.meta[DATE_META] = revision_date(Path(config.docs_dir) / page.file.src_uri)
    return markdown


def on_post_build(*, config: MkDocsConfig) -> None:
    """Prune the three stores of the cache (:meth:`scripts.build.cache.Store.prune`): what this
    build did not use and no build has used for an hour (MkDocs event)."""
    made, root = _Build.made, _Build.root
    Store(root, "executed").prune({base.name for base, _ in made.notebooks.values()} | {"rendered"})
    Store(root, "figures").prune({plan.key for plan in made.figures})
    Store(root, "articles").prune({folder.name for folder in made.articles.values()})
