"""Build steps: every page's figure functions drawn to SVG, before the pages render.

A page's figures live beside its snippets: for each module ``snippets/<page_pkg>/figures.py``
every function listed in its ``__all__`` is called once per theme in
``snippets.figure_style.THEMES`` and added to the site as
``figures/<page>/<function>-<theme>.svg`` (``<page>`` is the package name with ``-`` for ``_``,
the page's file name) with MkDocs 1.6 ``File.generated``. Nothing is written into ``docs/``
(writing there would make ``mkdocs serve`` rebuild in a loop) and nothing generated is committed.
A page shows a figure with Material's palette suffixes::

    ![alt text](figures/lookup-tables/onehot_selects_rows-light.svg#only-light)
    ![alt text](figures/lookup-tables/onehot_selects_rows-dark.svg#only-dark)

Timing. The execute stage (``scripts/build/execute.py``), before any page renders, calls
:func:`draw_stale`: it reads each figure module's ``__all__`` from its source (``ast``, nothing
imported) and hands the modules not yet drawn to a pool of worker processes, one module per
task, one worker per core, while the notebooks run in their kernels. The workers fork from a
server process that has already imported what the figure modules import (torch, matplotlib), so
that cost is paid once, and the pool outlives a build, so ``mkdocs serve`` redraws an edited
module without starting one. Rendering only reads: the execute stage's ``on_files``
(``scripts/build/execute_stage.py``) adds every stored SVG to the site's files, by path.

Cache. A module's SVGs are one entry of the build's cache (:mod:`scripts.build.cache`, kind
``figures``), ``<key>/figures/<page>/<name>-<theme>.svg``, which the site's files point at. The key
is the sha256 of the module's source, of every other file under ``snippets/`` except the other
pages' figure modules (helpers, snippets and data files a figure can read), and of
:func:`environment_fingerprint`. So editing a page redraws nothing, editing one figure module
redraws that module's figures, and editing a helper, a snippet or a data file, or upgrading a
package, redraws them all.

A figure module that fails to import or draw aborts the build with a ``PluginError`` naming the
module and the function; so does an ``__all__`` that is missing or not a list of names.
"""

from __future__ import annotations

import ast
import hashlib
import importlib
import importlib.machinery
import importlib.util
import logging
import multiprocessing
import os
import sys
import threading
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from mkdocs.exceptions import PluginError

from scripts.build.cache import Store, environment_fingerprint

STYLE_MODULE = "snippets.figure_style"
#: The module the pool's server process imports before forking the workers (this file).
WORKER_MODULE = "scripts.build.figures"
#: Where drawn figures are kept between builds, relative to the project (mkdocs.yml's folder).
CACHE_DIR = Path(".cache") / "figures"
#: Bumped when the cache's file format or the drawing code here changes what is stored.
CACHE_FORMAT = "figures-1"

log = logging.getLogger("mkdocs.hooks.figures")


@dataclass
class ScriptPlan:
    """One figure module: its path relative to the project (``snippets/x/figures.py``), its
    package (``x``), its page's slug (``x`` with ``-`` for ``_``), cache key and function names."""

    rel: str
    package: str
    page: str
    key: str
    names: list[str] = field(default_factory=list)


def page_slug(package: str) -> str:
    """The page a snippets package belongs to: ``lookup_tables`` -> ``lookup-tables``."""
    return package.replace("_", "-")


def figure_scripts(root: Path) -> list[Path]:
    """Every page's figure module, ``snippets/<page_pkg>/figures.py``, sorted."""
    return sorted((root / "snippets").glob("*/figures.py"))


def _cache_keys(root: Path, scripts: list[Path]) -> dict[Path, str]:
    """One key per figure script: sha256 of its source, of every other non-figure file under
    ``snippets/`` (so a change to a helper or a data file invalidates every figure) and of the
    environment (:func:`environment_fingerprint`)."""
    shared = hashlib.sha256(f"{CACHE_FORMAT}\n{environment_fingerprint()}\n".encode())
    for path in sorted((root / "snippets").rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts and path not in scripts:
            shared.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes())
    base = shared.hexdigest()
    return {s: hashlib.sha256(base.encode() + s.read_bytes()).hexdigest() for s in scripts}


def declared_names(script: Path, rel: str) -> list[str]:
    """The names in the module-level ``__all__ = [...]`` of ``script``, read without importing it.

    Raises ``PluginError`` naming ``rel`` when the file does not parse or ``__all__`` is missing,
    empty or not a literal list (or tuple) of strings.
    """
    try:
        tree = ast.parse(script.read_bytes(), filename=rel)
    except SyntaxError as exc:
        raise PluginError(f"figure script {rel} failed to import: SyntaxError: {exc}") from exc
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else (
            [node.target] if isinstance(node, ast.AnnAssign) and node.value else [])
        if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
            try:
                names = ast.literal_eval(node.value)
            except ValueError:
                names = None
            if not isinstance(names, list | tuple) or not all(isinstance(n, str) for n in names):
                raise PluginError(
                    f"figure script {rel}: __all__ must be a list of names written out, so "
                    "that the build knows the figures' file names before drawing them"
                )
            if names:
                return list(names)
    raise PluginError(f"figure script {rel} has no __all__ listing its figure functions")


def _third_party_imports(scripts: list[Path]) -> list[str]:
    """Top-level modules the figure modules import, other than the project's ``snippets``.

    What the worker pool's server process imports once, before forking the workers.
    """
    found = {"matplotlib.pyplot"}
    for script in scripts:
        try:
            tree = ast.parse(script.read_bytes())
        except SyntaxError:
            continue
        for node in tree.body:
            if isinstance(node, ast.Import):
                found.update(a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                found.add(node.module)
    return sorted(m for m in found if m.split(".")[0] not in ("snippets", "__future__"))


def plan_figures(root: Path) -> list[ScriptPlan]:
    """List every figure module's functions and cache key, without importing or drawing anything.

    Raises ``PluginError`` naming the module when its ``__all__`` cannot be read, or when it
    exports a name that another figure module exports too.
    """
    scripts = figure_scripts(root)
    keys = _cache_keys(root, scripts)
    plans, owner = [], {}
    for script in scripts:
        rel = script.relative_to(root).as_posix()
        package = script.parent.name
        plan = ScriptPlan(rel, package, page_slug(package), keys[script])
        for name in declared_names(script, rel):
            if name in owner:
                raise PluginError(
                    f"figure function {name!r} is defined in both {owner[name]} and {rel}"
                )
            owner[name] = rel
            plan.names.append(name)
        plans.append(plan)
    return plans


# --- drawing (runs in the pool's worker processes, or in-process for tests) -------------------


def _fresh_import(name: str, root: Path):
    """Import ``name`` from the project at ``root`` after dropping every cached module of the
    ``snippets`` package, so that an edited figure module or style is read again. The package is
    loaded from ``root/snippets`` by its path (``sys.path`` is left as it is): its modules and
    subpackages are found under it."""
    for mod in [m for m in sys.modules if m == "snippets" or m.startswith("snippets.")]:
        del sys.modules[mod]
    importlib.invalidate_caches()
    folder = root / "snippets"
    init = folder / "__init__.py"
    spec = (importlib.util.spec_from_file_location("snippets", init,
                                                   submodule_search_locations=[str(folder)])
            if init.is_file() else importlib.machinery.ModuleSpec("snippets", None,
                                                                  is_package=True))
    if spec.submodule_search_locations is not None and not init.is_file():
        spec.submodule_search_locations.append(str(folder))
    package = importlib.util.module_from_spec(spec)
    sys.modules["snippets"] = package
    if spec.loader is not None:
        spec.loader.exec_module(package)
    return importlib.import_module(name)


def draw_script(root: str, package: str, rel: str, names: list[str]) -> dict[str, bytes] | str:
    """Draw every function ``names`` of ``snippets/<package>/figures.py`` in every theme.

    Returns ``{site path: SVG bytes}``, or, when importing or drawing fails, a message naming the
    module ``rel``, the function and the theme (a string: an exception raised by a figure
    module might not survive the trip back from a worker process).
    """
    # torch.utils.benchmark (imported by a snippet) warns "No CUDA runtime is found" on a machine
    # with the CUDA compiler but no GPU: that is about building C++ extensions, which nothing
    # here does.
    logging.getLogger("torch.utils.cpp_extension").setLevel(logging.ERROR)
    project = Path(root)
    try:
        style = _fresh_import(STYLE_MODULE, project)
    except Exception as exc:  # noqa: BLE001 - reported with the helper's name
        return f"figure helper snippets/figure_style.py failed: {type(exc).__name__}: {exc}"
    try:
        module = importlib.import_module(f"snippets.{package}.figures")
    except Exception as exc:  # noqa: BLE001
        return f"figure script {rel} failed to import: {type(exc).__name__}: {exc}"
    if list(getattr(module, "__all__", [])) != list(names):
        return f"figure script {rel}: __all__ changed while it was read"
    rendered: dict[str, bytes] = {}
    for name in names:
        fn = getattr(module, name, None)
        if fn is None:
            return f"figure script {rel} lists {name!r} in __all__ but does not define it"
        for theme in style.THEMES:
            try:
                svg = style.render_svg(fn, theme)
            except Exception as exc:  # noqa: BLE001
                return (
                    f"figure script {rel}, function {name}() ({theme.name} theme) failed: "
                    f"{type(exc).__name__}: {exc}"
                )
            rendered[f"figures/{page_slug(package)}/{name}-{theme.name}.svg"] = svg
    return rendered


# --- drawing what is stale (the execute stage) -------------------------------------------------


class _Pool:
    """The worker pool, started on first use and kept for the life of the process, so that
    ``mkdocs serve`` redraws an edited module without starting one."""

    pool: ProcessPoolExecutor | None = None


def _pool(scripts: list[Path]) -> ProcessPoolExecutor:
    """The process's worker pool, started on first use: one worker per core, forked from a server
    that has imported this module and what ``scripts`` import."""
    if _Pool.pool is None:
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload([WORKER_MODULE, *_third_party_imports(scripts)])
        _Pool.pool = ProcessPoolExecutor(max_workers=max(1, os.cpu_count() or 1),
                                          mp_context=context,
                                          initializer=_exit_with,
                                          initargs=(os.getpid(),))
    return _Pool.pool


def _exit_with(pid: int) -> None:
    """In a worker: exit as soon as process ``pid`` (the build) has gone.

    A build that ends normally, or a ``mkdocs serve`` stopped with Ctrl-C, stops its workers;
    one that is killed (a test's time limit, ``kill``) would otherwise leave them waiting for
    work, each holding the modules it imported (hundreds of MB with torch).
    """
    import time

    def watch() -> None:
        while True:
            time.sleep(1)
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                os._exit(0)
            except PermissionError:  # pid reused by another user's process: ours is gone
                os._exit(0)

    threading.Thread(target=watch, name="exit-with-build", daemon=True).start()


def draw_stale(root: Path) -> list[ScriptPlan]:
    """Draw every figure module of the project at ``root`` whose SVGs are not in the cache, one
    module per task in the worker pool, and store them there; return every module's plan.

    Part of the execute stage (``scripts/build/execute.py``), which runs before any page renders.
    Raises ``PluginError`` naming the module and function when one fails.
    """
    plans = plan_figures(root)
    store = Store(root, "figures")
    todo = [plan for plan in plans if store.get(plan.key) is None]
    if not todo:
        return plans
    log.info("figures: drawing %d module(s) (%d from the cache): %s", len(todo),
             len(plans) - len(todo), ", ".join(p.rel for p in todo))
    pool = _pool(figure_scripts(root))
    running = [(plan, pool.submit(draw_script, str(root), plan.package, plan.rel, plan.names))
               for plan in todo]
    for plan, future in running:
        try:
            result = future.result()
        except Exception as exc:  # a worker died (killed, out of memory): start a new pool
            _Pool.pool = None
            raise PluginError(
                f"figure script {plan.rel}: drawing process failed: {type(exc).__name__}: {exc}"
            ) from exc
        if isinstance(result, str):
            raise PluginError(result)
        store.put(plan.key, result)
    return plans
