"""The execute stage: every notebook of the site is run, and every figure drawn, before any page
is rendered.

The figures: every function of each ``snippets/<page>/figures.py``, drawn to SVG in both palettes
by a pool of worker processes into ``.cache/figures/`` (``scripts/hooks/figures.py``, which
explains the cache; only modules whose sources changed are drawn).

The notebooks: for each ``docs/notebooks/<name>.ipynb`` (committed without outputs) this writes
an executed copy, outputs included, to ``.cache/executed/<key>/notebooks/<name>.ipynb``. The build
(``scripts/hooks/execute_stage.py``) calls :func:`run` at the start of every ``mkdocs build``
and ``mkdocs serve`` rebuild and hands these copies to mkdocs-jupyter, which renders them without
running anything (``execute: false`` in ``mkdocs.yml``); the figures join the site as files.
Run it alone to execute what is stale::

    python -m scripts.execute          # prints each notebook, executed or reused, and its copy

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

import argparse
import functools
import hashlib
import importlib.metadata
import json
import os
import shutil
import sys
import sysconfig
import tempfile
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from scripts import ROOT

#: Where executed copies are kept, relative to the project.
CACHE_DIR = Path(".cache") / "executed"
#: How notebooks are run; part of every key, so changing one runs every notebook again.
SETTINGS = {"format": "executed-1", "timeout_s": 600, "coalesce_streams": True,
            "record_timing": False, "allow_errors": False, "transport": "ipc"}


class NotebookFailed(RuntimeError):
    """A notebook could not be read, a cell raised, or its kernel could not start; the message
    starts with the notebook's file name (``<name>.ipynb``) and ends with the error."""


@functools.cache
def environment_fingerprint() -> str:
    """The Python version and every distribution installed in this environment's
    ``site-packages`` (``sysconfig``'s purelib and platlib), as ``name==version``, one per line,
    each once.

    Part of every cache key (executed notebooks here, figures in ``scripts/hooks/figures.py``): a
    new pin of torch, matplotlib or anything else can change what a cell or a figure shows. Read
    once per process (a ``mkdocs serve`` started before a ``pip install`` keeps the old value).
    Only ``site-packages`` is read, not ``sys.path``: the same in every process of the
    environment. (``sys.path`` gave other keys in some: started in the project's folder, it holds
    the editable install's ``embedding_executed.egg-info``; once setuptools is imported, it holds
    the distributions setuptools vendors.)
    """
    paths = sorted({sysconfig.get_paths()[kind] for kind in ("purelib", "platlib")})
    dists = sorted({
        f"{d.metadata['Name']}=={d.version}".lower()
        for d in importlib.metadata.distributions(path=paths)
        if d.metadata["Name"]
    })
    return "\n".join([sys.version, *dists])


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


def execute_notebook(source: Path, target: Path, key: str = "") -> None:
    """Run ``source`` (an ``.ipynb`` file) in a fresh kernel, in its own folder, and write it with
    its outputs to ``target`` (atomically: a concurrent reader never sees half a file), with
    ``key`` in its metadata (``execute_key``): mkdocs-jupyter's cache keys on the copy's bytes,
    so a new environment, which changes the key, renders the page anew even when the outputs
    are the same.

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
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    nbformat.write(nb, tmp)
    os.replace(tmp, target)


#: Where each article's download (its notebook, or a zip of it and the files it reads) is kept.
ARTICLES_DIR = Path(".cache") / "articles"
#: Bumped when what an article's download holds changes without a change to the code below.
ARTICLES_FORMAT = "articles-2"
#: The code that turns a page into its download: part of every article's key.
CONVERTER = ["scripts/build/article_notebooks.py", "scripts/build/article_downloads.py"]
#: An unused entry of a cache folder is deleted only when it is older than this (seconds): a
#: concurrent build (``mkdocs serve`` beside the tests) may be about to read it.
PRUNE_AFTER_S = 3600


def converter_digest(root: Path) -> str:
    """sha256 (hex) of :data:`ARTICLES_FORMAT`, the environment and the :data:`CONVERTER`
    files of ``root``."""
    h = hashlib.sha256(f"{ARTICLES_FORMAT}\n{environment_fingerprint()}\n".encode())
    for rel in CONVERTER:
        h.update(rel.encode() + b"\0" + (root / rel).read_bytes() + b"\0")
    return h.hexdigest()


def article_downloads(root: Path, pages: list[str], site_url: str) -> dict[str, Path]:
    """Make each article's download (``scripts/hooks/article_notebooks.py``: the article as a
    notebook, zipped with the files it reads, if any) unless it is kept already; return, for each
    page (``lookup-tables.md``), the folder holding its download file.

    Kept in ``.cache/articles/<key>/``, the key being the sha256 of the page, what it includes,
    everything under ``snippets/``, ``site_url`` (the notebook links back to the page), the
    converter's code (:data:`CONVERTER`) and the environment. Raises
    ``mkdocs.exceptions.PluginError`` when a page cannot be converted.
    """
    from scripts.build.article_downloads import converted_now, sources_digest

    found, converter = {}, converter_digest(root) if pages else ""
    for page in pages:
        digest = hashlib.sha256(
            f"{sources_digest(root, page)}\n{site_url}\n{converter}".encode()).hexdigest()
        folder = root / ARTICLES_DIR / digest
        if not folder.is_dir():
            tmp = folder.with_name(f".{digest}.{os.getpid()}.tmp")
            tmp.mkdir(parents=True, exist_ok=True)
            try:
                for name, content in converted_now(page, site_url, root).items():
                    (tmp / name).write_bytes(content)
                os.replace(tmp, folder)  # atomic: a concurrent build never sees half a folder
            except OSError:
                pass  # a concurrent build made it first
            finally:
                shutil.rmtree(tmp, ignore_errors=True)  # gone if it became the folder
        os.utime(folder)  # in use: see prune()
        found[page] = folder
    return found


@dataclass
class Made:
    """What the stage made. ``notebooks``: for each notebook's path relative to ``docs/``
    (``notebooks/<name>.ipynb``), the folder its executed copy sits under (the copy is
    ``<folder>/notebooks/<name>.ipynb``) and whether it was executed now (``False``: reused).
    ``articles``: for each article page, the folder holding its download. The figures are in
    ``.cache/figures/`` (``scripts/hooks/figures.py``)."""

    notebooks: dict[str, tuple[Path, bool]]
    articles: dict[str, Path]


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
    from scripts.build.figures import draw_stale

    folder = folder if folder is not None else root / CACHE_DIR
    docs = docs if docs is not None else root / "docs"
    plan = {}
    for notebook in notebooks(docs):
        uri = notebook.relative_to(docs).as_posix()
        plan[uri] = (notebook, folder / notebook_key(notebook))
    stale = {uri: (nb, base) for uri, (nb, base) in plan.items() if not (base / uri).is_file()}
    with ThreadPoolExecutor(max_workers=2 + len(stale), thread_name_prefix="execute") as pool:
        figures = pool.submit(draw_stale, root)
        downloads = pool.submit(article_downloads, root, list(articles), site_url)
        running = {uri: pool.submit(execute_notebook, nb, base / uri, base.name)
                   for uri, (nb, base) in stale.items()}
    for uri in sorted(running):
        running[uri].result()  # raises NotebookFailed
    for _, base in plan.values():
        if base.is_dir():
            os.utime(base)  # in use: see prune()
    figures.result()
    return Made({uri: (base, uri in stale) for uri, (nb, base) in plan.items()},
                downloads.result())


def prune(folder: Path, keep: set[Path]) -> None:
    """Delete the key folders under ``folder`` that are not in ``keep`` (older copies of edited
    notebooks or articles) and that no build has used for :data:`PRUNE_AFTER_S` seconds (each
    build touches what it uses; a concurrent build, ``mkdocs serve`` beside ``pytest``, keys
    its site differently and may be about to read its own). A folder another build is still
    writing (``.<key>.<pid>.tmp``) is left alone."""
    now = time.time()
    for path in folder.iterdir() if folder.is_dir() else []:
        if (path.is_dir() and path not in keep and not path.name.startswith(".")
                and now - path.stat().st_mtime > PRUNE_AFTER_S):
            shutil.rmtree(path, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--fresh", action="store_true",
                        help="execute every notebook into a temporary folder, whatever is cached")
    args = parser.parse_args(argv)
    import yaml
    from mkdocs.exceptions import PluginError

    from scripts.checks.site import nav_pages

    config = yaml.load((ROOT / "mkdocs.yml").read_text(), Loader=yaml.BaseLoader)  # noqa: S506
    with tempfile.TemporaryDirectory() as tmp:
        try:
            made = run(ROOT, Path(tmp) if args.fresh else None, None,
                       tuple(nav_pages("Articles")), config.get("site_url") or "/")
        except (NotebookFailed, PluginError) as error:
            print(error, file=sys.stderr)
            return 1
        for uri, (base, now) in made.notebooks.items():
            where = "(temporary copy)" if args.fresh else (base / uri).relative_to(ROOT)
            print(f"{'executed' if now else 'reused  '} {uri} -> {where}")
        for page, folder in made.articles.items():
            for path in sorted(folder.iterdir()):
                print(f"download {page} -> {path.relative_to(ROOT)}")
        print(f"figures  -> {(ROOT / '.cache' / 'figures').relative_to(ROOT)}/")
    return 0


if __name__ == "__main__":
    sys.exit(main())
