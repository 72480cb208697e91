"""Build hook: render every page's figure functions to SVG at build time.

A page's figures live beside its snippets: for each module ``snippets/<page_pkg>/figures.py``
every function listed in its ``__all__`` is called once per theme in
``snippets.figure_style.THEMES`` and added to the site as
``figures/<page>/<function>-<theme>.svg`` (``<page>`` is the package name with ``-`` for ``_``,
the page's file name) with MkDocs 1.6 ``File.generated``. Nothing is written into ``docs/``
(writing there would make ``mkdocs serve`` rebuild in a loop) and nothing generated is committed.
A page shows a figure with Material's palette suffixes::

    ![alt text](figures/lookup-tables/onehot_selects_rows-light.svg#only-light)
    ![alt text](figures/lookup-tables/onehot_selects_rows-dark.svg#only-dark)

Timing: the figure modules are imported in ``on_files`` (so the site knows every figure's path
before links are validated), then drawn in a background thread while MkDocs renders the pages
and mkdocs-jupyter runs the notebooks in their kernel process; ``on_env`` waits for the thread,
before MkDocs copies files into the site. The SVGs go to a temporary folder outside ``docs/``.

A figure script that fails to import or draw aborts the build with a ``PluginError`` naming the
script and the function. Figure modules are re-imported on every build, so ``mkdocs serve``
shows an edited figure script without a restart.

Within one process (``mkdocs serve``), a figure module's SVGs are reused while nothing it could
depend on has changed: the cache key hashes the module's source together with every other file
under ``snippets/`` (data files and helpers included, other pages' figure modules excluded).
Editing a page re-renders no figure; editing a figure script re-renders that script's figures;
editing a helper, snippet or data file re-renders all of them. A fresh ``mkdocs build`` renders all.
"""

from __future__ import annotations

import hashlib
import importlib
import shutil
import sys
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files

STYLE_MODULE = "snippets.figure_style"

#: SVGs rendered earlier in this process: cache key -> {site path: SVG bytes}.
_CACHE: dict[str, dict[str, bytes]] = {}


@dataclass
class ScriptPlan:
    """One figure script: its path relative to the repository, its page's slug (``lookup-tables``),
    cache key and figure functions."""

    rel: str
    page: str
    key: str
    functions: list = field(default_factory=list)  # [(name, callable)]


def _repo_root(config: MkDocsConfig) -> Path:
    return Path(config.config_file_path).resolve().parent


def _fresh_import(name: str, root: Path):
    """Import ``name`` after dropping every cached module of the project's ``snippets`` package.

    Dropping the cache is what lets ``mkdocs serve`` pick up an edited figure script or style.
    """
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    for mod in [m for m in sys.modules if m == "snippets" or m.startswith("snippets.")]:
        del sys.modules[mod]
    importlib.invalidate_caches()
    return importlib.import_module(name)


def page_slug(package: str) -> str:
    """The page a snippets package belongs to: ``lookup_tables`` -> ``lookup-tables``."""
    return package.replace("_", "-")


def figure_scripts(root: Path) -> list[Path]:
    """Every page's figure module, ``snippets/<page_pkg>/figures.py``, sorted."""
    return sorted((root / "snippets").glob("*/figures.py"))


def _cache_keys(root: Path, scripts: list[Path]) -> dict[Path, str]:
    """One key per figure script: sha256 of its source and of every other non-figure file under
    ``snippets/`` (so a change to a helper or a data file invalidates every figure)."""
    shared = hashlib.sha256()
    for path in sorted((root / "snippets").rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts and path not in scripts:
            shared.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes())
    base = shared.hexdigest()
    return {s: hashlib.sha256(base.encode() + s.read_bytes()).hexdigest() for s in scripts}


def plan_figures(root: Path):
    """Import the figure scripts and list their functions, without drawing anything.

    Returns ``(style_module, [ScriptPlan, ...])``. Raises ``PluginError`` naming the script when
    one fails to import, has no ``__all__``, or exports a name another script exports too.
    """
    scripts = figure_scripts(root)
    keys = _cache_keys(root, scripts)
    try:
        style = _fresh_import(STYLE_MODULE, root)
    except Exception as exc:  # noqa: BLE001 - reported with the script's name
        raise PluginError(
            f"figure helper snippets/figure_style.py failed: {type(exc).__name__}: {exc}"
        ) from exc
    plans, owner = [], {}
    for script in scripts:
        rel = script.relative_to(root).as_posix()
        package = script.parent.name
        try:
            module = importlib.import_module(f"snippets.{package}.figures")
        except Exception as exc:  # noqa: BLE001
            raise PluginError(
                f"figure script {rel} failed to import: {type(exc).__name__}: {exc}"
            ) from exc
        names = getattr(module, "__all__", None)
        if not names:
            raise PluginError(f"figure script {rel} has no __all__ listing its figure functions")
        plan = ScriptPlan(rel, page_slug(package), keys[script])
        for name in names:
            if name in owner:
                raise PluginError(
                    f"figure function {name!r} is defined in both {owner[name]} and {rel}"
                )
            owner[name] = rel
            plan.functions.append((name, getattr(module, name)))
        plans.append(plan)
    return style, plans


def render_script(style, plan: ScriptPlan) -> dict[str, bytes]:
    """Draw every function of one script in every theme: ``{site path: SVG bytes}``.

    Raises ``PluginError`` naming the script, the function and the theme when drawing fails.
    """
    rendered: dict[str, bytes] = {}
    for name, fn in plan.functions:
        for theme in style.THEMES:
            try:
                svg = style.render_svg(fn, theme)
            except Exception as exc:  # noqa: BLE001
                raise PluginError(
                    f"figure script {plan.rel}, function {name}() ({theme.name} theme) failed: "
                    f"{type(exc).__name__}: {exc}"
                ) from exc
            rendered[f"figures/{plan.page}/{name}-{theme.name}.svg"] = svg
    return rendered


def figure_paths(style, plan: ScriptPlan) -> list[str]:
    """The site paths one script's figures will have (``figures/<page>/<function>-<theme>.svg``)."""
    return [
        f"figures/{plan.page}/{name}-{t.name}.svg"
        for name, _ in plan.functions
        for t in style.THEMES
    ]


def render_all_figures(
    root: Path, cache: dict[str, dict[str, bytes]] | None = None
) -> dict[str, bytes]:
    """Render every page's figures (``snippets/*/figures.py``) in every theme, synchronously.

    Returns ``{site path: SVG bytes}``. With a ``cache`` dict, scripts whose key is in it are not
    drawn again, and fresh renders are stored in it. Raises ``PluginError`` as ``plan_figures``
    and ``render_script`` do.
    """
    style, plans = plan_figures(root)
    out: dict[str, bytes] = {}
    for plan in plans:
        if cache is not None and plan.key in cache:
            out.update(cache[plan.key])
            continue
        rendered = render_script(style, plan)
        if cache is not None:
            cache[plan.key] = rendered
        out.update(rendered)
    return out


class _Background:
    """The figures being drawn for the current build, and where their SVGs go."""

    thread: threading.Thread | None = None
    error: BaseException | None = None
    folder: Path | None = None


def _draw_into(folder: Path, style, plans: list[ScriptPlan]) -> None:
    try:
        for plan in plans:
            rendered = render_script(style, plan)
            for uri, svg in rendered.items():
                (folder / uri).write_bytes(svg)
            _CACHE[plan.key] = rendered
    except BaseException as exc:  # noqa: BLE001 - re-raised in on_env
        _Background.error = exc


def on_files(files: Files, *, config: MkDocsConfig) -> Files:
    """Add every figure to the site's files and start drawing the ones not cached (MkDocs event)."""
    style, plans = plan_figures(_repo_root(config))
    todo = []
    for plan in plans:
        if plan.key in _CACHE:
            for uri, svg in _CACHE[plan.key].items():
                files.append(File.generated(config, uri, content=svg))
        else:
            todo.append(plan)
    if not todo:
        return files
    folder = Path(tempfile.mkdtemp(prefix="embedding-executed-figures-"))
    for plan in todo:
        (folder / "figures" / plan.page).mkdir(parents=True, exist_ok=True)
    for plan in todo:
        for uri in figure_paths(style, plan):
            files.append(File.generated(config, uri, abs_src_path=str(folder / uri)))
    _Background.folder, _Background.error = folder, None
    _Background.thread = threading.Thread(
        target=_draw_into, args=(folder, style, todo), name="figures", daemon=True
    )
    _Background.thread.start()
    return files


def on_env(env, *, config: MkDocsConfig, files: Files):
    """Wait for the figures before MkDocs copies files into the site (MkDocs event)."""
    if _Background.thread is not None:
        _Background.thread.join()
        _Background.thread = None
        if _Background.error is not None:
            error, _Background.error = _Background.error, None
            if isinstance(error, PluginError):
                raise error
            raise PluginError(f"figures failed: {type(error).__name__}: {error}") from error
    return env


def on_post_build(*, config: MkDocsConfig) -> None:
    """Remove the temporary folder once its SVGs are in the site (MkDocs event)."""
    if _Background.folder is not None:
        shutil.rmtree(_Background.folder, ignore_errors=True)
        _Background.folder = None
