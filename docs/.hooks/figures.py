"""Build hook: render every figure function in ``snippets/figures/`` to SVG, in memory.

For each public module ``snippets/figures/<name>.py`` (modules starting with ``_`` are helpers)
every function listed in its ``__all__`` is called once per theme in
``snippets.figures._style.THEMES`` and added to the site as
``figures/<function>-<theme>.svg`` with MkDocs 1.6 ``File.generated``. Nothing is written into
``docs/`` (writing there would make ``mkdocs serve`` rebuild in a loop) and nothing generated is
committed. A page shows a figure with Material's palette suffixes::

    ![alt text](figures/onehot_selects_rows-light.svg#only-light)
    ![alt text](figures/onehot_selects_rows-dark.svg#only-dark)

A figure script that fails to import or draw aborts the build with a ``PluginError`` naming the
script and the function. Figure modules are re-imported on every build, so ``mkdocs serve``
shows an edited figure script without a restart.

Within one process (``mkdocs serve``), a figure module's SVGs are reused while nothing it could
depend on has changed: the cache key hashes the module's source together with every other file
under ``snippets/`` (data files and helpers included, other figure modules excluded). Editing a
page re-renders no figure; editing a figure script re-renders that script's figures; editing a
helper, snippet or data file re-renders all of them. A fresh ``mkdocs build`` always renders all.
"""

from __future__ import annotations

import hashlib
import importlib
import sys
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files

FIGURES_PACKAGE = "snippets.figures"

#: SVGs rendered earlier in this process: cache key -> {site path: SVG bytes}.
_CACHE: dict[str, dict[str, bytes]] = {}


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


def _cache_keys(root: Path, scripts: list[Path]) -> dict[Path, str]:
    """One key per figure script: sha256 of its source and of every other non-figure file under
    ``snippets/`` (so a change to a helper or a data file invalidates every figure)."""
    shared = hashlib.sha256()
    for path in sorted((root / "snippets").rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts and path not in scripts:
            shared.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes())
    base = shared.hexdigest()
    return {s: hashlib.sha256(base.encode() + s.read_bytes()).hexdigest() for s in scripts}


def render_all_figures(
    root: Path, cache: dict[str, dict[str, bytes]] | None = None
) -> dict[str, bytes]:
    """Render every figure of ``snippets/figures`` for every theme.

    Returns a mapping from site path (``figures/<function>-<theme>.svg``) to SVG bytes. With a
    ``cache`` dict, scripts whose key (see ``_cache_keys``) is already in it are not re-run, and
    fresh renders are stored in it. Raises ``PluginError`` naming the script (and function) when
    a script fails to import, a function fails to draw, or two scripts export the same name.
    """
    out: dict[str, bytes] = {}
    owner: dict[str, Path] = {}
    scripts = [
        p
        for p in sorted((root / "snippets" / "figures").glob("*.py"))
        if not p.name.startswith("_")
    ]
    keys = _cache_keys(root, scripts)
    if cache is not None and all(keys[s] in cache for s in scripts):
        for script in scripts:
            out.update(cache[keys[script]])
        return out
    try:
        style = _fresh_import(f"{FIGURES_PACKAGE}._style", root)
    except Exception as exc:  # noqa: BLE001 - reported with the script's name
        raise PluginError(
            f"figure helper snippets/figures/_style.py failed: {type(exc).__name__}: {exc}"
        ) from exc
    for script in scripts:
        rel = script.relative_to(root).as_posix()
        if cache is not None and keys[script] in cache:
            out.update(cache[keys[script]])
            owner.update(
                {uri.split("/")[1].rsplit("-", 1)[0]: Path(rel) for uri in cache[keys[script]]}
            )
            continue
        rendered: dict[str, bytes] = {}
        try:
            module = importlib.import_module(f"{FIGURES_PACKAGE}.{script.stem}")
        except Exception as exc:  # noqa: BLE001
            raise PluginError(
                f"figure script {rel} failed to import: {type(exc).__name__}: {exc}"
            ) from exc
        names = getattr(module, "__all__", None)
        if not names:
            raise PluginError(f"figure script {rel} has no __all__ listing its figure functions")
        for name in names:
            if name in owner:
                raise PluginError(
                    f"figure function {name!r} is defined in both {owner[name]} and {rel}"
                )
            owner[name] = Path(rel)
            fn = getattr(module, name)
            for theme in style.THEMES:
                try:
                    svg = style.render_svg(fn, theme)
                except Exception as exc:  # noqa: BLE001
                    raise PluginError(
                        f"figure script {rel}, function {name}() ({theme.name} theme) failed: "
                        f"{type(exc).__name__}: {exc}"
                    ) from exc
                rendered[f"figures/{name}-{theme.name}.svg"] = svg
        out.update(rendered)
        if cache is not None:
            cache[keys[script]] = rendered
    return out


def on_files(files: Files, *, config: MkDocsConfig) -> Files:
    """Add the rendered figures to the site's files (MkDocs event)."""
    for uri, svg in render_all_figures(_repo_root(config), _CACHE).items():
        files.append(File.generated(config, uri, content=svg))
    return files
