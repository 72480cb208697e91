"""Build steps: ``SOURCE_DATE_EPOCH`` set to the last commit's time (two builds of a commit give
the same bytes); the execute stage (:mod:`scripts.hooks.execute`) run, with a stand-in for the
site's PDF; notebook pages rendered from their executed copies, dated from the committed ones."""

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

log = logging.getLogger("mkdocs.hooks.execute_stage")
#: The whole site's PDF, which the home page links: a stand-in saying how the real one is made
#: (``python -m scripts site-pdf`` writes that over it).
PDF_NAME = "embedding-executed.pdf"
STAND_IN = [
    f"{PDF_NAME} is printed from a built site by: python -m scripts site-pdf --site DIR",
    "(the published site holds it).",
]


def placeholder_pdf(lines: list[str]) -> bytes:
    """A one-page PDF (bytes) showing ``lines`` (Latin-1 text)."""
    escaped = (line.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)") for line in lines)
    stream = (
        b"BT /F1 12 Tf 16 TL 56 780 Td "
        + b" ".join(b"(" + text.encode("latin-1", "replace") + b") '" for text in escaped)
        + b" ET"
    )
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] "
        b"/Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        b"<< /Length %d >>\nstream\n%s\nendstream" % (len(stream), stream),
    ]
    out, offsets = bytearray(b"%PDF-1.4\n"), []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )
    return bytes(out)


class NotebookPage(File):
    """An executed notebook as a page (mkdocs-jupyter renders any page whose source is .ipynb)."""

    def is_documentation_page(self) -> bool:
        return True


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
    would become a page) and the stand-in PDF (MkDocs event). Raises ``PluginError``."""
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
    files.append(File.generated(config, PDF_NAME, content=placeholder_pdf(STAND_IN)))
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
