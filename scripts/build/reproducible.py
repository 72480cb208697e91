"""Build hook: two builds of the same commit give byte-identical files, whatever the day.

MkDocs dates every page with the day of the build (``<lastmod>`` in ``sitemap.xml``, and the
timestamp inside ``sitemap.xml.gz``) unless ``SOURCE_DATE_EPOCH`` is set
(https://reproducible-builds.org/specs/source-date-epoch/, read by ``mkdocs.utils``). This hook
sets it, when the environment has not, to the time of the last commit (``git log -1``), which is
also the truer "last modified" date of the published pages. Outside a git checkout it leaves the
variable unset, and builds made on different days differ in those two files only.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig

from scripts import root_of


def last_commit_time(project: Path) -> str | None:
    """Seconds since the epoch (a decimal string) of HEAD's commit in ``project``, or None."""
    try:
        out = subprocess.run(
            ["git", "log", "-1", "--format=%ct"], cwd=project, capture_output=True, text=True,
            timeout=10, check=True,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return out if out.isdigit() else None


def on_config(config: MkDocsConfig) -> MkDocsConfig:
    """Set ``SOURCE_DATE_EPOCH`` before MkDocs dates the pages (MkDocs event)."""
    if "SOURCE_DATE_EPOCH" not in os.environ:
        epoch = last_commit_time(root_of(config))
        if epoch is not None:
            os.environ["SOURCE_DATE_EPOCH"] = epoch
    return config
