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

#: The smallest text of these figures, in points: at 4.8 in wide, shown in a phone's 328 px
#: column, 10 pt comes out at about 9.5 CSS px.
FONT = 10

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
    fig = new_figure(theme, 4.8, 2.7)
    ax = fig.add_subplot()
    for y, (_, (tables, ends)) in enumerate(shares):
        ax.barh(y, tables, color=theme.accent, edgecolor=theme.fg, linewidth=0.6)
        ax.barh(y, ends - tables, left=tables, color=theme.second, edgecolor=theme.fg,
                linewidth=0.6)
        ax.barh(y, 100 - ends, left=ends, color=theme.cell, edgecolor=theme.muted, linewidth=0.6)
        label = f"{tables:.1f} %" + (f" + {ends - tables:.1f} % untied head" if ends > tables
                                      else "")
        ax.text(ends + 1.5, y, label, va="center", ha="left", fontsize=FONT, color=theme.fg)
    ax.set_yticks(range(len(shares)), [name for name, _ in shares], color=theme.fg)
    ax.set_xlim(0, 100)
    ax.set_xticks(range(0, 101, 25))
    ax.set_xlabel("share of all parameters (%)", color=theme.fg, fontsize=FONT)
    ax.tick_params(colors=theme.fg, labelsize=FONT)
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

    def cells(rows: list[list[float]]) -> list[list[str]]:
        return [[f"{x:.1f}".replace("-0.0", "0.0") for x in row] for row in rows]

    # One unit is one cell, about 27 pt on a 4.8 in figure: wide enough for "-1.1" at FONT.
    fig, ax = new_diagram(theme, 4.8, 4.9)
    # ids, a column on the left; its rows line up with the result's rows on the right
    draw_grid(ax, 0, 0, [[str(v)] for v in ids.tolist()], theme, fontsize=FONT)
    ax.text(0.5, 0.15, "ids", ha="center", va="bottom", fontsize=FONT, color=theme.fg)

    # shards, stacked in the middle, each under its name, rows labelled with their global ids
    shard_top = {}
    y = 0.0
    for s, shard in enumerate(sharded.shards):
        n = shard.num_embeddings
        wanted = tuple(sorted({v % per for v in ids.tolist() if v // per == s}))
        draw_grid(ax, 3.4, y, cells(shard.weight.detach().tolist()), theme,
                  highlight_rows=wanted, fontsize=FONT)
        for r in range(n):
            ax.text(3.25, y - r - 0.5, f"{s * per + r}", ha="right", va="center",
                    fontsize=FONT, color=theme.muted)
        ax.text(3.4, y + 0.15, f"shard {s}: rows {s * per}–{s * per + n - 1}", ha="left",
                va="bottom", fontsize=FONT, color=theme.fg)
        shard_top[s] = y
        y -= n + 0.9

    # arrows from each id to its row in its shard
    for i, v in enumerate(ids.tolist()):
        s, r = divmod(v, per)
        ax.add_patch(FancyArrowPatch((1.05, -i - 0.5), (2.75, shard_top[s] - r - 0.5),
                                     arrowstyle="-|>", mutation_scale=10, color=theme.accent,
                                     linewidth=1.0))

    # the result, in input order
    draw_grid(ax, 8.1, 0, cells(sharded(ids).tolist()), theme, fontsize=FONT)
    ax.text(8.1 + D / 2, 0.15, "rows, in input order", ha="center", va="bottom", fontsize=FONT,
            color=theme.fg)
    ax.add_patch(Rectangle((7.85, -len(ids)), 0.06, len(ids), color=theme.muted))
    ax.set_xlim(-0.1, 12.2)
    ax.set_ylim(y + 0.8, 0.9)
    return fig
