"""The execute stage: every notebook of the site executed, every figure drawn and every
article's download made, before any page is rendered (``execute_stage.on_files`` runs it at every
``mkdocs build`` and ``mkdocs serve`` rebuild; ``python -m scripts execute`` runs it alone).

Each is a job (:data:`Job`) whose output is kept in the build's cache (:mod:`scripts.hooks.cache`)
under a key of everything it can depend on; only the stale ones run, at the same time:

* the figures: every function of each ``snippets/<page>/figures.py`` (its ``__all__``), drawn to
  SVG in both palettes, in a pool of worker processes, one per core (:func:`figure_jobs`,
  :func:`draw`). A module is keyed by its source and every other file under ``snippets/`` (the
  other figure modules aside), so editing one redraws that one; a function that raises fails the
  build naming the module and the function;
* the notebooks: each ``docs/**/<name>.ipynb`` (committed without outputs) executed into a copy,
  outputs included, in a thread that waits on its own kernel (:func:`executed`). The key: the
  notebook, every file of the ``data/`` folder beside it (it runs with its own folder as its
  working directory), its kernel's command line and :data:`SETTINGS`. mkdocs-jupyter renders the
  copy without running anything (``execute: false`` in ``mkdocs.yml``); a failing cell fails the
  build with :class:`NotebookFailed`, naming the notebook and the cell;
* the articles' downloads (:mod:`scripts.hooks.article_notebooks`), one after another in the
  stage's own thread: markdown-it-py's link encoder keeps a cache without a lock.

How a notebook runs (nbclient, the library nbconvert and mkdocs-jupyter use), :data:`SETTINGS`:
no cell may fail; one output per stream per cell (the kernel sends printed text in chunks as its
buffer is flushed, so unmerged chunks would make two builds differ); no execution timestamps;
the kernel reached over Unix domain sockets in Jupyter's runtime folder, which only this user can
open (over TCP ipykernel warns at every start that its messages travel unencrypted, and the
build's log must stay clean); the kernel killed when its cells are done.

Nothing is written into ``docs/``; the result does not depend on the order the jobs end in.
"""

from __future__ import annotations

import ast
import importlib.util
import json
import logging
import multiprocessing
import os
import sys
import threading
import time
import uuid
from collections import namedtuple
from concurrent.futures import BrokenExecutor, ProcessPoolExecutor, ThreadPoolExecutor
from pathlib import Path

import nbformat
from jupyter_client.kernelspec import KernelSpecManager, NoSuchKernel
from jupyter_core.paths import jupyter_runtime_dir
from mkdocs.exceptions import PluginError
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError
from traitlets.config import Config

from scripts import ROOT
from scripts.hooks import article_notebooks
from scripts.hooks.cache import contents, get, key, prune, put

log = logging.getLogger("mkdocs.hooks.execute")
#: How notebooks run (nbclient), part of their keys: one output per stream (chunks depend on
#: timing), no timestamps, Unix sockets (no TCP warning), the kernel killed when done (a graceful
#: shutdown can race in ipykernel 7.4 and print an ENOTSOCK traceback into the build's log).
SETTINGS = {
    "format": "executed-1",
    "timeout_s": 600,
    "coalesce_streams": True,
    "transport": "ipc",
    "record_timing": False,
    "allow_errors": False,
    "shutdown_kernel": "immediate",
}


class NotebookFailed(PluginError):
    """A notebook is no notebook's JSON, a cell raised or its kernel failed; the message names
    the notebook (``notebook <name>.ipynb: …``) and ends with the failing cell's code."""


#: A job: its entry's ``kind`` and ``key``, its ``name`` (a notebook's, module's or page's path)
#: and ``make(*args)``, the entry's files (path -> bytes; bytes alone: filed under ``name``).
Job = namedtuple("Job", "kind key name make args")


def notebook_key(notebook: Path) -> str:
    """The cache key of ``notebook``, the files of ``data/`` beside it, its kernel's command line
    and :data:`SETTINGS`. Raises :class:`NotebookFailed` when it is no notebook's JSON."""
    try:
        kernel = json.loads(notebook.read_bytes())["metadata"].get("kernelspec", {})
    except (ValueError, KeyError, AttributeError) as error:
        raise NotebookFailed(f"notebook {notebook.name}: not a notebook ({error})") from None
    try:
        argv = KernelSpecManager().get_kernel_spec(kernel.get("name", "python3")).argv
    except NoSuchKernel:
        argv = []
    files = [notebook, *(notebook.parent / "data").rglob("*")]
    return key(
        json.dumps(SETTINGS, sort_keys=True), json.dumps(argv), *contents(notebook.parent, files)
    )


def executed(source: Path, key: str = "") -> bytes:
    """Run ``source`` (an ``.ipynb`` file) in a fresh kernel, in its own folder, with
    :data:`SETTINGS`; return it with its outputs (the bytes ``nbformat`` writes, one trailing
    newline), with ``key`` in its metadata (``execute_key``): mkdocs-jupyter's cache keys on the
    copy's bytes, so a new environment, which changes the key, renders the page anew even when
    the outputs are the same. Raises :class:`NotebookFailed` if a cell raises or the kernel
    cannot start."""
    nb = nbformat.read(source, as_version=4)
    os.makedirs(runtime := jupyter_runtime_dir(), mode=0o700, exist_ok=True)
    sockets = os.path.join(runtime, f"build-{os.getpid()}-{uuid.uuid4().hex[:8]}")
    client = NotebookClient(
        nb,
        config=Config({"KernelManager": {"transport": SETTINGS["transport"], "ip": sockets}}),
        kernel_name=nb.metadata.get("kernelspec", {}).get("name", "python3"),
        timeout=SETTINGS["timeout_s"],
        resources={"metadata": {"path": str(source.parent)}},
        **{k: v for k, v in SETTINGS.items() if k in NotebookClient.class_trait_names()},
    )
    try:
        client.execute()
    except Exception as error:  # a cell raised, or the kernel did not start or died
        what = (
            f"this cell raised {error.ename}: {error.evalue}"
            if isinstance(error, CellExecutionError)
            else f"{type(error).__name__}: {error}"
        )
        cell = next(
            (
                c.source
                for c in nb.cells
                if any(o.get("output_type") == "error" for o in c.get("outputs", []))
            ),
            "",
        )
        raise NotebookFailed(f"notebook {source.name}: {what}\n{cell}\n") from None
    nb.metadata["execute_key"] = key
    return (nbformat.writes(nb).rstrip("\n") + "\n").encode()


def declared_names(script: Path, rel: str) -> list[str]:
    """The names of ``script``'s ``__all__``, read without importing it. Raises ``PluginError``
    naming ``rel`` if it does not parse, or ``__all__`` is missing or not names written out."""
    try:
        tree = ast.parse(script.read_bytes(), filename=rel)
    except SyntaxError as exc:
        raise PluginError(f"figure script {rel} failed to import: SyntaxError: {exc}") from None
    values = [
        n.value
        for n in tree.body
        if isinstance(n, ast.Assign) and "__all__" in [getattr(t, "id", None) for t in n.targets]
    ]
    if not values:
        raise PluginError(f"figure script {rel} has no __all__ listing its figure functions")
    names = values[0].elts if isinstance(values[0], ast.List | ast.Tuple) else []
    if names and all(isinstance(n, ast.Constant) and isinstance(n.value, str) for n in names):
        return [n.value for n in names]
    raise PluginError(
        f"figure script {rel}: __all__ must be a list of names written out, so "
        "that the build knows the figures' file names before drawing them"
    )


def figure_jobs(root: Path) -> list[Job]:
    """A job per ``snippets/<page_pkg>/figures.py``, keyed by its source and every other file
    under ``snippets/`` but the other figure modules, and a format bumped when drawing changes."""
    scripts = sorted((root / "snippets").glob("*/figures.py"))
    shared = key("figures-2", *contents(root, set(root.glob("snippets/**/*")) - set(scripts)))
    return [
        Job(
            "figures",
            key(shared, script.read_bytes()),
            rel,
            draw,
            (script.parent.name, rel, tuple(declared_names(script, rel))),
        )
        for script in scripts
        for rel in [script.relative_to(root).as_posix()]
    ]


def draw(package: str, rel: str, names: tuple[str, ...]) -> dict[str, bytes]:
    """Each function ``names`` of ``snippets.<package>.figures`` in each theme, as SVG at
    ``figures/<package, - for _>/<name>-<theme>.svg``. Raises ``PluginError`` naming ``rel``."""
    try:
        style = importlib.import_module("snippets.figure_style")
        module = importlib.import_module(f"snippets.{package}.figures")
    except Exception as exc:  # noqa: BLE001 - reported with the module's name
        raise PluginError(
            f"figure script {rel} failed to import: {type(exc).__name__}: {exc}"
        ) from None
    drawn = {}
    for name in names:
        for theme in style.THEMES:
            try:
                svg = style.render_svg(getattr(module, name), theme)
            except Exception as exc:  # noqa: BLE001
                raise PluginError(
                    f"figure script {rel}, function {name}() ({theme.name} theme) "
                    f"failed: {type(exc).__name__}: {exc}"
                ) from None
            drawn[f"figures/{package.replace('_', '-')}/{name}-{theme.name}.svg"] = svg
    return drawn


def _worker(root: str, build: int) -> None:
    """The start of each figure worker process (``ProcessPoolExecutor``'s initializer).

    It imports the package ``snippets`` from ``root`` (a test's made-up project has its own, which
    must win over the one on ``sys.path``), and turns off torch's warning about a missing CUDA
    compiler, which importing a figure module may print. It then starts a thread that checks once
    a second whether the build's process (``build``, its pid) still exists, and exits the worker
    when it does not: a build killed (Ctrl-C in ``mkdocs serve``, a test's timeout) leaves no
    worker behind, holding a core."""
    if (init := Path(root, "snippets", "__init__.py")).is_file():
        spec = importlib.util.spec_from_file_location("snippets", init)
        sys.modules["snippets"] = package = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(package)
    logging.getLogger("torch.utils.cpp_extension").setLevel(logging.ERROR)

    def watch() -> None:
        try:
            while True:
                time.sleep(1)
                os.kill(build, 0)  # signal 0: raises OSError once the build's process is gone
        finally:
            os._exit(0)

    threading.Thread(target=watch, daemon=True).start()


def run(
    root: Path = ROOT,
    docs: Path | None = None,
    articles: tuple[str, ...] = (),
    site_url: str = "/",
    cache: Path | None = None,
) -> list[tuple[Job, Path, bool]]:
    """Run every stale job (the notebooks under ``docs``, ``<root>/docs`` by default; the figure
    modules; the downloads of ``articles``) into ``cache`` (``<root>/.cache``) and prune it.
    Returns each job, its entry's folder and whether it ran now. Raises ``PluginError``."""
    docs, cache = docs or root / "docs", cache or root / ".cache"
    jobs = [
        Job("executed", k, nb.relative_to(docs).as_posix(), executed, (nb, k))
        for nb in sorted(docs.rglob("*.ipynb"))
        if ".ipynb_checkpoints" not in nb.parts
        for k in [notebook_key(nb)]
    ]
    jobs += figure_jobs(root) + [
        Job(
            "articles",
            article_notebooks.article_key(root, page, site_url),
            page,
            article_notebooks.converted,
            (page, site_url, root),
        )
        for page in articles
    ]
    made = [get(cache / job.kind, job.key) for job in jobs]
    stale = [n for n, entry in enumerate(made) if entry is None]
    if figures := [jobs[n].name for n in stale if jobs[n].kind == "figures"]:
        log.info(
            "figures: drawing %d module(s) (%d from the cache): %s",
            len(figures),
            sum(job.kind == "figures" for job in jobs) - len(figures),
            ", ".join(figures),
        )
    if stale:  # figures in worker processes, notebooks in threads; articles here, one at a time:
        # markdown-it-py's link encoder (mdurl) has a cache without a lock (IndexError in threads)
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(["scripts.hooks.execute", "matplotlib.pyplot", "torch"])
        with (
            ThreadPoolExecutor(len(stale)) as threads,
            ProcessPoolExecutor(os.cpu_count(), context, _worker, (str(root), os.getpid())) as pool,
        ):
            futures = {
                n: (pool if jobs[n].kind == "figures" else threads).submit(
                    jobs[n].make, *jobs[n].args
                )
                for n in stale
                if jobs[n].kind != "articles"
            }
            results = {n: jobs[n].make(*jobs[n].args) for n in stale if jobs[n].kind == "articles"}
            for n, future in futures.items():
                try:
                    results[n] = future.result()
                except BrokenExecutor:
                    raise PluginError(f"{jobs[n].name}: its worker process died") from None
        for n, files in results.items():
            files = {jobs[n].name: files} if isinstance(files, bytes) else files
            made[n] = put(cache / jobs[n].kind, jobs[n].key, files)
    for kind in ("executed", "figures", "articles"):
        prune(cache / kind, {job.key for job in jobs if job.kind == kind} | {"rendered"})
    return [(job, made[n], n in stale) for n, job in enumerate(jobs)]
