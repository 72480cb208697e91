"""Every figure function renders, in both palettes, to byte-identical, self-contained SVG."""

from __future__ import annotations

import importlib
import re

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


@pytest.mark.parametrize("theme", THEMES, ids=[t.name for t in THEMES])
@pytest.mark.parametrize("mod,name", FUNCTIONS, ids=[f"{m}.{n}" for m, n in FUNCTIONS])
def test_figure_renders_deterministic_svg(mod, name, theme):
    fn = getattr(importlib.import_module(f"snippets.figures.{mod}"), name)
    assert isinstance(fn(theme), Figure)
    first, second = render_svg(fn, theme), render_svg(fn, theme)
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
        fn = getattr(importlib.import_module(f"snippets.figures.{mod}"), name)
        light, dark = (render_svg(fn, t) for t in THEMES)
        assert light != dark, f"{name}: dark variant is identical to the light one"
