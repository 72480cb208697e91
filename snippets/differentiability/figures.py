"""Figures for the article "Differentiability".

Each public function takes a :class:`~snippets.figure_style.Theme` and returns a matplotlib
``Figure``; the build hook renders it to ``figures/<function>-light.svg`` and ``-dark.svg``.
The numbers drawn come from the page's own snippets (``snippets/differentiability/``), computed
with PyTorch when the figure is drawn.

Both figures use one axes without ticks, with matrices drawn by ``pcolormesh`` at offsets and
labelled with plain text: tick machinery and colorbars are what make a figure slow to lay out,
and ``imshow`` would embed a PNG (a ``data:`` URI) in the SVG.
"""

from __future__ import annotations

import numpy as np
from matplotlib.colors import ListedColormap, TwoSlopeNorm
from matplotlib.figure import Figure
from matplotlib.patches import Patch

from snippets.differentiability import optimizers, scatter_add
from snippets.figure_style import Theme, new_diagram

__all__ = ["grad_heatmap_repeated_id", "rows_moved_per_step"]

#: The smallest font size used, in points: the figures are drawn at most 4.8 in wide, so on a
#: phone's 328 px column this text is shown at 10 * 328 / (4.8 * 72) = 9.5 px or more.
_TEXT = 10


def _matrix(ax, x: float, values: np.ndarray, **kwargs) -> None:
    """Draw ``values`` as unit cells with the top-left corner at ``(x, 0)``, row 0 on top.

    The axes' y axis must point down (``ax.set_ylim(bottom, top)`` with ``bottom > top``).
    ``kwargs`` go to ``pcolormesh`` (colormap, norm, edge colour).
    """
    rows, cols = values.shape
    ax.pcolormesh(np.arange(cols + 1) + x, np.arange(rows + 1), values, **kwargs)


def grad_heatmap_repeated_id(theme: Theme) -> Figure:
    """Upstream gradient ``[6, 4]`` and the resulting ``weight.grad`` ``[8, 4]``, as heatmaps.

    The batch is ``scatter_add.IDS`` (id 1 three times; ids 0, 2, 4, 7 absent) and the numbers
    are :func:`snippets.differentiability.scatter_add.example`. Both matrices share one diverging
    colour scale centred on zero (the theme's ``cmap``: red positive, blue negative, white zero).
    Upstream rows of the repeated id and the row they add up in are labelled in the accent
    colour; each ``weight.grad`` row carries its lookup count. Raises ``AssertionError`` if a
    row with count zero is not exactly zero, so the picture cannot contradict the page.

    Drawn 4.8 in wide with 10 pt text at the least, so that it stays legible in a phone's
    328 px column: the two matrices sit side by side with short labels (``id 1``, ``row 1``)
    and two-line titles that fit over their four columns.
    """
    idx, upstream, grad = scatter_add.example()
    ids = idx.reshape(-1).tolist()
    up = upstream.reshape(len(ids), -1).numpy()
    g = grad.numpy()
    counts = np.bincount(ids, minlength=g.shape[0])
    assert not g[counts == 0].any()

    limit = float(max(np.abs(up).max(), np.abs(g).max()))
    style = dict(
        cmap=theme.cmap,
        norm=TwoSlopeNorm(vcenter=0.0, vmin=-limit, vmax=limit),
        edgecolors=theme.page_bg,
        linewidth=1.0,
    )
    repeated = {i for i in ids if ids.count(i) > 1}

    fig, ax = new_diagram(theme, 4.8, 3.45)

    x_up, x_g = 0.0, 8.5
    _matrix(ax, x_up, up, **style)
    for n, i in enumerate(ids):
        colour = theme.accent if i in repeated else theme.fg
        ax.text(x_up - 0.15, n + 0.5, f"id {i}", ha="right", va="center", color=colour,
                fontsize=_TEXT)
    ax.text(x_up + 2, -0.3, "upstream\ngradient [6, 4]", ha="center", va="bottom",
            color=theme.fg, fontsize=_TEXT)

    ax.text(5.7, 3.55, "scatter-add\nby id", ha="center", va="bottom", color=theme.muted,
            fontsize=_TEXT)
    ax.annotate(
        "", xy=(7.0, 4.0), xytext=(4.4, 4.0),
        arrowprops=dict(arrowstyle="-|>", color=theme.accent, linewidth=1.6),
    )

    _matrix(ax, x_g, g, **style)
    for v, n in enumerate(counts):
        colour = theme.accent if v in repeated else theme.fg
        ax.text(x_g - 0.15, v + 0.5, f"row {v}", ha="right", va="center", color=colour,
                fontsize=_TEXT)
        label = f"×{n}" if n else "0"
        ax.text(x_g + 4.15, v + 0.5, label, ha="left", va="center",
                color=colour if n else theme.muted, fontsize=_TEXT)
    ax.text(x_g + 2, -0.3, "weight.grad\n[8, 4]", ha="center", va="bottom", color=theme.fg,
            fontsize=_TEXT)

    ax.set_xlim(-1.3, x_g + 5.0)
    ax.set_ylim(g.shape[0] + 0.05, -1.9)
    return fig


#: The optimizers drawn, one panel each: key of ``optimizers.OPTIMIZERS`` -> panel title.
PANELS = {
    "SGD": "SGD",
    "Adam": "Adam",
    "AdamW": "AdamW",
    "SparseAdam (sparse=True)": "SparseAdam",
}


def rows_moved_per_step(theme: Theme) -> Figure:
    """Which table rows changed at each of four steps, for SGD, Adam, AdamW and SparseAdam.

    One grid per optimizer, two grids a row (4.8 in wide, so that the text stays legible on a
    phone): rows ``0..5`` of a ``[6, 3]`` table down, steps ``1..4`` across, each column
    labelled with the ids of that step's batch. A cell is accent-coloured when the row moved
    and was in that step's batch, second-coloured when it moved without being looked up, and
    plain when it did not move. The data are
    :func:`snippets.differentiability.optimizers.rows_moved`, run when the figure is drawn.
    """
    batches = optimizers.BATCHES
    rows, steps = optimizers.NUM_EMBEDDINGS, len(batches)
    cmap = ListedColormap([theme.cell, theme.accent, theme.second])

    fig, ax = new_diagram(theme, 4.8, 5.9)

    per_row = 2
    cw = 1.3  # cell width: wider than tall, so that a batch such as "0,1" fits under its column
    gap_x = 0.9  # between the two grids of a row
    pitch_y = rows + 2.9  # grid, batch labels under it, title of the grid below
    for k, (name, title) in enumerate(PANELS.items()):
        x = (k % per_row) * (steps * cw + gap_x)
        y = (k // per_row) * pitch_y
        state = np.zeros((rows, steps))
        for t, moved in enumerate(optimizers.rows_moved(name)):
            for r in moved:
                state[r, t] = 1 if r in batches[t] else 2
        ax.pcolormesh(np.arange(steps + 1) * cw + x, np.arange(rows + 1) + y, state, cmap=cmap,
                      vmin=0, vmax=2, edgecolors=theme.page_bg, linewidth=1.5)
        ax.text(x + steps * cw / 2, y - 0.3, title, ha="center", va="bottom", color=theme.fg,
                fontsize=_TEXT + 1)
        for t, batch in enumerate(batches):
            ax.text(x + (t + 0.5) * cw, y + rows + 0.5, ",".join(map(str, batch)), ha="center",
                    va="center", color=theme.muted, fontsize=_TEXT)
        if k % per_row == 0:
            for r in range(rows):
                ax.text(x - 0.15, y + r + 0.5, f"row {r}", ha="right", va="center",
                        color=theme.fg, fontsize=_TEXT)
            ax.text(x - 0.15, y + rows + 0.5, "batch", ha="right", va="center",
                    color=theme.muted, fontsize=_TEXT)
    fig.legend(
        handles=[
            Patch(facecolor=theme.accent, label="moved, in the step's batch"),
            Patch(facecolor=theme.second, label="moved, not in the batch"),
            Patch(facecolor=theme.cell, edgecolor=theme.muted, label="did not move"),
        ],
        loc="outside lower center",
        ncols=1,
        frameon=False,
        labelcolor=theme.fg,
        fontsize=_TEXT,
    )
    width = per_row * (steps * cw + gap_x) - gap_x
    n_rows = -(-len(PANELS) // per_row)
    ax.set_xlim(-1.6, width + 0.05)
    ax.set_ylim(n_rows * pitch_y - 1.9, -1.3)
    return fig
