"""Figures for the article "One table across processes".

Each public function takes a :class:`~snippets.figure_style.Theme` and returns a matplotlib
``Figure``; the build renders it to ``figures/sharded-tables/<function>-light.svg`` and
``-dark.svg``. What is drawn is computed here with PyTorch (``torch.manual_seed(0)``), with the
same masked lookup the page runs on real ranks, and asserted, so the picture cannot drift.
``sharded_step_time`` is drawn from the benchmark record, in ``cost_figure.py``.
"""

from __future__ import annotations

import torch
from matplotlib.figure import Figure
from matplotlib.patches import FancyArrowPatch

from snippets.figure_style import Theme, draw_grid, new_diagram
from snippets.sharded_tables.by_hand import masked_lookup, row_range
from snippets.sharded_tables.cost_figure import sharded_step_time

__all__ = ["rows_across_ranks", "sharded_step_time"]

FONT = 10


def _cells(rows: list[list[float]]) -> list[list[str]]:
    return [[f"{x:.1f}".replace("-0.0", "0.0") for x in row] for row in rows]


def rows_across_ranks(theme: Theme) -> Figure:
    """An ``[11, 3]`` table cut row-wise on 2 ranks (rows 0–5 and 6–10) and the lookup of 7, 2, 5.

    Left: each rank's rows, the ones it looks up highlighted; middle: each rank's masked lookup
    (its rows, zeros for the other rank's ids); right: their sum, the all-reduce's result.
    Raises ``AssertionError`` if the sum differs from the one-process lookup.
    """
    torch.manual_seed(0)
    N, D, k = 11, 3, 2
    table = torch.nn.Embedding(N, D).weight.detach()
    ids = torch.tensor([7, 2, 5])
    partials = []
    for rank in range(k):
        start, stop = row_range(N, rank, k)
        partials.append((start, stop, masked_lookup(table[start:stop], ids, start)))
    total = sum(p for _, _, p in partials)
    assert torch.equal(total, table[ids])

    fig, ax = new_diagram(theme, 4.8, 5.0)
    y = 0.0
    tops = []
    for rank, (start, stop, partial) in enumerate(partials):
        own = tuple(v - start for v in ids.tolist() if start <= v < stop)
        draw_grid(ax, 0.9, y, _cells(table[start:stop].tolist()), theme, highlight_rows=own,
                  fontsize=FONT)
        for r in range(stop - start):
            ax.text(0.75, y - r - 0.5, str(start + r), ha="right", va="center", fontsize=FONT,
                    color=theme.muted)
        ax.text(0.0, y + 0.15, f"rank {rank}: rows {start}–{stop - 1}", ha="left", va="bottom",
                fontsize=FONT, color=theme.fg)
        mid = y - (stop - start) / 2 + len(ids) / 2
        held = tuple(i for i, v in enumerate(ids.tolist()) if start <= v < stop)
        draw_grid(ax, 5.4, mid, _cells(partial.tolist()), theme, highlight_rows=held,
                  fontsize=FONT)
        ax.add_patch(FancyArrowPatch((4.05, mid - 1.5), (5.25, mid - 1.5), arrowstyle="-|>",
                                     mutation_scale=10, color=theme.accent, linewidth=1.0))
        tops.append(mid)
        y -= stop - start + 1.2
    ax.text(5.4 + D / 2, tops[0] + 0.15, "ids 7, 2, 5", ha="center", va="bottom", fontsize=FONT,
            color=theme.fg)
    sum_top = (tops[0] + tops[1]) / 2
    for top in tops:
        ax.add_patch(FancyArrowPatch((8.55, top - 1.5), (9.75, sum_top - 1.5), arrowstyle="-|>",
                                     mutation_scale=10, color=theme.accent, linewidth=1.0))
    draw_grid(ax, 9.9, sum_top, _cells(total.tolist()), theme, fontsize=FONT)
    ax.text(9.9 + D / 2, sum_top + 0.15, "all-reduce (sum)", ha="center", va="bottom",
            fontsize=FONT, color=theme.fg)
    ax.set_xlim(-0.1, 13.1)
    ax.set_ylim(y + 1.0, 1.0)
    return fig
