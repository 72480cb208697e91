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

    fig, ax = new_diagram(theme, 8.6, 3.5)

    top = 4.2
    # one-hot: N x V
    x_oh = 0.8
    draw_grid(
        ax,
        x_oh,
        top - 0.4,
        [[str(int(v)) for v in row] for row in onehot.tolist()],
        theme,
        highlight_cells=tuple((r, i) for r, i in enumerate(IDS)),
    )
    for r, i in enumerate(IDS):
        ax.text(x_oh - 0.2, top - 0.9 - r, f"id {i}", ha="right", va="center", color=theme.muted)
    ax.text(x_oh + 2.5, top + 0.1, "one-hot  [N=3, V=5]", ha="center", color=theme.fg)

    ax.text(6.35, top - 1.9, "×", ha="center", va="center", fontsize=20, color=theme.fg)

    # weight: V x D
    x_w = 8.0
    draw_grid(
        ax,
        x_w,
        top + 0.6,
        [[_fmt(v) for v in row] for row in weight.tolist()],
        theme,
        highlight_rows=tuple(IDS),
        fontsize=9,
    )
    for v in range(NUM_EMBEDDINGS):
        ax.text(x_w - 0.2, top + 0.1 - v, f"row {v}", ha="right", va="center", color=theme.muted)
    ax.text(x_w + 1.5, top + 0.9, "weight  [V=5, D=3]", ha="center", color=theme.fg)

    ax.text(11.75, top - 1.9, "=", ha="center", va="center", fontsize=20, color=theme.fg)

    # output: N x D
    x_o = 12.5
    draw_grid(
        ax,
        x_o,
        top - 0.4,
        [[_fmt(v) for v in row] for row in out.tolist()],
        theme,
        highlight_rows=(0, 1, 2),
        fontsize=9,
    )
    ax.text(x_o + 1.5, top + 0.1, "output  [N=3, D=3]", ha="center", color=theme.fg)
    ax.text(
        x_o + 1.5,
        top - 4.0,
        "= weight[[2, 3, 1]]",
        ha="center",
        color=theme.accent,
        family="monospace",
    )

    ax.set_xlim(-0.6, 15.9)
    ax.set_ylim(-0.2, 5.2)
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

    fig, ax = new_diagram(theme, 8.0, 2.9)

    draw_grid(ax, 0.5, 3.0, [[str(v) for v in row] for row in idx.tolist()], theme)
    ax.text(2.0, 3.3, "idx  shape (2, 3)", ha="center", color=theme.fg)
    ax.text(2.0, 0.5, "integer ids (int64 or int32)", ha="center", color=theme.muted, fontsize=9)

    ax.add_patch(
        FancyArrowPatch(
            (4.2, 2.0),
            (6.2, 2.0),
            arrowstyle="-|>",
            mutation_scale=18,
            color=theme.accent,
            linewidth=1.8,
        )
    )
    ax.text(5.2, 2.35, "embedding(idx)", ha="center", color=theme.accent, family="monospace")

    # Output: each cell becomes a vector of `dim` small squares, drawn as a short stack.
    x0, y0, cell = 6.8, 3.0, 1.0
    sub = cell / dim
    for r in range(idx.shape[0]):
        for c in range(idx.shape[1]):
            cx, cy = x0 + c * (cell + 0.5), y0 - (r + 1) * cell
            for k in range(dim):
                ax.add_patch(
                    Rectangle(
                        (cx + k * sub, cy + 0.25),
                        sub,
                        0.5,
                        facecolor=theme.accent_fill,
                        edgecolor=theme.accent,
                        linewidth=0.8,
                    )
                )
            ax.text(
                cx + cell / 2,
                cy + 0.1,
                f"row {idx[r, c].item()}",
                ha="center",
                va="center",
                fontsize=8,
                color=theme.muted,
            )
    ax.text(x0 + 1.75, 3.3, "output  shape (2, 3, D=4)", ha="center", color=theme.fg)
    ax.text(x0 + 1.75, 0.5, "float32 rows of weight", ha="center", color=theme.muted, fontsize=9)

    ax.set_xlim(-0.2, 11.4)
    ax.set_ylim(0.2, 3.8)
    return fig
