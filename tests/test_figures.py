"""Every figure function renders, in both palettes, to byte-identical, self-contained SVG."""

from __future__ import annotations

import functools
import importlib
import re

import pytest
from matplotlib.figure import Figure

from scripts.hooks import figures as hook
from scripts.markdown_fences import ROOT
from snippets.figure_style import THEMES, render_svg

#: The snippets packages that have figures: ``lookup_tables``, ``sparsity``, ...
MODULES = [p.parent.name for p in hook.figure_scripts(ROOT)]
FUNCTIONS = [
    (mod, name)
    for mod in MODULES
    for name in importlib.import_module(f"snippets.{mod}.figures").__all__
]


@functools.cache
def rendered(mod: str, name: str, theme_name: str) -> bytes:
    """SVG bytes of one figure in one theme, drawn once per test session and shared by tests."""
    fn = getattr(importlib.import_module(f"snippets.{mod}.figures"), name)
    return render_svg(fn, next(t for t in THEMES if t.name == theme_name))


@pytest.mark.parametrize("theme", THEMES, ids=[t.name for t in THEMES])
@pytest.mark.parametrize("mod,name", FUNCTIONS, ids=[f"{m}.{n}" for m, n in FUNCTIONS])
def test_figure_renders_deterministic_svg(mod, name, theme):
    fn = getattr(importlib.import_module(f"snippets.{mod}.figures"), name)
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


def test_serve_cache_key_follows_the_sources_a_figure_can_depend_on(tmp_path):
    snippets = tmp_path / "snippets"
    for page in ("one", "two"):
        (snippets / page).mkdir(parents=True)
        (snippets / page / "figures.py").write_text("__all__ = []\n")
    (snippets / "figure_style.py").write_text("A = 1\n")
    (snippets / "data.json").write_text("[1]\n")
    scripts = hook.figure_scripts(tmp_path)
    one, two = snippets / "one" / "figures.py", snippets / "two" / "figures.py"
    assert scripts == [one, two]
    first = hook._cache_keys(tmp_path, scripts)
    assert first == hook._cache_keys(tmp_path, scripts)  # stable
    one.write_text("__all__ = []  # edited\n")
    edited = hook._cache_keys(tmp_path, scripts)
    assert edited[one] != first[one]
    assert edited[two] == first[two]  # other pages keep their SVGs
    (tmp_path / "snippets" / "data.json").write_text("[2]\n")
    data_changed = hook._cache_keys(tmp_path, scripts)
    assert all(data_changed[s] != edited[s] for s in scripts)  # data/helpers invalidate all


def test_cached_render_equals_fresh_render():
    cache: dict = {}
    fresh = hook.render_all_figures(ROOT, cache)
    assert cache, "nothing was cached"
    assert hook.render_all_figures(ROOT, cache) == fresh  # served from the cache
    # ...and equal to what the per-figure tests draw (fresh renders are deterministic).
    assert fresh == {
        f"figures/{hook.page_slug(mod)}/{name}-{t.name}.svg": rendered(mod, name, t.name)
        for mod, name in FUNCTIONS
        for t in THEMES
    }
