"""Figures for the article "The embedding table inside large models".

Each public function takes a :class:`~snippets.figure_style.Theme` and returns a matplotlib
``Figure``; the build hook renders it to ``figures/large-models/<function>-light.svg`` and
``-dark.svg``. The parameter shares are read from ``real_models.out``, the golden output of
``snippets/large_models/real_models.py``, which the test suite regenerates from the real
``transformers`` classes and compares (so the figure never imports ``transformers``, whose import
takes seconds). The sharding diagram is computed with the page's ``RowWiseShardedEmbedding``.
"""

from __future__ import annotations

import re
from pathlib import Path

import torch
from matplotlib.figure import Figure
from matplotlib.patches import FancyArrowPatch, Rectangle

from snippets.figure_style import Theme, draw_grid, new_diagram, new_figure
from snippets.large_models.sharded_table import RowWiseShardedEmbedding

__all__ = ["table_share_by_model", "rowwise_sharding"]

OUT = Path(__file__).with_name("real_models.out")
ROW = re.compile(r"^(?P<name>.+?)\s+\[\d+, \d+\]\s+(?:yes|no)\s+[\d.]+M\s+"
                 r"(?P<tables>[\d.]+)%\s+(?P<ends>[\d.]+)%")


def parameter_shares(path: Path = OUT) -> dict[str, tuple[float, float]]:
    """Model name -> (percent of parameters in embedding tables, percent with an untied head).

    Read from the table at the top of ``real_models.out``. Raises ``ValueError`` if it does not
    hold the four models' rows.
    """
    shares = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        m = ROW.match(line)
        if m:
            shares[m["name"]] = (float(m["tables"]), float(m["ends"]))
    if len(shares) != 4:
        raise ValueError(f"expected 4 model rows in {path.name}, found {sorted(shares)}")
    return shares


def table_share_by_model(theme: Theme) -> Figure:
    """Horizontal bars, one per model: the share of parameters in embedding tables (accent), an
    untied output matrix of the same size (second colour), and the rest (cell colour), in %."""
    shares = sorted(parameter_shares().items(), key=lambda kv: kv[1][0])
    fig = new_figure(theme, 7.2, 2.8)
    ax = fig.add_subplot()
    for y, (_, (tables, ends)) in enumerate(shares):
        ax.barh(y, tables, color=theme.accent, edgecolor=theme.fg, linewidth=0.6)
        ax.barh(y, ends - tables, left=tables, color=theme.second, edgecolor=theme.fg,
                linewidth=0.6)
        ax.barh(y, 100 - ends, left=ends, color=theme.cell, edgecolor=theme.muted, linewidth=0.6)
        label = f"{tables:.1f} %" + (f" + {ends - tables:.1f} % untied head" if ends > tables
                                      else "")
        ax.text(ends + 1.5, y, label, va="center", ha="left", fontsize=10, color=theme.fg)
    ax.set_yticks(range(len(shares)), [name for name, _ in shares], color=theme.fg)
    ax.set_xlim(0, 100)
    ax.set_xlabel("share of all parameters (%)", color=theme.fg)
    ax.tick_params(colors=theme.fg)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    for side in ("left", "bottom"):
        ax.spines[side].set_color(theme.muted)
    return fig


def rowwise_sharding(theme: Theme) -> Figure:
    """A ``[10, 4]`` table in three row-wise shards (4, 4 and 2 rows) and six ids routed to them.

    Left: the ids; middle: each shard's rows labelled with their global ids, the rows looked up
    highlighted; right: the result, one row per id in input order. Raises ``AssertionError`` if
    the sharded lookup differs from the unsharded one.
    """
    torch.manual_seed(0)
    V, D, k = 10, 4, 3
    table = torch.nn.Embedding(V, D).weight.detach()
    sharded = RowWiseShardedEmbedding(table, num_shards=k)
    ids = torch.tensor([9, 0, 4, 3, 3, 7])
    assert torch.equal(sharded(ids), table[ids])
    per = sharded.rows_per_shard

    fig, ax = new_diagram(theme, 7.6, 5.4)
    # ids, as a column on the left
    draw_grid(ax, 0, 13, [[str(v)] for v in ids.tolist()], theme, cell=1.0)
    ax.text(0.5, 13.4, "ids", ha="center", va="bottom", fontsize=10, color=theme.fg)

    # shards, stacked in the middle, with a gap between them
    shard_top = {}
    y = 14.0
    for s, shard in enumerate(sharded.shards):
        n = shard.num_embeddings
        wanted = tuple(sorted({v % per for v in ids.tolist() if v // per == s}))
        labels = [[f"{x:.1f}".replace("-0.0", "0.0") for x in row] for row in
                  shard.weight.detach().tolist()]
        draw_grid(ax, 5, y, labels, theme, highlight_rows=wanted, cell=0.8, fontsize=7)
        for r in range(n):
            ax.text(4.8, y - (r + 0.5) * 0.8, f"{s * per + r}", ha="right", va="center",
                    fontsize=8, color=theme.muted)
        ax.text(5 + D * 0.8 + 0.2, y - n * 0.4, f"shard {s}\nrows {s * per}–{s * per + n - 1}",
                ha="left", va="center", fontsize=9, color=theme.fg)
        shard_top[s] = y
        y -= n * 0.8 + 0.8

    # arrows from each id to its row in its shard
    for i, v in enumerate(ids.tolist()):
        s, r = divmod(v, per)
        start = (1.05, 13 - i - 0.5)
        end = (4.2, shard_top[s] - (r + 0.5) * 0.8)
        ax.add_patch(FancyArrowPatch(start, end, arrowstyle="-|>", mutation_scale=10,
                                     color=theme.accent, linewidth=1.0))

    # the result, in input order
    out = [[f"{x:.1f}".replace("-0.0", "0.0") for x in row] for row in sharded(ids).tolist()]
    draw_grid(ax, 11.6, 13, out, theme, cell=0.8, fontsize=7)
    ax.text(11.6 + D * 0.4, 13.4, "rows, in input order", ha="center", va="bottom", fontsize=10,
            color=theme.fg)
    ax.add_patch(Rectangle((11.3, 13 - len(ids) * 0.8), 0.05, len(ids) * 0.8, color=theme.muted))
    ax.set_xlim(-0.5, 15.2)
    ax.set_ylim(y - 0.2, 14.6)
    return fig
