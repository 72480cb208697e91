"""Figures for the article "From text to ids: tokenizers, vocabularies and pretrained vectors".

``tok_vocab_vs_length`` trains the tokenizers of ``snippets/tokenizers/train_subwords.py`` on the
diary when the site builds (well under a second) and plots what it measures;
``tok_grown_table`` draws the table of ``snippets/tokenizers/grow_table.py`` before and after
three rows are appended, from the numbers that file computes. Each function raises
``AssertionError`` if the picture would contradict what the page says.
"""

from __future__ import annotations

import torch
from matplotlib.figure import Figure
from matplotlib.patches import FancyArrowPatch
from matplotlib.ticker import FuncFormatter, MultipleLocator
from torch import nn

from snippets.figure_style import Theme, draw_grid, new_diagram, new_figure
from snippets.tokenizers.grow_table import TiedLM
from snippets.tokenizers.train_subwords import EMBEDDING_DIM, read_lines, tradeoff

__all__ = ["tok_vocab_vs_length", "tok_grown_table"]

#: The smallest text of these figures, in points: at 4.8 in wide, shown in a phone's 328 px
#: column, 10 pt comes out at about 9.5 CSS px.
FONT = 10


def tok_vocab_vs_length(theme: Theme) -> Figure:
    """Tokens needed for the diary against vocabulary size, for two subword tokenizers.

    x: vocabulary size (rows of the embedding table; a top axis gives the table's parameters at
    ``EMBEDDING_DIM`` columns); y: tokens for the whole diary. One line per tokenizer kind (BPE,
    byte-level BPE), named next to it, and one point for the word-level vocabulary. Asserted:
    every line falls as the vocabulary grows, and character-level BPE ends on the word-level token
    count.
    """
    lines = read_lines()
    results = tradeoff(lines)
    words_v, words_n = results["words"][0]
    assert results["BPE"][-1][1] == words_n

    fig = new_figure(theme, 4.8, 4.3)
    ax = fig.add_subplot()
    styles = {  # name -> line style, and where its name is written (data coordinates)
        "BPE": (dict(color=theme.accent, marker="o", ls="-"), (105, 1900)),
        "byte-level BPE": (dict(color=theme.second, marker="s", ls="--"), (425, 1850)),
    }
    for name, (style, at) in styles.items():
        v, n = zip(*results[name], strict=True)
        assert list(n) == sorted(n, reverse=True)
        ax.plot(v, n, lw=1.8, ms=5, **style)
        ax.text(*at, name, ha="left", va="center", fontsize=FONT, color=style["color"])
    ax.plot([words_v], [words_n], marker="*", ms=14, ls="none", color=theme.accent,
            markeredgecolor=theme.fg)
    ax.annotate(f"whole words: {words_v} ids, {words_n} tokens,\nbut no way to spell a new word",
                (words_v + 4, words_n + 40), xytext=(75, 2665), textcoords="data", va="top",
                fontsize=FONT, color=theme.fg,
                arrowprops=dict(arrowstyle="->", color=theme.muted, relpos=(0.45, 0.0)))
    ax.set_xlabel("vocabulary size = rows of the table", color=theme.fg, fontsize=FONT)
    ax.set_ylabel("tokens for the 4.3 KB diary", color=theme.fg,  # 4,337 characters
                  fontsize=FONT)
    top = ax.secondary_xaxis("top", functions=(lambda v: v * EMBEDDING_DIM,
                                               lambda p: p / EMBEDDING_DIM))
    top.xaxis.set_major_locator(MultipleLocator(10_000))
    top.xaxis.set_major_formatter(FuncFormatter(lambda p, _: f"{p / 1000:.0f}k"))
    top.set_xlabel(f"table parameters at embedding_dim = {EMBEDDING_DIM}", color=theme.fg,
                   fontsize=FONT)
    for axis in (ax, top):
        axis.tick_params(colors=theme.muted, labelcolor=theme.fg, labelsize=FONT)
    for spine in ax.spines.values():
        spine.set_color(theme.muted)
    ax.grid(True, color=theme.muted, alpha=0.25, lw=0.6)
    # The ranges the page's description gives: y about 900 to 2,700, x about 10 to 680.
    assert tuple(round(y, -2) for y in ax.get_ylim()) == (900, 2700)
    assert tuple(round(x, -1) for x in ax.get_xlim()) == (10, 680)
    return fig


def tok_grown_table(theme: Theme) -> Figure:
    """A 6-row table (3 columns shown) before and after growing by 2 rows, and its tied head.

    Left: the old table. Right: the same 6 rows (bit for bit, asserted) and 2 new rows equal to
    the column means of the old ones (asserted), highlighted, with their label to their left
    under the old table; a note under both says the output layer's weight is the same tensor
    (asserted with ``is``).
    """
    torch.manual_seed(0)
    lm = TiedLM(nn.Embedding(6, 3))
    old = lm.embed.weight.detach().clone()
    lm.grow(2)
    new = lm.embed.weight.detach()
    assert torch.equal(new[:6], old) and torch.equal(new[6:], old.mean(0).expand(2, 3))
    assert lm.head.weight is lm.embed.weight

    def labels(t: torch.Tensor) -> list[list[str]]:
        return [[f"{x:+.2f}" for x in row] for row in t.tolist()]

    assert labels(new[6:]) == [["-0.05", "+0.61", "+0.31"]] * 2  # as the page describes them

    # One unit is one cell, about 38 pt on a 4.8 in figure: wide enough for "+0.57" at FONT.
    fig, ax = new_diagram(theme, 4.8, 5.6)
    draw_grid(ax, 0, 8, labels(old), theme, fontsize=FONT)
    draw_grid(ax, 5, 8, labels(new), theme, highlight_rows=(6, 7), fontsize=FONT)
    for r in range(8):
        ax.text(4.85, 8 - (r + 0.5), f"{r}", ha="right", va="center", fontsize=FONT,
                color=theme.accent if r >= 6 else theme.muted)
    for r in range(6):
        ax.text(-0.15, 8 - (r + 0.5), f"{r}", ha="right", va="center", fontsize=FONT,
                color=theme.muted)
    ax.text(1.5, 8.2, "before: [6, 3]", ha="center", va="bottom", fontsize=FONT, color=theme.fg)
    ax.text(6.5, 8.2, "after grow(2): [8, 3]", ha="center", va="bottom", fontsize=FONT,
            color=theme.fg)
    ax.add_patch(FancyArrowPatch((3.1, 5), (4.45, 5), arrowstyle="-|>", mutation_scale=14,
                                 color=theme.muted))
    ax.text(3.8, 5.25, "copied\nbit for bit", ha="center", va="bottom", fontsize=FONT,
            color=theme.fg)
    # the rows 6 and 7 of the new table have nothing to their left: their note goes there
    ax.text(4.35, 1.0, "new rows:\nmean of rows 0-5", ha="right", va="center", fontsize=FONT,
            color=theme.accent)
    ax.text(3.75, -0.35, "head.weight is embed.weight:\nthe output layer grows with it",
            ha="center", va="top", fontsize=FONT, color=theme.fg)
    ax.set_xlim(-0.6, 8.1)
    ax.set_ylim(-1.6, 8.8)
    return fig
