"""Figures for the page "Benchmarks", drawn from the committed data sets at build time.

Every ``snippets/benchmarks/results/*.json`` written by ``snippets/benchmarks/lookup_vs_onehot.py``
is drawn; a second data set (a GPU run, another machine) appears without code changes. Nothing
here is typed in: times are the medians stored in the data (seconds per call).
"""

from __future__ import annotations

import math

from matplotlib.figure import Figure
from matplotlib.ticker import FixedLocator, FuncFormatter, LogLocator, NullFormatter

from snippets.benchmarks.lookup_vs_onehot import FORWARD, TRAIN, load_results
from snippets.figure_style import Theme, new_figure

__all__ = ["bench_time_vs_vocab", "bench_ratio_vs_vocab"]


def vocab_series(data: dict, pass_: str, method: str) -> tuple[list[int], list[float]]:
    """Vocabulary sizes and median seconds of ``method`` in the vocabulary sweep of ``data``.

    Returns two equal-length lists sorted by V; both empty if the data set lacks the method.
    """
    rows = sorted(
        (r for r in data["rows"]
         if r["sweep"] == "vocab" and r["pass"] == pass_ and r["method"] == method),
        key=lambda r: r["V"],
    )
    return [r["V"] for r in rows], [r["median_s"] for r in rows]


def dataset_title(data: dict) -> str:
    """A short name for a data set: device, GPU model (or CPU model and torch threads), and the
    torch release that measured it, e.g. ``"cuda: NVIDIA H200, torch 2.11.0+cu130"``."""
    m = data["machine"]
    where = m.get("gpu") or f"{m['cpu_model']}, {m['torch_threads']} thread(s)"
    return f"{m['device']}: {where}, torch {m['torch']}"


#: Every text of these figures is at least this size, in points: drawn 4.8 in wide and shown in a
#: phone's 328 px column, 10 pt comes out at about 9.5 CSS px.
FONT = 10


def si_label(x: float, units: tuple[tuple[float, str], ...]) -> str:
    """``x`` written with the largest unit of ``units`` (``(size, suffix)``, largest first) that
    it reaches, without trailing zeros: ``si_label(3e-5, SECONDS) == "30 µs"``."""
    size, suffix = next(((size, suffix) for size, suffix in units if x >= size * 0.999),
                        units[-1])
    return f"{x / size:.3g}{suffix}"


SECONDS = ((1.0, " s"), (1e-3, " ms"), (1e-6, " µs"), (1e-9, " ns"))
COUNT = ((1e6, "M"), (1e3, "k"), (1.0, ""))


def _style_axes(ax, theme: Theme, vocab: list[int], y_units: tuple) -> None:
    """Log-log axes with short tick labels: V at the measured sizes (``1k``, ``3k``, ...), y at
    its decades in ``y_units`` (``10 µs``, ``1k``), so no label needs a superscript."""
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.xaxis.set_major_locator(FixedLocator(vocab))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _: si_label(x, COUNT)))
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.yaxis.set_major_locator(LogLocator(base=10))
    ax.yaxis.set_major_formatter(FuncFormatter(lambda y, _: si_label(y, y_units)))
    ax.yaxis.set_minor_formatter(NullFormatter())
    ax.tick_params(colors=theme.fg, which="both", labelsize=FONT)
    for spine in ax.spines.values():
        spine.set_color(theme.muted)
    ax.grid(True, which="major", color=theme.muted, alpha=0.25, linewidth=0.6)


def bench_time_vs_vocab(theme: Theme) -> Figure:
    """Median time per call (s, log) against num_embeddings V (log), forward and forward+backward.

    Per data set in ``snippets/benchmarks/results/`` two panels, one above the other (forward on
    top, forward+backward below, same axes), headed by the data set's name; one legend below all
    of them. N and D are the base sizes of the vocabulary sweep stored in the data. Raises
    ``ValueError`` if there is no data.
    """
    sets = load_results()
    if not sets:
        raise ValueError("no data set in snippets/benchmarks/results/")
    # (method, label, colour, linestyle, marker); the legend fills its first column with the
    # products, its second with what copies rows.
    lines = [
        ("onehot_inside", "one_hot(idx) @ W", theme.second, "-", "s"),
        ("linear_onehot", "nn.Linear(one-hot)", theme.second, ":", "s"),
        ("sparse_csr", "torch CSR @ W", theme.fg, "-.", "^"),
        ("scipy_csr", "SciPy CSR @ W", theme.muted, "-", "v"),
        ("embedding", "F.embedding", theme.accent, "-", "o"),
        ("embedding_sparse", "F.embedding, sparse=True", theme.accent, "--", "o"),
        ("copy", "copy of the output", theme.muted, "--", None),
    ]
    fig = new_figure(theme, 4.8, 5.3 * len(sets) + 1.0)
    *panels, key = fig.subfigures(len(sets) + 1, 1, height_ratios=[5.3] * len(sets) + [1.0])
    handles: dict[str, object] = {}
    for data, sub in zip(sets, panels, strict=True):
        base = data["settings"]["sweep"]["vocab"]
        sub.suptitle(dataset_title(data), color=theme.fg, fontsize=FONT, fontweight="bold")
        axes = sub.subplots(2, 1, sharex=True, sharey=True)
        for ax, pass_ in zip(axes, (FORWARD, TRAIN), strict=True):
            for method, label, colour, ls, marker in lines:
                vs, ts = vocab_series(data, pass_, method)
                if vs:
                    (handles[label],) = ax.plot(vs, ts, color=colour, linestyle=ls,
                                                marker=marker, markersize=4, linewidth=1.5)
            _style_axes(ax, theme, base["V"], SECONDS)
            ax.set_title(f"{pass_}, N={base['N'][0]}, D={base['D'][0]}", color=theme.fg,
                         fontsize=FONT)
            ax.set_ylabel("time per call", color=theme.fg, fontsize=FONT)
        axes[-1].set_xlabel("num_embeddings V", color=theme.fg, fontsize=FONT)
    order = [label for _, label, *_ in lines if label in handles]
    key.legend([handles[label] for label in order], order, loc="center", ncols=2,
               frameon=False, fontsize=FONT, labelcolor=theme.fg, handlelength=2.2,
               columnspacing=1.2, borderaxespad=0)
    return fig


def fit_slope(xs: list[float], ys: list[float]) -> float:
    """Least-squares slope of log(ys) against log(xs): the exponent k in y ~ x**k.

    Raises ``ValueError`` with fewer than two points.
    """
    if len(xs) < 2:
        raise ValueError("need two points for a slope")
    lx, ly = [math.log(x) for x in xs], [math.log(y) for y in ys]
    mx, my = sum(lx) / len(lx), sum(ly) / len(ly)
    return sum((a - mx) * (b - my) for a, b in zip(lx, ly, strict=True)) / sum(
        (a - mx) ** 2 for a in lx
    )


def bench_ratio_vs_vocab(theme: Theme) -> Figure:
    """Time of the one-hot product over time of the lookup, against num_embeddings V (log-log).

    Three ratios per data set, all medians from one run: forward (one-hot built in the timing,
    over ``F.embedding``), forward+backward over ``F.embedding`` with its default dense gradient,
    and forward+backward over ``F.embedding(..., sparse=True)``. A dotted line of slope 1 through
    the first forward point shows what "linear in V" looks like. The legend, under the plot, gives
    each line's fitted slope. Raises ``ValueError`` if there is no data.
    """
    sets = load_results()
    if not sets:
        raise ValueError("no data set in snippets/benchmarks/results/")
    markers = "osD^v"
    fig = new_figure(theme, 4.8, 4.9 + 1.0 * (len(sets) - 1))  # room for the longer legend
    ax = fig.add_subplot()
    for k, data in enumerate(sets):
        m = data["machine"]
        tag = f"{m.get('gpu') or m['cpu_model']}:" if len(sets) > 1 else ""
        series = [  # (numerator pass, denominator method, label, colour, linestyle)
            (FORWARD, "embedding", "forward", theme.accent, "-"),
            (TRAIN, "embedding", "fwd+bwd vs dense gradient", theme.second, "-"),
            (TRAIN, "embedding_sparse", "fwd+bwd vs sparse=True", theme.second, "--"),
        ]
        for pass_, denom, label, colour, ls in series:
            vs, num = vocab_series(data, pass_, "onehot_inside")
            _, den = vocab_series(data, pass_, denom)
            if not vs or len(den) != len(vs):
                continue
            ratios = [a / b for a, b in zip(num, den, strict=True)]
            slope = fit_slope(vs, ratios)
            ax.plot(vs, ratios, color=colour, linestyle=ls, marker=markers[k % len(markers)],
                    markersize=4, linewidth=1.6,
                    label=f"{tag} {label}, slope {slope:.2f}".strip())
            if pass_ == FORWARD:
                ax.plot([vs[0], vs[-1]], [ratios[0], ratios[0] * vs[-1] / vs[0]],
                        color=theme.muted, linestyle=":", linewidth=1.2,
                        label="slope 1 (linear in V)" if k == 0 else None)
    _style_axes(ax, theme, sets[0]["settings"]["sweep"]["vocab"]["V"], COUNT)
    ax.set_xlabel("num_embeddings V", color=theme.fg, fontsize=FONT)
    ax.set_ylabel("one-hot time / lookup time", color=theme.fg, fontsize=FONT)
    fig.legend(*ax.get_legend_handles_labels(), loc="outside lower center", ncols=1,
               frameon=False, fontsize=FONT, labelcolor=theme.fg)
    return fig
