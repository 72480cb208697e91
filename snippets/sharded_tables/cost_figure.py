"""The figure of the benchmark record ``bench_ranks.json``: time per training step on 1, 2 and 4
gloo processes, row-wise and column-wise.

``sharded_step_time(theme)`` is a figure function as the build calls them (a ``Theme`` in, a
matplotlib ``Figure`` out); a page's ``figures.py`` imports it and names it in ``__all__``.
Nothing here is typed in: the medians, interquartile ranges, machine, torch release and load
are read from the record that ``bench_ranks.py`` wrote. Run as a script, it draws both palettes
and checks each figure's width and the size of its smallest text on a phone.
"""

from __future__ import annotations

import json
from pathlib import Path

from matplotlib.figure import Figure

from snippets.figure_style import (
    MIN_TEXT_PX,
    PHONE_COLUMN_PX,
    THEMES,
    Theme,
    new_figure,
    render_svg,
    smallest_text_px,
)

RECORD = Path(__file__).with_name("bench_ranks.json")
#: Text size in points: at 4.8 in shown in a phone's 328 px column, 10 pt is about 9.5 CSS px.
FONT = 10
WIDTH_IN = 4.8


def load_record() -> dict:
    """The benchmark record ``RECORD`` (see ``bench_ranks.py`` for its fields)."""
    return json.loads(RECORD.read_text(encoding="utf-8"))


def sharded_step_time(theme: Theme) -> Figure:
    """Median milliseconds per training step (bars) and interquartile range (error bars) for
    each world size (1, 2, 4 ranks): row-wise as DTensor leaves the gradient, row-wise with the
    gradient hook that shards it, column-wise; the machine, torch release and highest 1-minute
    load average in the title; each bar labelled with its ratio to the same scheme on 1 rank."""
    record = load_record()
    rows = record["rows"]
    sizes = sorted({r["world_size"] for r in rows})
    schemes = [
        ("row-wise", "row-wise", theme.accent, theme.accent),
        ("row-wise, Shard(0) grad", "row-wise, gradient hook", theme.accent_fill, theme.accent),
        ("column-wise", "column-wise", theme.second, theme.second),
    ]
    fig = new_figure(theme, WIDTH_IN, 3.6)
    ax = fig.add_subplot()
    width = 0.28
    for i, (scheme, label, colour, edge) in enumerate(schemes):
        mine = {r["world_size"]: r for r in rows if r["scheme"] == scheme}
        xs = [sizes.index(k) + (i - 1) * width for k in sizes]
        medians = [mine[k]["median_s"] * 1e3 for k in sizes]
        iqrs = [mine[k]["iqr_s"] * 1e3 / 2 for k in sizes]
        ax.bar(xs, medians, width, color=colour, edgecolor=edge, linewidth=0.8, label=label,
               yerr=iqrs, error_kw={"ecolor": theme.fg, "elinewidth": 0.8, "capsize": 2})
        for x, k, m, iqr in zip(xs, sizes, medians, iqrs, strict=True):
            ax.annotate(f"×{mine[k]['ratio_to_1_rank']:.1f}", (x, m + 2 * iqr), ha="center",
                        va="bottom", rotation=90, fontsize=FONT, color=theme.fg,
                        xytext=(0, 2), textcoords="offset points")
    ax.set_xticks(range(len(sizes)), [f"{k} rank{'s' * (k > 1)}" for k in sizes])
    ax.set_ylabel("ms per step (median)", fontsize=FONT, color=theme.fg)
    ax.tick_params(colors=theme.fg, labelsize=FONT)
    for spine in ax.spines.values():
        spine.set_color(theme.muted)
    ax.grid(True, axis="y", color=theme.muted, alpha=0.25, linewidth=0.6)
    ax.set_axisbelow(True)
    ax.margins(y=0.3)
    ax.legend(fontsize=FONT, frameon=False, labelcolor=theme.fg, loc="upper center",
              bbox_to_anchor=(0.5, -0.12), ncols=2)
    m = record["machine"]
    load = record["load_average_1_5_15_min"]
    busiest = max(max(entry["before"][0], entry["after"][0]) for entry in load)
    ax.set_title(
        f"{m['cpu_model'][:28]}, {m['logical_cpus']} CPUs\n"
        f"torch {m['torch']}, gloo, load up to {busiest:.1f}",
        fontsize=FONT, color=theme.fg,
    )
    return fig


def main() -> None:
    for theme in THEMES:
        fig = sharded_step_time(theme)
        assert fig.get_figwidth() <= WIDTH_IN
        svg = render_svg(sharded_step_time, theme)
        assert smallest_text_px(svg, PHONE_COLUMN_PX) >= MIN_TEXT_PX


if __name__ == "__main__":
    main()
