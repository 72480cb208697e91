"""The figure above a page's first <h2> loads at once (scripts/build/first_figure.py)."""

from __future__ import annotations

from scripts.build.first_figure import eager_first_figure

PAIR = ('<figure><img alt="A" loading="lazy" src="../figures/p/a-light.svg#only-light" />'
        '<img alt="A" loading="lazy" src="../figures/p/a-dark.svg#only-dark" /></figure>')


def test_top_figure_light_variant_is_eager_dark_stays_lazy():
    out = eager_first_figure(f"<h1>T</h1><p>x</p>{PAIR}<h2>S</h2>{PAIR}")
    assert out.count('fetchpriority="high"') == 1 and out.count('loading="lazy"') == 3
    assert '<img alt="A" fetchpriority="high" src="../figures/p/a-light.svg#only-light" />' in out
    assert out.index('fetchpriority') < out.index("<h2>")


def test_figure_below_the_first_section_heading_stays_lazy():
    page = f"<h1>T</h1><p>x</p><h2>S</h2>{PAIR}"
    assert eager_first_figure(page) == page
