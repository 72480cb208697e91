"""Figures for the article "The embedding table inside large models".

Each public function takes a :class:`~snippets.figure_style.Theme` and returns a matplotlib
``Figure``; the build hook renders it to ``figures/large-models/<function>-light.svg`` and
``-dark.svg``. The parameter shares are read from ``real_models.out``, the golden output of
``snippets/large_models/real_models.py``, which the test suite regenerates from the real
``transformers`` classes and compares (so the figure never imports ``transformers``, whose import
takes seconds).
"""

from __future__ import annotations

import re
from pathlib import Path

from matplotlib.figure import Figure

from snippets.figure_style import Theme, new_figure

__all__ = ["table_share_by_model"]

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
