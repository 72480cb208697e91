"""Build steps around the execute stage (:mod:`scripts.hooks.execute`), which runs before any
page is rendered.

MkDocs builds a notebook page from the file its ``File`` points at, and mkdocs-jupyter renders
that file without running it (``execute: false`` in ``mkdocs.yml``). So:

* :func:`on_config` sets ``SOURCE_DATE_EPOCH`` to the last commit's time (unless the environment
  has), which MkDocs dates the sitemap by: two builds of a commit give the same bytes;
* :func:`on_files` runs the execute stage: every figure module and every notebook whose sources
  changed is drawn or executed, and each article's download made; a failing cell fails the build,
  naming the notebook and the cell (a failing figure, naming the module and the function). It adds
  what the stage made to the site's files: every figure's SVG, each article's download, and each
  notebook page pointed at its executed copy (a :class:`~scripts.hooks.notebooks.NotebookPage`
  with the same ``src_uri``, so its URL, its place in ``nav`` and its edit link are the committed
  notebook's), with the committed notebook, without outputs, as the download beside the page
  (``notebooks/<name>/<name>.ipynb``). It runs after the plugins' ``on_files`` (the i18n plugin
  sorts only the files of ``docs/``: the files made join after it);
* :func:`on_page_markdown` gives a notebook page its "Last update" date: the date of the last
  commit of the committed notebook, as git-revision-date-localized gives the other pages (that
  plugin excludes notebooks in ``mkdocs.yml``: it would ask git about the executed copy, which
  git does not track).
"""

from __future__ import annotations

import logging
import os
import subprocess
from datetime import UTC, datetime
from pathlib import Path

from babel.dates import format_date
from mkdocs.structure.files import File

from scripts import root_of
from scripts.hooks import execute
from scripts.hooks.article_notebooks import articles
from scripts.hooks.notebooks import NotebookPage

log = logging.getLogger("mkdocs.hooks.execute_stage")


def last_commit_time(project: Path) -> str | None:
    """Seconds since the epoch (a decimal string) of HEAD's commit in ``project``, or None."""
    try:
        out = subprocess.run(
            ["git", "log", "-1", "--format=%ct"],
            cwd=project,
            text=True,
            capture_output=True,
            timeout=10,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return out if out.isdigit() else None


def on_config(config):
    """Set ``SOURCE_DATE_EPOCH`` (https://reproducible-builds.org/specs/source-date-epoch/, MkDocs
    dates the sitemap by it), unless the environment has, before MkDocs dates a page."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH") or last_commit_time(root_of(config))
    if epoch is not None:
        os.environ["SOURCE_DATE_EPOCH"] = epoch
    return config


def on_files(files, *, config):
    """Run the execute stage; point each notebook page at its executed copy, the committed one
    beside it (``notebooks/x/x.ipynb``); add figures, downloads (as bytes: an ``.ipynb`` path
    would become a page) (MkDocs event). Raises ``PluginError``."""
    for job, entry, now in execute.run(
        root_of(config),
        Path(config.docs_dir),
        tuple(articles(config.nav or [])),
        config.site_url or "/",
    ):
        committed = files.get_file_from_path(job.name) if job.kind == "executed" else None
        if committed is not None:
            log.info(
                "notebook %s: %s", job.name, "executed" if now else "not executed, nothing changed"
            )
            files.remove(committed)
            files.append(
                NotebookPage(job.name, str(entry), config.site_dir, config.use_directory_urls)
            )
            files.append(
                File.generated(
                    config,
                    f"{job.name[:-6]}/{Path(job.name).name}",
                    content=Path(committed.abs_src_path).read_bytes(),
                )
            )
        elif job.kind != "executed":
            for path in sorted(p for p in entry.rglob("*") if p.is_file()):
                files.append(
                    File.generated(
                        config, path.relative_to(entry).as_posix(), content=path.read_bytes()
                    )
                )
    return files


def revision_date(path: Path) -> str:
    """``path``'s "Last update" as git-revision-date-localized writes it (``type: date``, ``locale:
    en``; the plugin's git query); outside git, the build's time (``SOURCE_DATE_EPOCH``)."""
    try:
        out = subprocess.run(
            [
                "git",
                "log",
                "-1",
                "--format=%at",
                "--diff-filter=r",
                "--follow",
                "--ignore-all-space",
                "--ignore-blank-lines",
                "--",
                path.name,
            ],
            cwd=path.parent,
            capture_output=True,
            text=True,
            timeout=10,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        out = ""
    when = datetime.fromtimestamp(
        int(out or os.environ.get("SOURCE_DATE_EPOCH") or datetime.now().timestamp()), tz=UTC
    )
    day = format_date(when, format="long", locale="en")
    return (
        f'<span class="git-revision-date-localized-plugin git-revision-date-localized-plugin'
        f'-date" title="{day} {when.strftime("%H:%M:%S %Z")}">{day}</span>'
    )


def on_page_markdown(markdown, *, page, config, files):
    """A notebook page's "Last update" (Material shows this meta key), from its committed
    notebook: git-revision-date-localized would ask git about the executed copy (MkDocs event)."""
    if page.file.src_uri.endswith(".ipynb"):
        page.meta["git_revision_date_localized"] = revision_date(
            Path(config.docs_dir) / page.file.src_uri
        )
    return markdown
