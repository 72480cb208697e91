"""Figures for the article "Layout transposition".

Each public function takes a :class:`~snippets.figure_style.Theme` and returns a matplotlib
``Figure``; the build hook renders it to ``figures/<function>-light.svg`` and ``-dark.svg``.
Every number drawn is computed here with PyTorch, and each function raises ``AssertionError`` if
PyTorch disagrees with what the picture claims.
"""

from __future__ import annotations

import torch
from matplotlib.figure import Figure
from matplotlib.patches import FancyArrowPatch, Rectangle

from snippets.figure_style import Theme, draw_grid, new_diagram

__all__ = ["layout_weights_side_by_side", "layout_tied_weight"]


def _fmt(x: float) -> str:
    return f"{x:.1f}".replace("-0.0", "0.0")


def _arrow(ax, start, end, color, *, style="-|>", lw=1.6, rad=0.0) -> None:
    ax.add_patch(
        FancyArrowPatch(start, end, arrowstyle=style, mutation_scale=14, color=color,
                        linewidth=lw, connectionstyle=f"arc3,rad={rad}")
    )


def layout_weights_side_by_side(theme: Theme) -> Figure:
    """``nn.Embedding(5, 3).weight`` (``[5, 3]``) beside ``nn.Linear(5, 3).weight`` (``[3, 5]``).

    The Linear holds the embedding's table transposed (copied in with ``copy_``), so id 2 is row 2
    on the left and column 2 on the right; the strides under each grid are read from the tensors.
    Values: ``nn.Embedding(5, 3)`` under ``torch.manual_seed(0)``.
    """
    v_ids, dim, hot = 5, 3, 2
    torch.manual_seed(0)
    emb = torch.nn.Embedding(v_ids, dim)
    lin = torch.nn.Linear(v_ids, dim, bias=False)
    with torch.no_grad():
        lin.weight.copy_(emb.weight.T)
    table, lin_w = emb.weight.detach(), lin.weight.detach()
    assert table.shape == (v_ids, dim) and lin_w.shape == (dim, v_ids)
    assert torch.equal(lin_w, table.T)
    assert torch.equal(lin_w[:, hot], table[hot])

    fig, ax = new_diagram(theme, 8.6, 3.7)

    top = 5.4
    x_e = 1.0
    draw_grid(ax, x_e, top, [[_fmt(v) for v in row] for row in table.tolist()], theme,
              highlight_rows=(hot,), fontsize=9)
    for v in range(v_ids):
        ax.text(x_e - 0.2, top - 0.5 - v, f"id {v}", ha="right", va="center",
                color=theme.accent if v == hot else theme.muted, fontsize=9)
    ax.text(x_e + dim / 2, top + 0.75, "nn.Embedding(5, 3).weight", ha="center", color=theme.fg,
            family="monospace", fontsize=10)
    ax.text(x_e + dim / 2, top + 0.3, "[num_embeddings=5, embedding_dim=3]", ha="center",
            color=theme.muted, fontsize=9)
    ax.text(x_e + dim / 2, top - v_ids - 0.45, f"stride {tuple(table.stride())}: id 2 is a row",
            ha="center", color=theme.fg, fontsize=9)

    _arrow(ax, (5.0, top - 2.5), (7.6, top - 2.5), theme.accent, style="<|-|>")
    ax.text(6.3, top - 2.15, ".T", ha="center", color=theme.accent, family="monospace",
            fontsize=12)
    ax.text(6.3, top - 3.1, "transpose", ha="center", color=theme.muted, fontsize=9)

    x_l = 8.4
    y_l = top - 1.0
    draw_grid(ax, x_l, y_l, [[_fmt(v) for v in row] for row in lin_w.tolist()], theme,
              highlight_cells=tuple((r, hot) for r in range(dim)), fontsize=9)
    for v in range(v_ids):
        ax.text(x_l + v + 0.5, y_l + 0.2, f"id {v}", ha="center", va="bottom",
                color=theme.accent if v == hot else theme.muted, fontsize=9)
    ax.text(x_l + v_ids / 2, top + 0.75, "nn.Linear(5, 3, bias=False).weight", ha="center",
            color=theme.fg, family="monospace", fontsize=10)
    ax.text(x_l + v_ids / 2, top + 0.3, "[out_features=3, in_features=5]", ha="center",
            color=theme.muted, fontsize=9)
    ax.text(x_l + v_ids / 2, y_l - dim - 0.45,
            f"stride {tuple(lin_w.stride())}: id 2 is a column", ha="center", color=theme.fg,
            fontsize=9)

    ax.set_xlim(-0.4, 13.8)
    ax.set_ylim(-0.4, 6.5)
    return fig


def layout_tied_weight(theme: Theme) -> Figure:
    """One ``[V=6, D=3]`` table used twice: gathered at the input, multiplied at the output.

    A tied model (``lm_head.weight = wte.weight``) looks up ids ``[1, 4]`` (rows 1 and 4) and
    turns a hidden state ``h`` of width 3 into 6 logits, logit ``v`` being ``h · W[v]``. Values:
    ``nn.Embedding(6, 3)``, then ``h = torch.randn(3)``, after ``torch.manual_seed(0)`` (``h`` is
    drawn before the Linear is built, whose initialisation would consume random numbers).
    """
    v_ids, dim, ids = 6, 3, [1, 4]
    torch.manual_seed(0)
    wte = torch.nn.Embedding(v_ids, dim)
    h = torch.randn(dim)  # right after the table, as the caption says
    lm_head = torch.nn.Linear(dim, v_ids, bias=False)
    lm_head.weight = wte.weight
    table = wte.weight.detach()
    with torch.no_grad():
        gathered = wte(torch.tensor(ids))
        logits = lm_head(h)
    assert lm_head.weight is wte.weight
    assert torch.equal(gathered, table[ids])
    torch.testing.assert_close(logits, table @ h)

    fig, ax = new_diagram(theme, 8.6, 3.9)

    top, x_w = 6.2, 5.2
    row_y = [top - 0.5 - v for v in range(v_ids)]
    draw_grid(ax, x_w, top, [[_fmt(v) for v in row] for row in table.tolist()], theme,
              highlight_rows=tuple(ids), fontsize=9)
    for v in range(v_ids):
        ax.text(x_w - 0.15, row_y[v], f"id {v}", ha="right", va="center",
                color=theme.accent if v in ids else theme.muted, fontsize=8)
    ax.text(x_w + dim / 2, top + 0.75, "wte.weight is lm_head.weight", ha="center",
            color=theme.fg, family="monospace", fontsize=10)
    ax.text(x_w + dim / 2, top + 0.3, "one Parameter  [V=6, D=3]", ha="center",
            color=theme.muted, fontsize=9)

    # Input end: the ids gather their rows.
    x_g, top_g = 0.3, top - 2.0
    ax.text(x_g, top + 0.55, "input: wte(ids)", ha="left", color=theme.accent,
            family="monospace", fontsize=9)
    ax.text(x_g, top + 0.05, "ids [1, 4] gather rows 1, 4", ha="left", color=theme.muted,
            fontsize=9)
    draw_grid(ax, x_g, top_g, [[_fmt(x) for x in row] for row in gathered.tolist()], theme,
              highlight_rows=(0, 1), fontsize=9)
    for r, v in enumerate(ids):
        _arrow(ax, (x_w - 0.75, row_y[v]), (x_g + dim + 0.1, top_g - 0.5 - r), theme.accent)
    ax.text(x_g + dim / 2, top_g - 2.45, "[2, D=3]", ha="center", color=theme.muted, fontsize=9)

    # Output end: h against every row gives one logit per row.
    x_h, x_o = 8.95, 12.0
    ax.text(x_h + 1.2, top + 0.3, "hidden state h", ha="center", color=theme.fg, fontsize=9)
    draw_grid(ax, x_h, top - 0.1, [[_fmt(x) for x in h.tolist()]], theme, cell=0.8, fontsize=8)
    _arrow(ax, (x_w + dim + 0.3, row_y[3]), (x_o - 0.2, row_y[3]), theme.second)
    ax.text((x_w + dim + x_o) / 2, row_y[3] - 0.45, "h @ W.T", ha="center", color=theme.second,
            family="monospace", fontsize=9)
    for v, value in enumerate(logits.tolist()):
        ax.add_patch(Rectangle((x_o, row_y[v] - 0.5), 1.2, 1.0, facecolor=theme.cell,
                               edgecolor=theme.second, linewidth=1.2))
        ax.text(x_o + 0.6, row_y[v], _fmt(value), ha="center", va="center", color=theme.fg,
                fontsize=9)
        ax.text(x_o + 1.35, row_y[v], f"h·W[{v}]", ha="left", va="center", color=theme.second,
                fontsize=8)
    ax.text(x_o + 0.6, top + 0.3, "logits [V=6]", ha="center", color=theme.fg, fontsize=9)
    ax.text(x_o + 0.6, top - v_ids - 0.45, "output: lm_head(h)", ha="center",
            color=theme.second, family="monospace", fontsize=9)

    ax.set_xlim(-0.1, 14.9)
    ax.set_ylim(-0.4, 7.2)
    return fig
