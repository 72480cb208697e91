"""Build step: two builds of a commit give the same bytes, whatever the day: MkDocs dates the
sitemap by ``SOURCE_DATE_EPOCH`` (https://reproducible-builds.org/specs/source-date-epoch/), which
this sets to the last commit's time."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from scripts import root_of


def last_commit_time(project: Path) -> str | None:
    """Seconds since the epoch (a decimal string) of HEAD's commit in ``project``, or None."""
    try:
        out = subprocess.run(["git", "log", "-1", "--format=%ct"], cwd=project, text=True,
                             capture_output=True, timeout=10, check=True).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return out if out.isdigit() else None


def on_config(config):
    """Set ``SOURCE_DATE_EPOCH``, unless the environment has, before MkDocs dates a page."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH") or last_commit_time(root_of(config))
    if epoch is not None:
        os.environ["SOURCE_DATE_EPOCH"] = epoch
    return config
