"""Build hook: ``mkdocs serve`` indexes for search only the pages whose content changed.

Material's search plugin reads every page's HTML with Python's ``html.parser`` at every build,
to cut it into the sections of ``search/search_index.json``. Under ``mkdocs serve`` every edit
rebuilds every page, and that parse was the largest part of a rebuild (more than Markdown and
Pygments together). The sections of a page depend only on what the plugin reads from it: its URL,
title, content, table of contents and the ``title``, ``tags`` and ``search`` keys of its front
matter. This hook remembers, for the life of the process, the entries the plugin made from each
page under a key of exactly those, and on a later build gives the plugin's index copies of them
instead of parsing the page again. A changed page, or a new one, is parsed as before. Entries of
pages that a build did not index are forgotten after it.

The first build of a process (``mkdocs build``, a test run's build, CI) parses every page: it
has nothing remembered. The index is the same either way; ``tests/test_search_index.py`` checks
that a remembered page gives the entries the plugin makes.

The plugin's index (``SearchIndex`` in ``material/plugins/search/plugin.py``, Material 9.x) is
not a documented interface: when it has no ``add_entry_from_context`` method or ``entries``
list, this hook does nothing and says so in the build's debug log.
"""

from __future__ import annotations

import copy
import json
import logging

from mkdocs.config.defaults import MkDocsConfig

log = logging.getLogger("mkdocs.hooks.search_memo")

PLUGIN_NAMES = ("material/search", "search")
#: Front matter keys the plugin reads (Material's search plugin, ``create_entry_for_section``).
META_KEYS = ("title", "tags", "search")


def _toc_key(toc) -> list:
    return [[item.id, item.url, item.title, _toc_key(item.children)] for item in toc]


def page_key(page) -> str:
    """Everything Material's search plugin reads from ``page`` (a MkDocs ``Page`` whose content
    has been rendered), as one JSON string."""
    meta = {k: page.meta.get(k) for k in META_KEYS if k in page.meta}
    return json.dumps([page.url, page.title, page.content, _toc_key(page.toc), meta],
                      default=str, sort_keys=True)


class Remembered:
    """The entries made from each page, under :func:`page_key`, and the keys used by the build
    in progress."""

    def __init__(self) -> None:
        self.entries: dict[str, list[dict]] = {}
        self.used: set[str] = set()
        self.hits = 0

    def wrap(self, index) -> bool:
        """Make ``index`` (the plugin's ``SearchIndex``) use and fill this memory. Returns False,
        changing nothing, when ``index`` does not look like Material 9's."""
        add = getattr(index, "add_entry_from_context", None)
        if not callable(add) or not isinstance(getattr(index, "entries", None), list):
            return False

        def add_entry_from_context(page) -> None:
            key = page_key(page)
            self.used.add(key)
            if key in self.entries:
                self.hits += 1
                index.entries.extend(copy.deepcopy(self.entries[key]))
                return
            start = len(index.entries)
            add(page)
            self.entries[key] = copy.deepcopy(index.entries[start:])

        index.add_entry_from_context = add_entry_from_context
        return True

    def forget_unused(self) -> None:
        """Drop the entries of pages the last build did not index, and start the next build."""
        self.entries = {k: v for k, v in self.entries.items() if k in self.used}
        self.used = set()


MEMORY = Remembered()


def on_pre_build(config: MkDocsConfig) -> None:
    """Give the search plugin's index the remembered entries (MkDocs event; the plugin made its
    index in ``on_config``, which runs before any ``on_pre_build``)."""
    plugin = next((config.plugins[n] for n in PLUGIN_NAMES if n in config.plugins), None)
    index = getattr(plugin, "search_index", None)
    if index is None or not MEMORY.wrap(index):
        log.debug("search_memo: no Material 9 search index found; every page is parsed")


def on_post_build(config: MkDocsConfig) -> None:
    """Forget pages that are gone or changed (MkDocs event)."""
    MEMORY.forget_unused()
