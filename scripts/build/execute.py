"""The execute stage: every notebook of the site is run, and every figure drawn, before any page
is rendered.

The figures: every function of each ``snippets/<page>/figures.py``, drawn to SVG in both palettes
by a pool of worker processes into ``.cache/figures/`` (``scripts/build/figures.py``, which
explains the cache; only modules whose sources changed are drawn).

The notebooks: for each ``docs/notebooks/<name>.ipynb`` (committed without outputs) this writes
an executed copy, outputs included, to ``.cache/executed/<key>/notebooks/<name>.ipynb``. The build
(``scripts/build/execute_stage.py``) calls :func:`run` at the start of every ``mkdocs build``
and ``mkdocs serve`` rebuild and hands these copies to mkdocs-jupyter, which renders them without
running anything (``execute: false`` in ``mkdocs.yml``); the figures join the site as files.
``python -m scripts execute`` runs it alone (``scripts/commands/stage.py``).

The key of a copy is the sha256 of everything its outputs can depend on: the notebook, every file
under the ``data/`` folder beside it (what it reads; it runs with ``docs/notebooks/`` as its
working directory), its kernel's command line, :data:`SETTINGS` and the environment (the Python
version and every installed package's version). A copy whose key is on disk is reused, so
``mkdocs serve`` shows an edit to another page without running a kernel; ``rm -rf .cache``
forgets them all.

How a notebook runs (nbclient, the library nbconvert and mkdocs-jupyter use): each in its own
kernel, all at once (the kernels are processes; the threads here only wait on them), with

* no cell allowed to fail: a failing cell raises :class:`NotebookFailed`, naming the notebook and
  the cell's error, and nothing is written for that notebook;
* one output per stream per cell (``coalesce_streams``): the kernel sends printed text in chunks
  as its buffer is flushed, so where a chunk ends depends on timing, and unmerged chunks would
  make two builds of the same notebook differ;
* no execution timestamps in the copy (``record_timing``), for the same reason;
* the kernel reached over Unix domain sockets in Jupyter's runtime folder, which only this user
  can open, instead of TCP on 127.0.0.1, where ipykernel warns at every start that its messages
  travel unencrypted (and the build's log must stay clean).
"""

from __future__ import annotations

import hashlib
import json
import os
import uuid
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from scripts import ROOT
from scripts.build.cache import Store, environment_fingerprint
from scripts.build.figures import draw_stale

#: Where executed copies are kept, relative to the project.
CACHE_DIR = Path(".cache") / "executed"
#: How notebooks are run; part of every key, so changing one runs every notebook again.
SETTINGS = {"format": "executed-1", "timeout_s": 600, "coalesce_streams": True,
            "record_timing": False, "allow_errors": False, "transport": "ipc"}


class NotebookFailed(RuntimeError):
    """A notebook could not be read, a cell raised, or its kernel could not start; the message
    starts with the notebook's file name (``<name>.ipynb``) and ends with the error."""


def notebooks(docs: Path) -> list[Path]:
    """Every notebook of the site: each ``.ipynb`` file under ``docs`` (the folder of the pages),
    sorted, Jupyter's ``.ipynb_checkpoints`` folders left out."""
    return sorted(p for p in docs.rglob("*.ipynb") if ".ipynb_checkpoints" not in p.parts)


def _kernel_name(notebook: Path) -> str:
    """The kernel ``notebook`` asks for (``python3`` if it names none). Raises
    :class:`NotebookFailed` naming the file when it is not a notebook's JSON."""
    try:
        meta = json.loads(notebook.read_text(encoding="utf-8")).get("metadata", {})
    except (ValueError, AttributeError) as error:
        raise NotebookFailed(f"{notebook.name}: not a notebook ({error})") from None
    return meta.get("kernelspec", {}).get("name", "python3")


def kernel_command(name: str) -> str:
    """The command line of kernel ``name`` (from its kernel spec), or '' if there is none."""
    from jupyter_client.kernelspec import KernelSpecManager, NoSuchKernel

    try:
        return json.dumps(KernelSpecManager().get_kernel_spec(name).argv)
    except NoSuchKernel:
        return ""


def notebook_key(notebook: Path) -> str:
    """The key of ``notebook``'s executed copy: sha256 (hex) of the notebook, its ``data/`` files,
    its kernel's command line, :data:`SETTINGS` and :func:`environment_fingerprint`."""
    h = hashlib.sha256(json.dumps(SETTINGS, sort_keys=True).encode() + b"\0")
    h.update(environment_fingerprint().encode() + b"\0")
    h.update(kernel_command(_kernel_name(notebook)).encode() + b"\0")
    h.update(notebook.read_bytes() + b"\0")
    data = notebook.parent / "data"
    for path in sorted(data.rglob("*")) if data.is_dir() else []:
        if path.is_file():
            h.update(path.relative_to(data).as_posix().encode() + b"\0" + path.read_bytes())
    return h.hexdigest()


def executed(source: Path, key: str = "") -> bytes:
    """Run ``source`` (an ``.ipynb`` file) in a fresh kernel, in its own folder; return it with its
    outputs (the bytes ``nbformat.write`` writes), with ``key`` in its metadata (``execute_key``):
    mkdocs-jupyter's cache keys on the copy's bytes, so a new environment, which changes the key,
    renders the page anew even when the outputs are the same.
    Raises :class:`NotebookFailed` if a cell raises or the kernel cannot start.
    """
    import nbformat
    from jupyter_core.paths import jupyter_runtime_dir
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError
    from traitlets.config import Config

    name = _kernel_name(source)  # raises NotebookFailed for a file that is no notebook
    nb = nbformat.read(source, as_version=4)
    runtime = jupyter_runtime_dir()
    os.makedirs(runtime, mode=0o700, exist_ok=True)
    # The kernel's sockets are files named after this process and a random id: concurrent builds
    # never share one, and the kernel deletes them when it stops.
    sockets = os.path.join(runtime, f"build-{os.getpid()}-{uuid.uuid4().hex[:8]}")
    kernel = Config({"KernelManager": {"transport": SETTINGS["transport"], "ip": sockets}})
    client = NotebookClient(
        nb, config=kernel, kernel_name=name, timeout=SETTINGS["timeout_s"],
        allow_errors=SETTINGS["allow_errors"], coalesce_streams=SETTINGS["coalesce_streams"],
        record_timing=SETTINGS["record_timing"],
        resources={"metadata": {"path": str(source.parent)}},
    )
    try:
        client.execute()
    except CellExecutionError as error:
        failed = next((c for c in nb.cells if any(o.get("output_type") == "error"
                                                  for o in c.get("outputs", []))), None)
        code = f"\n{failed.source}\n" if failed is not None else "\n"
        raise NotebookFailed(f"{source.name}: this cell raised {error.ename}: {error.evalue}"
                             f"{code}") from None
    except Exception as error:  # the kernel did not start, or died
        raise NotebookFailed(f"{source.name}: {type(error).__name__}: {error}") from error
    if key:
        nb.metadata["execute_key"] = key
    text = nbformat.writes(nb)
    return (text if text.endswith("\n") else text + "\n").encode()  # as nbformat.write writes


def execute_notebook(source: Path, target: Path, key: str = "") -> None:
    """:func:`executed` of ``source``, written to ``target`` atomically (a concurrent reader never
    sees half a file). Raises :class:`NotebookFailed` as :func:`executed` does."""
    content = executed(source, key)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    tmp.write_bytes(content)
    os.replace(tmp, target)


#: Bumped when what an article's download holds changes without a change to the code below.
ARTICLES_FORMAT = "articles-2"
#: The code that turns a page into its download: part of every article's key.
CONVERTER = ["scripts/build/article_notebooks.py", "scripts/build/article_downloads.py"]
def converter_digest(root: Path) -> str:
    """sha256 (hex) of :data:`ARTICLES_FORMAT`, the environment and the :data:`CONVERTER`
    files of ``root``."""
    h = hashlib.sha256(f"{ARTICLES_FORMAT}\n{environment_fingerprint()}\n".encode())
    for rel in CONVERTER:
        h.update(rel.encode() + b"\0" + (root / rel).read_bytes() + b"\0")
    return h.hexdigest()


def article_downloads(root: Path, pages: list[str], site_url: str) -> dict[str, Path]:
    """Make each article's download (``scripts/build/article_downloads.py``: the article as a
    notebook, zipped with the files it reads, if any) unless it is kept already; return, for each
    page (``lookup-tables.md``), the folder holding its download file.

    Kept in ``.cache/articles/<key>/``, the key being the sha256 of the page, what it includes,
    everything under ``snippets/``, ``site_url`` (the notebook links back to the page), the
    converter's code (:data:`CONVERTER`) and the environment. Raises
    ``mkdocs.exceptions.PluginError`` when a page cannot be converted.
    """
    from scripts.build.article_downloads import converted_now, sources_digest  # noqa: I001

    found, converter = {}, converter_digest(root) if pages else ""
    store = Store(root, "articles")
    for page in pages:
        digest = hashlib.sha256(
            f"{sources_digest(root, page)}\n{site_url}\n{converter}".encode()).hexdigest()
        found[page] = store.get(digest) or store.put(digest, converted_now(page, site_url, root))
    return found


@dataclass
class Made:
    """What the stage made. ``notebooks``: for each notebook's path relative to ``docs/``
    (``notebooks/<name>.ipynb``), the folder its executed copy sits under (the copy is
    ``<folder>/notebooks/<name>.ipynb``) and whether it was executed now (``False``: reused).
    ``articles``: for each article page, the folder holding its download. ``figures``: every
    figure module's plan (:class:`scripts.build.figures.ScriptPlan`), drawn into
    ``.cache/figures/``."""

    notebooks: dict[str, tuple[Path, bool]]
    articles: dict[str, Path]
    figures: list = field(default_factory=list)


def run(root: Path = ROOT, folder: Path | None = None, docs: Path | None = None,
        articles: tuple[str, ...] = (), site_url: str = "/") -> Made:
    """Draw every stale figure, make every article's download (:func:`article_downloads` of
    ``articles``) and make sure every notebook of the site has an executed copy, all at the same
    time (see :class:`Made` for what it returns).

    ``folder`` is where copies are kept, ``<root>/.cache/executed`` by default, one subfolder per
    key; ``docs`` is the folder of the pages, ``<root>/docs`` by default. The stale notebooks
    run at the same time, each in its own kernel. Raises :class:`NotebookFailed` for the first
    failing notebook (in name order), after all have run, and ``mkdocs.exceptions.PluginError``
    for a failing figure module (:func:`scripts.build.figures.draw_stale`).
    """
    store = Store(root, "executed", folder)
    docs = docs if docs is not None else root / "docs"
    plan = {}
    for notebook in notebooks(docs):
        uri = notebook.relative_to(docs).as_posix()
        plan[uri] = (notebook, notebook_key(notebook))
    stale = {uri: (nb, key) for uri, (nb, key) in plan.items() if store.get(key) is None}
    with ThreadPoolExecutor(max_workers=2 + len(stale), thread_name_prefix="execute") as pool:
        figures = pool.submit(draw_stale, root)
        downloads = pool.submit(article_downloads, root, list(articles), site_url)
        running = {uri: pool.submit(executed, nb, key) for uri, (nb, key) in stale.items()}
    for uri in sorted(running):
        store.put(stale[uri][1], {uri: running[uri].result()})  # raises NotebookFailed
    return Made({uri: (store.path(key), uri in stale) for uri, (nb, key) in plan.items()},
                downloads.result(), figures.result())
