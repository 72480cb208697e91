"""Figures for the home page and the article "Embeddings as lookup tables".

Each public function takes a :class:`~snippets.figure_style.Theme` and returns a matplotlib
``Figure``; the build hook renders it to ``figures/<function>-light.svg`` and ``-dark.svg``.
The numbers drawn are computed with PyTorch here, not typed in.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from matplotlib.figure import Figure
from matplotlib.patches import FancyArrowPatch, Rectangle

from snippets.figure_style import Theme, draw_grid, new_diagram

__all__ = ["onehot_selects_rows", "index_shape_to_output"]

#: The batch drawn in the one-hot figure, and the table it indexes.
IDS = [2, 3, 1]
NUM_EMBEDDINGS = 5
EMBEDDING_DIM = 3


def _fmt(x: float) -> str:
    return f"{x:.1f}".replace("-0.0", "0.0")


def onehot_selects_rows(theme: Theme) -> Figure:
    """One-hot ``[3, 5]`` times weight ``[5, 3]`` equals the rows 2, 3, 1 of the weight.

    The weight is ``nn.Embedding(5, 3)``'s initial table under ``torch.manual_seed(0)``; the
    output is computed twice (``F.embedding`` and the one-hot product) and the function raises
    ``AssertionError`` if they differ, so the picture cannot drift from what PyTorch does.
    """
    torch.manual_seed(0)
    weight = torch.nn.Embedding(NUM_EMBEDDINGS, EMBEDDING_DIM).weight.detach()
    idx = torch.tensor(IDS)
    onehot = F.one_hot(idx, NUM_EMBEDDINGS).float()
    out = F.embedding(idx, weight)
    torch.testing.assert_close(onehot @ weight, out)

    # Drawn for a phone's column: the product on top (one-hot x weight), its result below,
    # under the weight's columns. Every text is at least 10 pt on a 4.8 in figure (about 9.5 CSS
    # px when a 360 px phone shows it 328 px wide).
    fig, ax = new_diagram(theme, 4.8, 4.2)

    # weight: V x D, top right; the one-hot is centred on it.
    x_w, top_w = 7.6, 0.0
    draw_grid(
        ax,
        x_w,
        top_w,
        [[_fmt(v) for v in row] for row in weight.tolist()],
        theme,
        highlight_rows=tuple(IDS),
    )
    for v in range(NUM_EMBEDDINGS):
        ax.text(x_w + EMBEDDING_DIM + 0.15, top_w - 0.5 - v, f"row {v}", ha="left", va="center",
                color=theme.accent if v in IDS else theme.muted, fontsize=10)
    ax.text(x_w + 1.5, top_w + 0.2, "weight [V=5, D=3]", ha="center", va="bottom",
            color=theme.fg, fontsize=10)

    # one-hot: N x V, top left
    x_oh, top_oh = 1.3, top_w - 1.0
    draw_grid(
        ax,
        x_oh,
        top_oh,
        [[str(int(v)) for v in row] for row in onehot.tolist()],
        theme,
        highlight_cells=tuple((r, i) for r, i in enumerate(IDS)),
    )
    for r, i in enumerate(IDS):
        ax.text(x_oh - 0.15, top_oh - 0.5 - r, f"id {i}", ha="right", va="center",
                color=theme.muted, fontsize=10)
    ax.text(x_oh + 2.5, top_oh + 0.2, "one-hot [N=3, V=5]", ha="center", va="bottom",
            color=theme.fg, fontsize=10)

    ax.text(x_oh + 5.65, top_oh - 1.5, "×", ha="center", va="center", fontsize=18,
            color=theme.fg)

    # output: N x D, under the weight's columns
    top_o = top_w - 6.0
    draw_grid(
        ax,
        x_w,
        top_o,
        [[_fmt(v) for v in row] for row in out.tolist()],
        theme,
        highlight_rows=(0, 1, 2),
    )
    for r, i in enumerate(IDS):
        ax.text(x_w + EMBEDDING_DIM + 0.15, top_o - 0.5 - r, f"row {i}", ha="left", va="center",
                color=theme.accent, fontsize=10)
    ax.text(x_w + 1.5, top_o + 0.2, "output [N=3, D=3]", ha="center", va="bottom",
            color=theme.fg, fontsize=10)
    ax.text(x_w - 0.65, top_o - 1.5, "=", ha="center", va="center", fontsize=18,
            color=theme.fg)
    ax.text(x_w + 1.5, top_o - 3.3, "= weight[[2, 3, 1]]", ha="center", va="top",
            color=theme.accent, family="monospace", fontsize=10)

    ax.set_xlim(-0.1, 12.0)
    ax.set_ylim(top_o - 4.2, top_w + 0.9)
    return fig


def index_shape_to_output(theme: Theme) -> Figure:
    """An index tensor of shape ``(2, 3)`` becomes an output of shape ``(2, 3, D)``, ``D = 4``.

    Every id is replaced by its row of the table, so the output keeps the index shape and adds
    one trailing dimension of size ``embedding_dim``. Raises ``AssertionError`` if PyTorch's
    output shape disagrees with the drawing.
    """
    idx = torch.tensor([[4, 0, 2], [1, 1, 3]])
    dim = 4
    out = torch.nn.Embedding(5, dim)(idx)
    assert out.shape == (*idx.shape, dim)

    # Sized for a phone's column, as the figure above: 4.8 in wide, no text under 10 pt.
    fig, ax = new_diagram(theme, 4.8, 2.1)

    top = 2.0
    draw_grid(ax, 0.0, top, [[str(v) for v in row] for row in idx.tolist()], theme,
              fontsize=11)
    ax.text(1.5, top + 0.2, "idx shape (2, 3)", ha="center", va="bottom", color=theme.fg,
            fontsize=10)
    ax.text(1.5, -0.25, "int64 or int32 ids", ha="center", va="top", color=theme.muted, fontsize=10)

    ax.add_patch(
        FancyArrowPatch(
            (3.3, 1.0),
            (5.2, 1.0),
            arrowstyle="-|>",
            mutation_scale=16,
            color=theme.accent,
            linewidth=1.8,
        )
    )
    ax.text(4.25, 1.2, "emb(idx)", ha="center", va="bottom", color=theme.accent,
            family="monospace", fontsize=10)

    # Output: each cell becomes a vector of `dim` small squares, drawn as a short stack.
    x0, cell, step = 5.6, 1.2, 1.55
    sub = cell / dim
    for r in range(idx.shape[0]):
        for c in range(idx.shape[1]):
            cx, cy = x0 + c * step, top - (r + 1) * 1.0
            for k in range(dim):
                ax.add_patch(
                    Rectangle(
                        (cx + k * sub, cy + 0.45),
                        sub,
                        0.4,
                        facecolor=theme.accent_fill,
                        edgecolor=theme.accent,
                        linewidth=0.8,
                    )
                )
            ax.text(
                cx + cell / 2,
                cy + 0.38,
                f"row {idx[r, c].item()}",
                ha="center",
                va="top",
                fontsize=10,
                color=theme.muted,
            )
    x_mid = x0 + (2 * step + cell) / 2
    ax.text(x_mid, top + 0.2, "output shape (2, 3, D=4)", ha="center", va="bottom", color=theme.fg,
            fontsize=10)
    ax.text(x_mid, -0.25, "float32 rows of weight", ha="center", va="top", color=theme.muted,
            fontsize=10)

    ax.set_xlim(-0.1, x0 + 2 * step + cell + 0.1)
    ax.set_ylim(-0.8, top + 0.7)
    return fig
