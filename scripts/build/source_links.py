"""Build hook: the title of each included snippet block links to its file in the repository.

A page shows a region of a file with a titled fence,
```` ```python title="snippets/x/y.py — part" ````, which pymdownx.highlight renders as
``<span class="filename">snippets/x/y.py — part</span>`` above the code. Neither
pymdownx.highlight nor pymdownx.snippets has an option to link that title, so this hook turns the
path at the start of the title into a link to the file on the repository's host:
``{repo_url}/blob/{branch}/snippets/x/y.py``, the branch being the one ``edit_uri`` names
(``edit/main/docs/`` gives ``main``). A title that names a file under ``snippets/`` that does not
exist fails the build (``PluginError``); other titles are left alone.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError

#: A block title that starts with a path under snippets/ (the rest, `` — part``, stays text).
TITLE = re.compile(r'<span class="filename">(?P<path>snippets/[\w./-]+)(?P<tail>[^<]*)</span>')


def blob_url(config: MkDocsConfig, path: str) -> str:
    """The repository host's page for ``path`` (relative to the repository root).

    Raises ``PluginError`` if ``repo_url`` is not set.
    """
    if not config.repo_url:
        raise PluginError("snippet titles link to the repository: set repo_url in mkdocs.yml")
    parts = (config.edit_uri or "edit/main/").strip("/").split("/")
    branch = parts[1] if len(parts) > 1 and parts[0] in ("edit", "blob") else "main"
    return f"{config.repo_url.rstrip('/')}/blob/{branch}/{path}"


def link_title(match: re.Match, config: MkDocsConfig, root: Path) -> str:
    """One snippet block's title (a match of :data:`TITLE`) with its path made a link. ``root``
    is the repository root, where the path must exist. Raises ``PluginError`` naming a path that
    does not."""
    path = html.unescape(match["path"])
    if not (root / path).is_file():
        raise PluginError(f"a code block's title names {path}, which does not exist")
    href = html.escape(blob_url(config, path), quote=True)
    return f'<span class="filename"><a href="{href}">{match["path"]}</a>{match["tail"]}</span>'


def link_titles(page_html: str, config: MkDocsConfig, root: Path) -> str:
    """``page_html`` with each snippet block title's path made a link (:func:`link_title`)."""
    return TITLE.sub(lambda m: link_title(m, config, root), page_html)
