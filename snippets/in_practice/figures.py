"""Figures for the article "Embeddings in practice".

Each public function takes a :class:`~snippets.figure_style.Theme` and returns a matplotlib
``Figure``; the build renders it to ``figures/in-practice/<function>-light.svg`` and ``-dark.svg``.
What is drawn is computed here, by the same code the page shows.
"""

from __future__ import annotations

import statistics
from functools import cache

from matplotlib.figure import Figure

from snippets.figure_style import Theme, new_figure
from snippets.in_practice.width_sweep import SEEDS, WIDTHS, sweep

__all__ = ["width_sweep"]


@cache
def _results() -> dict[int, list[float]]:
    """The sweep, run once per process for both palettes."""
    return sweep()


def width_sweep(theme: Theme) -> Figure:
    """Test MSE against ``embedding_dim`` (log axis): each seed a dot, the median a line, and the
    two rules of thumb for 100 categories (3 and 21) as dashed lines. Raises ``AssertionError``
    if the sweep's shape changes (best median not at 4 or 8)."""
    results = _results()
    medians = [statistics.median(results[d]) for d in WIDTHS]
    best = WIDTHS[medians.index(min(medians))]
    assert best in (4, 8), best

    fig = new_figure(theme, 4.8, 3.0)
    ax = fig.add_subplot()
    for d in WIDTHS:
        ax.scatter([d] * len(SEEDS), results[d], s=18, color=theme.second, alpha=0.8, zorder=3,
                   linewidths=0)
    ax.plot(WIDTHS, medians, color=theme.accent, marker="o", zorder=4, label="median of 5 seeds")
    for x, name in ((3, "4th root"), (21, "fastai")):
        ax.axvline(x, color=theme.muted, linestyle="--", linewidth=1)
        ax.text(x / 1.06, 0.03, name, color=theme.fg, fontsize=10, ha="right", va="bottom",
                transform=ax.get_xaxis_transform())
    ax.set_xscale("log", base=2)
    ax.set_xticks(WIDTHS, [str(d) for d in WIDTHS])
    ax.set_xlabel("embedding_dim", color=theme.fg, fontsize=11)
    ax.set_ylabel("test MSE", color=theme.fg, fontsize=11)
    ax.tick_params(colors=theme.fg, labelsize=10)
    for spine in ax.spines.values():
        spine.set_color(theme.muted)
    ax.set_ylim(0, 1.0)
    ax.legend(loc="upper right", fontsize=10, frameon=False, labelcolor=theme.fg)
    return fig
