"""Build hook: a notebook is executed again only when something it depends on has changed.

mkdocs-jupyter (``execute: true``) runs every notebook page in a fresh kernel at every build,
which made each ``mkdocs serve`` rebuild after a one-word edit wait for the notebook. Its own
``cache`` option keys on the notebook file and the plugin's settings only: an edited data file,
a new torch or a new Python would be served from a stale page. This hook keeps the page that
mkdocs-jupyter renders (HTML body, table of contents, title) in
``.cache/notebooks/<key>.json`` (gitignored), under a key that is the sha256 of

* the notebook file;
* every file under the ``data/`` folder beside it (what the notebook reads, see the README);
* mkdocs-jupyter's settings in ``mkdocs.yml``, and the build's nbconvert settings
  (``jupyter/``);
* the kernel it runs in (the kernel spec's command line) and the environment: the Python version
  and every installed package's version (``figures.environment_fingerprint``).

On a hit the notebook is not executed; on a miss mkdocs-jupyter executes it as before (a failing
cell still fails the build) and the result is stored. The notebook hook (``notebooks.py``)
restyles the page afterwards either way, so editing that hook needs no new execution. Entries
that a build did not use are deleted after it. ``rm -rf .cache`` forgets everything; with
``NOTEBOOK_CACHE=off`` in the environment a build neither reads nor writes the cache (the test
that two builds are byte-identical uses it, so that its second build executes every notebook).

MkDocs runs hooks after plugins, so ``on_pre_page`` here sees the ``render`` method that
mkdocs-jupyter has just put on the page, and wraps it.

Notebooks to execute (a miss, or every notebook with ``NOTEBOOK_CACHE=off``) are executed all
at once, each in its own kernel, from the start of the build (``on_nav``), instead of one after
another when MkDocs reaches each page: mkdocs-jupyter's own ``on_pre_page`` event gives, early,
the same conversion it would give later, which a thread runs into a stand-in for the page. Each
page takes its result, or its error, at its turn, so a failing cell fails the build as before and
the page is the same.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import sys
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from types import SimpleNamespace

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.pages import Page
from mkdocs.structure.toc import AnchorLink, get_toc

_PROJECT = str(Path(__file__).resolve().parents[2])
if _PROJECT not in sys.path:
    sys.path.insert(0, _PROJECT)  # MkDocs loads hooks by file path (and restores sys.path after)
from scripts.hooks.figures import environment_fingerprint  # noqa: E402

#: nbconvert settings for the build's kernels (``jupyter_nbconvert_config.py``: Unix sockets
#: instead of TCP, see that file for why).
JUPYTER_CONFIG = Path(__file__).resolve().parent / "jupyter"

PLUGIN = "mkdocs-jupyter"
#: Where executed notebook pages are kept, relative to the project (mkdocs.yml's folder).
CACHE_DIR = Path(".cache") / "notebooks"
#: Bumped when what is stored changes.
CACHE_FORMAT = "notebooks-1"

log = logging.getLogger("mkdocs.hooks.notebook_cache")


class _Build:
    folder: Path | None = None
    used: set[str] = set()
    #: Notebook page (``src_uri``) -> its conversion running in a thread (:func:`on_nav`).
    early: dict[str, Future] = {}


def _kernel_command(notebook: Path) -> str:
    """The command line of the kernel that runs ``notebook`` (from its kernel spec), or ''."""
    from jupyter_client.kernelspec import KernelSpecManager, NoSuchKernel

    meta = json.loads(notebook.read_text(encoding="utf-8")).get("metadata", {})
    name = meta.get("kernelspec", {}).get("name", "python3")
    try:
        return json.dumps(KernelSpecManager().get_kernel_spec(name).argv)
    except NoSuchKernel:
        return ""


def notebook_key(notebook: Path, plugin_config: dict) -> str:
    """The cache key of ``notebook``: sha256 (hex) of the notebook, its ``data/`` files, the
    plugin's and nbconvert's settings, its kernel's command line and the environment (see the
    module doc)."""
    h = hashlib.sha256(f"{CACHE_FORMAT}\n{environment_fingerprint()}\n".encode())
    h.update(_kernel_command(notebook).encode() + b"\0")
    for path in sorted(JUPYTER_CONFIG.glob("*.py")):  # the build's nbconvert settings
        h.update(path.read_bytes() + b"\0")
    h.update(json.dumps(plugin_config, sort_keys=True, default=repr).encode() + b"\0")
    h.update(notebook.read_bytes() + b"\0")
    data = notebook.parent / "data"
    for path in sorted(data.rglob("*")) if data.is_dir() else []:
        if path.is_file():
            h.update(path.relative_to(data).as_posix().encode() + b"\0" + path.read_bytes())
    return h.hexdigest()


def _toc_tokens(links: list[AnchorLink]) -> list[dict]:
    """A table of contents as the tokens :func:`mkdocs.structure.toc.get_toc` reads."""
    return [
        {"level": a.level, "id": a.id, "name": a.title, "children": _toc_tokens(a.children)}
        for a in links
    ]


def on_config(config: MkDocsConfig) -> MkDocsConfig:
    """Point nbconvert, in this process only, at the build's settings in ``jupyter/`` (MkDocs
    event). mkdocs-jupyter reads them each time it converts a notebook."""
    paths = os.environ.get("JUPYTER_CONFIG_PATH", "").split(os.pathsep)
    if str(JUPYTER_CONFIG) not in paths:
        paths = [str(JUPYTER_CONFIG), *filter(None, paths)]
        os.environ["JUPYTER_CONFIG_PATH"] = os.pathsep.join(paths)
    return config


def on_pre_build(*, config: MkDocsConfig) -> None:
    """Start a build with no entry used yet (MkDocs event)."""
    _Build.folder = Path(config.config_file_path).resolve().parent / CACHE_DIR
    _Build.used = set()


def _cache_off() -> bool:
    return os.environ.get("NOTEBOOK_CACHE") == "off"


def _entry(page: Page, config: MkDocsConfig) -> tuple[str, Path]:
    """The cache key of a notebook page and the file its entry is kept in."""
    key = notebook_key(Path(page.file.abs_src_path), dict(config.plugins[PLUGIN].config))
    return key, _Build.folder / f"{key}.json"


def _converted(render, config: MkDocsConfig, files) -> SimpleNamespace:
    """Run mkdocs-jupyter's ``render`` (bound to a page) on a stand-in for the page; returns the
    stand-in, with the ``content``, ``toc`` and (when the plugin keeps it) ``title`` it set."""
    stand_in = SimpleNamespace()
    render.__func__(stand_in, config, files)
    return stand_in


def on_nav(nav, *, config: MkDocsConfig, files):
    """Start converting, in parallel threads, every notebook page that will be executed (MkDocs
    event). The kernels are processes, so the threads mostly wait on them."""
    _Build.early = {}
    if PLUGIN not in config.plugins:
        return nav
    plugin = config.plugins[PLUGIN]
    todo = []
    for file in files.documentation_pages():
        page = file.page
        if page is None or not file.src_uri.endswith(".ipynb"):
            continue
        if not _cache_off() and _entry(page, config)[1].is_file():
            continue
        plugin.on_pre_page(page, config=config, files=files)  # its render, as MkDocs will get it
        todo.append((file.src_uri, page.render))
    if todo:
        pool = ThreadPoolExecutor(max_workers=len(todo), thread_name_prefix="notebook")
        _Build.early = {uri: pool.submit(_converted, render, config, files)
                        for uri, render in todo}
        pool.shutdown(wait=False)
    return nav


def _take_early(page: Page, render, config: MkDocsConfig, files, keeps_title: bool) -> None:
    """Give ``page`` its conversion started by :func:`on_nav` (raising its error, if it failed),
    or convert it now with ``render`` when none was started."""
    early = _Build.early.pop(page.file.src_uri, None)
    if early is None:
        render(config, files)
        return
    done = early.result()
    page.content, page.toc = done.content, done.toc
    if keeps_title and getattr(done, "title", None) is not None:
        page.title = done.title


def on_pre_page(page: Page, *, config: MkDocsConfig, files) -> Page:
    """Serve a notebook page from the cache, or render it and store it (MkDocs event)."""
    if not page.file.src_uri.endswith(".ipynb") or PLUGIN not in config.plugins:
        return page
    render = page.render  # mkdocs-jupyter's, bound to this page
    keeps_title = not config.plugins[PLUGIN].config.get("ignore_h1_titles")
    if _cache_off():
        def uncached_render(self: Page, config: MkDocsConfig, files) -> None:
            _take_early(self, render, config, files, keeps_title)

        page.render = uncached_render.__get__(page, Page)
        return page
    key, path = _entry(page, config)
    _Build.used.add(key)

    def cached_render(self: Page, config: MkDocsConfig, files) -> None:
        try:
            stored = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            stored = None
        if stored is not None:
            log.debug("notebook %s: not executed, nothing it depends on changed", self.file.src_uri)
            self.content, self.toc = stored["content"], get_toc(stored["toc"])
            if keeps_title and stored["title"] is not None:
                self.title = stored["title"]
            return
        _take_early(self, render, config, files, keeps_title)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{key}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps({
            "content": self.content,
            "toc": _toc_tokens(list(self.toc)),
            "title": self.title if keeps_title else None,
        }), encoding="utf-8")
        os.replace(tmp, path)  # atomic: a concurrent build never reads half an entry

    page.render = cached_render.__get__(page, Page)
    return page


def on_post_build(*, config: MkDocsConfig) -> None:
    """Delete entries this build did not use: older versions of an edited notebook (MkDocs
    event). A build with the cache off used none and leaves them all."""
    if _Build.folder is not None and _Build.folder.is_dir() and not _cache_off():
        for path in _Build.folder.glob("*.json"):
            if path.stem not in _Build.used:
                path.unlink(missing_ok=True)
