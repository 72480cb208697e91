"""Every figure function renders, in both palettes, to byte-identical, self-contained SVG."""

from __future__ import annotations

import functools
import importlib
import re
import sys

import pytest
from matplotlib.figure import Figure

from snippets.figures._style import THEMES, render_svg
from tests.fences import ROOT

MODULES = sorted(
    p.stem for p in (ROOT / "snippets" / "figures").glob("*.py") if not p.name.startswith("_")
)
FUNCTIONS = [
    (mod, name)
    for mod in MODULES
    for name in importlib.import_module(f"snippets.figures.{mod}").__all__
]


@functools.cache
def rendered(mod: str, name: str, theme_name: str) -> bytes:
    """SVG bytes of one figure in one theme, drawn once per test session and shared by tests."""
    fn = getattr(importlib.import_module(f"snippets.figures.{mod}"), name)
    return render_svg(fn, next(t for t in THEMES if t.name == theme_name))


@pytest.mark.parametrize("theme", THEMES, ids=[t.name for t in THEMES])
@pytest.mark.parametrize("mod,name", FUNCTIONS, ids=[f"{m}.{n}" for m, n in FUNCTIONS])
def test_figure_renders_deterministic_svg(mod, name, theme):
    fn = getattr(importlib.import_module(f"snippets.figures.{mod}"), name)
    assert isinstance(fn(theme), Figure)
    first, second = rendered(mod, name, theme.name), render_svg(fn, theme)
    assert first == second, f"{name}: two renders differ"
    text = first.decode("utf-8")
    assert text.lstrip().startswith("<?xml") and "<svg" in text
    assert "<dc:date>" not in text, "SVG carries a date"
    # Nothing in the figure points outside the file.
    external = re.findall(r'(?:xlink:)?href="(?!#)([^"]+)"', text)
    assert not external, f"{name}: SVG references {external}"
    assert theme.fg.lower() in text.lower(), f"{name}: does not use its theme's text colour"


def test_light_and_dark_variants_differ():
    for mod, name in FUNCTIONS:
        light, dark = (rendered(mod, name, t.name) for t in THEMES)
        assert light != dark, f"{name}: dark variant is identical to the light one"


def _figures_hook():
    import importlib.util

    spec = importlib.util.spec_from_file_location("figures_hook", ROOT / "docs/.hooks/figures.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["figures_hook"] = module  # as MkDocs registers hooks (dataclasses need it)
    spec.loader.exec_module(module)
    return module


def test_serve_cache_key_follows_the_sources_a_figure_can_depend_on(tmp_path):
    hook = _figures_hook()
    figs = tmp_path / "snippets" / "figures"
    figs.mkdir(parents=True)
    (figs / "_style.py").write_text("A = 1\n")
    (figs / "one.py").write_text("__all__ = []\n")
    (figs / "two.py").write_text("__all__ = []\n")
    (tmp_path / "snippets" / "data.json").write_text("[1]\n")
    scripts = [figs / "one.py", figs / "two.py"]
    first = hook._cache_keys(tmp_path, scripts)
    assert first == hook._cache_keys(tmp_path, scripts)  # stable
    (figs / "one.py").write_text("__all__ = []  # edited\n")
    edited = hook._cache_keys(tmp_path, scripts)
    assert edited[figs / "one.py"] != first[figs / "one.py"]
    assert edited[figs / "two.py"] == first[figs / "two.py"]  # other scripts keep their SVGs
    (tmp_path / "snippets" / "data.json").write_text("[2]\n")
    data_changed = hook._cache_keys(tmp_path, scripts)
    assert all(data_changed[s] != edited[s] for s in scripts)  # data/helpers invalidate all


def test_cached_render_equals_fresh_render():
    hook = _figures_hook()
    cache: dict = {}
    fresh = hook.render_all_figures(ROOT, cache)
    assert cache, "nothing was cached"
    assert hook.render_all_figures(ROOT, cache) == fresh  # served from the cache
    # ...and equal to what the per-figure tests draw (fresh renders are deterministic).
    assert fresh == {
        f"figures/{name}-{t.name}.svg": rendered(mod, name, t.name)
        for mod, name in FUNCTIONS
        for t in THEMES
    }
