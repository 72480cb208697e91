"""The built site's HTML pages, parsed once per test process.

Several test files read the same pages of the session's build (``tests/conftest.py``); each
parse of a long page takes a noticeable fraction of a second, and the tests asked for the same
pages dozens of times. The build does not change during a run, so a page is parsed on first use
and the tree is shared. Callers read it and never modify it.
"""

from __future__ import annotations

import functools
from pathlib import Path

from bs4 import BeautifulSoup


@functools.cache
def _parse(path: Path, mtime_ns: int) -> BeautifulSoup:
    return BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")


def parsed(path: Path) -> BeautifulSoup:
    """The HTML file ``path`` parsed with Python's ``html.parser``, shared: read-only.

    Parsed again if the file changed since (its modification time). Raises ``OSError`` when the
    file cannot be read.
    """
    return _parse(path, path.stat().st_mtime_ns)
