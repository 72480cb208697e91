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


def _panel_labels(ax, x: float, above: float, below: float, theme: Theme, name: str,
                  shape: str, stride: str) -> None:
    """Label one weight panel centred at ``x`` (data coordinates): its module's ``name`` and its
    ``shape`` above the grid (the shape's baseline at ``above``), its ``stride`` under it (top at
    ``below``)."""
    ax.text(x, above + 0.55, name, ha="center", va="bottom", color=theme.fg,
            family="monospace", fontsize=10)
    ax.text(x, above, shape, ha="center", va="bottom", color=theme.muted, fontsize=10)
    ax.text(x, below, stride, ha="center", va="top", color=theme.fg, fontsize=10)


def layout_weights_side_by_side(theme: Theme) -> Figure:
    """``nn.Embedding(5, 3).weight`` (``[5, 3]``) above ``nn.Linear(5, 3).weight`` (``[3, 5]``).

    The name is the figure's file name and stays; the two layouts are stacked so that they fit a
    phone's column. The Linear holds the embedding's table transposed (copied in with ``copy_``),
    so id 2 is row 2 in the upper grid and column 2 in the lower one; the strides under each grid
    are read from the tensors.
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

    # Stacked for a phone's column: the embedding's table on top, the Linear's below, a vertical
    # ".T" between them. 4.8 in wide with no text under 10 pt (about 9.5 CSS px at 328 px).
    fig, ax = new_diagram(theme, 4.8, 5.8)

    mid = 5.5  # the centre line both panels hang from
    top = 0.0
    x_e = mid - dim / 2
    draw_grid(ax, x_e, top, [[_fmt(v) for v in row] for row in table.tolist()], theme,
              highlight_rows=(hot,))
    for v in range(v_ids):
        ax.text(x_e - 0.15, top - 0.5 - v, f"id {v}", ha="right", va="center",
                color=theme.accent if v == hot else theme.muted, fontsize=10)
    _panel_labels(ax, mid, top + 0.2, top - v_ids - 0.25, theme, "nn.Embedding(5, 3).weight",
                  "[num_embeddings=5, embedding_dim=3]",
                  f"stride {tuple(table.stride())}: id 2 is a row")

    y_a = top - v_ids - 1.15  # the arrow's upper end
    _arrow(ax, (mid, y_a), (mid, y_a - 1.3), theme.accent, style="<|-|>")
    ax.text(mid + 0.3, y_a - 0.65, ".T", ha="left", va="center", color=theme.accent,
            family="monospace", fontsize=12)
    ax.text(mid - 0.3, y_a - 0.65, "transpose", ha="right", va="center", color=theme.muted,
            fontsize=10)

    y_l = y_a - 1.45 - 1.6  # top of the Linear's grid, below its title and id header
    x_l = mid - v_ids / 2
    draw_grid(ax, x_l, y_l, [[_fmt(v) for v in row] for row in lin_w.tolist()], theme,
              highlight_cells=tuple((r, hot) for r in range(dim)))
    for v in range(v_ids):
        ax.text(x_l + v + 0.5, y_l + 0.12, f"id {v}", ha="center", va="bottom",
                color=theme.accent if v == hot else theme.muted, fontsize=10)
    _panel_labels(ax, mid, y_l + 0.7, y_l - dim - 0.25, theme,
                  "nn.Linear(5, 3, bias=False).weight", "[out_features=3, in_features=5]",
                  f"stride {tuple(lin_w.stride())}: id 2 is a column")

    ax.set_xlim(mid - 5.6, mid + 5.6)
    ax.set_ylim(y_l - dim - 1.1, top + 1.45)
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

    # Narrowed for a phone's column: the input end left of the table, the output end right of
    # it, h under the table's columns. 4.8 in wide, no text under 10 pt (about 9.5 CSS px).
    fig, ax = new_diagram(theme, 4.8, 3.8)

    top, x_w = 0.0, 4.6
    row_y = [top - 0.5 - v for v in range(v_ids)]
    draw_grid(ax, x_w, top, [[_fmt(v) for v in row] for row in table.tolist()], theme,
              highlight_rows=tuple(ids))
    for v in range(v_ids):
        ax.text(x_w - 0.12, row_y[v], f"id {v}", ha="right", va="center",
                color=theme.accent if v in ids else theme.muted, fontsize=10)
    ax.text(x_w + dim / 2, top + 0.75, "wte.weight is lm_head.weight", ha="center",
            va="bottom", color=theme.fg, family="monospace", fontsize=10)
    ax.text(x_w + dim / 2, top + 0.2, "one Parameter [V=6, D=3]", ha="center", va="bottom",
            color=theme.muted, fontsize=10)

    # Input end: the ids gather their rows.
    x_g, top_g, c_g = 0.0, top - 2.1, 0.9  # the gathered rows, in slightly smaller cells
    ax.text(x_g, top_g + 1.05, "input: wte(ids)", ha="left", va="bottom", color=theme.accent,
            family="monospace", fontsize=10)
    ax.text(x_g, top_g + 0.15, "ids [1, 4]", ha="left", va="bottom", color=theme.muted,
            fontsize=10)
    draw_grid(ax, x_g, top_g, [[_fmt(x) for x in row] for row in gathered.tolist()], theme,
              highlight_rows=(0, 1), cell=c_g)
    for r, v in enumerate(ids):
        _arrow(ax, (x_w - 0.85, row_y[v]), (x_g + dim * c_g + 0.1, top_g - c_g * (r + 0.5)),
               theme.accent)
    ax.text(x_g + dim * c_g / 2, top_g - 2 * c_g - 0.15, "[2, D=3]", ha="center", va="top",
            color=theme.muted, fontsize=10)

    # Output end: h, drawn under the table's D columns, against every row gives one logit.
    y_h = top - v_ids - 0.35
    draw_grid(ax, x_w, y_h, [[_fmt(x) for x in h.tolist()]], theme)
    ax.add_patch(Rectangle((x_w, y_h - 1), dim, 1, fill=False, edgecolor=theme.second,
                           linewidth=1.4))
    ax.text(x_w - 0.12, y_h - 0.5, "hidden state h", ha="right", va="center",
            color=theme.second, fontsize=10)
    x_o = x_w + dim + 2.0
    _arrow(ax, (x_w + dim + 0.15, row_y[3]), (x_o - 0.15, row_y[3]), theme.second)
    ax.text((x_w + dim + x_o) / 2, row_y[3] - 0.3, "h @ W.T", ha="center", va="top",
            color=theme.second, family="monospace", fontsize=10)
    for v, value in enumerate(logits.tolist()):
        ax.add_patch(Rectangle((x_o, row_y[v] - 0.5), 1.0, 1.0, facecolor=theme.cell,
                               edgecolor=theme.second, linewidth=1.2))
        ax.text(x_o + 0.5, row_y[v], _fmt(value), ha="center", va="center", color=theme.fg,
                fontsize=10)
        ax.text(x_o + 1.12, row_y[v], f"h·W[{v}]", ha="left", va="center", color=theme.second,
                fontsize=10)
    ax.text(x_o + 0.5, top + 0.2, "logits", ha="center", va="bottom", color=theme.fg,
            fontsize=10)
    ax.text(x_o + 0.9, y_h - 0.5, "output: lm_head(h)", ha="center", va="center",
            color=theme.second, family="monospace", fontsize=10)

    ax.set_xlim(x_g - 0.1, x_o + 2.4)
    ax.set_ylim(y_h - 1.3, top + 1.4)
    return fig
